"""The report's section of numbers to tune by: the tables ``referee stats`` prints, row for
row (one computation, two drawings), each entrant's make rate by bid drawn with its interval,
every name escaped, and the logs the report could not count said."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.tournaments import renamed_results

from referee.pages.report_page import match_pages, report_page
from referee.tally.sources import tally_paths
from referee.tally.summary import summarize
from referee.tally.tables import tables
from referee.tally.tally import Tally

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"{sys.executable} {ROOT / 'example_bots' / 'random_bot.py'}"


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament of two random bots, three deal seeds, with its report."""
    folder = tmp_path_factory.mktemp("report-stats")
    results = folder / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "--bot", f"r1={RANDOM}",
         "--bot", f"r2={RANDOM}", "--seeds", "3", "--seed", "5", "--jobs", "2",
         "--sandbox", "off", "--results", str(results), "--report"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return results


def _cells(page: str, key: str) -> list[list[str]]:
    table = re.search(rf'<table class="numbers" data-table="{key}">(.*?)</table>', page, re.S)
    assert table is not None, key
    body = table.group(1).split("</thead>")[1]
    return [
        [html.unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_the_section_holds_the_tables_stats_prints(reported: Path) -> None:
    page = (reported.parent / "report.html").read_text()
    summary = summarize(tally_paths([reported]))
    views = tables(summary)
    assert [view.key for view in views] == re.findall(r'data-table="([^"]+)"', page)
    for view in views:
        assert _cells(page, view.key) == [row for group in view.groups for row in group]
        for column in view.columns:
            assert f"<th>{html.escape(column, quote=False)}</th>" in page
    said = re.search(r'<section id="numbers">.*?<p class="summary">(.*?)</p>', page, re.S)
    assert said is not None
    assert said.group(1).startswith("6 logs counted, each verified first; 1 results file")


def test_the_plot_draws_each_entrants_make_rate_by_bid(reported: Path) -> None:
    page = (reported.parent / "report.html").read_text()
    plot = re.search(r'<svg class="plot rates".*?</svg>', page, re.S)
    assert plot is not None
    summary = summarize(tally_paths([reported]))
    for entrant in summary.entrants:
        series = re.search(rf'<g class="series" data-name="{entrant.name}">(.*?)</g>', plot[0])
        assert series is not None
        titles = re.findall(r"<title>(.*?)</title>", series.group(1))
        assert titles == [
            f"{entrant.name}, {line.label}: {line.made} of {line.contracts},"
            f" {line.made / line.contracts:.1%} ({line.low:.1%} to {line.high:.1%})"
            for line in entrant.by_bid
        ]
        assert series.group(1).count('class="interval"') == len(entrant.by_bid)
    for line in summary.entrants[0].by_bid:  # every bid bid is a tick on the axis
        assert f">{line.label}</text>" in plot[0]


def test_names_are_escaped_and_uncounted_logs_said(reported: Path, tmp_path: Path) -> None:
    hostile = '<img src=x onerror="alert(1)">'
    crafted, lines = renamed_results(
        reported, {"r1": hostile, "r2": "r2"}, {1: str(tmp_path / "missing.jsonl")}
    )
    tally = Tally()
    tally.verified = True
    tally.add_results(crafted, lines, reported)
    rows = match_pages(crafted, lines, reported, tmp_path / "r.html", tally=tally)
    page = report_page(crafted, lines, rows, None, summarize(tally))
    assert "<img" not in page
    assert 'data-name="&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"' in page
    assert "5 logs counted" in page and "1 not counted" in page
    [skipped] = tally.skipped
    missing = next(line for line in lines if line.number == 1)
    assert skipped.match == missing.match_id and "cannot be read" in skipped.why
