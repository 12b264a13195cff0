"""``referee bench channels``: one calibrated bench for every covert channel between partners.

In a 42 tournament one entrant's bot sits in both seats of a partnership, so a bot that could
signal its partner would play with four-handed information. Each row is a real hostile pair
(``bot.py``: the sender in seat A, the receiver in seat C, the bundled random bot in B
and D; every bot on a Python other users can run, so that as root each seat has a uid of its
own), one hand a match, a new random deal each. A row is measured under four variants,
interleaved hand by hand so that a noisy moment hits them all:

- ``before``: the referee as it plays by default (``--sandbox auto``; for the pipe-buffer row,
  seats that share a kernel uid, as they do without root).
- ``closed``: the same with the row's closing layer on (``--pace``, ``--freeze-idle``,
  ``--sandbox-private-root``, a uid per seat).
- ``final``: the full final configuration (``FINAL_LIMITS``, ``FINAL_SANDBOX``).
- ``control``: the final configuration with a silent sender (it marks nothing): what the
  receiver reads from the machine alone.

The score is ``channel_score``'s: bits of the hand per hand (22.7 is the whole hand), beside
chance. The figure is the worst row one machine can close, under ``final``, above its control.
"""

from __future__ import annotations

import random
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec
import trio

from referee.apart.placement import Apart
from referee.bench.channels import helper as channel_helper
from referee.bench.channels.cache import python
from referee.bench.channels.score import UNKNOWN, Trial
from referee.bundled import BOTS
from referee.errors import SandboxRefused
from referee.match.runner import run_match, stderr_path
from referee.record.log import read_log
from referee.record.records import DealRecord
from referee.record.sandbox import Layer
from referee.rules.tiles import TILES, Seat
from referee.sandbox.layers import is_root
from referee.sandbox.policy import SandboxPlan, plan
from referee.settings import FINAL_LIMITS, FINAL_SANDBOX, MatchSettings, SandboxSettings

BOT: Final = Path(__file__).resolve().with_name("bot.py")
RANDOM_BOT: Final = BOTS / "random_bot.py"
VARIANTS: Final = ("before", "closed", "final", "control")
#: Seconds a bot has to start: paced, every match waits this long before its first deal.
STARTUP: Final = 3.0
#: Bits per hand above the control that the worst closable row may carry under ``final``.
LIMIT: Final = 0.5


@dataclass(frozen=True)
class Row:
    """One channel: what carries it and what closes it."""

    key: str
    what: str
    medium: str
    #: ``partners`` (A to C, live in one match) or ``legs`` (A of leg 1 to B of leg 2).
    scenario: str
    #: What closes it, in the options' words.
    closing: str
    limits: dict[str, Any] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)
    #: ``before`` has seats share a kernel uid (as root, seats left as root).
    shared_uid: bool = False
    #: One machine can close it: counted in the figure.
    counted: bool = True


ROWS: Final = (
    Row("timing", "the referee's timing (A's answer delays)", "timing", "partners", "--pace",
        limits={"pace": True, "time_bank": 0.0}),
    Row("names", "failed name lookups, live", "names", "partners", "--sandbox-private-root",
        sandbox={"private_root": True}),
    Row("names-legs", "failed name lookups, leg 1 to leg 2", "names", "legs",
        "--sandbox-private-root", sandbox={"private_root": True}),
    Row("cpu", "CPU contention", "cpu", "partners", "--freeze-idle",
        limits={"freeze_idle": True}),
    Row("pipe-buffers", "per-user pipe-buffer accounting", "pipes", "partners",
        "a uid per seat", shared_uid=True),
    Row("cpu-cache", "the CPU's caches (Flush+Reload)", "cache", "partners",
        "--freeze-idle (measured: stays open)", limits={"freeze_idle": True}, counted=False),
    Row("pipe-inode", "the pipe inode counter", "inode", "partners",
        "--freeze-idle (measured: stays open)", limits={"freeze_idle": True}, counted=False),
)  # fmt: skip
ROW_KEYS: Final = tuple(row.key for row in ROWS)


@dataclass
class Cell:
    """One row under one variant."""

    row: Row
    variant: str
    trials: list[Trial] = field(default_factory=list)
    #: Why this variant cannot run here (refused, or not applicable).
    skipped: str | None = None
    seconds: float = 0.0


#: (match limits, sandbox settings, seats share a uid).
Configured = tuple[dict[str, Any], SandboxSettings, bool]


