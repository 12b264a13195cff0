"""The results file: appended and read back, a cut-off last line dropped on ``--resume``,
another tournament's file refused, and the file the operator's alone whatever the umask."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from support.tournaments import (
    INSTANT,
    entrants_of,
    made_up_jobs,
    mode,
    planned,
    result_line,
    result_of,
    settings_of,
    tournament_cli,
    umask,
)

from referee.running.jobs import Entrant
from referee.running.results import (
    MatchResult,
    ResultsError,
    ResultsFile,
    TournamentSettings,
    read_results,
)
from referee.settings import MatchLimits as Limits


def _two_results() -> list[MatchResult]:
    return [
        result_line("a", "b", "a", seed=0, leg=1),
        result_line("b", "a", None, seed=0, leg=2),
    ]


def test_results_are_appended_and_read_back(tmp_path: Path) -> None:
    settings = settings_of(("a", "b"), seeds=2)
    path = tmp_path / "new" / "results.jsonl"
    results_file = ResultsFile.open(path, settings, planned(settings), resume=False)
    for result in _two_results():
        results_file.append(result)
        # Flushed at once: readable while the tournament still runs.
        assert read_results(path)[1][-1] == result
    results_file.close()
    header, results = read_results(path)
    assert header.fingerprint == settings.fingerprint()
    assert header.settings == settings
    assert results == _two_results()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["tournament", "match", "match"]
    reopened = ResultsFile.open(path, settings, planned(settings), resume=True)
    reopened.close()
    assert reopened.done == {result.match_id: result for result in _two_results()}


@pytest.mark.parametrize("cut", ["half a line", "all but the line end"])
def test_resume_drops_a_cut_off_last_line(tmp_path: Path, cut: str) -> None:
    settings = settings_of(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    results_file = ResultsFile.open(path, settings, planned(settings), resume=False)
    for result in _two_results():
        results_file.append(result)
    results_file.close()
    third = result_line("a", "b", "b", seed=1, leg=1)
    line = msgspec.json.encode(third)
    with path.open("ab") as stream:  # what kill -9 in the middle of a write leaves behind
        stream.write(line[: len(line) // 2] if cut == "half a line" else line)
    assert read_results(path)[1] == _two_results()
    results_file = ResultsFile.open(path, settings, planned(settings), resume=True)
    assert set(results_file.done) == {result.match_id for result in _two_results()}
    assert path.read_bytes().endswith(b"\n")
    results_file.append(third)
    results_file.close()
    assert read_results(path)[1] == [*_two_results(), third]
    for text in path.read_bytes().split(b"\n")[:-1]:
        json.loads(text)


def test_resume_refuses_the_results_of_another_tournament(tmp_path: Path) -> None:
    settings = settings_of(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    results_file = ResultsFile.open(path, settings, planned(settings), resume=False)
    results_file.append(_two_results()[0])
    results_file.close()
    with path.open("ab") as stream:
        stream.write(b'{"type":"match","mat')
    before = path.read_bytes()
    for other in (
        settings_of(("a", "b"), seeds=2, seed=8),
        settings_of(("a", "b"), seeds=3),
        settings_of(("a", "c"), seeds=2),
        settings_of(("a", "b"), seeds=2, limits=Limits(max_hands=10)),
    ):
        with pytest.raises(ResultsError, match="belongs to another tournament"):
            ResultsFile.open(path, other, planned(other), resume=True)
    assert path.read_bytes() == before  # untouched, not even the cut-off line


def test_an_existing_results_file_needs_resume(tmp_path: Path) -> None:
    settings = settings_of(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    ResultsFile.open(path, settings, planned(settings), resume=False).close()
    before = path.read_bytes()
    with pytest.raises(ResultsError, match="exists: add --resume"):
        ResultsFile.open(path, settings, planned(settings), resume=False)
    assert path.read_bytes() == before
    # --resume with no file yet simply starts the tournament.
    fresh = ResultsFile.open(tmp_path / "fresh.jsonl", settings, planned(settings), resume=True)
    fresh.close()
    assert fresh.done == {} and read_results(tmp_path / "fresh.jsonl")[1] == []


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("dear diary\n")
    with pytest.raises(ResultsError, match="not a results file"):
        ResultsFile.open(path, settings_of(), planned(settings_of()), resume=True)


def test_cli_refuses_existing_or_foreign_results_in_one_line(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    common = ["--bot", f"a={INSTANT}", "--bot", f"b={INSTANT}", "--seeds", "1"]
    settings = TournamentSettings(
        entrants=[Entrant("a", INSTANT), Entrant("b", INSTANT)], seeds=1, seed=1
    )
    ResultsFile.open(results, settings, planned(settings), resume=False).close()
    exists = tournament_cli(*common, "--seed", "1", "--results", str(results))
    foreign = tournament_cli(*common, "--seed", "2", "--results", str(results), "--resume")
    for done, message in ((exists, "--resume"), (foreign, "another tournament")):
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("referee: ") and message in done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr


def test_a_results_file_with_ids_this_tournament_does_not_plan_is_refused(
    tmp_path: Path,
) -> None:
    """An older referee named matches by their seed: resuming its file would play them all
    again under the new names and count them twice."""
    jobs = made_up_jobs(tmp_path)
    settings = TournamentSettings(entrants=entrants_of("a", "b"), seeds=2, seed=1)
    path = tmp_path / "results.jsonl"
    results_file = ResultsFile.open(path, settings, planned(settings), resume=False)
    old = result_of(jobs[0])
    results_file.append(msgspec.structs.replace(old, match_id=f"a~b~{old.seed:016x}~1"))
    results_file.close()
    with pytest.raises(ResultsError, match="does not plan"):
        ResultsFile.open(path, settings, planned(settings), resume=True)


# -- file modes --------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o277])
def test_the_results_file_is_the_operators_alone_whatever_the_umask(
    tmp_path: Path, mask: int
) -> None:
    settings = TournamentSettings(entrants=entrants_of("a", "b"), seeds=1, seed=1)
    with umask(mask):
        ResultsFile.open(
            tmp_path / "new" / "results.jsonl", settings, planned(settings), False
        ).close()
    assert mode(tmp_path / "new" / "results.jsonl") == 0o600
    assert read_results(tmp_path / "new" / "results.jsonl")[1] == []  # still usable


def test_resuming_tightens_an_older_results_file(tmp_path: Path) -> None:
    settings = TournamentSettings(entrants=entrants_of("a", "b"), seeds=1, seed=1)
    path = tmp_path / "results.jsonl"
    ResultsFile.open(path, settings, planned(settings), resume=False).close()
    path.chmod(0o644)
    ResultsFile.open(path, settings, planned(settings), resume=True).close()
    assert mode(path) == 0o600
