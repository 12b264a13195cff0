"""The tournament report (``referee tournament --report``, ``referee report RESULTS``): one
page with the standings the text commands print, the head to head, the win rates drawn with
their intervals, the rating over the tournament, the SPRT against its bounds, and a viewer
page for each match — and nothing in it read as markup."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.pages.report_page import match_pages, report_page
from referee.running.results import read_results
from referee.tournament.sprt import Sprt, sprt_report
from referee.tournament.standings import pair_scores, rating_history, standings

ROOT = Path(__file__).resolve().parents[2]
INSTANT = shlex.join([sys.executable, str(ROOT / "referee" / "bench" / "instant_bot.py")])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament of three entrants, two deal seeds, with --report."""
    folder = tmp_path_factory.mktemp("report")
    results = folder / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "--bot", f"a={INSTANT}",
         "--bot", f"b={INSTANT}", "--bot", f"c={INSTANT}", "--seeds", "2", "--seed", "3",
         "--jobs", "2", "--results", str(results), "--report"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"report: {folder / 'report.html'}" in done.stderr
    return results


def test_the_report_holds_the_standings_and_a_page_for_every_match(played: Path) -> None:
    _, results = read_results(played)
    page = (played.parent / "report.html").read_text()
    table = standings(["a", "b", "c"], results)
    for row in table.standings:  # the same figures as the text commands
        line = re.search(rf'<tr data-name="{row.name}">(.*?)</tr>', page, re.S)
        assert line is not None
        assert f"<td>{row.wins}</td>" in line.group(1)
        assert f"{100 * row.win_rate:.1f}%" in line.group(1)
    # The intervals, the rating, the decision times, make rates; no SPRT asked for.
    assert page.count("<svg") == 4
    links = re.findall(r'<a href="([^"]+)">watch</a>', page)
    assert len(links) == len(results) == 12
    for link in links:
        viewer = (played.parent / link).read_text()
        assert viewer.startswith("<!doctype html>") and 'id="match-data"' in viewer
    grid = re.findall(r'<td data-row="a" data-column="b"[^>]*>(.*?)</td>', page)
    score = table.head_to_head["a"]["b"]
    assert grid == [f"{100 * score / 4:.0f}%<small>{score:g}/4</small>"]


def test_report_command_draws_the_sprt_and_says_where_it_wrote(
    played: Path, tmp_path: Path
) -> None:
    header, results = read_results(played)
    two = played.parent / "two.jsonl"
    keep = [r for r in results if {r.first, r.second} == {"a", "b"}]
    settings = msgspec.structs.replace(
        header.settings, entrants=[e for e in header.settings.entrants if e.name != "c"]
    )
    two_header = msgspec.structs.replace(header, settings=settings)
    two.write_bytes(b"".join(msgspec.json.encode(x) + b"\n" for x in [two_header, *keep]))
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(two), str(out), "--sprt", "0,100", "--json"])
    assert result.exit_code == 0, result.output
    said = json.loads(result.output.strip().splitlines()[-1])
    assert said == {"report": str(out), "matches": len(keep), "without_page": []}
    page = out.read_text()
    llr = Sprt(0, 100).llr(pair_scores(keep, "a"))
    assert f"<strong>{llr:.2f}</strong>" in page
    # The test as fastchess users read it: whose Elo, its interval, the LOS, the pairs.
    report = sprt_report(Sprt(0, 100), keep, "a", "b")
    section = page[page.index('<section id="sprt">') :].split("</section>")[0]
    assert "a against b: H0 Elo ≤ 0, H1 Elo ≥ 100" in section
    assert f"LOS {100 * report.los:.1f}%" in section  # type: ignore[operator]
    assert (
        f"lost both {report.lost_both}, split {report.split}, won both {report.won_both}" in section
    )
    head = page[page.index('<section id="standings">') : page.index("</thead>")]
    assert "<th>rating μ ± 3σ</th><th>Elo vs field (95%)</th>" in head
    assert page.count("<svg") == 5 and 'class="bound"' in page
    # Links are relative to where the report is, and reach the pages beside the logs.
    for link in re.findall(r'<a href="([^"]+)">watch</a>', page):
        assert (out.parent / link).is_file()


