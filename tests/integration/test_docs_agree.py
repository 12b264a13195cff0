"""The documents say one thing each, and say what the code does: the environment a bot
gets (one list, in PROTOCOL.md), what a sandboxed bot may read (one sentence), every key a
tournament's TOML file takes, and the time a bot has to exit."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from referee.checkbot import CHECKS
from referee.cli.options import ENV_HELP
from referee.match.process import EXIT_GRACE, TERM_GRACE
from referee.sandbox.jail import BOT_ENVIRONMENT
from referee.sandbox.policy import MAY_READ
from referee.settings import MatchLimits
from referee.tournament.config import TournamentOptions

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
PROTOCOL = (ROOT / "protocol" / "PROTOCOL.md").read_text()
KIT = (ROOT / "example_bots" / "README.md").read_text()


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
    for text in (README, KIT, ENV_HELP):
        assert "PYTHONPATH" not in text and "JAVA_HOME" not in text  # they point to the list
    assert "protocol/PROTOCOL.md" in ENV_HELP
    assert "protocol/PROTOCOL.md#processes-and-the-sandbox" in README


def test_what_a_sandboxed_bot_may_read_is_said_in_the_same_words() -> None:
    sentence = "A sandboxed bot " + MAY_READ
    for name, text in (("README", README), ("PROTOCOL", PROTOCOL), ("the kit's README", KIT)):
        assert sentence.lower() in _plain(text).lower(), name


def test_readme_names_every_key_of_a_tournament_file() -> None:
    part = _section(README, "- **TOML.**")
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
    assert f"within {EXIT_GRACE:g} s of `hand_end`" in README
    words = _plain(PROTOCOL)
    assert f"waits up to {EXIT_GRACE:g} s for it to exit" in words
    assert f"gets SIGTERM, up to {TERM_GRACE:g} s more, then SIGKILL" in words
    assert "within 2 s" not in README + PROTOCOL + KIT


def test_no_advice_to_open_a_home_directory() -> None:
    for text in (README, PROTOCOL, KIT):
        assert "chmod o+rx" not in text and "chmod 755 /root" not in text


def test_readme_says_how_long_the_test_command_takes() -> None:
    quick_start = _section(README, "## Quickstart")
    assert re.search(r"\d+ to \d+ minutes on 2 cores", quick_start)