def configuration(row: Row, variant: str) -> Configured:
    """(match limits, sandbox settings, seats share a uid) of ``row`` under ``variant``."""
    if variant == "before":
        return {}, SandboxSettings(), row.shared_uid
    if variant == "closed":
        return dict(row.limits), SandboxSettings(**row.sandbox), False
    return dict(FINAL_LIMITS), msgspec.convert(FINAL_SANDBOX, SandboxSettings), False


#: Seats apart on a Dask cluster: its client, and ``hosts`` or ``workers``.
OnCluster = tuple[Any, Apart]


def not_here(row: Row, variant: str, helper: Path | str) -> str | None:
    """Why ``row`` cannot be measured under ``variant`` on this machine, or None."""
    if row.medium == "cache" and isinstance(helper, str):
        return helper
    if row.shared_uid and variant == "closed" and not is_root():
        return "a uid per seat needs root"
    return None


def apart_not_here(row: Row, variant: str) -> str | None:
    """Why a cell is not measured with its seats apart: the legs rows play a second match
    whose seats the bench places here, and a shared uid is planned here, not on a worker."""
    if row.scenario == "legs":
        return "seats apart: measured for partners in one match only"
    if configuration(row, variant)[2]:
        return "seats apart: a shared uid is planned on one machine only"
    return None


def sharing_uid(sandbox: SandboxPlan) -> SandboxPlan:
    """``sandbox`` with every seat left as root (no uid of its own, no capability), as the
    referee leaves a seat whose runtime other users cannot read: its seats share uid 0."""
    if not is_root():
        return sandbox
    seats = {
        seat: [layer for layer in Layer if layer in kept or layer == Layer.NO_CAPS]
        for seat, kept in sandbox.report.seats.items()
    }
    seats = {seat: [x for x in kept if x != Layer.UID] for seat, kept in seats.items()}
    off = dict(sandbox.report.off)
    off[Layer.UID] = "the bench: seats left as root share a kernel uid"
    sandbox.report = msgspec.structs.replace(sandbox.report, seats=seats, off=off)
    return sandbox


def _command(*words: str) -> str:
    return shlex.join([python(), *words])


def _sent(log: Path) -> list[int]:
    """The bits of the hand seat A held in the match of ``log``."""
    deal = next(r for r in read_log(log).records if isinstance(r, DealRecord))
    held = {tuple(tile) for tile in deal.hands["A"]}
    return [1 if tuple(tile) in held else 0 for tile in TILES]


def _received(log: Path, seat: Seat, medium: str, sent: list[int]) -> Trial:
    path = stderr_path(log, seat)
    text = path.read_text(errors="replace") if path.exists() else ""
    prefix = f"CHANNEL {medium} "
    said = [line[len(prefix) :] for line in text.splitlines() if line.startswith(prefix)]
    if not said:
        return Trial(sent, None, (text.strip().splitlines() or ["no report"])[-1][:200])
    word, _, note = said[-1].partition(" ")
    return Trial(sent, [UNKNOWN if bit == "?" else int(bit) for bit in word], note)


