"""The option groups (``referee/cli/groups.py``): every command that plays matches takes every
match limit but those it says mean nothing there, each limit means the same on every command,
a field added to ``MatchLimits`` becomes an option of all of them, and the command line wins
over a tournament's file, which wins over the default."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from referee.cli import app
from referee.cli.groups import limit_options
from referee.settings import MatchLimits, field_types

#: The commands that play matches (or ask a bot as a match seat), and the limits each leaves
#: out: a person's match forfeits every fault; a bot asked alone goes on as the log did.
PLAYING: dict[tuple[str, ...], set[str]] = {
    ("match",): set(),
    ("tournament",): set(),
    ("play",): {"on_fault", "max_strikes"},
    ("check-bot",): set(),
    ("league", "init"): set(),
    ("ask",): {
        "pace",
        "freeze_idle",
        "time_bank",
        "max_rejections",
        "on_fault",
        "max_strikes",
        "max_hands",
        "stderr_limit",
    },
}
FIELD_OF = limit_options().fields


def command(path: tuple[str, ...]) -> Any:
    found: Any = typer.main.get_command(app)
    for name in path:
        found = found.commands[name]
    return found


def limit_params(path: tuple[str, ...]) -> dict[str, Any]:
    """The command's limit options, by the field each sets."""
    return {FIELD_OF[p.name]: p for p in command(path).params if p.name in FIELD_OF}


@pytest.mark.parametrize("path", PLAYING, ids=" ".join)
def test_every_command_that_plays_takes_every_limit_but_those_it_leaves_out(
    path: tuple[str, ...],
) -> None:
    assert set(limit_params(path)) == set(field_types(MatchLimits)) - PLAYING[path]


def test_each_limit_means_the_same_on_every_command() -> None:
    for field, (_, description) in field_types(MatchLimits).items():
        forms = set()
        for path in PLAYING:
            param = limit_params(path).get(field)
            if param is None:
                continue
            forms.add((
                tuple(param.opts), param.metavar, param.min, param.max,
                param.type_descriptor.annotation, param.rich_help_panel,
            ))  # fmt: skip
            assert description and param.help.startswith(description), (path, field)
            default = getattr(MatchLimits(), field)
            if param.is_flag:  # given or not: a file's or the logged match's value stands
                assert param.default is None and default is None, (path, field)
            elif param.default is None:  # a file or the logged match may set it: the help says
                assert " Default: " in param.help, (path, field)
            else:
                assert param.default == default, (path, field)
        assert len(forms) == 1, (field, forms)


#: Arguments that let each command reach its options' checks.
ARGUMENTS: dict[tuple[str, ...], list[str]] = {
    ("check-bot",): ["x"], ("league", "init"): ["x.db"], ("ask",): ["x.jsonl", "1", "x"],
}  # fmt: skip


@pytest.mark.parametrize("field", ["move_timeout", "startup_timeout", "time_bank"])
def test_each_limit_of_seconds_refuses_the_same_values_everywhere(field: str) -> None:
    runner = CliRunner()
    said = set()
    for path in PLAYING:
        if field not in limit_params(path):
            continue
        flag = limit_params(path)[field].opts[0]
        for value in ("nan", "100000"):
            refused = runner.invoke(app, [*path, *ARGUMENTS.get(path, []), flag, value])
            assert refused.exit_code == 2, (path, refused.output)
            said.add(" ".join(refused.output.split("give seconds")[1].split()[:4]))
    assert len(said) == 1, said


PROBE = """
import json, sys
from typing import Annotated
import msgspec
import referee.settings as settings

class Wider(settings.MatchLimits, frozen=True, kw_only=True):
    think_ms: Annotated[int, msgspec.Meta(ge=5, le=50, description="Milliseconds to think.")] = 7

settings.MatchLimits = Wider
import typer.main
from referee.cli import app
top = typer.main.get_command(app)
found = {}
for path in json.loads(sys.argv[1]):
    command = top
    for name in path:
        command = command.commands[name]
    param = next((p for p in command.params if p.name == "think_ms"), None)
    found[" ".join(path)] = param and [param.opts, param.min, param.max, param.help]
print(json.dumps(found))
"""


def test_a_field_added_to_the_limits_is_an_option_of_every_command_that_plays() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(PLAYING))],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(run.stdout)
    assert set(found) == {" ".join(path) for path in PLAYING}
    for name, option in found.items():
        assert option is not None, name
        opts, low, high, help_text = option
        assert (opts, low, high) == (["--think-ms"], 5, 50), name
        assert help_text.startswith("Milliseconds to think."), name


def test_the_command_line_wins_over_the_file_which_wins_over_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import referee.tournament.driver as driver

    seen: list[Any] = []

    def run(config: Any, output: Any, report: Any = None) -> Any:
        seen.append(config)
        return driver.Outcome()

    monkeypatch.setattr(driver, "run", run)
    bot = f"{sys.executable} {Path(__file__).parents[2] / 'example_bots' / 'random_bot.py'}"
    (tmp_path / "t.toml").write_text(
        textwrap.dedent(f"""
        seeds = 1
        sandbox = "off"
        [match]
        move_timeout = 3.0
        memory_mb = 512
        max_line_bytes = 4096
        [[bot]]
        name = "a"
        command = "{bot}"
        [[bot]]
        name = "b"
        command = "{bot}"
        """)
    )
    given = ["--move-timeout", "2", "--max-line-bytes", "8192", "--sandbox", "auto"]
    result = CliRunner().invoke(
        app,
        ["tournament", str(tmp_path / "t.toml"), "--results", str(tmp_path / "r.jsonl"), *given],
    )
    assert result.exit_code == 0, result.output
    limits = seen[0].settings.limits
    assert (limits.move_timeout, limits.max_line_bytes) == (2.0, 8192)  # the command line's
    assert limits.memory_mb == 512  # the file's
    assert limits.time_bank == MatchLimits().time_bank  # the default
    assert seen[0].sandbox.mode == "auto"


def test_league_init_keeps_the_limits_given_and_the_defaults(tmp_path: Path) -> None:
    from referee.league.runner import limits_of
    from referee.league.store import League

    db = tmp_path / "l.db"
    given = ["--max-line-bytes", "2048", "--on-fault", "random", "--file-size-limit", "8"]
    result = CliRunner().invoke(app, ["league", "init", str(db), *given])
    assert result.exit_code == 0, result.output
    league = League.open(db)
    try:
        limits = limits_of(league)
    finally:
        league.close()
    wanted = MatchLimits(max_line_bytes=2048, on_fault="random", file_size_mb=8)
    assert limits == wanted


def test_check_bot_checks_under_the_limits_given(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.checkbot as checkbot

    seen: list[MatchLimits] = []

    class Stop(Exception):
        pass

    def check_bot(command: str, *, limits: MatchLimits, **rest: Any) -> Any:
        seen.append(limits)
        raise Stop

    monkeypatch.setattr(checkbot, "check_bot", check_bot)
    given = ["--max-hands", "5", "--on-fault", "random", "--memory-limit", "2048"]
    result = CliRunner().invoke(app, ["check-bot", f"{sys.executable} -c pass", *given])
    assert isinstance(result.exception, Stop), result.output
    assert seen == [MatchLimits(max_hands=5, on_fault="random", memory_mb=2048)]
