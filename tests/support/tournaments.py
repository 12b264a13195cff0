"""Helpers of the tournament tests: bot commands, hand-made entrants, settings and results
lines, a tournament run as a user runs it, the processes it leaves, what kept bots told on
stderr, and an output that records what the driver tells."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from referee.rules.tiles import SEATS, Seat
from referee.running.jobs import Entrant, MatchJob
from referee.running.results import MatchResult, ResultsHeader, TournamentSettings, read_results
from referee.settings import MatchLimits
from referee.tournament.output import Ending
from referee.tournament.plan import plan
from support.processes import referee

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
INSTANT = shlex.join([PYTHON, str(ROOT / "referee" / "bench" / "instant_bot.py")])
RANDOM = shlex.join([PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
HEURISTIC = shlex.join([PYTHON, str(ROOT / "example_bots" / "heuristic_bot.py")])

#: A random bot that thinks ``argv[1]`` seconds per decision: slow enough to stop a
#: tournament halfway through.
SLOW_BOT = """
import json, random, sys, time
delay = float(sys.argv[1])
rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        rng.seed(message["seed"])
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif message["type"] == "act":
        time.sleep(delay)
        action = rng.choice(message["legal_actions"])
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif message["type"] == "match_end":
        break
"""


def slow_bot(directory: Path) -> Path:
    bot = directory / "bots" / "slow_bot.py"  # not beside the results: the bot could read them
    bot.parent.mkdir(exist_ok=True)
    bot.write_text(SLOW_BOT)
    return bot


# -- made-up entrants, settings and results -------------------------------------------------


def entrants_of(*names: str) -> list[Entrant]:
    """Entrants of made-up commands (``bot-a``): for plans and fake executors."""
    return [Entrant(name, f"bot-{name}") for name in names]


def settings_of(
    names: tuple[str, ...] = ("a", "b", "c"),
    seeds: int = 3,
    seed: int = 7,
    format: Any = "round-robin",
    limits: MatchLimits | None = None,
) -> TournamentSettings:
    return TournamentSettings(
        entrants=entrants_of(*names),
        seeds=seeds,
        seed=seed,
        format=format,
        limits=limits or MatchLimits(),
    )


def planned(settings: TournamentSettings) -> set[str]:
    """The match ids of the tournament's plan, as the driver gives them to ``ResultsFile``."""
    return {job.match_id for job in plan(settings, Path())}


def result_line(
    first: str,
    second: str,
    winner: str | None,
    *,
    seed: int = 1,
    leg: int = 1,
    marks: tuple[int, int] | None = None,
) -> MatchResult:
    """A hand-made results line: ``winner`` is an entrant's name, or None (unfinished);
    ``marks`` are (AC, BD), i.e. (first, second). Its id is the one ``plan`` gives when the
    names are in the entrants' order and ``seed`` is the deal seed's index."""
    side = None if winner is None else ("AC" if winner == first else "BD")
    if marks is None:
        marks = {"AC": (7, 2), "BD": (2, 7), None: (3, 3)}[side]
    return MatchResult(
        match_id=f"{min(first, second)}~{max(first, second)}~s{seed}~{leg}",
        first=first,
        second=second,
        seed=seed,
        leg=leg,
        winner_side=side,  # type: ignore[arg-type]
        winner=winner,
        marks={"AC": marks[0], "BD": marks[1]},
        hands=5,
        end="max_hands" if winner is None else "marks",
        forfeit=None,
        faults={seat: {} for seat in SEATS},
        game_digest="0" * 64,
        log_digest="0" * 64,
        log=f"logs/{min(first, second)}~{max(first, second)}~s{seed}~{leg}.jsonl",
    )


def result_of(job: MatchJob) -> MatchResult:
    """An unfinished match's line for ``job``, as a fake executor answers it."""
    return MatchResult(
        match_id=job.match_id,
        first=job.first.name,
        second=job.second.name,
        seed=job.seed,
        leg=job.leg,
        winner_side=None,
        winner=None,
        marks={"AC": 0, "BD": 0},
        hands=0,
        end="max_hands",
        forfeit=None,
        faults={},
        game_digest="",
        log_digest="",
        log=job.log,
    )


def made_up_jobs(directory: Path, seeds: int = 2) -> list[MatchJob]:
    """The plan of a tournament of two made-up entrants, ``a`` and ``b``, of seed 1."""
    return plan(TournamentSettings(entrants=entrants_of("a", "b"), seeds=seeds, seed=1), directory)


@contextmanager
def umask(mask: int) -> Iterator[None]:
    """Files made meanwhile get the permission bits ``mask`` leaves."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    """A file's permission bits."""
    return stat.S_IMODE(path.stat().st_mode)


