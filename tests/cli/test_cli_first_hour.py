"""A new user's first hour: mistakes are caught before a match (exit 2, one line), counts
say what they count, two runs cannot write one results file, a re-run names its real cause."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.processes import referee

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parents[1] / "bots"
RANDOM = shlex.join([sys.executable, str(ROOT / "example_bots" / "random_bot.py")])


def one_line(stream: str) -> str:
    assert stream.count("\n") == 1 and "Traceback" not in stream, stream
    return stream.strip()


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("", "a bot command is empty"),
        ("python3 'unbalanced", "cannot split the bot command"),
        ("pyhton3 bot.py", "'pyhton3' is not a program on PATH"),
        (f"{sys.executable} missing_bot.py", "missing_bot.py: no such file"),
        ("./no_such_program", "./no_such_program: no such file"),
    ],
)
def test_a_bot_that_cannot_start_is_a_usage_error(tmp_path: Path, command: str, said: str) -> None:
    log = tmp_path / "m.jsonl"
    run = referee("match", command, RANDOM, "--log", str(log), cwd=tmp_path)
    assert run.returncode == 2
    assert said in one_line(run.stderr) and run.stderr.startswith("referee: seat A: ")
    assert not log.exists()
    tour = referee(
        "tournament", "--bot", f"typo={command or ' '}", "--bot", f"ok={RANDOM}", "--seeds", "1",
        "--results", str(tmp_path / "r.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    assert tour.returncode == 2, tour.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_json_keeps_faults_and_refused_answers_apart(tmp_path: Path) -> None:
    illegal = shlex.join([sys.executable, str(BOTS / "illegal_bot.py"), "--times", "1"])
    log = tmp_path / "m.jsonl"
    run = referee(
        "match", illegal, RANDOM, "--log", str(log), "--max-hands", "1", "--json", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    assert outcome["faults"]["A"] == {}
    assert outcome["rejections"]["A"] == {"illegal_action": 1}
    end = json.loads(log.read_text().splitlines()[-1])
    assert end["faults"]["A"] == {"illegal_action": 1}  # the log counts both, as it always has


def test_a_results_file_has_one_writer(tmp_path: Path) -> None:
    slow = tmp_path / "bots" / "slow_bot.py"  # not beside the results: a bot could read them
    slow.parent.mkdir()
    source = (ROOT / "example_bots" / "random_bot.py").read_text()
    changed = source.replace(
        "import json", "import json, os, time\nSLOW = __file__ + '.slow'", 1
    ).replace(
        'elif kind == "act":',
        'elif kind == "act":\n            time.sleep(0.5 if os.path.exists(SLOW) else 0)',
        1,
    )
    assert changed.count("time.sleep") == 1 and "SLOW =" in changed  # the bot is slowed
    slow.write_text(changed)
    # Slow while the second tournament tries the file (however loaded the machine), then fast.
    flag = slow.with_name(slow.name + ".slow")
    flag.touch()
    bot = shlex.join([sys.executable, str(slow)])
    args = ["tournament", "--bot", f"a={bot}", "--bot", f"b={bot}", "--seeds", "4", "--jobs", "1"]
    args += ["--results", str(tmp_path / "results.jsonl")]
    first = subprocess.Popen(
        [sys.executable, "-m", "referee", *args], cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "results.jsonl").exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
        second = referee(*args, "--resume", cwd=tmp_path)
        assert second.returncode == 2
        assert f"being written by another tournament (pid {first.pid})" in one_line(second.stderr)
    finally:
        first.kill()
        first.wait()
        flag.unlink()
    # The writer is gone (killed): its lock went with it, and --resume completes the file.
    done = referee(*args, "--resume", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"] == 8


def test_a_results_directory_is_named_as_such(tmp_path: Path) -> None:
    run = referee(
        "tournament", "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}", "--seeds", "1",
        "--results", str(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 2
    assert "is a directory: name the results file" in one_line(run.stderr)


def test_a_rerun_from_elsewhere_names_the_cause(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bot.py").write_text((ROOT / "example_bots" / "random_bot.py").read_text())
    command = f"{sys.executable} bots/bot.py"  # relative: from tmp_path only
    log = tmp_path / "m.jsonl"
    assert (
        referee(
            "match", command, command, "--log", str(log), "--max-hands", "1", cwd=tmp_path
        ).returncode
        == 0
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = referee("replay", str(log), "--rerun", cwd=elsewhere)
    assert run.returncode == 2
    line = one_line(run.stderr)
    assert "cannot re-run: seat A: bots/bot.py: no such file" in line
    assert "re-run from the directory the match was played in" in line


COMMANDS = [
    ["match"], ["replay"], ["tournament"], ["arena"], ["report"], ["sandbox"], ["schema"], ["play"],
    ["ask"], ["check-bot"], ["league", "init"], ["league", "run"],
    ["bench", "engine"], ["bench", "referee"], ["bench", "tournament"], ["bench", "sandbox"],
    ["bench", "decode"], ["bench", "viewer"], ["bench", "cache"], ["bench", "core"],
    ["bench", "env"], ["bench", "batch"],
    ["strong", "calibrate"], ["strong", "fit-beliefs"], ["strong", "fit-bidding"],
]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_names_values_as_a_user_types_them(tmp_path: Path, command: list[str]) -> None:
    run = referee(*command, "--help", cwd=tmp_path)
    assert run.returncode == 0
    placeholders = ("<bool>", "<list", "list[", "<int", "<float", "<str", "<path", "{log}")
    for placeholder in (*placeholders, "{config}"):
        assert placeholder not in run.stdout, (placeholder, run.stdout)
    assert "[[" not in run.stdout, run.stdout


def test_help_paragraphs_are_wrapped_to_the_terminal_not_to_the_source(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "--help"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "COLUMNS": "200"},
        check=False,
    )  # fmt: skip
    assert "so the luck of the deal cancels out" in run.stdout, run.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["match", "--log", ""], "give the log file's name"),
        (["match", "--log", "/proc/no/such/log.jsonl"], "cannot write the log"),
        (["match", "--time-bank", "nan"], "give seconds from 0 to 86400, not nan"),
        (["tournament", "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}", "--seeds", "1",
          "--alpha", "2"], "--alpha 2.0: a probability between 0 and 1"),
    ],
)  # fmt: skip
def test_small_mistakes_are_usage_errors(tmp_path: Path, args: list[str], said: str) -> None:
    run = referee(*args, cwd=tmp_path)
    assert run.returncode == 2
    assert said in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_replay_json_is_exactly_the_hashed_bytes_and_a_plain_replay_says_it_is_unverified(
    tmp_path: Path,
) -> None:
    import hashlib

    log = tmp_path / "m.jsonl"
    played = referee(
        "match", RANDOM, RANDOM, "--log", str(log), "--max-hands", "2", "--json", cwd=tmp_path
    )
    digest = json.loads(played.stdout)["game_digest"]
    record = subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(log), "--json"],
        capture_output=True, cwd=tmp_path, check=True,
    )  # fmt: skip
    assert hashlib.sha256(record.stdout).hexdigest() == digest
    shown = referee("replay", str(log), cwd=tmp_path)
    assert shown.stdout.splitlines()[-1].startswith("(shown as logged, not verified")
    seat = referee("replay", str(log), "--seat", "B", cwd=tmp_path)
    headings = [line for line in seat.stdout.splitlines() if line.startswith("Hand 1 ")]
    assert len(headings) == 1, headings  # the hand's review is named as such


def test_sigterm_ends_a_tournament_like_ctrl_c(tmp_path: Path) -> None:
    import signal

    slow = tmp_path / "bots" / "slow_bot.py"  # not beside the results: a bot could read them
    slow.parent.mkdir()
    slow.write_text(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'ready', 'name': 'slow'}), flush=True)\n"
        "    elif m['type'] == 'act':\n"
        "        time.sleep(0.05)\n"
        "        answer = {'type': 'action', 'id': m['id'], 'action': m['legal_actions'][0]}\n"
        "        print(json.dumps(answer), flush=True)\n"
    )
    bot = shlex.join([sys.executable, str(slow)])
    results = tmp_path / "results.jsonl"
    tournament = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", "--bot", f"a={bot}", "--bot", f"b={bot}",
         "--seeds", "6", "--jobs", "1", "--max-hands", "2", "--results", str(results)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(results.read_text().splitlines() if results.exists() else []) < 2:
        assert time.monotonic() < deadline and tournament.poll() is None
        time.sleep(0.1)
    tournament.send_signal(signal.SIGTERM)
    out, err = tournament.communicate(timeout=30)
    assert tournament.returncode == 128 + signal.SIGTERM
    assert "--resume" in err and "Traceback" not in err
    assert "Standings" in out


def test_check_bot_exits_0_only_when_every_check_passes(tmp_path: Path) -> None:
    good = referee("check-bot", RANDOM, "--json", "--no-match", cwd=tmp_path)
    assert good.returncode == 0, good.stdout
    assert json.loads(good.stdout)["ok"] is True
    broken = shlex.join([sys.executable, str(BOTS / "old_id_bot.py")])
    bad = referee("check-bot", broken, "--json", "--no-match", cwd=tmp_path)
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    failed = [check["name"] for check in report["checks"] if check["status"] == "failed"]
    assert failed == ["rejected"]
    typo = referee("check-bot", "pyhton3 bot.py", cwd=tmp_path)
    assert typo.returncode == 2 and "not a program on PATH" in one_line(typo.stderr)


def test_standings_count_faults_and_warn_of_an_entrant_that_never_started(tmp_path: Path) -> None:
    dead = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])
    run = referee(
        "tournament", "--bot", f"good={RANDOM}", "--bot", f"dead={dead}", "--seeds", "1",
        "--results", str(tmp_path / "r.jsonl"), "--json", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "warning: entrant dead never started" in run.stderr
    rows = {row["name"]: row for row in json.loads(run.stdout)["standings"]}
    assert rows["dead"]["forfeits"] == 2 and rows["dead"]["faults"] == 4  # two seats a match
    assert rows["dead"]["never_started"] == 4
    assert rows["good"]["faults"] == rows["good"]["forfeits"] == 0


def test_a_shell_wrapped_bot_plays(tmp_path: Path) -> None:
    wrapped = f"sh -c 'exec {sys.executable} {ROOT / 'example_bots' / 'random_bot.py'}'"
    run = referee(
        "match",
        wrapped,
        RANDOM,
        "--log",
        str(tmp_path / "m.jsonl"),
        "--max-hands",
        "1",
        "--json",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["forfeit"] is None
