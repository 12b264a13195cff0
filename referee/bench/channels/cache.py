"""How many bits of a hand a cache timing channel carries per match, between partners live
in one match and from leg 1 to leg 2 of a duplicate pair, under each allow-list.

The channel is a real pair of hostile bots (``cache_bot.py``, beside this): the sender
in seat A marks its hand's 28-bit mask in which pages of files it may read are cached; the
receiver times one-byte reads of the same pages and writes what it decoded to its stderr.
Partners: the receiver is seat C of the same match and reads once the bidding is over.
Legs: the receiver is seat B of a second match with the same seed, started after the first
has ended, with another uid and nothing of the first alive. With ``--medium names`` the
marks are failed lookups of names that do not exist (negative dentries) instead.

Each trial deals a new hand and starts from cold slots: the pool the bots used is evicted
(``POSIX_FADV_DONTNEED``, from outside the sandbox) before it, and names are new each time,
as a pair in the wild would move on to pages nobody has read. Variants, measured in the same
run, trials interleaved:

- ``off``: no sandbox, the control: the channel must carry the hand here.
- ``before``: the sandbox with the allow-list it had before issue 17 (all of ``/usr``,
  ``/lib``, ``/bin``, ``/sbin``: given here as ``--sandbox-allow`` paths).
- ``narrow``: the sandbox with its allow-list (the runtime's own files).
- ``resident``: the same, every file a seat may read pinned before each match
  (``referee.sandbox.resident.warm``, which the bench calls as the referee does).
- ``forget``: the same, and the lookup caches dropped before each match
  (``resident.forget_lookups``).

The figure is bits per match as ``channel_score`` measures them (the mutual information of
the hand's bits and the received bits, times 28; 22.7 is every hand exact), beside chance:
what a receiver that learns nothing reaches with as many trials.
"""

from __future__ import annotations

import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec
import trio

from referee.bench.channels import score as channel_score
from referee.bench.channels.score import Trial
from referee.bundled import BOTS
from referee.match.runner import run_match, stderr_path
from referee.record.log import read_log
from referee.record.records import DealRecord
from referee.record.sandbox import Layer
from referee.rules.tiles import TILES, Seat
from referee.sandbox import paths, resident
from referee.sandbox.policy import plan
from referee.settings import MatchSettings, SandboxSettings

BOT: Final = Path(__file__).resolve().with_name("cache_bot.py")
RANDOM_BOT: Final = BOTS / "random_bot.py"
#: The whole-system part of the allow-list before issue 17.
WHOLE_SYSTEM: Final = tuple(
    path
    for path in ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
    if os.path.exists(path)
)
VARIANTS: Final = ("off", "before", "narrow", "resident", "forget")
MEDIA: Final = ("pages", "names")
SCENARIOS: Final = ("partners", "legs")


@dataclass
class Result:
    variant: str
    scenario: str
    trials: list[Trial] = field(default_factory=list)
    warm_seconds: list[float] = field(default_factory=list)

    @property
    def bits(self) -> float:
        """Bits per match the channel carried."""
        return channel_score.bits(self.trials)

    def chance(self, rng: random.Random) -> float:
        """What a receiver that learns nothing reaches, with as many trials (95th pct)."""
        return channel_score.chance(self.trials, rng)

    @property
    def exact(self) -> int:
        return sum(trial.received == trial.sent for trial in self.trials)

    @property
    def wrong_bits(self) -> list[int]:
        return [trial.wrong for trial in self.trials]


def python() -> str:
    """An interpreter other users can run (so every seat has a uid of its own), else ours."""
    system = "/usr/bin/python3"
    if os.path.exists(system) and paths.unreadable_by_others([system]) is None:
        return system
    return sys.executable


def _bot(
    role: str, when: str = "first", medium: str = "pages", nonce: int = 0, delay: float = 0
) -> str:
    mark = ["--mark", "dentry", "--nonce", str(nonce)] if medium == "names" else []
    wait = ["--delay", str(delay)] if delay else []
    return shlex.join([python(), str(BOT), "--role", role, "--when", when, *mark, *wait])


def _random() -> str:
    return shlex.join([python(), str(RANDOM_BOT)])


