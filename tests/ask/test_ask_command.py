"""``referee ask`` as a user runs it, with real bot processes: the bundled bots and the test
bots on the golden logs (tests/golden), a bot reported illegal with the table's reason, a bot
that crashes, the sweep, a bot that tries to read the log, and the usage mistakes (exit 2).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.testing
from support.bot_commands import HEURISTIC_BOT, RANDOM_BOT, python
from support.fakes import play_match
from support.faulty_matches import FAULTY
from support.processes import BOTS
from support.processes import referee as run_referee
from support.told import normal

from referee.match.runner import BUNDLED_BOTS
from referee.record.records import ActRecord, RejectedRecord
from referee.rules import Seat
from referee.sandbox.layers import available

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "logs"


def referee(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if env is None:
        return run_referee(*map(str, args), cwd=ROOT)
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
        env={**os.environ, **env},
    )


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """The golden logs, copied where the test may keep them: ``bundled-0`` (the heuristic bot
    as A+C, the random bot as B+D), ``forfeit-0`` (seat C answers illegally until it
    forfeits), ``random_policy-0``."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("bundled-0.jsonl", "forfeit-0.jsonl", "random_policy-0.jsonl"):
        shutil.copy(GOLDEN / name, folder / name)
    return folder


def one_line(stream: str) -> str:
    assert stream.count("\n") == 1 and "Traceback" not in stream, stream
    return stream.strip()


# -- what a bot answers ----------------------------------------------------------------------


def test_the_bot_that_played_a_seat_answers_every_decision_as_played(logs: Path) -> None:
    """The regression check: B was the bundled random bot, which plays from its seed alone."""
    done = referee("ask", logs / "bundled-0.jsonl", RANDOM_BOT, "--seat", "B")
    assert done.returncode == 0, done.stderr
    assert "ready: 'random', matches many" in done.stdout
    assert "27 acts asked: 27 as played, 0 legal but not as played" in done.stdout
    assert done.stderr.startswith("sandbox ")  # the sandbox line, as for a match
    assert "page-cache (a bot asked alone has no partner" in done.stderr or (
        "page-cache" not in done.stderr.partition("off:")[0]  # not claimed as in force
    )


def test_debug_traces_the_conversation_with_the_bot(logs: Path) -> None:
    done = referee("ask", logs / "bundled-0.jsonl", "5", RANDOM_BOT, "--debug", "--json")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # the trace is on stderr
    sent = [line.split(" >> ", 1)[1] for line in done.stderr.splitlines() if " >> " in line]
    read = [line.split(" << ", 1)[1] for line in done.stderr.splitlines() if " << " in line]
    assert sent[0].startswith('{"type":"hello"') and '"type": "ready"' in read[0]
    assert any(line.startswith('{"type":"act","id":5,') for line in sent)


@pytest.mark.parametrize(
    ("log", "seat", "bot"),
    [
        ("bundled-0", "C", HEURISTIC_BOT),
        ("kit-0", "A", python(BUNDLED_BOTS / "kit_random_bot.py")),
        ("random_policy-0", "A", python(BOTS / "illegal_bot.py", "--times", "8")),
    ],
)
def test_each_logged_bot_answers_its_seat_again_as_it_did(
    logs: Path, log: str, seat: str, bot: str
) -> None:
    """Bots that answer from what they read alone (their views, the events, their seed) give
    the logged answers again: every move, and every refusal with the table's very words."""
    shutil.copy(GOLDEN / f"{log}.jsonl", logs / f"{log}.jsonl")
    done = referee("ask", logs / f"{log}.jsonl", bot, "--seat", seat, "--json")
    acts = json.loads(done.stdout)["acts"]
    assert len(acts) > 10
    for act in acts:
        logged, answer = act["logged"], act["answer"]
        if logged["kind"] == "played":
            assert act["standing"] == "as_played", act
        else:
            assert logged["kind"] == "refused" and answer["verdict"] == "illegal", act
            fields = ("reason", "detail", "rule", "raw")
            assert [answer[f] for f in fields] == [logged[f] for f in fields]
    assert done.returncode == (1 if "illegal" in bot else 0)


