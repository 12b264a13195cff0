"""A tournament's configuration: a TOML file with the command line over it, the seed a resumed
tournament takes from its results, and every bad configuration refused in one line (exit 2)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.tournaments import (
    INSTANT,
    PYTHON,
    ROOT,
    entrants_of,
    planned,
    settings_of,
    tournament_cli,
)

from referee.running.executors import default_jobs
from referee.running.jobs import Entrant
from referee.running.results import ResultsFile, read_results
from referee.settings import MatchLimits, SandboxSettings
from referee.tournament.config import (
    TournamentError,
    TournamentOptions,
    configure,
    read_options,
)
from referee.tournament.plan import plan
from referee.tournament.sprt import Sprt

pytestmark = pytest.mark.usefixtures("commands_may_start")


def _bot_table(*names: str, command: str = INSTANT) -> str:
    return "".join(f"[[bot]]\nname = {name!r}\ncommand = {command!r}\n\n" for name in names)


def test_toml_config_with_command_line_overrides(tmp_path: Path) -> None:
    config = tmp_path / "tournament.toml"
    results = tmp_path / "out" / "results.jsonl"
    config.write_text(
        'format = "gauntlet"\nseeds = 3\nseed = 11\njobs = 2\n'
        f"results = {str(results)!r}\n\n"
        + _bot_table("hero", "villain1", "villain2")
        + "[match]\nmax_hands = 50\nmove_timeout = 2.0\n"
    )
    done = tournament_cli(str(config), "--seeds", "1", "--move-timeout", "3", "--json")
    assert done.returncode == 0, done.stderr
    header, recorded = read_results(results)
    settings = header.settings
    assert [entrant.name for entrant in settings.entrants] == ["hero", "villain1", "villain2"]
    assert settings.entrants[0].command == INSTANT
    assert (settings.seeds, settings.seed, settings.format) == (1, 11, "gauntlet")
    assert settings.limits.max_hands == 50  # from the file
    assert settings.limits.move_timeout == 3.0  # the command line wins
    assert sorted(r.match_id for r in recorded) == sorted(
        job.match_id for job in plan(settings, Path())
    )
    assert len(recorded) == 2 * 1 * 2  # two gauntlet pairings, one seed, two legs
    assert {(r.first, r.second) for r in recorded} == {
        ("hero", "villain1"),
        ("villain1", "hero"),
        ("hero", "villain2"),
        ("villain2", "hero"),
    }
    document = json.loads(done.stdout)
    assert document["matches"] == document["planned"] == 4
    assert document["results"] == str(results)
    assert (results.parent / "logs").is_dir()


def test_command_line_options_override_the_file(tmp_path: Path) -> None:
    config = tmp_path / "tournament.toml"
    config.write_text(
        'format = "gauntlet"\nseeds = 3\nseed = 11\njobs = 3\nsprt = "0,5"\n'
        + _bot_table("x", "y")
        + "[match]\nmax_hands = 50\nmove_timeout = 2.0\n"
    )
    configured = configure(TournamentOptions(), config)
    settings = configured.settings
    assert [e.name for e in settings.entrants] == ["x", "y"]
    assert (settings.seeds, settings.seed, settings.format, configured.jobs) == (
        3,
        11,
        "gauntlet",
        3,
    )
    assert (settings.limits.max_hands, settings.limits.move_timeout) == (50, 2.0)
    assert configured.sprt == Sprt(0, 5)
    # Three entrants on the command line: the file's test of two is taken out.
    config.write_text(config.read_text().replace('sprt = "0,5"\n', ""))
    configured = configure(
        TournamentOptions(
            bot=[Entrant("p", "cmd-p"), Entrant("q", "cmd-q"), Entrant("r", "cmd-r")],
            seeds=2,
            seed=0,  # zero is a seed like any other
            format="round-robin",
            jobs=1,
            match={"move_timeout": 0.5},
        ),
        config,
    )
    settings = configured.settings
    assert [(e.name, e.command) for e in settings.entrants] == [
        ("p", "cmd-p"),
        ("q", "cmd-q"),
        ("r", "cmd-r"),
    ]
    assert (settings.seeds, settings.seed, settings.format, configured.jobs) == (
        2,
        0,
        "round-robin",
        1,
    )
    assert (settings.limits.max_hands, settings.limits.move_timeout) == (50, 0.5)


def test_the_configuration_fills_every_default(tmp_path: Path) -> None:
    """What a tournament gets when only its entrants and seeds are given."""
    configured = configure(TournamentOptions(bot=entrants_of("a", "b"), seeds=1))
    assert configured.results == Path("tournament/results.jsonl")
    assert configured.logs == Path("tournament/logs")
    assert configured.jobs == default_jobs()
    assert configured.settings.format == "round-robin"
    assert configured.settings.limits == MatchLimits()
    assert 0 <= configured.settings.seed < 2**64
    assert configured.sandbox == SandboxSettings()
    assert (configured.dask, configured.sprt) == (None, None)
    assert configured.warm and not configured.report and not configured.resume


def test_sandbox_paths_and_variables_come_from_both_the_file_and_the_command_line(
    tmp_path: Path,
) -> None:
    config = tmp_path / "tournament.toml"
    config.write_text(
        f'seeds = 1\nsandbox = "off"\nsandbox_allow = [{str(tmp_path)!r}]\n'
        'sandbox_env = ["FROM_FILE"]\nfresh_bots = true\n' + _bot_table("a", "b")
    )
    given = TournamentOptions(
        sandbox="strict", sandbox_allow=[str(config)], sandbox_env=["FROM_LINE"], report=True
    )
    configured = configure(given, config)
    assert configured.sandbox == SandboxSettings(
        mode="strict", allow=(str(tmp_path), str(config)), env=("FROM_FILE", "FROM_LINE")
    )
    assert not configured.warm and configured.report  # either may ask


def test_resume_without_seed_takes_the_seed_from_the_results_file(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    settings = settings_of(("a", "b"), seeds=2, seed=987654321)
    ResultsFile.open(results, settings, planned(settings), resume=False).close()
    options = TournamentOptions(bot=entrants_of("a", "b"), seeds=2, results=str(results))
    resumed = configure(options, resume=True).settings
    assert resumed.seed == 987654321 and resumed.fingerprint() == settings.fingerprint()


def test_the_example_configuration_loads() -> None:
    """``example_bots/tournament.toml``, as the docs run it from the repository's root."""
    example = ROOT / "example_bots" / "tournament.toml"
    options = read_options(example)
    assert [entrant.name for entrant in options.bot] == ["heuristic", "random"]
    assert (options.seeds, options.format, options.sandbox) == (20, "round-robin", "auto")
    assert options.match == {
        "move_timeout": 1.0,
        "on_fault": "forfeit",
        "memory_mb": 1024,
        "max_processes": 128,
    }
    configured = configure(TournamentOptions(), example)
    assert configured.results == Path("tournament/example/results.jsonl")
    assert configured.settings.limits == MatchLimits(move_timeout=1.0)
    heuristic = [sys.executable, str(ROOT / "example_bots" / "heuristic_bot.py")]
    assert options.bot[0].command == "bundled:heuristic"  # the file names a bundled bot
    assert configured.settings.entrants[0].command == shlex.join(heuristic)  # and it runs this