@dataclass
class Recorder:
    """A ``TournamentOutput`` that keeps what the driver told it."""

    notes: list[str] = field(default_factory=list)
    #: Each ``started``: the names, the matches planned, the results already there.
    starts: list[tuple[list[str], int, int]] = field(default_factory=list)
    #: Each ``match_done``: how many results there were.
    done: list[int] = field(default_factory=list)
    stops: int = 0
    ending: Ending | None = None

    def note(self, line: str) -> None:
        self.notes.append(line)

    def started(self, names: list[str], planned: int, results: Sequence[MatchResult]) -> None:
        self.starts.append((names, planned, len(results)))

    def match_done(self, results: Sequence[MatchResult]) -> None:
        self.done.append(len(results))

    def stopped(self) -> None:
        self.stops += 1

    def standings(self, ending: Ending) -> None:
        self.ending = ending

    @property
    def said(self) -> str:
        """Every note, a line each."""
        return "\n".join(self.notes)


# -- the command as a user runs it, and the processes it leaves -----------------------------


def tournament_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``referee tournament ARGS`` in this directory."""
    return referee("tournament", *args, cwd=Path.cwd())


def start_tournament(args: list[str], tmp: Path) -> subprocess.Popen[bytes]:
    """The CLI in a session of its own (as a terminal would run it: one process group), its
    output in ``tmp``'s stdout.txt and stderr.txt."""
    with (tmp / "stdout.txt").open("wb") as stdout, (tmp / "stderr.txt").open("wb") as stderr:
        return subprocess.Popen(
            [PYTHON, "-m", "referee", "tournament", *args],
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )


def wait_for_lines(path: Path, lines: int, process: subprocess.Popen[Any]) -> int:
    """Wait until the results file has ``lines`` complete lines; return how many it has."""
    deadline = time.monotonic() + 30
    while True:
        count = path.read_bytes().count(b"\n") if path.exists() else 0
        if count >= lines:
            return count
        assert process.poll() is None, "the tournament ended before it could be stopped"
        assert time.monotonic() < deadline, f"{path} did not reach {lines} lines"
        time.sleep(0.02)


def processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line contains ``text`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry.name}: {shown}")
    return found


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, group = stat.rsplit(")", 1)[1].split()[:3]
        if int(group) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def wait_until_no_process_mentions(text: str, timeout: float) -> list[str]:
    """Poll until no process mentions ``text`` for a whole second; what is left at timeout."""
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        left = processes_mentioning(text)
        if left:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= 1.0:
            return []
        time.sleep(0.1)
    return processes_mentioning(text)


# -- kept bots ------------------------------------------------------------------------------


@dataclass
class Seating:
    """One seat of one match, as its bot (``tests/bots/many_bot.py``) told it on stderr."""

    match_id: str
    seat: Seat
    hello: dict[str, Any]
    views: list[dict[str, Any]]


def seatings(logs: Path) -> list[Seating]:
    found = []
    for stderr in sorted(logs.glob("*.stderr")):
        match_id, seat = stderr.name.removesuffix(".stderr").rsplit(".", 1)
        lines = [json.loads(line) for line in stderr.read_text().splitlines()]
        hellos = [line for line in lines if "hello" in line]
        assert len(hellos) == 1, f"{stderr.name}: one hello per match and seat"
        views = [line for line in lines if "view" in line]
        found.append(Seating(match_id.removesuffix(".jsonl"), seat, hellos[0], views))  # type: ignore[arg-type]
    return found


def warm_tournament(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A tournament of seed 7 in ``directory``, which must end well."""
    done = referee(
        "tournament", "--results", str(directory / "results.jsonl"), "--seed", "7", *args,
        cwd=directory,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def renamed_results(
    path: Path, names: dict[str, str], logs: dict[int, str] | None = None
) -> tuple[ResultsHeader, list[MatchResult]]:
    """A results file's header and lines with its entrants renamed (``names``: old to new),
    each line's log as it was or, by its match's number, as ``logs`` says."""
    header, results = read_results(path)
    entrants = [msgspec.structs.replace(e, name=names[e.name]) for e in header.settings.entrants]
    header = msgspec.structs.replace(
        header, settings=msgspec.structs.replace(header.settings, entrants=entrants)
    )
    lines = [
        msgspec.structs.replace(
            result,
            first=names[result.first],
            second=names[result.second],
            winner=names.get(result.winner or ""),
            log=(logs or {}).get(result.number, result.log),
        )
        for result in results
    ]
    return header, lines