def _evict(files: set[str]) -> None:
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _lines(log: Path, seat: Seat, word: str) -> list[str]:
    path = stderr_path(log, seat)
    text = path.read_text() if path.exists() else ""
    prefix = f"CHANNEL {word} "
    return [line[len(prefix) :] for line in text.splitlines() if line.startswith(prefix)]


class Bench:
    def __init__(self, directory: Path, receiver_delay: float = 0) -> None:
        self.directory = directory
        #: Seconds the receiver waits before it reads (the CPU's caches forget meanwhile).
        self.receiver_delay = receiver_delay
        self.count = 0
        #: Every file a bot's pool held: evicted before each trial.
        self.pool: set[str] = set()

    async def match(
        self, variant: str, commands: dict[Seat, str], seed: int, result: Result | None
    ) -> Path:
        self.count += 1
        logs = self.directory / f"m{self.count}"
        log = logs / "match.jsonl"
        settings = MatchSettings(seed=seed, max_hands=1, move_timeout=10, startup_timeout=30)
        mode = "off" if variant == "off" else "auto"
        allow = WHOLE_SYSTEM if variant == "before" else ()
        sandbox = plan(SandboxSettings(mode=mode, allow=allow), settings, commands, [logs])  # type: ignore[arg-type]
        if variant in ("resident", "forget"):
            warmed = resident.warm(paths.readable(sandbox.readable))
            if result is not None:
                result.warm_seconds.append(warmed.seconds)
            if variant == "forget" and resident.forget_lookups() is None:
                raise SystemExit("the forget variant needs root (to drop the lookup caches)")
        else:
            resident.release()  # what an earlier resident trial pinned in this process
            seats = {
                s: [x for x in on if x != Layer.PAGE_CACHE]
                for s, on in sandbox.report.seats.items()
            }
            sandbox.report = msgspec.structs.replace(sandbox.report, seats=seats)
        await run_match(settings, commands, log, sandbox)
        for seat in "ABCD":
            self.pool.update(_lines(log, seat, "file"))  # type: ignore[arg-type]
        return log

    async def prime(self, variant: str) -> None:
        """A match that only lists the pool the bots find under ``variant``."""
        commands: dict[Seat, str] = {"A": _bot("list"), "B": _random(), "C": _random()}
        commands["D"] = _random()
        await self.match(variant, commands, 1, None)

    async def trial(
        self, variant: str, scenario: str, seed: int, result: Result, medium: str, nonce: int
    ) -> None:
        _evict(self.pool)
        if scenario == "partners":
            commands: dict[Seat, str] = {
                "A": _bot("send", "first", medium, nonce),
                "B": _random(),
                "C": _bot("receive", "play", medium, nonce, self.receiver_delay),
                "D": _random(),
            }
            log = await self.match(variant, commands, seed, result)
            receiver_log, receiver = log, "C"
        else:
            first = {"A": _bot("send", "first", medium, nonce), "B": _random(), "C": _random()}
            first["D"] = _random()
            log = await self.match(variant, first, seed, result)  # type: ignore[arg-type]
            receiver = _bot("receive", "first", medium, nonce, self.receiver_delay)
            second = {"A": _random(), "B": receiver}
            second |= {"C": _random(), "D": _random()}
            receiver_log = await self.match(variant, second, seed, result)  # type: ignore[arg-type]
            receiver = "B"
        deal = next(r for r in read_log(log).records if isinstance(r, DealRecord))
        held = {tuple(tile) for tile in deal.hands["A"]}
        sent = [1 if tuple(tile) in held else 0 for tile in TILES]
        lines = _lines(receiver_log, receiver, "received")  # type: ignore[arg-type]
        if not lines:
            failed = _lines(receiver_log, receiver, "failed")  # type: ignore[arg-type]
            result.trials.append(Trial(sent, None, failed[0] if failed else "no report"))
            return
        word, _, note = lines[0].partition(" ")
        result.trials.append(Trial(sent, [int(bit) for bit in word], note))