_TWO_BOTS = _bot_table("a", "b")
#: A good configuration, and one that opens a [match] table for the next line.
_OK = "seeds = 1\n" + _TWO_BOTS
_MATCH = _OK + "[match]\n"

#: (id, the TOML file or None, more options, a word the one-line message must contain)
BAD_CONFIGS: list[tuple[str, str | None, list[str], str]] = [
    ("missing file", None, [], "cannot read"),
    ("not TOML", "seeds = = 1\n", [], "not valid TOML"),
    ("bot without command", '[[bot]]\nname = "a"\n[[bot]]\nname = "b"\ncommand = "x"\n', [], "bot"),
    ("bot not a table", 'bot = "a"\nseeds = 1\n', [], "bot"),
    ("one bot", "seeds = 1\n" + _bot_table("a"), [], "two entrants"),
    ("bad name", "seeds = 1\n" + _bot_table("a", "b c"), [], "entrant name"),
    ("same names", "seeds = 1\n" + _bot_table("a", "a"), [], "different"),
    ("no seeds", _TWO_BOTS, [], "--seeds"),
    ("seeds not a number", 'seeds = "3"\n' + _TWO_BOTS, [], "$.seeds"),
    ("unknown format", 'seeds = 1\nformat = "swiss"\n' + _TWO_BOTS, [], "format"),
    ("unknown match option", _MATCH + "move_timeot = 2\n", [], "move_timeot"),
    ("mistyped match option", _MATCH + 'max_hands = "x"\n', [], "max_hands"),
    ("sprt with three bots", 'seeds = 1\nsprt = "0,5"\n' + _bot_table("a", "b", "c"), [], "two"),
    ("sprt not two numbers", 'seeds = 1\nsprt = "0,x"\n' + _TWO_BOTS, [], "ELO0,ELO1"),
    ("negative seed", "seeds = 1\nseed = -1\n" + _TWO_BOTS, [], "seed"),
    ("seed not a number", 'seeds = 1\nseed = "x"\n' + _TWO_BOTS, [], "seed"),
    ("match not a table", "seeds = 1\nmatch = 3\n" + _TWO_BOTS, [], "match"),
    ("negative jobs", "seeds = 1\njobs = -1\n" + _TWO_BOTS, [], "jobs"),
    ("jobs not a number", 'seeds = 1\njobs = "two"\n' + _TWO_BOTS, [], "jobs"),
    ("negative move_timeout", _MATCH + "move_timeout = -1\n", [], "move_timeout"),
    ("zero max_hands", _MATCH + "max_hands = 0\n", [], "max_hands"),
    ("alpha 0", _OK, ["--sprt", "0,10", "--alpha", "0"], "alpha"),
    ("resume a non-results file", _OK, ["--resume", "--results", "NOTES"], "results file"),
]


