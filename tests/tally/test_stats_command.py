"""``referee stats`` on a real tournament (``conftest.tournament``): its tables and JSON, the
numbers against a count of their own over the logs' records, one entrant, folders, logs
alone, copies, missing logs, and usage mistakes."""

from __future__ import annotations

import io
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from rich.console import Console
from support.log_edits import forged, split
from support.tournaments import renamed_results
from typer.testing import CliRunner

from referee.cli import app
from referee.record.log import read_log
from referee.record.records import HandEndRecord
from referee.running.results import read_results
from referee.tally.sources import tally_paths
from referee.tally.summary import summarize
from referee.tally.tables import tables
from referee.tally.terminal import print_summary


def stats(*arguments: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["stats", *arguments], env=env)
    return result.exit_code, result.stdout, result.stderr


def document(*arguments: str) -> dict[str, Any]:
    code, out, err = stats(*arguments, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def copied(tournament: Path, tmp_path: Path) -> Path:
    """The tournament's results file and logs in a folder of the test's own."""
    shutil.copytree(tournament.parent, tmp_path / "t")
    return tmp_path / "t" / "results.jsonl"


def test_the_numbers_are_the_logs_own(tournament: Path) -> None:
    summary = document(str(tournament))
    _, results = read_results(tournament)
    assert summary["inputs"]["logs"] == len(results) == 6 and summary["inputs"]["skipped"] == []
    declared: dict[str, Counter[str]] = {"r1": Counter(), "r2": Counter()}
    marks: Counter[str] = Counter()
    hands = 0
    for result in results:
        seats = {"A": result.first, "B": result.second, "C": result.first, "D": result.second}
        sides = {"AC": result.first, "BD": result.second}
        ends = [r for r in read_log(tournament.parent / "logs" / Path(result.log).name).records
                if isinstance(r, HandEndRecord)]  # fmt: skip
        hands += len(ends)
        for end in ends:
            contract = end.result.contract
            if contract is not None:
                declared[seats[contract.declarer]][end.result.outcome] += 1
                marks[sides[end.result.winner or ""]] += end.result.marks
    for entrant in summary["entrants"]:
        name = entrant["name"]
        assert entrant["matches"] == 6 and entrant["void"] == 0
        assert entrant["hands"] == hands
        assert entrant["contracts"]["made"] == declared[name]["made"]
        assert entrant["contracts"]["set"] == declared[name]["set"]
        assert entrant["marks_won"] == marks[name]
        assert [t["phase"] for t in entrant["times"]] == [
            "start-up", "bidding", "declaring", "playing"
        ]  # fmt: skip
        assert entrant["pairs"]["pairs"] == 3 and entrant["pairs"]["incomplete"] == 0
    [pairing] = summary["pairings"]
    assert (pairing["first"], pairing["second"]) == ("r1", "r2")


def test_the_json_document_holds_every_number(tournament: Path) -> None:
    summary = document(str(tournament))
    assert set(summary) == {"inputs", "entrants", "pairings"}
    entrant = summary["entrants"][0]
    assert {
        "name", "matches", "void", "forfeits", "hands", "passed_hands", "marks_won",
        "marks_conceded", "marks_won_per_hand", "marks_conceded_per_hand", "contracts",
        "all_tricks", "by_bid", "by_trump", "by_bid_and_trump", "defence", "times", "faults",
        "refused", "pairs", "against", "stderr",
    } == set(entrant)  # fmt: skip
    for line in entrant["by_bid"]:
        assert line["bid"]["type"] in ("bid", "all_tricks") and line["trump"] is None
        assert line["low"] <= line["make_rate"] <= line["high"]
    for line in entrant["by_trump"]:
        assert line["trump"] in [0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"]
    assert entrant["against"][0]["opponent"] == "r2"


def test_one_entrant_and_an_unknown_one(tournament: Path) -> None:
    only = document(str(tournament), "--entrant", "r2")
    assert [e["name"] for e in only["entrants"]] == ["r2"]
    assert only["entrants"][0] == document(str(tournament))["entrants"][1]
    code, out, err = stats(str(tournament), "--entrant", "r3")
    assert code == 2 and out == ""
    assert err.strip() == "referee: no entrant 'r3' in these results and logs; the entrants: r1, r2"


def test_a_folder_counts_each_log_once_and_logs_alone_go_by_the_bots_names(
    tournament: Path, tmp_path: Path
) -> None:
    by_results = document(str(tournament))
    # The folder holds the results file and, below it, its logs: each counted once.
    assert document(str(tournament.parent)) == by_results
    assert document(str(tournament), str(tournament.parent / "logs")) == by_results
    # The logs alone: every seat's bot says "random" in ready, so one entrant on both sides.
    alone = document(str(tournament.parent / "logs"))
    [entrant] = alone["entrants"]
    assert entrant["name"] == "random" and entrant["matches"] == 6
    assert entrant["hands"] == 2 * by_results["entrants"][0]["hands"]
    assert alone["pairings"] == []
    # A copy of a log elsewhere is counted once.
    log = next((tournament.parent / "logs").glob("*.jsonl"))
    shutil.copy(log, tmp_path / "copy.jsonl")
    mixed = document(str(tournament), str(tmp_path / "copy.jsonl"))
    assert mixed["inputs"]["duplicates"] == 1 and mixed["entrants"] == by_results["entrants"]


def test_a_missing_or_edited_log_is_listed_not_counted(tournament: Path, tmp_path: Path) -> None:
    results = copied(tournament, tmp_path)
    logs = sorted((results.parent / "logs").glob("*.jsonl"))
    logs[0].unlink()
    text = logs[1].read_bytes()
    logs[1].write_bytes(text.replace(b'"type":"pass"', b'"type":"pass" ', 1))
    # Run from elsewhere: the logs recorded as t/logs/... are found beside the results file.
    summary = document(str(results))
    inputs = summary["inputs"]
    assert inputs["logs"] == 4 and len(inputs["skipped"]) == 2
    first, second = inputs["skipped"]
    assert first["match"] == logs[0].stem and "is not there" in first["why"]
    assert second["match"] == logs[1].stem and "its chain breaks at line" in second["why"]
    assert all(e["pairs"]["pairs"] == 3 for e in summary["entrants"])  # from the results
    code, out, err = stats(str(results))
    assert code == 0 and "4 logs counted" in out
    assert "2 logs not counted:" in err and logs[0].stem in err


def test_no_log_counted_exits_1(tournament: Path, tmp_path: Path) -> None:
    results = copied(tournament, tmp_path)
    shutil.rmtree(results.parent / "logs")
    code, out, err = stats(str(results))
    assert code == 1 and "0 logs counted" in out
    assert err.strip().splitlines()[-1] == "referee: none of the 6 logs could be counted"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda d: None, "name a results file, logs or a folder"),
        (lambda d: d / "nothing-here", "no such file or folder"),
        (lambda d: _write(d / "notes.jsonl", '{"type": "note"}\n'), "neither a tournament's"),
        (lambda d: _write(d / "odd.jsonl", '{"type": ["header"]}\n'), "neither a tournament's"),
        (lambda d: _write(d / "x.txt", "hello\n"), "neither a tournament's results file nor"),
        (lambda d: _write(d / "empty", ""), "neither"),
        (lambda d: _folder(d / "f"), "holds no results file and no replay log"),
        (lambda d: _write(d / "r.jsonl", '{"type": "tournament"}\n'), "not a results file"),
    ],
)
def test_usage_mistakes_exit_2_in_one_line(make: Any, said: str, tmp_path: Path) -> None:
    path = make(tmp_path)
    code, out, err = stats(*([] if path is None else [str(path)]))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err, err


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    (path / "a.stderr").write_text("not data\n")
    return path


