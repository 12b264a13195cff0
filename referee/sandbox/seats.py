"""Where sandboxed bots live: a private scratch root, and a place per bot — its uid and its
control groups, kept from bot to bot — whether the bots are one match's seats or a warm
pool's processes; each bot's own sandbox is a ``SeatJail``."""

from __future__ import annotations

import atexit
import errno
import logging
import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

from referee.record.sandbox import Layer
from referee.rules.tiles import Seat
from referee.sandbox import cgroups, machine, scratch
from referee.sandbox.jail import SeatJail
from referee.sandbox.namespaces import BLANK
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.reaper import CGROUP, SCRATCH, Reaper

#: Bot uids: ``UID_BASE + pid * PLACES + place``: unique among the live referee processes of
#: a machine (pids are below 2**22) and the bots one process runs at once, and below 2**31.
UID_BASE: Final = 0x40000000
#: Sandboxed bots one referee process may run at once (matches in threads, warm pools).
PLACES: Final = 256
_places_in_use: set[int] = set()
_log = logging.getLogger(__name__)
_places_lock = threading.Lock()

#: The control groups of this process, one per place, kept from bot to bot.
_CGROUPS: dict[int, cgroups.SeatCgroup] = {}


def _place_cgroup(place: int) -> cgroups.SeatCgroup:
    group = _CGROUPS.get(place)
    if group is not None and not group.empty():  # the last bot's processes are still leaving
        group.kill()
        time.sleep(0.01)
        if not group.empty():
            group = None  # left to the reaper; the next bot gets a clean group
    if group is None:
        if not _CGROUPS:
            atexit.register(_remove_cgroups)
        group = _CGROUPS[place] = cgroups.SeatCgroup(cgroups.find())
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


def _take_place() -> int:
    with _places_lock:
        for place in range(PLACES):
            if place not in _places_in_use:
                _places_in_use.add(place)
                return place
    raise OSError(errno.EAGAIN, f"more than {PLACES} sandboxed bots at once in one process")


class Jails:
    """Sandboxes under one private scratch root, each in a place of its own until released."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self._places: dict[SeatJail, int] = {}

    def open(self) -> Path:
        """The scratch root, made at first use (an ``OSError`` says why it cannot be)."""
        if self.root is None:
            root = Path(tempfile.mkdtemp(prefix="texas42-scratch-"))
            try:
                root.chmod(0o711)  # bots' uids may pass through, never list it
                Reaper.get().watch(SCRATCH, root)
                # What a seat sees in place of the referee's files (no Landlock rule names it).
                (root / BLANK).touch(0o444)
            except BaseException:
                shutil.rmtree(root, ignore_errors=True)
                raise
            self.root = root
            machine.watched()
        return self.root

    def jail(self, plan: SandboxPlan, seat: Seat, user_tasks: int | None = None) -> SeatJail | None:
        """A sandbox for a bot started in ``seat`` under ``plan`` (None when it is off).
        ``user_tasks``: this user's processes and threads, if counted already."""
        if plan.off:
            return None
        root = self.open()
        place = _take_place()
        try:
            uid = None
            if Layer.UID in plan.report.seats[seat]:
                uid = UID_BASE + os.getpid() * PLACES + place
            nproc = plan.limits.max_processes
            if os.geteuid() != 0 and Layer.NAMESPACES not in plan.report.seats[seat]:
                # Not root and no user namespace: the limit counts all of this user's tasks.
                nproc += _user_tasks(os.getuid()) if user_tasks is None else user_tasks
            cgroup = _place_cgroup(place) if Layer.CGROUP in plan.report.seats[seat] else None
            # An unguessable name: the root can be passed through, not listed, so no bot can
            # reach another's directory even to stat it (its times could carry a message).
            scratch = root / secrets.token_hex(16)
            jail = SeatJail(plan, seat, scratch, uid, nproc, cgroup)
        except BaseException:
            with _places_lock:
                _places_in_use.discard(place)
            raise
        self._places[jail] = place
        return jail

    def release(self, jail: SeatJail) -> None:
        """Undo a bot's sandbox once the bot has been closed, and free its place. What the bot
        left is removed without recursion; what cannot be is said, never raised."""
        jail.close()
        if not scratch.remove(jail.scratch):
            _log.warning("could not remove all of seat %s's scratch %s", jail.seat, jail.scratch)
        place = self._places.pop(jail, None)
        if place is not None:
            with _places_lock:
                _places_in_use.discard(place)

    def close(self) -> None:
        for jail in list(self._places):
            self.release(jail)
        if self.root is not None:
            if not scratch.remove(self.root):
                _log.warning("could not remove all of the scratch root %s", self.root)
            Reaper.get().forget(SCRATCH, self.root)
            self.root = None


class MatchJails:
    """The sandboxes of one match's seats, under a scratch root of their own."""

    def __init__(self, plan: SandboxPlan) -> None:
        self.plan = plan
        self.jails = Jails()
        if not plan.off:
            self.jails.open()  # fails here, before any bot, when it cannot be made
        #: Counted once for the match's four seats, so that each gets the same bound.
        counted = not plan.off and os.geteuid() != 0 and Layer.NAMESPACES not in plan.report.layers
        self._user_tasks = _user_tasks(os.getuid()) if counted else None

    def jail(self, seat: Seat) -> SeatJail | None:
        return self.jails.jail(self.plan, seat, self._user_tasks)

    def release(self, jail: SeatJail) -> None:
        self.jails.release(jail)

    def close(self) -> None:
        self.jails.close()
