"""A match's seats: a private scratch root, a uid slot, and control groups kept per
(slot, seat) from bot to bot; each seat's own sandbox is a ``SeatJail``."""

from __future__ import annotations

import atexit
import errno
import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

from referee.rules.tiles import SEATS, Seat
from referee.sandbox import cgroups
from referee.sandbox.jail import SeatJail
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.reaper import CGROUP, SCRATCH, Reaper

#: Seat uids: ``UID_BASE + pid * 64 + slot * 4 + seat``: unique among the live referee
#: processes of a machine (pids are below 2**22) and the matches one process plays at once
#: (up to 16), and below 2**31.
UID_BASE: Final = 0x40000000
_SLOTS: Final = 16
_slots_in_use: set[int] = set()
_slots_lock = threading.Lock()

#: The control groups of this process, one per (slot, seat), kept from bot to bot.
_CGROUPS: dict[tuple[int, Seat], cgroups.SeatCgroup] = {}


def _seat_cgroup(slot: int, seat: Seat) -> cgroups.SeatCgroup:
    group = _CGROUPS.get((slot, seat))
    if group is not None and not group.empty():  # the last bot's processes are still leaving
        group.kill()
        time.sleep(0.01)
        if not group.empty():
            group = None  # left to the reaper; the next bot gets a clean group
    if group is None:
        if not _CGROUPS:
            atexit.register(_remove_cgroups)
        group = _CGROUPS[slot, seat] = cgroups.SeatCgroup(cgroups.find())
        for directory in group.dirs:
            Reaper.get().watch(CGROUP, directory)  # removed by the reaper if we die first
    return group


def _remove_cgroups() -> None:
    for group in _CGROUPS.values():
        dirs = list(group.dirs)
        group.kill()
        for _ in range(100):
            if group.remove():
                break
            time.sleep(0.005)
        for directory in dirs:
            Reaper.get().forget(CGROUP, directory)
    _CGROUPS.clear()


def _user_tasks(uid: int) -> int:
    """How many processes and threads ``uid`` runs now (what ``RLIMIT_NPROC`` counts)."""
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                pass
    return count


class MatchJails:
    """The sandboxes of one match: a private scratch root and a uid slot."""

    def __init__(self, plan: SandboxPlan) -> None:
        self.plan = plan
        self.root: Path | None = None
        self.slot: int | None = None
        self.jails: list[SeatJail] = []
        if plan.off:
            return
        with _slots_lock:
            free = [slot for slot in range(_SLOTS) if slot not in _slots_in_use]
            if not free:
                raise OSError(errno.EAGAIN, "more than 16 sandboxed matches in one process")
            self.slot = free[0]
            _slots_in_use.add(self.slot)
        try:
            self.root = Path(tempfile.mkdtemp(prefix="texas42-scratch-"))
            self.root.chmod(0o711)  # seats' uids may pass through, never list it
            Reaper.get().watch(SCRATCH, self.root)
        except BaseException:
            self.close()
            raise
        self._nproc = None if os.geteuid() == 0 else _user_tasks(os.getuid())

    def jail(self, seat: Seat) -> SeatJail | None:
        if self.plan.off:
            return None
        assert self.root is not None
        uid = None
        if "uid" in self.plan.report.seats[seat]:
            assert self.slot is not None
            uid = UID_BASE + os.getpid() * 64 + self.slot * 4 + SEATS.index(seat)
        nproc = self.plan.limits.max_processes
        if self._nproc is not None:  # not root: the limit counts all of this user's tasks
            nproc += self._nproc
        cgroup = None
        if "cgroup" in self.plan.report.seats[seat]:
            assert self.slot is not None
            cgroup = _seat_cgroup(self.slot, seat)
        # An unguessable name: the root can be passed through, not listed, so no seat can
        # reach another's directory even to stat it (its times could carry a message).
        scratch = self.root / secrets.token_hex(16)
        jail = SeatJail(self.plan, seat, scratch, uid, nproc, cgroup)
        self.jails.append(jail)
        return jail

    def close(self) -> None:
        for jail in self.jails:
            jail.close()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            Reaper.get().forget(SCRATCH, self.root)
            self.root = None
        if self.slot is not None:
            with _slots_lock:
                _slots_in_use.discard(self.slot)
            self.slot = None