def run(
    trials: int,
    variants: Sequence[str] = VARIANTS,
    scenarios: Sequence[str] = SCENARIOS,
    seed: int | None = None,
    progress: bool = False,
    medium: str = "pages",
    receiver_delay: float = 0,
) -> list[Result]:
    """``trials`` hands through the channel for each variant and scenario."""
    rng = random.Random(seed)
    results = [Result(v, s) for v in variants for s in scenarios]

    async def main() -> None:
        with tempfile.TemporaryDirectory(prefix="cache-channel-") as directory:
            bench = Bench(Path(directory), receiver_delay)
            for variant in variants:
                await bench.prime(variant)
            for _ in range(trials):  # variants interleaved: a noisy moment hits them all
                for result in results:
                    started = time.perf_counter()
                    deal, nonce = rng.getrandbits(64), rng.getrandbits(32)
                    await bench.trial(result.variant, result.scenario, deal, result, medium, nonce)
                    if progress:
                        trial = result.trials[-1]
                        word = "".join(map(str, trial.received or [])) or "-"
                        print(
                            f"  {result.variant:<8} {result.scenario:<8}"
                            f" {''.join(map(str, trial.sent))} -> {word:<28}"
                            f" {time.perf_counter() - started:.1f} s {trial.note}",
                            file=sys.stderr,
                        )
            _evict(bench.pool)

    trio.run(main)
    return results


def warm_cost() -> tuple[resident.Warmed, resident.Warmed]:
    """(a first warm in a process of everything a match of channel bots may read, the next
    one): what a referee pays at its first match and at each one after."""
    commands: dict[Seat, str] = {"A": _bot("send"), "B": _random(), "C": _random()}
    commands["D"] = _random()
    sandbox = plan(SandboxSettings(), MatchSettings(seed=1), commands, [])
    readable = paths.readable(sandbox.readable)
    resident.release()
    first = resident.warm(readable)
    return first, resident.warm(readable)


def runnable_variants() -> tuple[str, ...]:
    """Every variant this user can run: without root the lookup caches cannot be dropped (no
    ``forget``)."""
    return VARIANTS if os.geteuid() == 0 else tuple(v for v in VARIANTS if v != "forget")


def lines(
    trials: int,
    variants: Sequence[str],
    scenarios: Sequence[str] = SCENARIOS,
    seed: int | None = None,
    medium: str = "pages",
    receiver_delay: float = 0,
    progress: bool = False,
) -> Iterator[str]:
    """Run the benchmark: a line per variant and scenario, the cost of pinning, the figure
    (the last variant's bits per match, beside the control's) last."""
    rng = random.Random(seed)
    results = run(trials, variants, scenarios, seed, progress, medium, receiver_delay)
    yield (
        f"{'variant':<9} {'scenario':<9} {'bits/match':>10} {'chance':>7} {'exact':>6}  wrong bits"
    )
    figures: dict[tuple[str, str], tuple[float, float]] = {}
    for result in results:
        chance = result.chance(rng)
        figures[(result.variant, result.scenario)] = (result.bits, chance)
        wrong = " ".join(map(str, result.wrong_bits))
        exact = f"{result.exact}/{len(result.trials)}"
        yield (
            f"{result.variant:<9} {result.scenario:<9} {result.bits:>10.1f} {chance:>7.1f}"
            f" {exact:>6}  {wrong}"
        )
        if result.warm_seconds:
            median = statistics.median(result.warm_seconds) * 1000
            yield f"  warm before each match: {median:.0f} ms median"
    if "resident" in variants or "forget" in variants:
        first, again = warm_cost()
        yield (
            f"warm: {first.files} files, {first.bytes / 2**20:.0f} MiB"
            f" ({first.pinned_files} files, {first.pinned_bytes / 2**20:.0f} MiB pinned);"
            f" {first.seconds * 1000:.0f} ms at a process's first match"
            f" ({first.bytes_read / 2**20:.0f} MiB read),"
            f" {again.seconds * 1000:.1f} ms at each one after"
        )
    last = variants[-1]
    control = [figures[("off", s)][0] for s in scenarios] if "off" in variants else []
    parts = [
        f"{s} {figures[(last, s)][0]:.1f} (chance {figures[(last, s)][1]:.1f})" for s in scenarios
    ]
    line = f"cache channel ({medium}), {last}: " + ", ".join(parts) + " bits per match"
    if control and last != "off":
        line += f"; control, sandbox off: {' and '.join(f'{c:.1f}' for c in control)}"
    yield line
