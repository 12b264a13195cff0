"""``referee replay --rerun``: deterministic bots play the same game again; a bot that does
not follow the seed is reported as a difference.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from support.processes import referee as run_referee

from referee.record.log import read_log
from referee.record.verify import verify

ROOT = Path(__file__).resolve().parents[2]


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` run from the clone, as ``support.processes.referee`` runs it."""
    return run_referee(*map(str, args), cwd=ROOT)


def test_rerun_of_deterministic_bots_is_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    played = referee("match", "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    digest = json.loads(played.stdout)["game_digest"]
    result = referee("replay", path, "--rerun")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "rerun: same game"
    assert f"logged game digest: {digest}" in result.stdout
    assert f"rerun game digest:  {digest}" in result.stdout
    assert verify(read_log(tmp_path / "m.rerun.jsonl")).game_digest == digest


CHAOS_BOT = """\
import json, os, random, sys
rng = random.Random(os.urandom(16))  # not the seed from hello: every run differs
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "chaos"}), flush=True)
    elif message["type"] == "act":
        action = rng.choice(message["legal_actions"])
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif message["type"] == "match_end":
        break
"""


def test_rerun_of_a_nondeterministic_bot_reports_a_difference(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "chaos_bot.py"  # not beside the log: the bot could read it
    bot.parent.mkdir()
    bot.write_text(CHAOS_BOT)
    command = shlex.join([sys.executable, str(bot)])
    path = tmp_path / "chaos.jsonl"
    played = referee("match", command, command, "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["end"] == "marks"
    result = referee("replay", path, "--rerun")
    assert result.returncode == 1
    lines = result.stderr.splitlines()  # the sandbox line, the verdict
    assert lines[0].startswith("sandbox auto:")
    assert "rerun: the game differs" in lines[-1]
    logged, rerun = (line.split()[3] for line in result.stdout.splitlines()[:2])
    assert logged == json.loads(played.stdout)["game_digest"] != rerun
