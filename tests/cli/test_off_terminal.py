"""Off a terminal (a pipe, a file, a CI log) tables keep every header and command whole, and
long work still shows it is moving: a progress line every few seconds on stderr."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.table import Table
from support.bot_commands import RANDOM_BOT
from support.processes import referee

from referee.terminal.progress import LongWork
from referee.terminal.tables import print_table

LONG = "python3 /a/very/long/path/to/the/bots/of/this/competition/entrant_number_seven.py --deep"


def _table() -> Table:
    table = Table(title="Standings")
    for column in ("entrant", "matches", "unfinished", "win rate (95% CI)", "command"):
        table.add_column(column)
    table.add_row("heuristic", "40", "0", "50.0% (35.2% to 64.8%)", LONG)
    return table


def test_off_a_terminal_a_table_is_printed_at_its_natural_width() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80)
    assert not console.is_terminal
    print_table(console, _table())
    text = out.getvalue()
    for word in ("entrant", "matches", "unfinished", "win rate (95% CI)", LONG):
        assert word in text
    assert "…" not in text
    assert console.width == 80  # the console is left as it was


def test_on_a_narrow_terminal_columns_wrap_but_no_header_word_is_cut() -> None:
    out = io.StringIO()
    console = Console(file=out, width=60, force_terminal=True, color_system=None)
    print_table(console, _table())
    text = out.getvalue()
    assert "…" not in text
    for word in ("entrant", "matches", "unfinished"):
        assert word in text
    assert "entrant_number_seven" in text.replace("│", "").replace(" ", "").replace("\n", "")


def test_long_work_off_a_terminal_prints_a_line_each_interval_and_one_at_the_end() -> None:
    out = io.StringIO()
    work = LongWork("matches", 4, Console(file=out), every=0)
    with work:
        for _ in range(3):
            work.advance()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("matches: 1 of 4 (25%), 0:00 elapsed, about ")
    assert lines[2].startswith("matches: 3 of 4 (75%)")
    assert lines[-1] == "matches: 3 of 4 (75%), 0:00 elapsed"  # the end: no time left to guess
    assert work.bar is None


def test_long_work_shorter_than_an_interval_prints_nothing_off_a_terminal() -> None:
    out = io.StringIO()
    with LongWork("pages", 100, Console(file=out), every=3600) as work:
        for _ in range(100):
            work.advance()
    assert out.getvalue() == ""


def test_a_tournament_in_a_pipe_prints_progress_lines_and_whole_tables(tmp_path: Path) -> None:
    results = tmp_path / "t" / "results.jsonl"
    run = referee(
        "tournament",
        *("--bot", f"first-entrant-with-a-long-name={RANDOM_BOT}", "--bot", f"b={RANDOM_BOT}"),
        *("--seeds", "1", "--jobs", "1", "--sandbox", "off", "--results", str(results)),
        cwd=tmp_path,
        env={"REFEREE_PROGRESS_EVERY": "0"},
    )
    assert run.returncode == 0, run.stderr
    assert "matches: 1 of 2 (50%)" in run.stderr and "matches: 2 of 2 (100%)" in run.stderr
    for header in ("entrant", "matches", "unfinished", "win rate (95% CI)", "forfeits"):
        assert header in run.stdout
    assert "first-entrant-with-a-long-name" in run.stdout and "…" not in run.stdout


def test_a_match_in_a_pipe_shows_whole_commands(tmp_path: Path) -> None:
    run = referee("match", RANDOM_BOT, RANDOM_BOT, "--sandbox", "off", "--seed", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert RANDOM_BOT in run.stdout
