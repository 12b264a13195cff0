"""``referee match`` as a user runs it: the same seed gives the same JSON and log; three bot
commands are a usage error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.record.log import read_log
from referee.record.records import MatchEndRecord

CLI_KEYS = {"winner", "marks", "hands", "forfeit", "faults", "game_digest", "log"}


def referee_command() -> list[str]:
    script = Path(sys.executable).parent / "referee"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from referee.cli import app; app()"]


def test_cli_match_json_is_reproducible(tmp_path: Path) -> None:
    logs = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    runs = [
        subprocess.Popen(
            [*referee_command(), "match", "--seed", "3", "--json", "--log", str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        for log in logs
    ]
    outputs = []
    for run, log in zip(runs, logs, strict=True):
        stdout, stderr = run.communicate(timeout=30)
        assert run.returncode == 0, stderr.decode()
        lines = stdout.decode().splitlines()
        assert len(lines) == 1, lines
        result = json.loads(lines[0])
        assert isinstance(result, dict)
        assert set(result) >= CLI_KEYS
        assert result["log"] == str(log)
        assert result["forfeit"] is None
        records = read_log(log).records
        assert type(records[-1]) is MatchEndRecord
        assert records[-1].game_digest == result["game_digest"]
        outputs.append(result)
    assert outputs[0]["game_digest"] == outputs[1]["game_digest"]
    assert outputs[0]["marks"] == outputs[1]["marks"]


def test_cli_match_with_three_bots(tmp_path: Path) -> None:
    run = subprocess.run(
        [*referee_command(), "match", "a", "b", "c", "--log", str(tmp_path / "m.jsonl")],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 2
    assert "four bot commands" in run.stderr and "not 3" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    assert not (tmp_path / "m.jsonl").exists()