class Bench:
    """Plays the trials; every match in a folder of its own under ``directory``."""

    def __init__(
        self,
        directory: Path,
        move_timeout: float,
        helper: Path | str,
        apart: OnCluster | None = None,
    ) -> None:
        self.directory = directory
        self.move_timeout = move_timeout
        self.helper = helper
        #: Seats apart on a Dask cluster (its client and how apart), or every seat here.
        self.apart = apart
        self.count = 0

    def bot(self, role: str, media: list[str], nonce: int, *words: str) -> str:
        line = [str(BOT), "--role", role, "--nonce", str(nonce), *words]
        for medium in media:
            line += ["--medium", medium]
        if "cache" in media:
            line += ["--helper", str(self.helper)]
        return _command(*line)

    async def match(
        self,
        configured: tuple[dict[str, Any], SandboxSettings, bool],
        commands: dict[Seat, str],
        seed: int,
    ) -> Path:
        self.count += 1
        logs = self.directory / f"m{self.count}"
        limits, sandbox_settings, shared = configured
        settings = MatchSettings(
            seed=seed,
            max_hands=1,
            move_timeout=self.move_timeout,
            startup_timeout=STARTUP,
            **limits,
        )
        log = logs / "match.jsonl"
        if self.apart is not None:
            from referee.apart.placement import place, survey
            from referee.apart.seating import play_apart

            client, apart = self.apart
            placement = place(await trio.to_thread.run_sync(survey, client), apart)
            logs.mkdir(parents=True, exist_ok=True)
            secrets = [str(logs.resolve())]
            await play_apart(
                client, placement, settings, commands, log.resolve(), sandbox_settings, secrets
            )
            return log
        sandbox = plan(sandbox_settings, settings, commands, [logs])
        if shared:
            sandbox = sharing_uid(sandbox)
        await run_match(settings, commands, log, sandbox)
        return log

    async def hand(self, rows: list[Row], variant: str, seed: int) -> dict[str, Trial]:
        """One hand through every row of ``rows`` at once (one row but under ``final`` and
        ``control``, where one sender tries every channel, as an entrant would)."""
        configured = configuration(rows[0], variant)
        nonce = random.getrandbits(48)  # names nobody looked up before
        silent = ["--silent"] if variant == "control" else []
        randoms = _command(str(RANDOM_BOT))
        live = [row for row in rows if row.scenario == "partners"]
        media = sorted({row.medium for row in rows})
        commands: dict[Seat, str] = {"A": self.bot("send", media, nonce, *silent)}
        commands |= {"B": randoms, "D": randoms}
        live_media = sorted({row.medium for row in live})
        commands["C"] = self.bot("receive", live_media, nonce) if live else randoms
        log = await self.match(configured, commands, seed)
        sent = _sent(log)
        found = {row.key: _received(log, "C", row.medium, sent) for row in live}
        for row in rows:
            if row.scenario == "legs":
                receiver = self.bot("receive", [row.medium], nonce, "--when", "first", "--exit")
                second: dict[Seat, str] = {"A": randoms, "B": receiver, "C": randoms}
                second["D"] = randoms
                leg = await self.match(configured, second, seed)
                found[row.key] = _received(leg, "B", row.medium, sent)
        return found


def run(
    hands: int,
    rows: tuple[Row, ...] = ROWS,
    variants: tuple[str, ...] = VARIANTS,
    move_timeout: float = 0.2,
    progress: Callable[[Cell, Trial], None] | None = None,
    apart: OnCluster | None = None,
) -> list[Cell]:
    """``hands`` hands through each row under each variant, interleaved: ``before`` and
    ``closed`` a row at a time, ``final`` and ``control`` every row at once."""
    cells = {(row.key, variant): Cell(row, variant) for row in rows for variant in variants}

    async def main() -> None:
        with (
            tempfile.TemporaryDirectory(prefix="channels-") as folder,
            tempfile.TemporaryDirectory(prefix="channels-helper-") as built,
        ):
            needed = any(row.medium == "cache" for row in rows)
            helper = channel_helper.build(Path(built)) if needed else "not needed"
            bench = Bench(Path(folder), move_timeout, helper, apart)
            for cell in cells.values():
                cell.skipped = not_here(cell.row, cell.variant, helper)
                if apart is not None and cell.skipped is None:
                    cell.skipped = apart_not_here(cell.row, cell.variant)
            batches = [
                (variant, [row])
                for row in rows
                for variant in variants
                if variant in ("before", "closed")
            ]
            batches += [(v, list(rows)) for v in variants if v in ("final", "control")]
            for _ in range(hands):
                for variant, batch in batches:
                    await _play(bench, [cells[(r.key, variant)] for r in batch], progress)

    trio.run(main)
    return list(cells.values())


async def _play(
    bench: Bench, batch: list[Cell], progress: Callable[[Cell, Trial], None] | None
) -> None:
    """One hand through the cells of ``batch`` that can run (one variant)."""
    batch = [cell for cell in batch if cell.skipped is None]
    if not batch:
        return
    started = time.perf_counter()
    try:
        found = await bench.hand([c.row for c in batch], batch[0].variant, random.getrandbits(64))
    except SandboxRefused as exc:
        for cell in batch:
            cell.skipped = f"refused: {exc}"
        return
    for cell in batch:
        cell.seconds += (time.perf_counter() - started) / len(batch)
        cell.trials.append(found[cell.row.key])
        if progress is not None:
            progress(cell, found[cell.row.key])


def show_trial(cell: Cell, trial: Trial) -> None:
    """One line on stderr per hand (``--progress``)."""
    word = "".join("?" if b == UNKNOWN else str(b) for b in trial.word)
    print(
        f"  {cell.row.key:<12} {cell.variant:<8} {''.join(map(str, trial.sent))} -> {word}"
        f"  wrong {trial.wrong_known}/{trial.known} {trial.note}",
        file=sys.stderr,
    )