def test_a_crafted_results_file_cannot_inject_markup(played: Path, tmp_path: Path) -> None:
    header, results = read_results(played)
    hostile = '<img src=x onerror="alert(1)">'
    entrants = [msgspec.structs.replace(e, name=hostile if e.name == "a" else e.name)
                for e in header.settings.entrants]  # fmt: skip
    settings = msgspec.structs.replace(header.settings, entrants=entrants)
    renamed = [
        msgspec.structs.replace(
            r,
            first=hostile if r.first == "a" else r.first,
            second=hostile if r.second == "a" else r.second,
            winner=hostile if r.winner == "a" else r.winner,
            log=str(tmp_path / "missing.jsonl") if r.number == 1 else r.log,
        )
        for r in results
    ]
    crafted = msgspec.structs.replace(header, settings=settings)
    rows = match_pages(crafted, renamed, played, tmp_path / "r.html")
    page = report_page(crafted, renamed, rows)
    assert "<img" not in page
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page
    missing = [row for row in rows if row.page is None]
    assert len(missing) == 1 and "cannot be read" in (missing[0].why_no_page or "")
    assert "cannot be read" in page


def test_report_usage_mistakes_exit_2_in_one_line(played: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    not_results = tmp_path / "x.jsonl"
    not_results.write_text("{}\n")
    for arguments, said in (
        (["report", str(not_results)], "not a results file"),
        (["report", str(played), str(tmp_path / "r.html"), "--sprt", "0,100"], "two entrants"),
        (["report", str(played), "--sprt", "10,0"], "ELO0 < ELO1"),
        (["report", str(played), "--sprt", "0,100", "--alpha", "0.9", "--beta", "0.9"], "cross"),
    ):
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert said in result.output, result.output


def test_rating_history_ends_where_the_standings_do(played: Path) -> None:
    _, results = read_results(played)
    names = ["a", "b", "c"]
    history = rating_history(names, results)
    assert len(history) == len(results)
    final = {row.name: row.rating for row in standings(names, results).standings}
    assert history[-1] == pytest.approx(final)


def test_report_true_in_a_tournament_file_writes_the_report(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        f"seeds = 1\nseed = 1\nreport = true\nresults = {json.dumps(str(tmp_path / 'r.jsonl'))}\n"
        f"[[bot]]\nname = 'a'\ncommand = {json.dumps(INSTANT)}\n"
        f"[[bot]]\nname = 'b'\ncommand = {json.dumps(INSTANT)}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", str(config)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report.html").read_text().count("watch</a>") == 2


def test_links_are_urls_and_logs_are_found_beside_a_moved_results_file(
    played: Path, tmp_path: Path
) -> None:
    """A tournament moved into a folder whose name needs escaping in a URL, its results'
    recorded log paths no longer right: the pages are still found, by digest, and linked."""
    import shutil

    moved = tmp_path / "logs #1 100%"
    shutil.copytree(played.parent, moved)
    results = moved / "results.jsonl"
    header, matches = read_results(results)
    relative = [msgspec.structs.replace(m, log=f"gone/logs/{Path(m.log).name}") for m in matches]
    results.write_bytes(b"".join(msgspec.json.encode(x) + b"\n" for x in [header, *relative]))
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(results), str(out)])
    assert result.exit_code == 0, result.output
    links = re.findall(r'<a href="([^"]+)">watch</a>', out.read_text())
    assert len(links) == 12
    from urllib.parse import unquote

    for link in links:  # relative to the report, through the folder's name escaped
        assert link.startswith("./logs%20%231%20100%25/logs/"), link
        assert (tmp_path / unquote(link)).is_file()


def test_a_log_of_another_match_in_its_place_gets_no_page(played: Path, tmp_path: Path) -> None:
    header, results = read_results(played)
    first, second = results[0], results[1]
    swapped = msgspec.structs.replace(first, log=second.log)  # the log is there, but not its own
    rows = match_pages(header, [swapped], played, tmp_path / "r.html")
    assert rows[0].page is None and "another match's log" in (rows[0].why_no_page or "")
    nowhere = msgspec.structs.replace(first, log="")
    rows = match_pages(header, [nowhere], played, tmp_path / "r.html")
    assert rows[0].page is None and "no log path" in (rows[0].why_no_page or "")


