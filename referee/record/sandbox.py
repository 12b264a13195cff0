"""What a log (and a tournament's results) records about the sandbox a match's bots ran under:
the layers in force per seat, each one off and why, and the bounds.

The sandbox decides the layers (``referee.sandbox.policy.plan``); the record only keeps them,
so reading a log needs nothing of the sandbox.
"""

from __future__ import annotations

from typing import Final

import msgspec

from referee.rules.tiles import SEATS, Seat
from referee.settings import SandboxMode

#: The layers a report may name, in the order it lists them: the order of
#: ``referee.sandbox.layers.PROTECTS`` (a test holds the two together).
LAYERS: Final = (
    "cgroup",
    "rlimits",
    "tmpfs",
    "uid",
    "no-caps",
    "reaper",
    "namespaces",
    "page-cache",
    "landlock",
    "landlock-net",
    "landlock-scope",
    "seccomp",
)


class SandboxReport(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The layers in force, as the log header and the results file keep them."""

    mode: SandboxMode
    #: The layers each seat's bot ran under.
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
        some = [name for name in LAYERS if name not in everywhere and self._seats_with(name)]
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

    def _seats_with(self, name: str) -> list[str]:
        return [seat for seat in SEATS if name in self.seats[seat]]

    @property
    def layers(self) -> list[str]:
        """The layers every seat ran under."""
        return [name for name in LAYERS if all(name in self.seats[s] for s in SEATS)]


def _join_keys(keys: list[str]) -> str:
    """``["uid A", "uid C"]`` -> ``"uid for A, C"``."""
    layer = keys[0].split(" ")[0]
    seats = [key.split(" ", 1)[1] for key in keys if " " in key]
    if seats and all(key.split(" ")[0] == layer for key in keys):
        return f"{layer} for {', '.join(seats)}"
    return ", ".join(keys)
