"""``sysinfo`` in a seat: still refused, but the caller's buffer holds the seat's snapshot.

``sysinfo`` tells the machine's load, free memory and process count — what any process
changes, so a channel between seats — and seccomp refuses it. A seccomp filter can refuse a
call but not write an answer, and many programs never look at the error: glibc's
``sysconf(_SC_PHYS_PAGES)`` (which Python's ``os.sysconf`` and the JVM use) multiplies what
the stack held, and Temurin 25 sized its heap for petabytes and died. So where the seat has
an init of its own (``namespaces``), the filter hands the call to it (``SECCOMP_RET_USER_NOTIF``):
the init writes ``machine.sysinfo_answer`` — the seat's memory bound, no load, one process —
into the caller's buffer, then refuses the call as before (``EPERM``). A program that checks
the error sees the refusal it always saw; one that does not sees the seat, never garbage.

The filter is installed by the bot's own process, the last step before ``exec``; it hands the
filter's listener to the init (whose child it is) by its number on a pipe, the init takes a
copy with ``pidfd_getfd`` and says so, and only then does the bot's process go on to ``exec``
(its own copy closes there). Without an init the filter refuses ``sysinfo`` outright.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import struct
import time
from typing import Final

from referee.sandbox.libc import libc
from referee.sandbox.machine import SYSINFO_SIZE, sysinfo_answer

#: The ioctls of a seccomp listener (``_IOWR('!', 0, struct seccomp_notif)`` and the rest).
_RECV: Final = 0xC0502100
_SEND: Final = 0xC0182101
_ID_VALID: Final = 0x40082102
#: ``struct seccomp_notif``: id, pid, flags, then ``seccomp_data`` (nr, arch, ip, args[6]).
_NOTIF: Final = struct.Struct("<QIIiIQ6Q")
#: ``struct seccomp_notif_resp``: id, val, error, flags.
_RESPONSE: Final = struct.Struct("<QqiI")
_PIDFD_GETFD: Final = 438  # the same number on every architecture


class _IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


# Resolved here, in the referee: the init is a forked copy that never looks symbols up.
libc.process_vm_writev.argtypes = [
    ctypes.c_int,
    ctypes.POINTER(_IOVec),
    ctypes.c_ulong,
    ctypes.POINTER(_IOVec),
    ctypes.c_ulong,
    ctypes.c_ulong,
]
libc.process_vm_writev.restype = ctypes.c_ssize_t


class SysinfoAnswers:
    """One seat's ``sysinfo`` answers: made in the referee, handed over by the bot's process,
    given by the seat's init."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        #: The bot's process says the listener's number on one pipe; the init says "taken".
        self._number_read, self._number = os.pipe()
        self._taken, self._taken_write = os.pipe()
        self.listener = -1
        self._buffer = ctypes.create_string_buffer(SYSINFO_SIZE)

    # -- in the bot's process, just before exec ------------------------------------------

    def hand_over(self, listener: int) -> None:
        """Give the filter's ``listener`` to the init and wait until it has its copy."""
        os.close(self._number_read)
        os.close(self._taken_write)
        os.write(self._number, str(listener).encode())
        os.read(self._taken, 1)  # "y", or nothing when the init is gone: sysinfo is ENOSYS

    # -- in the seat's init ----------------------------------------------------------------

    def kept(self) -> tuple[int, int]:
        """The descriptors the init keeps for this."""
        return self._number_read, self._taken_write

    def watch(self, watched: select.poll) -> None:
        watched.register(self._number_read, select.POLLIN)

    def ready(self, fd: int, bot: int, watched: select.poll) -> bool:
        """Handle ``fd``, ready to read, if it is one of these; False if it is not."""
        if fd == self._number_read:
            said = os.read(self._number_read, 32)
            watched.unregister(self._number_read)
            if said.isdigit() and bot >= 0:
                self.listener = max(-1, int(libc.syscall(_PIDFD_GETFD, bot, int(said), 0)))
                if self.listener >= 0:
                    watched.register(self.listener, select.POLLIN)
            os.write(self._taken_write, b"y")
            return True
        if fd == self.listener and self.listener >= 0:
            if not self._answer():
                watched.unregister(self.listener)
                os.close(self.listener)
                self.listener = -1
            return True
        return False

    def _answer(self) -> bool:
        """Answer one call: fill the caller's buffer, refuse the call. False when no call
        will come any more."""
        notice = bytearray(_NOTIF.size)
        try:
            fcntl.ioctl(self.listener, _RECV, notice, True)
        except OSError as exc:
            return exc.errno in (errno.ENOENT, errno.EINTR)  # the caller died meanwhile
        call, pid, _, _, _, _, address, *_ = _NOTIF.unpack(notice)
        boot = int(time.clock_gettime(time.CLOCK_BOOTTIME))
        self._buffer.raw = sysinfo_answer(self.memory_mb, boot)
        local = _IOVec(ctypes.addressof(self._buffer), SYSINFO_SIZE)
        remote = _IOVec(address, SYSINFO_SIZE)
        libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        try:
            # Still the same call of the same process: the pid was not reused meanwhile.
            fcntl.ioctl(self.listener, _ID_VALID, struct.pack("<Q", call))
            fcntl.ioctl(self.listener, _SEND, _RESPONSE.pack(call, 0, -errno.EPERM, 0))
        except OSError:
            pass
        return True

    # -- in the referee --------------------------------------------------------------------

    def close(self) -> None:
        """The referee's copies: the bot's process and the init have theirs."""
        for fd in (self._number_read, self._number, self._taken, self._taken_write):
            if fd >= 0:
                os.close(fd)
        self._number_read = self._number = self._taken = self._taken_write = -1