def test_a_results_file_naming_strangers_is_refused(played: Path, tmp_path: Path) -> None:
    header, results = read_results(played)
    crafted = tmp_path / "crafted.jsonl"
    stranger = msgspec.structs.replace(results[0], winner="mallory")
    crafted.write_bytes(
        b"".join(msgspec.json.encode(x) + b"\n" for x in [header, stranger, *results[1:]])
    )
    result = CliRunner().invoke(app, ["report", str(crafted)])
    assert result.exit_code == 2
    assert "names entrants this tournament does not have" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_report_never_replaces_its_results_and_says_which_file_it_could_not_write(
    played: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    before = played.read_bytes()
    same = runner.invoke(app, ["report", str(played), str(played)])
    assert same.exit_code == 2 and "is the results file" in same.output
    assert played.read_bytes() == before
    nowhere = runner.invoke(app, ["report", str(played), str(tmp_path / "no" / "r.html")])
    assert nowhere.exit_code == 2 and len(nowhere.output.strip().splitlines()) == 1
    assert str(tmp_path / "no") in nowhere.output and ".tmp" not in nowhere.output


def test_a_page_never_replaces_a_file_that_is_not_a_viewer_page(
    played: Path, tmp_path: Path
) -> None:
    header, results = read_results(played)
    first = results[0]
    log = tmp_path / Path(first.log).name
    log.write_bytes(Path(first.log).read_bytes())
    moved = msgspec.structs.replace(first, log=str(log))
    notes = log.with_suffix(".html")
    notes.write_text("precious notes")  # someone's file where the page would go
    rows = match_pages(header, [moved], played, tmp_path / "r.html")
    assert rows[0].page is None and "is not a viewer page" in (rows[0].why_no_page or "")
    assert notes.read_text() == "precious notes"
    notes.unlink()
    rows = match_pages(header, [moved], played, tmp_path / "r.html")  # a page of ours: again
    assert rows[0].page is not None
    rows = match_pages(header, [moved], played, tmp_path / "r.html")
    assert rows[0].page is not None and notes.read_text().startswith("<!doctype html>")


def test_a_results_line_that_disagrees_with_its_log_is_flagged(
    played: Path, tmp_path: Path
) -> None:
    """An edited results file cannot borrow a verified log's "watch" link: who won, the
    marks, and who sat where are checked against the log, and the report says so."""
    header, results = read_results(played)
    first = results[0]
    loser = first.second if first.winner == first.first else first.first
    edits = {
        "the winner": {"winner": loser, "winner_side": "BD" if first.winner_side == "AC" else "AC"},
        "the marks": {
            "marks": {"AC": 7, "BD": 0} if first.marks["AC"] != 7 else {"AC": 0, "BD": 7}
        },
    }
    for what, changes in edits.items():
        edited = msgspec.structs.replace(first, **changes)  # type: ignore[arg-type]
        [row] = match_pages(header, [edited], played, tmp_path / "r.html")
        assert row.page is None and row.disagrees and what in (row.why_no_page or ""), what
        page = report_page(header, [edited, *results[1:]], [row])
        assert "disagree" in page
    # An entrant whose program is not the one that sat in its seats (the entrants here all
    # run the same program, so only a changed command can show it).
    entrants = [
        msgspec.structs.replace(e, command=e.command + " --other") if e.name == first.second else e
        for e in header.settings.entrants
    ]
    other = msgspec.structs.replace(
        header, settings=msgspec.structs.replace(header.settings, entrants=entrants)
    )
    [row] = match_pages(other, [first], played, tmp_path / "r.html")
    assert row.disagrees and "who sat where" in (row.why_no_page or "")
    [row] = match_pages(header, [first], played, tmp_path / "r.html")
    assert not row.disagrees and row.page is not None


def test_the_report_counts_void_matches_apart(played: Path) -> None:
    """A void match (bots of both sides failed to start) is no draw in the report either: the
    summary counts it apart, and each entrant's row has it in its own column."""
    header, results = read_results(played)
    void = msgspec.structs.replace(results[0], end="void", winner=None, winner_side=None)
    page = report_page(header, [*results[1:], void], [])
    assert f"{len(results) - 1} of 12 matches played (1 more void:" in page
    first = re.search(rf'<tr data-name="{void.first}">(.*?)</tr>', page, re.S)
    assert first is not None and first.group(1).endswith("<td>1</td>")
    assert "<th>void</th>" in page