def test_one_decision_in_context_beside_the_log(logs: Path) -> None:
    done = referee("ask", logs / "bundled-0.jsonl", 7, HEURISTIC_BOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for text in (
        "Decision #7 of seat C: hand 1, dealer C, marks A+C 0, B+D 0",
        "your hand: [4|5] [0|3] [2|5] [5|6] [3|5] [0|5] [0|6]",
        "contract: B all tricks for 1 mark, trump blanks, 1 pile face up",
        "trick: B [1|3]",
        "legal: play [3|5]",
        "#7: answered play [3|5]: played",
        '{"type":"action","id":7,"action":{"type":"play","tile":[3,5]}}',  # the kit's
        "play [3|5] — as played",
        "Before it: 1 act asked, 1 answered as played.",
    ):
        assert text in out, (text, out)
    as_json = referee("ask", logs / "bundled-0.jsonl", "#7", HEURISTIC_BOT, "--json")
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and report["ok"] and report["listed"] == []
    assert (report["seat"], report["decision"], report["sweep"]) == ("C", 7, False)
    assert [act["id"] for act in report["acts"]] == [4, 7]
    last = report["acts"][-1]
    assert last["answer"]["action"] == {"type": "play", "tile": [3, 5]}
    assert last["logged"] == {"kind": "played", "action": {"type": "play", "tile": [3, 5]}}
    assert last["legal_actions"] == [{"type": "play", "tile": [3, 5]}]
    assert last["view"]["hand"][0] == [4, 5] and last["standing"] == "as_played"


def test_an_illegal_answer_is_reported_with_the_tables_reason(logs: Path) -> None:
    done = referee("ask", logs / "forfeit-0.jsonl", 3, python(BOTS / "illegal_bot.py"))
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "#2: refused (illegal_action [wrong_phase])" in out  # the log's course
    assert "the fault (too_many_rejections) forfeited the match" in out
    assert "play [0|0]: illegal (wrong_phase) — ILLEGAL" in out
    assert (
        "the table would refuse it: illegal_action: no tile is played during the bidding;"
        " play [0|0] is not legal (wrong_phase)"
    ) in out


def test_a_sweep_lists_every_answer_not_as_played(logs: Path) -> None:
    """Seat C of the bundled match was the heuristic bot: the random bot differs, legally."""
    done = referee("ask", logs / "bundled-0.jsonl", RANDOM_BOT, "--seat", "C", "--json")
    assert done.returncode == 0
    report = json.loads(done.stdout)
    standings = {act["id"]: act["standing"] for act in report["acts"]}
    assert report["listed"] == [i for i, s in standings.items() if s != "as_played"]
    assert set(standings.values()) == {"as_played", "differs"} and report["ok"]
    upto = referee("ask", logs / "bundled-0.jsonl", 24, RANDOM_BOT, "--seat", "C", "--json")
    assert [act["id"] for act in json.loads(upto.stdout)["acts"]][-1] == 24
    text = referee("ask", logs / "bundled-0.jsonl", RANDOM_BOT, "--seat", "C").stdout
    assert "#4   1     bidding  pass" in text and "legal, not as played" in text


def test_a_bot_that_crashes_leaves_the_rest_unasked(logs: Path) -> None:
    crash = python(BOTS / "crash_bot.py", "--after", "2", "--status", "3")
    done = referee("ask", logs / "bundled-0.jsonl", crash, "--seat", "B")
    assert done.returncode == 1
    assert "NO ANSWER" in done.stdout and "exit status 3" in done.stdout
    assert "Not asked: 24 acts, as the bot went away: crashed:" in done.stdout


def test_a_bot_that_does_not_start_is_asked_nothing(logs: Path) -> None:
    silent = python(BOTS / "silent_bot.py")
    done = referee("ask", logs / "bundled-0.jsonl", 7, silent, "--startup-timeout", "0.3")
    assert done.returncode == 1
    assert "start-up: no answer (timeout): no answer in time" in done.stdout
    assert "Not asked: 2 acts, as the bot did not start: timeout" in done.stdout


@pytest.mark.parametrize("seat", ["D", "A"])
def test_a_bot_process_reads_exactly_what_the_seat_read(tmp_path: Path, seat: Seat) -> None:
    """End to end: a match over fake bots that keep every byte they read (D answers illegally
    until its rejections are faults: refusals, forced moves, strikes, a forfeit); a real bot
    process asked every decision of the seat reads the same bytes, up to its last act."""
    played, match, _, _ = FAULTY["too_many_rejections, random then forfeit"]()
    run = trio.run(play_match, played, match, clock=trio.testing.MockClock(autojump_threshold=0))
    log, record = tmp_path / "match.jsonl", tmp_path / "read.bin"
    log.write_bytes(run.log)
    recorder = python(BOTS / "recorder_bot.py")
    done = referee(
        "ask", log, recorder, "--seat", seat, "--sandbox", "off", env={"RECORD_TO": str(record)}
    )
    assert done.returncode == 0, done.stdout
    read = normal(record.read_bytes())
    received = normal(bytes(run.bots[seat].received))
    last_act = received.rindex(b'{"type":"act"')
    assert read == received[: received.index(b"\n", last_act) + 1]
    last = max(r.id for r in run.of(ActRecord) if r.seat == seat)
    refused = [r for r in run.of(RejectedRecord) if r.seat == seat and r.id < last]
    assert read.count(b'{"type":"rejected"') == len(refused) == (8 if seat == "D" else 0)
    assert b'{"type":"forced","seat":"D","reason":"too_many_rejections"}' in read


# -- the sandbox -----------------------------------------------------------------------------


@pytest.mark.skipif(
    available()["landlock"] is not None, reason=f"this kernel has no Landlock: {available()}"
)
@pytest.mark.parametrize("mode", ["auto", "off"])
def test_the_bot_cannot_read_the_log_it_is_replayed_from(logs: Path, mode: str) -> None:
    """The attacker reads the path it is given (through the environment: a path on its
    command line would be allowed to it) at its first act; with the sandbox off, the control,
    it succeeds."""
    log = logs / "bundled-0.jsonl"
    attacker = python(BOTS / "attacker_bot.py", "--attack", "read-file")
    done = referee(
        "ask", log, 7, attacker, "--sandbox", mode, "--sandbox-env", "ATTACK_TARGET",
        "--json", env={"ATTACK_TARGET": str(log)},
    )  # fmt: skip
    report = json.loads(done.stdout)
    if mode == "off":
        assert 'ATTACK read-file: SUCCEEDED b\'{"type":"header"' in "\n".join(
            report["stderr"]["lines"]
        )
    else:
        assert "ATTACK read-file: BLOCKED" in "\n".join(report["stderr"]["lines"]), report["stderr"]


@pytest.mark.skipif(
    available()["landlock"] is not None, reason=f"this kernel has no Landlock: {available()}"
)
def test_the_logs_directory_stays_closed_when_a_folder_around_it_is_allowed(
    logs: Path,
) -> None:
    """``--sandbox-allow`` a folder that holds the log: the log's directory is among the
    referee's own, so either the seat gets a uid of its own and the directory is covered in
    its view (the attack is blocked), or ask refuses to start it (exit 2, one line)."""
    log = logs / "bundled-0.jsonl"
    attacker = python(BOTS / "attacker_bot.py", "--attack", "read-file")
    done = referee(
        "ask", log, 7, attacker, "--sandbox-allow", logs.parent, "--sandbox-env",
        "ATTACK_TARGET", "--json", env={"ATTACK_TARGET": str(log)},
    )  # fmt: skip
    if done.returncode == 2:
        assert f"could read {logs}" in one_line(done.stderr)
    else:
        assert "ATTACK read-file: BLOCKED" in "\n".join(json.loads(done.stdout)["stderr"]["lines"])


# -- usage mistakes --------------------------------------------------------------------------


def test_usage_mistakes_exit_2_with_one_line(logs: Path, tmp_path: Path) -> None:
    log = logs / "bundled-0.jsonl"
    edited = logs / "edited.jsonl"
    edited.write_text(log.read_text().replace('"points":41', '"points":40', 1))
    (tmp_path / "empty.jsonl").write_text("")
    cases = {
        "is empty: not a replay log": ("ask", tmp_path / "empty.jsonl", 1, RANDOM_BOT),
        "does not verify (line": ("ask", edited, 1, RANDOM_BOT),
        "no act #999 in": ("ask", log, 999, RANDOM_BOT),
        "seat A made no decision": ("ask", logs / "forfeit-0.jsonl", RANDOM_BOT, "--seat", "A"),
        "act #7 was asked of seat C, not B": ("ask", log, 7, RANDOM_BOT, "--seat", "B"),
        "'x' is not a decision's id": ("ask", log, "x", RANDOM_BOT),
        "give the decision's id before": ("ask", log, RANDOM_BOT),
        "give the bot's command after the decision": ("ask", log, 7, "--seat", "C"),
        "is not a program on PATH": ("ask", log, 7, "no-such-bot-program"),
    }
    for expected, args in cases.items():
        done = referee(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert expected in one_line(done.stderr), (expected, done.stderr)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_ask_leaves_no_bot_behind(logs: Path, signum: signal.Signals) -> None:
    pids = logs / "pids"
    pids.mkdir()
    sleepy = python(BOTS / "sleepy_bot.py", "--pid-dir", str(pids))  # thinks for 600 s
    asking = subprocess.Popen(
        [sys.executable, "-m", "referee", "ask", logs / "bundled-0.jsonl", "20", sleepy,
         "--move-timeout", "60", "--sandbox", "off"],  # off: the bot writes its pid file
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not (written := list(pids.glob("bot-[0-9]*[0-9]"))):  # not its .tmp
        assert time.monotonic() < deadline, "the bot did not start"
        time.sleep(0.02)
    bot = int(written[0].name.split("-")[1])
    asking.send_signal(signum)
    _, stderr = asking.communicate(timeout=10)
    assert asking.returncode == 128 + signum
    assert stderr.decode().splitlines()[-1] == "referee: interrupted; the bot was closed"
    assert not gone_pid_alive(bot)


def gone_pid_alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie counts as gone), waiting up to a second."""
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state == "Z":
            return False
        time.sleep(0.02)
    return True


def test_what_a_bot_says_is_shown_escaped(logs: Path) -> None:
    """The escape bot's first answer to each decision would retitle the window, clear the
    screen, write the clipboard or forge a line of the referee's: every one is shown escaped,
    in the table, the single decision and --json alike."""
    hostile = python(BOTS / "escape_bot.py")
    log = logs / "bundled-0.jsonl"
    for args in (("--seat", "B"), ("6",), ("--seat", "B", "--json")):
        words = [a for a in args if a.isdigit()]
        done = referee("ask", log, *words, hostile, *[a for a in args if not a.isdigit()])
        assert done.returncode == 1, done.stdout
        out = done.stdout
        for raw in ("\x1b", "\x07", "\x9b", "\u202e", "\u2028", "\x85", "\r", "\x0b", "\x0c"):
            assert raw not in out, (args, raw)
        if args != ("--seat", "B"):  # the table says only how each line was refused
            assert "\\x1b" in out or "\\u001b" in out, out
