"""What a bot says is printed escaped: ``terminal.shown`` writes controls, bidi and other format
characters as visible escapes, and ``referee replay`` and ``referee match`` print a hostile
bot's lines, names and fault details through it — never a raw ESC, C1 control or bidi override.

The command-line tests read the output as a terminal would get it: ``CliRunner(color=True)``
(click strips some ``ESC[...`` sequences from output that is not a terminal, which would hide
the problem), and a child process for ``referee match``, whose table rich prints as it is.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text
from support.processes import BOTS, referee
from typer.testing import CliRunner

from referee.cli import app
from referee.terminal.escapes import hidden, markup, shown

ROOT = Path(__file__).resolve().parents[2]
ESCAPE_BOT = shlex.join([sys.executable, str(BOTS / "escape_bot.py")])
RANDOM = shlex.join([sys.executable, str(ROOT / "example_bots" / "random_bot.py")])


def unshown(text: str) -> str:
    """``shown``'s result read back: the test that no two texts are shown alike."""
    short = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
    widths = {"x": 2, "u": 4, "U": 8}
    out, i = [], 0
    while i < len(text):
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        kind = text[i + 1]
        if kind in short:
            out.append(short[kind])
            i += 2
        else:
            digits = text[i + 2 : i + 2 + widths[kind]]
            assert re.fullmatch(r"[0-9a-f]+", digits) and len(digits) == widths[kind], text
            out.append(chr(int(digits, 16)))
            i += 2 + widths[kind]
    return "".join(out)


def raw_characters(text: str) -> list[str]:
    """The characters in ``text`` a terminal would act on (a line's own newline aside)."""
    return sorted({f"U+{ord(c):04X}" for c in text if c != "\n" and hidden(c)})


# -- the function ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("character", "escape"),
    [
        # C0 controls, newline included: every field is shown on one line
        ("\x00", r"\x00"), ("\x07", r"\x07"), ("\x08", r"\x08"), ("\x1b", r"\x1b"),
        ("\x0b", r"\x0b"), ("\x0c", r"\x0c"), ("\n", r"\n"), ("\r", r"\r"), ("\t", r"\t"),
        ("\x7f", r"\x7f"),  # DEL
        # C1 controls: CSI, OSC, NEL, ST
        ("\x80", r"\x80"), ("\x85", r"\x85"), ("\x9b", r"\x9b"), ("\x9d", r"\x9d"),
        ("\x9f", r"\x9f"),
        # bidi embeddings, overrides, isolates and marks
        ("\u202a", r"\u202a"), ("\u202b", r"\u202b"), ("\u202c", r"\u202c"),
        ("\u202d", r"\u202d"), ("\u202e", r"\u202e"), ("\u2066", r"\u2066"),
        ("\u2067", r"\u2067"), ("\u2068", r"\u2068"), ("\u2069", r"\u2069"),
        ("\u200e", r"\u200e"), ("\u200f", r"\u200f"), ("\u061c", r"\u061c"),
        # other format characters: soft hyphen, zero-width ones, BOM, a tag
        ("\xad", r"\xad"), ("\u200b", r"\u200b"), ("\u200d", r"\u200d"), ("\u2060", r"\u2060"),
        ("\ufeff", r"\ufeff"), ("\U000e0001", r"\U000e0001"), ("\U000e0041", r"\U000e0041"),
        # line and paragraph separators; a lone surrogate (it could not even be encoded)
        ("\u2028", r"\u2028"), ("\u2029", r"\u2029"), ("\ud800", r"\ud800"),
        # a backslash: doubled, so it never starts an escape of its own
        ("\\", "\\\\"),
    ],
)  # fmt: skip
def test_each_kind_of_hidden_character_is_shown_as_an_escape(character: str, escape: str) -> None:
    assert shown(character) == escape
    assert shown(f"a{character}b") == f"a{escape}b"


@pytest.mark.parametrize(
    "text",
    [
        "random",
        "élève Ünïcödé ñ",
        "中文 日本語 한국어",
        "😀 👍🏽 🇫🇷",
        "مرحبا שלום",  # right-to-left letters: drawn, only the overrides are escaped
        "नमस्ते",  # combining marks
        "a\xa0b\u3000c",  # no-break and ideographic spaces
        "\ue000",  # private use
        "[bold]x[/bold] :smile: {} % '\"",
        "Match over: B+D wins",
    ],
)
def test_printable_text_is_shown_as_it_is(text: str) -> None:
    assert shown(text) == text


def test_no_hidden_character_survives() -> None:
    every = "".join(map(chr, range(0x110000)))
    result = shown(every)
    assert raw_characters(result + "\n") == []
    assert unshown(result) == every


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("\x1b", "\\x1b"),  # the character and a bot's text that spells its escape
        ("\n", "\\n"),
        ("\\", "\\\\"),
        ("\u202e", "\\u202e"),
        ("\\\x1b", "\\\\x1b"),
    ],
)
def test_a_text_spelling_an_escape_is_not_shown_as_the_character(one: str, other: str) -> None:
    assert shown(one) != shown(other)
    assert unshown(shown(one)) == one and unshown(shown(other)) == other


@given(st.text(alphabet=st.characters(codec=None)))
def test_what_is_shown_reads_back_exactly(text: str) -> None:
    result = shown(text)
    assert unshown(result) == text
    assert not any(hidden(c) for c in result)


