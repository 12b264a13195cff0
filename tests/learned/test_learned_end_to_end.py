"""From training to the table, in small: the strong bot's logs of a duplicate pair of matches,
``referee dataset`` of them, a few training steps, the ``.npz``, and the bot that plays it
passing ``check-bot`` — whole matches under the default sandbox, with its tensors computed
from what its seat was sent — then a match against the random bot without a fault. Each
step is run as the example's README gives it, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
from network import Network
from support.docs import ROOT
from support.processes import referee

LEARNED = ROOT / "example_bots" / "learned"


def test_logs_to_a_trained_bot_that_plays(tmp_path: Path) -> None:
    data, model = tmp_path / "data", tmp_path / "model"  # the bot may read model/, not data/
    data.mkdir()
    played = referee(
        "tournament", "--bot", "strong=bundled:strong", "--bot", "random=bundled:random",
        "--seeds", "1", "--seed", "5", "--jobs", "2", "--results", "results.jsonl", cwd=data,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    rows = referee("dataset", "results.jsonl", "strong.parquet", cwd=data)
    assert rows.returncode == 0, rows.stderr
    bots = pq.read_table(data / "strong.parquet", columns=["bot"])["bot"].to_pylist()
    assert bots.count("strong") > 40 and set(bots) == {"strong", "random"}

    trained = subprocess.run(
        [
            sys.executable, str(LEARNED / "train.py"), str(data / "strong.parquet"),
            "--bot", "strong", "--hidden", "16", "--steps", "4", "--batch", "32",
            "--out", str(model / "policy.npz"),
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr
    assert "decisions of strong" in trained.stdout and "wrote" in trained.stdout
    network = Network.load(model / "policy.npz")
    assert network.inputs == ("information_state", "observation")
    assert [w.shape for w in network.weights] == [(2575 + 502, 16), (16, 73)]

    bot = f"{sys.executable} {LEARNED / 'learned_bot.py'} --model {model / 'policy.npz'}"
    checked = referee("check-bot", bot, "--matches", "2", "--json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert {check["status"] for check in report["checks"]} == {"passed"}, report["checks"]
    assert report["name"] == "learned"

    match = referee("match", bot, "bundled:random", "--seed", "3", "--json", cwd=tmp_path)
    assert match.returncode == 0, match.stderr
    outcome = json.loads(match.stdout)
    assert outcome["end"] == "marks" and not any(outcome["faults"].values()), outcome
