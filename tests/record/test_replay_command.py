"""``referee replay``: a real match of the bundled bots verified, rendered and printed as its
game record; files that are not logs, edited logs and conflicting modes each exit with one line.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.log_edits import (
    NOT_LOGS,
    forged,
    naive,
    not_a_log,
    positions,
    records_of,
    split,
    swap_first_tiles,
)
from support.processes import referee as run_referee

from referee.record.records import DealRecord

ROOT = Path(__file__).resolve().parents[2]


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` run from the clone, as ``support.processes.referee`` runs it."""
    return run_referee(*map(str, args), cwd=ROOT)


# -- the command line ---------------------------------------------------------------------------


def one_line(stream: str) -> str:
    assert stream.endswith("\n") and stream.count("\n") == 1, stream
    assert "Traceback" not in stream
    return stream.strip()


@dataclass(frozen=True)
class RealMatch:
    path: Path
    outcome: dict[str, Any]


@pytest.fixture(scope="module")
def real_match(tmp_path_factory: pytest.TempPathFactory) -> RealMatch:
    """The bundled heuristic bot (A+C) against the bundled random bot, seed 5."""
    path = tmp_path_factory.mktemp("real") / "match.jsonl"
    played = referee("match", "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    return RealMatch(path, json.loads(played.stdout))


@pytest.mark.parametrize("case", NOT_LOGS)
def test_replay_of_a_file_that_is_not_a_log_exits_2_with_one_line(
    case: str, tmp_path: Path, real_match: RealMatch
) -> None:
    path = not_a_log(case, tmp_path, real_match.path.read_bytes())
    result = referee("replay", path)
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("referee: ")
    assert result.stdout == ""


def test_replay_verify_of_a_real_match(real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, "--verify")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("verified: ")
    assert f"game digest: {real_match.outcome['game_digest']}" in lines
    assert f"log digest:  {real_match.outcome['log_digest']}" in lines


@pytest.mark.parametrize("how", ["naive", "forged"])
def test_replay_verify_of_an_edited_log_exits_1(
    how: str, real_match: RealMatch, tmp_path: Path
) -> None:
    data = real_match.path.read_bytes()
    tampered = swap_first_tiles(1)(split(data), records_of(data))
    path = tmp_path / "edited.jsonl"
    path.write_bytes(naive(tampered.lines) if how == "naive" else forged(tampered.lines))
    result = referee("replay", path, "--verify")
    assert result.returncode == 1
    message = one_line(result.stderr)
    words = "the chain does not match" if how == "naive" else "the first deal from the seed"
    assert message.startswith(f"verification failed: line {tampered.naive_line}: {words}")


@pytest.mark.parametrize(
    "modes", [["--verify", "--json"], ["--seat", "A", "--public"], ["--json", "--rerun"]]
)
def test_replay_with_two_modes_exits_2(modes: list[str], real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, *modes)
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "referee: choose one of --seat, --public, --verify, --json, --rerun"
    )


def test_replay_json_prints_the_canonical_game_record(real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, "--json")
    assert result.returncode == 0, result.stderr
    printed = result.stdout
    assert "\n" not in printed  # exactly the bytes game_digest hashes: no newline
    assert hashlib.sha256(printed.encode()).hexdigest() == real_match.outcome["game_digest"]
    # Compact JSON with sorted keys, as LOG.md defines it.
    record = json.loads(printed)
    assert printed == json.dumps(record, sort_keys=True, separators=(",", ":"))
    assert record["seed"] == 5 and record["end"] == "marks"
    assert len(record["hands"]) == real_match.outcome["hands"]


def test_replay_renders_a_real_match(real_match: RealMatch) -> None:
    for mode, first in (
        ([], "Texas 42 match — seed 5"),
        (["--seat", "B"], "Texas 42 match: what B (B+D) was shown"),
        (["--public"], "Texas 42 match: the public record"),
    ):
        result = referee("replay", real_match.path, *mode)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[0].startswith(first)
        assert result.stderr == ""
        # A seat's and the public rendering never give the seed: it deals every hand.
        assert ("seed 5" in result.stdout) == (mode == [])


def test_replay_json_of_a_log_without_its_first_deal(real_match: RealMatch, tmp_path: Path) -> None:
    # A move before any deal: one line saying the log does not follow the rules (exit 2), no
    # traceback.
    data = real_match.path.read_bytes()
    i = positions(records_of(data), DealRecord)[0]
    lines = split(data)
    path = tmp_path / "no-deal.jsonl"
    path.write_bytes(forged(lines[:i] + lines[i + 1 :]))
    result = referee("replay", path, "--json")
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("referee: ")