@pytest.mark.parametrize(
    "text",
    [
        "[bold]loud[/bold]",
        "[link=https://evil.example]click[/link]",
        "back\\",
        "\\[not markup]",
        "\x1b[2J[red]x[/red]\u202e",
        ":smile: :thumbs_up:",
    ],
)
def test_markup_is_printed_by_rich_exactly_as_shown(text: str) -> None:
    assert Text.from_markup(markup(text), emoji=False).plain == shown(text)
    buffer = io.StringIO()
    Console(file=buffer, emoji=False, width=200).print(markup(text))
    assert buffer.getvalue() == shown(text) + "\n"


# -- the command line --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-hand match in which A and C send every payload of ``escape_bot.py``."""
    folder = tmp_path_factory.mktemp("escapes")
    log = folder / "m.jsonl"
    run = referee(
        "match", ESCAPE_BOT, RANDOM, "--seed", "5", "--max-hands", "1", "--sandbox", "off",
        "--log", str(log), cwd=folder,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert raw_characters(run.stdout + run.stderr) == []
    logged = log.read_text()
    assert "\\u001b]0;" in logged and "\\u001b]52;" in logged  # the log keeps every byte
    return log


def replay(*args: str) -> str:
    result = CliRunner().invoke(app, ["replay", *args], color=True)
    assert result.exit_code == 0, result.output
    return result.output


def test_replay_shows_refused_lines_escaped(hostile_log: Path) -> None:
    text = replay(str(hostile_log))
    assert raw_characters(text) == []
    for shown_line in (
        r"raw: \x1b]0;referee: you have been pwned\x07",  # OSC 0: the window title
        r"raw: \x1b[2J\x1b[H",  # clear the screen
        r"raw: \x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",  # OSC 52: the clipboard
        r"raw: \r\x0b\x0c\x85\u2028Match over: B+D wins (marks: B+D reached 7 marks); 7 hands"
        r"\x1b[8m",  # a forged end line, then hidden text
        r"unknown field `\x1b]0;title\x07\x1b[2J\x9b2J\u202e`",  # quoted in the detail
    ):
        assert shown_line in text
    # The JSON escapes the bot wrote itself are its text, and shown as such.
    assert r'"\\u001b]0;title\\u0007\\u001b[2J\x9b2J\u202e": 1}' in text
    ends = [line for line in text.splitlines() if line.startswith("Match over")]
    assert len(ends) == 1 and "game digest" in ends[0]  # only the referee's own


@pytest.mark.parametrize("perspective", [["--seat", "A"], ["--public"]])
def test_every_rendering_is_escaped(hostile_log: Path, perspective: list[str]) -> None:
    text = replay(str(hostile_log), *perspective)
    assert raw_characters(text) == []
    if perspective[0] == "--seat":
        assert r"unknown field `\x1b]0;title\x07\x1b[2J\x9b2J\u202e`" in text


def test_replay_shows_a_name_from_an_edited_log_escaped(hostile_log: Path, tmp_path: Path) -> None:
    # ready refuses such a name, so only an edited (or older) log can hold one.
    lines = hostile_log.read_text().split("\n")[:-1]  # (it holds U+2028: not splitlines)
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record["type"] == "ready" and record["seat"] == "B":
            record["name"] = "\u202eevil\x9b2J\x1b]0;x\x07"
            lines[i] = json.dumps(record, separators=(",", ":"))
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    text = replay(str(edited))
    assert raw_characters(text) == []
    assert r"B (B+D): \u202eevil\x9b2J\x1b]0;x\x07 — " in text


def test_match_prints_a_forfeit_detail_escaped(tmp_path: Path) -> None:
    log = tmp_path / "f.jsonl"
    run = referee(
        "match", f"{ESCAPE_BOT} --forfeit", RANDOM, "--seed", "5", "--max-hands", "1",
        "--sandbox", "off", "--log", str(log), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert raw_characters(run.stdout + run.stderr) == []
    winner = next(line for line in run.stdout.splitlines() if line.startswith("winner:"))
    assert winner.startswith("winner: B+D (forfeit: A forfeits: too_many_rejections")
    assert winner.endswith(r"unknown field `\x1b]0;title\x07\x1b[2J\x9b2J\u202e`))")


def test_check_bot_prints_no_terminal_control_from_the_bot() -> None:
    # The forfeit's detail quotes the bot's refused line: ESC, a C1 CSI, a bidi override.
    bot = shlex.join([sys.executable, str(BOTS / "escape_bot.py"), "--forfeit"])
    run = subprocess.run(
        [sys.executable, "-m", "referee", "check-bot", bot, "--sandbox", "off"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "\\x1b" in run.stdout or "\\u001b" in run.stdout, run.stdout  # shown, escaped
    for raw in ("\x1b", "\x9b", "\u202e", "\x07"):
        assert raw not in run.stdout + run.stderr


def test_json_output_writes_every_hidden_character_as_an_escape(tmp_path: Path) -> None:
    log = tmp_path / "j.jsonl"
    run = referee(
        "match", f"{ESCAPE_BOT} --forfeit", RANDOM, "--seed", "5", "--max-hands", "1",
        "--sandbox", "off", "--log", str(log), "--json", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert raw_characters(run.stdout) == []  # the encoder alone leaves C1 and bidi raw
    detail = json.loads(run.stdout)["forfeit"]["detail"]
    assert "\x9b" in detail and "\u202e" in detail  # the same value, parsed