@pytest.fixture(scope="module")
def bad_config_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[int, str]]:
    """Every bad configuration, run at once (each is one short-lived process)."""
    running = {}
    for name, text, extra, _ in BAD_CONFIGS:
        directory = tmp_path_factory.mktemp("config")
        config = directory / "tournament.toml"
        if text is not None:
            config.write_text(text)
        notes = directory / "notes.txt"
        notes.write_text("not a results file\n")
        extra = [str(notes) if arg == "NOTES" else arg for arg in extra]
        if "--results" not in extra:
            extra = [*extra, "--results", str(directory / "results.jsonl")]
        running[name] = subprocess.Popen(
            [PYTHON, "-m", "referee", "tournament", str(config), "--json", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    outcomes = {}
    for name, process in running.items():
        _, stderr = process.communicate(timeout=120)
        outcomes[name] = (process.returncode, stderr)
    return outcomes


@pytest.mark.parametrize(
    ("name", "word"), [(name, word) for name, _, _, word in BAD_CONFIGS], ids=lambda x: str(x)
)
def test_bad_configs_exit_2_with_one_line(
    bad_config_runs: dict[str, tuple[int, str]], name: str, word: str
) -> None:
    status, stderr = bad_config_runs[name]
    last = stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
    assert "Traceback" not in stderr, f"a traceback instead of a message: {last[0]}"
    assert status == 2, f"exit status {status}: {last[0]}"
    assert stderr.startswith("referee: ") and len(stderr.splitlines()) == 1, stderr
    assert word in stderr


def test_a_final_in_the_file_plays_paced_frozen_strict_and_fresh(tmp_path: Path) -> None:
    config = tmp_path / "final.toml"
    config.write_text("seeds = 1\nfinal = true\n" + _bot_table("a", "b"))
    configured = configure(TournamentOptions(), config)
    limits = configured.settings.limits
    assert (limits.pace, limits.freeze_idle, limits.time_bank) == (True, True, 0.0)
    assert configured.sandbox == SandboxSettings(mode="strict", private_root=True)
    assert not configured.warm


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("[match]\ntime_bank = 5.0\n", "final: match option time_bank = 5.0"),
        ('sandbox = "off"\n', "final: sandbox 'off', but a final plays strict"),
    ],
)
def test_a_final_refuses_what_says_otherwise(tmp_path: Path, line: str, said: str) -> None:
    config = tmp_path / "final.toml"
    config.write_text("seeds = 1\nfinal = true\n" + line + _bot_table("a", "b"))
    with pytest.raises(TournamentError, match=said):
        configure(TournamentOptions(), config)