def renamed(tournament: Path, tmp_path: Path, names: dict[str, str]) -> Path:
    """The tournament's results with its entrants renamed (its logs where they are)."""
    _, results = read_results(tournament)
    where = {r.number: str(tournament.parent / "logs" / Path(r.log).name) for r in results}
    header, lines = renamed_results(tournament, names, where)
    path = tmp_path / "renamed.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(x) + b"\n" for x in [header, *lines]))
    return path


@pytest.mark.parametrize("columns", ["80", "50"])
def test_off_a_terminal_no_header_word_or_name_is_cut(
    tournament: Path, tmp_path: Path, columns: str
) -> None:
    long = "a-very-long-entrant-name-filling-40chars"
    assert len(long) == 40
    results = renamed(tournament, tmp_path, {"r1": long, "r2": "r2"})
    code, out, _ = stats(str(results), env={"COLUMNS": columns})
    assert code == 0
    summary = summarize(tally_paths([results]))
    words = {word for view in tables(summary) for column in view.columns for word in column.split()}
    words |= {long, "declaring", "defending", "start-up", "interval"}
    for word in words:
        assert re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", out), word
    assert "…" not in out
    row = next(line for line in out.splitlines() if line.startswith("│ a-very-long"))
    assert row.endswith("│")  # a row is one line: the table as wide as its cells need


def test_names_from_a_results_file_are_printed_escaped(tournament: Path, tmp_path: Path) -> None:
    hostile = "[bold red]x\x1b[2J\u202e"
    results = renamed(tournament, tmp_path, {"r1": hostile, "r2": "r2"})
    code, out, err = stats(str(results))
    assert code == 0, err
    assert "\x1b" not in out and "\u202e" not in out
    assert "[bold red]x\\x1b[2J\\u202e" in out
    summary = document(str(results))  # the JSON keeps the name as it is
    assert summary["entrants"][0]["name"] == hostile


def test_on_a_narrow_terminal_cells_fold_and_nothing_is_lost(tournament: Path) -> None:
    summary = summarize(tally_paths([tournament]))
    screen = Console(file=io.StringIO(), force_terminal=True, width=40, color_system=None)
    print_summary(summary, screen, screen)
    text = screen.file.getvalue()  # type: ignore[attr-defined]
    assert max(len(line) for line in text.splitlines()) <= 40 and "…" not in text


def test_verify_leaves_out_a_forged_log_the_walk_alone_would_count(
    tournament: Path, tmp_path: Path
) -> None:
    log = next((tournament.parent / "logs").glob("*.jsonl"))
    lines = split(log.read_bytes())
    at = next(i for i, line in enumerate(lines) if line.value["type"] == "hand_end")
    # The hand's reason in words rewritten, every chain member written again: the chain
    # holds, the moves are the same, so only verify's re-simulation can tell.
    lines[at] = lines[at].edited(lambda value: value["result"].update(reason="forged"))
    forged_log = tmp_path / "forged.jsonl"
    forged_log.write_bytes(forged(lines))
    walked = document(str(forged_log))
    assert walked["inputs"]["logs"] == 1 and walked["inputs"]["verified"] is False
    code, out, _ = stats(str(forged_log), "--verify", "--json")
    assert code == 1
    checked = json.loads(out)["inputs"]
    assert checked["logs"] == 0 and checked["verified"] is True
    assert f"line {at + 1}" in checked["skipped"][0]["why"]
    assert "does not verify" in checked["skipped"][0]["why"]
