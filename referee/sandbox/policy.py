"""Which layers a match's bots run under, and the one line that says so.

``plan`` decides before any bot starts: the layers this machine has (``layers.available``),
minus what the mode turns off, minus the per-seat uid where a seat's runtime cannot be used
by another user (an interpreter under a 0700 home). Under ``strict`` a missing protection is
a refusal, never a silent downgrade; under ``auto`` it is said in the same line. In every mode
but ``off``, a seat that could read the referee's own files — a log, the results, a stderr
copy, the temporary directory — is a refusal too: a warning would not stop it reading them.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec

from referee.errors import SandboxRefused
from referee.record.sandbox import Layer, SandboxReport
from referee.rules.tiles import SEATS, Seat
from referee.sandbox import machine, paths, resident, root_tree
from referee.sandbox.layers import REQUIRED, available, held_by, is_root
from referee.settings import MatchLimits, SandboxSettings

#: What a sandboxed bot may read and write, in the words every message and document uses
#: (README, PROTOCOL.md and the bot kit's README say it so; a test holds them to it).
MAY_READ: Final = (
    "may read its runtime, the files and directories its command names and the paths given"
    " with --sandbox-allow, and write only its scratch directory ($TMPDIR)"
)


@dataclass
class SandboxPlan:
    """The decision for one match: what each seat runs under and what it may read."""

    settings: SandboxSettings
    limits: MatchLimits
    report: SandboxReport
    #: Per seat: directories its runtime and program need (read-only).
    readable: dict[Seat, list[Path]] = field(default_factory=dict)
    #: The referee's files no bot may read: the logs' directory, the results.
    secrets: list[Path] = field(default_factory=list)
    #: What seats with namespaces of their own see of the machine (``machine.view``).
    view: Path | None = None

    @property
    def off(self) -> bool:
        return self.settings.mode == "off"

    def lifted(self, layers: tuple[Layer, ...], why: str | None = None) -> SandboxPlan:
        """The same plan with ``layers`` lifted for every seat, and those their mechanisms
        hold (said off for ``why``, when given: the one line must not claim a layer that is
        not in force)."""
        layers = tuple(dict.fromkeys(held for layer in layers for held in held_by(layer)))
        report = self.report
        seats = {
            seat: [layer for layer in kept if layer not in layers]
            for seat, kept in report.seats.items()
        }
        off = dict(report.off)
        if why is not None:
            for layer in layers:
                if any(layer in kept for kept in report.seats.values()):
                    off[layer] = why
        report = msgspec.structs.replace(report, seats=seats, off=off)
        return dataclasses.replace(self, report=report)


def plan(
    settings: SandboxSettings,
    limits: MatchLimits,
    commands: dict[Seat, str],
    secrets: list[Path] = (),  # type: ignore[assignment]
) -> SandboxPlan:
    """The layers for a match of ``commands``; ``secrets`` are paths no bot may read (the log
    directory, the results file). ``SandboxRefused`` under ``strict`` when a layer is missing,
    and in any mode but ``off`` when a seat could read a secret or the temporary directory."""
    bounds = msgspec.structs.replace(
        SandboxReport(mode=settings.mode, seats={seat: [] for seat in SEATS}),
        memory_mb=limits.memory_mb,
        cpu_seconds=limits.cpu_seconds,
        max_processes=limits.max_processes,
        file_size_mb=limits.file_size_mb,
        scratch_mb=limits.scratch_mb,
    )
    if settings.mode == "off":
        return SandboxPlan(settings, limits, bounds)
    status = available()
    off: dict[str, str] = {name: why for name, why in status.items() if why is not None}
    if is_root():
        off.pop(Layer.NO_CAPS, None)
    elif Layer.NAMESPACES in off:
        off.setdefault(Layer.TMPFS, "mounting a tmpfs needs root or a mount namespace of its own")
    if not settings.private_root:  # only when asked: never in a report otherwise
        off.pop(Layer.PRIVATE_ROOT, None)
    on = [
        layer
        for layer in Layer
        if layer not in off and (layer != Layer.PRIVATE_ROOT or settings.private_root)
    ]
    seats: dict[Seat, list[str]] = {}
    readable: dict[Seat, list[Path]] = {}
    for seat in SEATS:
        try:
            argv = shlex.split(commands[seat])
        except ValueError:
            argv = []
        layers = list(on)
        if argv:
            files = paths.program_files(argv)
            readable[seat] = files.runtime + files.own + [Path(p) for p in settings.allow]
            if Layer.UID in layers:
                blocked = paths.unreadable_by_others(argv)
                if blocked is not None:
                    layers.remove(Layer.UID)
                    folder, target = blocked
                    off[f"{Layer.UID} {seat}"] = (
                        f"other users cannot use {target} ({folder} is closed to them), so it"
                        " shares root's kernel uid and its per-user counters: run the bot"
                        " with a runtime every user can read, e.g. /usr/bin/python3"
                    )
            if Layer.NO_CAPS in layers and Layer.UID in layers:
                layers.remove(Layer.NO_CAPS)  # another uid holds no capability in the first place
            if Layer.PAGE_CACHE in layers:
                too_many = resident.fits(tuple(map(str, paths.readable({seat: readable[seat]}))))
                if too_many is not None:
                    layers.remove(Layer.PAGE_CACHE)
                    off[f"{Layer.PAGE_CACHE} {seat}"] = too_many
        seats[seat] = list(layers)
        if Layer.UID not in layers:  # file permissions do not keep it out: only the allow-list
            _refuse_exposed(seat, readable.get(seat, []), secrets)
    view = None
    if any(Layer.NAMESPACES in kept for kept in seats.values()):
        view = machine.view(limits.memory_mb)
        for seat, kept in seats.items():
            if Layer.NAMESPACES in kept and seat in readable:
                readable[seat] += machine.shown(view)
    for seat, kept in seats.items():
        if Layer.PRIVATE_ROOT in kept:
            allowed = [*map(Path, paths.SYSTEM), paths.PACKAGE, *readable.get(seat, [])]
            too_many = root_tree.fits(allowed, secrets)
            if too_many is not None:
                kept.remove(Layer.PRIVATE_ROOT)
                off[f"{Layer.PRIVATE_ROOT} {seat}"] = too_many
    report = msgspec.structs.replace(bounds, seats=seats, off=off)
    secret_paths = [p.absolute() for p in secrets]
    sandbox = SandboxPlan(settings, limits, report, readable, secret_paths, view)
    if settings.mode == "strict":
        _check_strict(sandbox)
    return sandbox


def _refuse_exposed(seat: Seat, readable: list[Path], secrets: list[Path]) -> None:
    """``SandboxRefused`` when a directory the seat may read holds a secret or the temporary
    directory (where the seats' scratch directories and the referee's files live)."""
    for folder in readable:
        for secret in [*map(Path.absolute, secrets), Path(tempfile.gettempdir())]:
            if paths.contains(folder, secret):
                raise SandboxRefused(
                    f"seat {seat} could read {secret}: it is inside {folder}, which the bot's"
                    " command names; put the logs, the results and TMPDIR outside the bots'"
                    " directories (--log, --logs, --results), or run the bot with a runtime"
                    " every user can read, such as /usr/bin/python3, so that it gets a uid of"
                    " its own (as root)"
                )


def _check_strict(sandbox: SandboxPlan) -> None:
    """Every required layer for every seat — a uid of its own among them: two seats of one
    kernel uid share its counters (pipe buffers), so ``strict`` needs root."""
    report = sandbox.report
    for layer in REQUIRED:
        if layer in report.off:
            fix = " (run the referee as root, or use --sandbox auto)" if layer == Layer.UID else ""
            raise SandboxRefused(
                f"--sandbox strict: {layer} is not available: {report.off[layer]}{fix}"
            )
    for seat, layers in report.seats.items():
        if os.geteuid() == 0 and Layer.UID not in layers:
            why = report.off.get(f"{Layer.UID} {seat}") or report.off.get(Layer.UID, "")
            raise SandboxRefused(
                f"--sandbox strict: seat {seat} would stay root (without capabilities, but"
                f" root still owns the referee's files and processes): {why}; 'referee sandbox'"
                " gives the commands when it is the referee's own Python"
            )
        if sandbox.settings.private_root and Layer.PRIVATE_ROOT not in layers:
            reason = report.off.get(f"{Layer.PRIVATE_ROOT} {seat}")  # its files: it says
            if reason is None:  # the machine's: namespaces
                reason = (
                    f"{report.off.get(Layer.PRIVATE_ROOT, '')}; run the referee as root or where"
                    " user namespaces are open to every user"
                )
            raise SandboxRefused(
                f"--sandbox strict: seat {seat} cannot have a root of its own"
                f" (--sandbox-private-root): {reason}; or leave out --sandbox-private-root"
            )
