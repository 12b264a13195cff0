"""What a log (and a tournament's results) records about the sandbox a match's bots ran under:
the layers in force per seat, each one off and why, and the bounds.

The sandbox decides the layers (``referee.sandbox.policy.plan``); the record only keeps them,
so reading a log needs nothing of the sandbox.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from referee.rules.tiles import SEATS, Seat
from referee.settings import SandboxMode


class Layer(StrEnum):
    """A layer of the sandbox, by the name a report records it under, in the order a report
    lists them and a starting bot enters them. What each protects, needs and how it is mended
    is ``referee.sandbox.layers.LAYERS``, one row per member (a test holds the two together).

    A member *is* its name (a ``str``): a report holds plain names, so the log's JSON and its
    schema say strings, as they always have, and every old log decodes. Code names a layer as
    ``Layer.SECCOMP``, never by a bare string, so that mypy catches a misspelt one (a test
    finds bare ones).
    """

    CGROUP = "cgroup"
    RLIMITS = "rlimits"
    TMPFS = "tmpfs"
    UID = "uid"
    NO_CAPS = "no-caps"
    REAPER = "reaper"
    NAMESPACES = "namespaces"
    PRIVATE_ROOT = "private-root"
    PAGE_CACHE = "page-cache"
    LANDLOCK = "landlock"
    LANDLOCK_NET = "landlock-net"
    LANDLOCK_SCOPE = "landlock-scope"
    SECCOMP = "seccomp"


class SandboxReport(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The layers in force, as the log header and the results file keep them."""

    mode: SandboxMode
    #: The layers each seat's bot ran under (each a ``Layer``'s name).
    seats: dict[Seat, list[str]]
    #: Each layer not in force, and why (``uid A``: the per-seat uid of seat A).
    off: dict[str, str] = msgspec.field(default_factory=dict)
    memory_mb: int = 0
    cpu_seconds: int = 0
    max_processes: int = 0
    file_size_mb: int = 0
    scratch_mb: int = 0

    def summary(self) -> str:
        """One line: the layers on, and each one off with its reason."""
        if self.mode == "off":
            return (
                "sandbox off: bots run as your user, each in its own process group, and nothing"
                " more (they can read the logs and signal the referee)"
            )
        everywhere = self.layers
        parts = [", ".join(everywhere) or "no layer"]
        some = [name for name in Layer if name not in everywhere and self._seats_with(name)]
        for name in some:
            parts.append(f"{name} for {', '.join(self._seats_with(name))}")
        reasons: dict[str, list[str]] = {}
        for key, why in self.off.items():
            reasons.setdefault(why, []).append(key)
        off = [f"{_join_keys(keys)} ({why})" for why, keys in reasons.items()]
        line = f"sandbox {self.mode}: " + "; ".join(parts)
        bounds = (
            f"{self.memory_mb} MiB, {self.cpu_seconds} s CPU, {self.max_processes} processes,"
            f" {self.file_size_mb} MiB files"
            + (f", {self.scratch_mb} MiB scratch" if self.scratch_mb else "")
            + " per seat"
        )
        return line + f" ({bounds})" + (f"; off: {'; '.join(off)}" if off else "")

    def brief(self) -> str:
        """One short line, what a user must act on: the layers off (for which seats), and
        where to read why and the fix; the reasons stay in ``summary`` and the log."""
        if self.mode == "off" or not self.off:
            return self.summary()
        seats: dict[str, list[str]] = {}
        for key in self.off:
            layer, _, seat = key.partition(" ")
            seats.setdefault(layer, []).extend([seat] if seat else [])
        groups: dict[str, list[str]] = {}  # the layers off for the same seats, together
        for layer, which in seats.items():
            groups.setdefault(", ".join(which), []).append(layer)
        off = "; ".join(
            ", ".join(layers) + (f" for {which}" if which else "")
            for which, layers in groups.items()
        )
        return (
            f"sandbox {self.mode}: off: {off} — 'referee sandbox' says why and how to fix it"
            " (the log keeps the details)"
        )

    def _seats_with(self, layer: Layer) -> list[str]:
        return [seat for seat in SEATS if layer in self.seats[seat]]

    @property
    def layers(self) -> list[Layer]:
        """The layers every seat ran under."""
        return [layer for layer in Layer if all(layer in self.seats[s] for s in SEATS)]


def _join_keys(keys: list[str]) -> str:
    """``["uid A", "uid C"]`` -> ``"uid for A, C"``."""
    layer = keys[0].split(" ")[0]
    seats = [key.split(" ", 1)[1] for key in keys if " " in key]
    if seats and all(key.split(" ")[0] == layer for key in keys):
        return f"{layer} for {', '.join(seats)}"
    return ", ".join(keys)
