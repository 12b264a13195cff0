"""``referee dataset`` on a real tournament's results and logs: every decision of every log,
a tournament's entrants as the bots, a summary with its rate, the labels when asked. A
missing log, a file that is no log, a log that does not verify, an existing output: one line
naming it, exit 2, and nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from support.processes import referee
from typer.testing import CliRunner

from referee.cli.app import app
from referee.record.log import read_log
from referee.record.records import MoveRecord


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of the bundled heuristic and random bots: 4 matches with their logs."""
    folder = tmp_path_factory.mktemp("played")
    done = referee(
        "tournament", "--bot", "h=bundled:heuristic", "--bot", "r=bundled:random",
        "--seeds", "2", "--results", "results.jsonl", "--logs", "logs", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder


def _dataset(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["dataset", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_results_file_gives_every_decision_of_its_logs(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "d.parquet"
    code, stdout, _ = _dataset(str(played / "results.jsonl"), str(out), "--json")
    assert code == 0
    summary = json.loads(stdout)
    logs = sorted((played / "logs").glob("*.jsonl"))
    moves = sum(type(r) is MoveRecord for log in logs for r in read_log(log).records)
    table = pq.read_table(out)
    assert summary["logs"] == len(logs) == 4 and summary["decisions"] == moves == table.num_rows
    assert summary["decisions_per_second"] > 0 and summary["bytes"] == out.stat().st_size
    assert set(table["bot"].to_pylist()) == {"h", "r"}
    assert sum(summary["phases"].values()) == moves and "makes" not in table.column_names
    assert [p.name for p in tmp_path.iterdir()] == ["d.parquet"]


def test_labels_are_added_when_asked(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "l.parquet"
    log = sorted((played / "logs").glob("*.jsonl"))[0]
    code, _, stderr = _dataset(str(log), str(out), "--labels", "--jobs", "1")
    assert code == 0 and "decisions/s" in stderr
    makes = pq.read_table(out)["makes"].to_pylist()
    assert any(b"\x01" in cell for cell in makes) and len(makes[0]) == 73


def test_what_cannot_be_read_stops_it_with_one_line(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "d.parquet"
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("hello\n")
    edited = tmp_path / "edited.jsonl"
    lines = sorted((played / "logs").glob("*.jsonl"))[0].read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    digit = lines[middle][-4:-3]  # the chain's last hex digit, before '"}\n'
    lines[middle] = lines[middle][:-4] + (b"1" if digit == b"0" else b"0") + lines[middle][-3:]
    edited.write_bytes(b"".join(lines))
    moved = tmp_path / "moved"
    shutil.copytree(played, moved)
    next((moved / "logs").glob("*.jsonl")).unlink()
    for given, named in [
        (tmp_path / "absent.jsonl", "absent.jsonl: no such file"),
        (not_a_log, "neither a tournament's results file nor a replay log"),
        (edited, "edited.jsonl"),
        (moved / "results.jsonl", "of " + str(moved / "results.jsonl")),
    ]:
        code, stdout, stderr = _dataset(str(given), str(out))
        assert code == 2 and stdout == "", given
        assert stderr.count("\n") == 1 and named in stderr, stderr
        assert not out.exists() and [p for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    out.write_bytes(b"keep")
    code, _, stderr = _dataset(str(played / "results.jsonl"), str(out))
    assert code == 2 and "--force" in stderr and out.read_bytes() == b"keep"


def test_a_bad_log_after_rows_were_written_leaves_nothing(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.dataset import export

    monkeypatch.setattr(export, "CHUNK", 1)  # a chunk a log: the good ones are written first
    edited = tmp_path / "last.jsonl"
    edited.write_bytes(b"".join(sorted((played / "logs").glob("*.jsonl"))[0].read_bytes()
                                .splitlines(keepends=True)[:-1]))  # fmt: skip
    out = tmp_path / "d.parquet"
    for jobs in ("1", "2"):
        code, _, stderr = _dataset(str(played / "results.jsonl"), str(edited), str(out),
                                   "--jobs", jobs)  # fmt: skip
        assert code == 2 and "last.jsonl" in stderr and stderr.count("\n") == 1
        assert list(tmp_path.iterdir()) == [edited]


def test_a_failure_in_a_worker_is_named_not_hung(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error of any kind while a worker makes rows comes back as one line naming its log
    (an exception that cannot cross the pool as it is would leave the pool waiting)."""
    from referee.dataset import export
    from referee.errors import VerificationError

    def broken(*args: object, **kwargs: object) -> None:
        raise VerificationError(3, "made up")  # two arguments: not picklable as it is

    monkeypatch.setattr(export, "CHUNK", 1)
    monkeypatch.setattr(export, "add_log", broken)
    code, _, stderr = _dataset(str(played / "results.jsonl"), str(tmp_path / "d"),
                               "--jobs", "2")  # fmt: skip
    assert code == 2 and "VerificationError" in stderr and ".jsonl" in stderr
    assert list(tmp_path.iterdir()) == []


def test_the_file_to_write_comes_last_and_is_never_a_log(played: Path) -> None:
    log = sorted((played / "logs").glob("*.jsonl"))[0]
    before = log.read_bytes()
    code, _, stderr = _dataset(str(played / "results.jsonl"), str(log), "--force")
    assert code == 2 and "is a replay log, not an output" in stderr and log.read_bytes() == before
    code, _, stderr = _dataset(str(played / "results.jsonl"))
    assert code == 2 and "then the file to write" in stderr
