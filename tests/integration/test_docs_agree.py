"""The documents say one thing each, and say what the code does: the environment a bot
gets (one list, in PROTOCOL.md), what a sandboxed bot may read (one sentence), every key a
tournament's TOML file takes, and the time a bot has to exit.

Each fact is read on the page where it is said (``support.docs`` names them); the checks that
a fact is said nowhere else run over every page a reader may read."""

from __future__ import annotations

import re

import msgspec
from support.docs import (
    CHECK_BOT,
    KIT,
    LEARNED,
    MATCH,
    PAGES,
    PROTOCOL,
    README,
    ROOT,
    TOURNAMENTS,
)

from referee.checkbot import CHECKS
from referee.cli.options import ENV_HELP
from referee.match.process import EXIT_GRACE, TERM_GRACE
from referee.sandbox.jail import BOT_ENVIRONMENT
from referee.sandbox.policy import MAY_READ
from referee.settings import MatchLimits
from referee.tournament.config import TournamentOptions

#: Every text a reader may read, the protocol's and the kit's included.
EVERYWHERE = {
    **PAGES,
    "protocol/PROTOCOL.md": PROTOCOL,
    "example_bots/README.md": KIT,
    "example_bots/learned/README.md": LEARNED,
}


def _plain(text: str) -> str:
    """Markdown as words: no backticks, one space between words."""
    return " ".join(text.replace("`", "").split())


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^#{1,3} ", text[start + len(heading) :], re.MULTILINE)
    return text[start : start + len(heading) + (following.start() if following else len(text))]


def test_protocol_lists_exactly_the_environment_a_bot_gets() -> None:
    part = _section(PROTOCOL, "## Processes and the sandbox")
    bullet = next(b for b in part.split("\n- ") if b.startswith("Its environment is this list"))
    named = set(re.findall(r"`([A-Z][A-Z0-9_]*\*?)`", bullet))
    assert named == {*BOT_ENVIRONMENT, "LC_*", "TMPDIR"}


def test_the_environment_is_listed_once() -> None:
    for name, text in {**PAGES, "the kit's README": KIT, "--sandbox-env's help": ENV_HELP}.items():
        assert "PYTHONPATH" not in text and "JAVA_HOME" not in text, name  # they point to the list
    assert "protocol/PROTOCOL.md" in ENV_HELP
    assert "protocol/PROTOCOL.md#processes-and-the-sandbox" in MATCH  # --sandbox-env's row


def test_what_a_sandboxed_bot_may_read_is_said_in_the_same_words() -> None:
    sentence = "A sandboxed bot " + MAY_READ
    for name, text in (("match", MATCH), ("PROTOCOL", PROTOCOL), ("the kit's README", KIT)):
        assert sentence.lower() in _plain(text).lower(), name


def test_the_docs_name_every_key_of_a_tournament_file() -> None:
    part = _section(TOURNAMENTS, "- **TOML.**")
    keys = set(re.findall(r"`([a-z_]+)`", part))
    for field in msgspec.structs.fields(TournamentOptions):
        wanted = field.name if field.name not in ("bot", "match") else None
        assert wanted is None or wanted in keys, field.name
    for field in msgspec.structs.fields(MatchLimits):
        assert field.name in keys, field.name
    assert {"name", "command"} <= keys


def test_the_time_to_exit_is_the_referees_everywhere() -> None:
    exit_check = next(check for check in CHECKS if check.name == "exit")
    assert f"within {EXIT_GRACE:g} s" in exit_check.title
    assert f"within {EXIT_GRACE:g} s of `hand_end`" in CHECK_BOT  # the exit check's row
    words = _plain(PROTOCOL)
    assert f"waits up to {EXIT_GRACE:g} s for it to exit" in words
    assert f"gets SIGTERM, up to {TERM_GRACE:g} s more, then SIGKILL" in words
    for name, text in EVERYWHERE.items():
        assert "within 2 s" not in text, name


def test_no_advice_to_open_a_home_directory() -> None:
    for name, text in EVERYWHERE.items():
        assert "chmod o+rx" not in text and "chmod 755 /root" not in text, name


def test_readme_says_how_long_the_test_command_takes() -> None:
    quick_start = _section(README, "## Quickstart")
    assert re.search(r"\d+ to \d+ minutes on 2 cores", quick_start)


def test_ci_runs_the_readmes_test_command_as_it_stands() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()[-1]
    quick_start = _section(README, "## Quickstart")
    commands = re.findall(r"```sh\n(.*?)\n```", quick_start, re.DOTALL)
    assert ci in commands
    assert commands[0].endswith(".venv/bin/referee match")  # one to play, one to test


def test_the_site_shows_the_readmes_quick_start_and_the_readme_stays_short() -> None:
    assert '--8<-- "README.md:quickstart"' in PAGES["docs/index.md"]
    for marker in ("start", "end"):
        assert f"<!-- --8<-- [{marker}:quickstart] -->" in _section(README, "## Quickstart")
    assert len(README.splitlines()) <= 250  # what it is, the two commands, a map to the docs
