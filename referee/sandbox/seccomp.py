"""A seccomp deny-list, written as a classic BPF program through ctypes.

What it refuses, and why:

- ``setsid`` and ``setpgid`` (EPERM): every process a bot starts stays in its process group,
  so the referee and the reaper can always end the whole tree;
- ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd``, ``kcmp``: no reading or writing
  another process's memory or descriptors;
- ``socket`` (EACCES): no network, UDP included, and no named or abstract unix sockets either
  (``socketpair`` still works, for a bot's own processes);
- every channel between two bots that no file permission or Landlock rule sees: System V
  shared memory, semaphores and message queues, POSIX message queues, file locks (``flock``,
  ``fcntl`` lock, lease and dnotify commands: two partners may both read the same runtime
  files), inotify and fanotify; System V objects would also outlive the match, so a bot could
  leave the deals of a duplicate pair's first leg to the second;
- namespace creation (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag, and
  ``clone3``, which answers ENOSYS so libc falls back to ``clone``), mounts, ``chroot``;
- kernel attack surface a bot never needs: io_uring, bpf, keyrings, perf events, userfaultfd,
  module loading, kexec, reboot, the clocks, swap, hostnames, accounting, quotas, port I/O.

Everything else is allowed. The program checks the architecture first: a system call made
through the 32-bit compatibility ABI kills the process, and one through x32 is refused.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from typing import Final

from referee.sandbox.libc import check, libc

_PR_SET_SECCOMP: Final = 22
_SECCOMP_MODE_FILTER: Final = 2
#: ``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog)``, per machine.
_SECCOMP: Final = {"x86_64": 317, "aarch64": 277}
_SET_MODE_FILTER: Final = 1
_NEW_LISTENER: Final = 1 << 3
_USER_NOTIF: Final = 0x7FC00000

_LD_ABS_W: Final = 0x20
_JEQ: Final = 0x15
_JSET: Final = 0x45
_RET: Final = 0x06
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000
_KILL_PROCESS: Final = 0x80000000
_NR: Final = 0
_ARCH: Final = 4
_ARG0: Final = 16  # the low 32 bits of args[0] (little-endian)
_ARG1: Final = 24
_RWF_NOWAIT: Final = 0x8
_ARG2: Final = 32
#: madvise advice refused: MADV_COLD and MADV_PAGEOUT deactivate or evict the pages of a
#: shared runtime file, which a partner could then tell by timing its reads.
_MADVISE_DENIED: Final = (20, 21)
#: A futex without FUTEX_PRIVATE_FLAG is keyed by the page it lies in: on a runtime file both
#: partners map, a wake is a message (and so is the wake the kernel sends when a thread that
#: registered that word exits). Such a wait answers EAGAIN (the caller checks its word and
#: tries again: it spins instead of sleeping), a wake 0, anything else (PI) EPERM.
_FUTEX_PRIVATE: Final = 128
_FUTEX_COMMAND: Final = 127
_FUTEX_WAITS: Final = (0, 9, 11)  # WAIT, WAIT_BITSET, WAIT_REQUEUE_PI
#: WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, WAKE_BITSET: answered "woke nobody" (0) without
#: being made — no waiter of the bot's can be on a shared word — since glibc aborts on an
#: error from a wake.
_FUTEX_WAKES: Final = (1, 3, 4, 5, 10)
_ALU_AND_K: Final = 0x54

#: fcntl commands refused: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
#: F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY.
_FCNTL_DENIED: Final = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)

_CLONE_NEW: Final = (
    0x00000080  # CLONE_NEWTIME
    | 0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
)


def _names(words: str) -> tuple[str, ...]:
    return tuple(words.split())


#: Denied system calls by name, the same on every architecture (EPERM; ``socket``: EACCES).
DENIED: Final = _names(
    # leaving the process group, reaching other processes
    "setsid setpgid ptrace process_vm_readv process_vm_writev pidfd_getfd pidfd_send_signal"
    " kcmp"
    # channels between bots that no file permission sees, and what outlives the match
    " socket shmget shmat shmctl shmdt semget semop semctl semtimedop msgget msgsnd msgrcv"
    " msgctl mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr flock"
    " inotify_init1 inotify_add_watch fanotify_init fanotify_mark"
    # the machine's process count and load, which every process changes; the free space of
    # filesystems every seat sees, which the referee's own writes move; the mount table
    " sysinfo statfs fstatfs statmount listmount"
    # futexes of the second interface, which may name a shared word (a file's page)
    " futex_waitv futex_wake futex_wait futex_requeue"
    # the page cache as a channel: who has read which page of a shared runtime file
    " mincore readahead fadvise64 cachestat process_madvise"
    # metadata Landlock does not cover, which a seat left as root could change on any file
    " fchmod fchmodat fchmodat2 fchown fchownat utimensat setxattr lsetxattr fsetxattr"
    " removexattr lremovexattr fremovexattr setxattrat removexattrat"
    # namespaces, mounts and kernel attack surface
    " unshare setns mount umount2 pivot_root chroot fsopen fsconfig fsmount fspick move_mount"
    " open_tree mount_setattr io_uring_setup io_uring_enter io_uring_register bpf keyctl"
    " add_key request_key perf_event_open userfaultfd kexec_load kexec_file_load init_module"
    " finit_module delete_module reboot swapon swapoff settimeofday clock_settime"
    " clock_adjtime adjtimex sethostname setdomainname acct quotactl quotactl_fd syslog"
    " open_by_handle_at name_to_handle_at"
)
#: Denied calls whose caller gets its buffer filled with the seat's own answer first, where
#: the seat has an init to give it (``sysinfo.py``).
ANSWERED: Final = frozenset({"sysinfo"})
#: Calls allowed only on the calling process itself (argument ``index`` is 0): another
#: process of the same uid — the referee, with a seat left as root — must not have its
#: limits, priority or CPUs changed.
SELF_ONLY: Final = {
    "prlimit64": 0,
    "sched_setaffinity": 0,
    "sched_setscheduler": 0,
    "sched_setparam": 0,
    "sched_setattr": 0,
    "setpriority": 1,
    "ioprio_set": 1,
}
#: Of those, the calls allowed on any of the bot's own tasks where it has a PID namespace of
#: its own (there, no other pid names anything): runtimes pin their threads to CPUs
#: (onnxruntime's pool, OpenMP's), which the seat's own CPUs bound anyway.
OWN_TASKS: Final = ("sched_setaffinity",)
#: Calls whose first argument says what the second names: only PRIO_PROCESS (0) and
#: IOPRIO_WHO_PROCESS (1) with 0, the caller, are allowed — ``setpriority(PRIO_USER, 0, 19)``
#: would renice every process of the uid, the referee's among them where it is shared.
_WHICH_PROCESS: Final = {"setpriority": 0, "getpriority": 0, "ioprio_set": 1, "ioprio_get": 1}
#: Calls that read another process's attributes by pid (argument ``index``), allowed only on
#: the caller itself where the seat has no PID namespace of its own: any task's nice value, I/O
#: priority, policy or CPUs is readable by every uid, and a bot sets its own threads' freely,
#: so without this two seats could talk through them (and find every task on the machine).
OWN_PIDS_ONLY: Final = {
    "getpriority": 1,
    "ioprio_get": 1,
    "sched_getscheduler": 0,
    "sched_getparam": 0,
    "sched_getaffinity": 0,
    "sched_getattr": 0,
    "sched_rr_get_interval": 0,
    "getpgid": 0,
    "getsid": 0,
    "get_robust_list": 0,
    "move_pages": 0,
    "migrate_pages": 0,
}
#: Refused where seats share a uid (a referee without root, seats left as root): descriptors
#: in flight between unix sockets are counted per uid, machine-wide, and a bot could tell by
#: its own refusals how many another seat holds in flight (a channel of 2 kbit/s).
FD_PASSING: Final = ("sendmsg", "sendmmsg")
#: Refused with ENOSYS where the seat has no PID namespace (runtimes fall back to waiting by
#: pid): a descriptor for any pid on the machine.
NO_PIDFDS: Final = ("pidfd_open",)
_X86_ONLY: Final = {
    "ustat": 136, "iopl": 172, "ioperm": 173, "inotify_init": 253, "chmod": 90, "chown": 92,
    "lchown": 94, "utime": 132, "utimes": 235, "futimesat": 261,
}  # fmt: skip

_X86_64: Final = {
    "setsid": 112, "setpgid": 109, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "pidfd_getfd": 438, "pidfd_send_signal": 424, "kcmp": 312,
    "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
    "chroot": 161, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "move_mount": 429, "open_tree": 428, "mount_setattr": 442, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "bpf": 321, "keyctl": 250,
    "add_key": 248, "request_key": 249, "perf_event_open": 298, "userfaultfd": 323,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "sethostname": 170, "setdomainname": 171, "acct": 163, "quotactl": 179, "syslog": 103,
    "open_by_handle_at": 304, "name_to_handle_at": 303,
    "socket": 41, "clone": 56, "clone3": 435, "fcntl": 72,
    "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65,
    "semctl": 66, "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
    "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
    "mq_notify": 244, "mq_getsetattr": 245, "flock": 73, "inotify_init1": 294,
    "inotify_add_watch": 254, "fanotify_init": 300, "fanotify_mark": 301, "sysinfo": 99,
    "mincore": 27, "readahead": 187, "fadvise64": 221, "cachestat": 451, "fchmod": 91,
    "fchmodat": 268, "fchmodat2": 452, "fchown": 93, "fchownat": 260, "utimensat": 280,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "setxattrat": 463, "removexattrat": 466,
    "quotactl_fd": 443, "prlimit64": 302, "sched_setaffinity": 203,
    "sched_setscheduler": 144, "sched_setparam": 142, "sched_setattr": 314,
    "setpriority": 141, "ioprio_set": 251, "preadv2": 327,
    "getpriority": 140, "ioprio_get": 252, "sched_getscheduler": 145, "sched_getparam": 143,
    "sched_getaffinity": 204, "sched_getattr": 315, "sched_rr_get_interval": 148,
    "getpgid": 121, "getsid": 124, "get_robust_list": 274, "move_pages": 279,
    "migrate_pages": 256, "pidfd_open": 434, "madvise": 28, "process_madvise": 440,
    "statfs": 137, "fstatfs": 138, "statmount": 457, "listmount": 458, "futex": 202,
    "futex_waitv": 449, "futex_wake": 454, "futex_wait": 455, "futex_requeue": 456,
    "sendmsg": 46, "sendmmsg": 307,
}  # fmt: skip
_AARCH64: Final = {
    "setsid": 157, "setpgid": 154, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "pidfd_getfd": 438, "pidfd_send_signal": 424, "kcmp": 272,
    "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429,
    "open_tree": 428, "mount_setattr": 442, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "bpf": 280, "keyctl": 219, "add_key": 217,
    "request_key": 218, "perf_event_open": 241, "userfaultfd": 282, "kexec_load": 104,
    "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
    "reboot": 142, "swapon": 224, "swapoff": 225, "settimeofday": 170,
    "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171, "sethostname": 161,
    "setdomainname": 162, "acct": 89, "quotactl": 60, "syslog": 116,
    "open_by_handle_at": 265, "name_to_handle_at": 264,
    "socket": 198, "clone": 220, "clone3": 435, "fcntl": 25,
    "shmget": 194, "shmctl": 195, "shmat": 196, "shmdt": 197, "semget": 190, "semctl": 191,
    "semtimedop": 192, "semop": 193, "msgget": 186, "msgctl": 187, "msgrcv": 188,
    "msgsnd": 189, "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
    "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "flock": 32,
    "inotify_init1": 26, "inotify_add_watch": 27, "fanotify_init": 262, "fanotify_mark": 263,
    "sysinfo": 179, "mincore": 232, "readahead": 213, "fadvise64": 223, "cachestat": 451,
    "fchmod": 52,
    "fchmodat": 53, "fchmodat2": 452, "fchown": 55, "fchownat": 54, "utimensat": 88,
    "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
    "fremovexattr": 16, "setxattrat": 463, "removexattrat": 466, "quotactl_fd": 443,
    "prlimit64": 261, "sched_setaffinity": 122, "sched_setscheduler": 119,
    "sched_setparam": 118, "sched_setattr": 274, "setpriority": 140, "ioprio_set": 30,
    "preadv2": 286,
    "getpriority": 141, "ioprio_get": 31, "sched_getscheduler": 120, "sched_getparam": 121,
    "sched_getaffinity": 123, "sched_getattr": 275, "sched_rr_get_interval": 127,
    "getpgid": 155, "getsid": 156, "get_robust_list": 100, "move_pages": 239,
    "migrate_pages": 238, "pidfd_open": 434, "madvise": 233, "process_madvise": 440,
    "statfs": 43, "fstatfs": 44, "statmount": 457, "listmount": 458, "futex": 98,
    "futex_waitv": 449, "futex_wake": 454, "futex_wait": 455, "futex_requeue": 456,
    "sendmsg": 211, "sendmmsg": 269,
}  # fmt: skip
#: AUDIT_ARCH_* value and system call table per machine; x32 calls have bit 30 set.
_ARCHES: Final = {
    "x86_64": (0xC000003E, {**_X86_64, **_X86_ONLY}),
    "aarch64": (0xC00000B7, _AARCH64),
}
_X32_BIT: Final = 0x40000000


class SeccompUnsupported(OSError):
    """No filter for this machine's architecture."""


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(
    machine: str | None = None,
    own_pids_only: bool = True,
    shared_uid: bool = True,
    answered: bool = False,
) -> bytes:
    """The filter for ``machine`` (default: this one), as packed ``sock_filter``s.
    ``own_pids_only``: the bot has no PID namespace of its own, so calls that take a pid may
    name only the bot itself (``OWN_PIDS_ONLY``, ``NO_PIDFDS``); ``shared_uid``: other seats
    run under the same uid (``FD_PASSING``); ``answered``: ``ANSWERED`` calls go to the
    filter's listener (the seat's init fills the caller's buffer, then refuses the call:
    ``sysinfo.py``) instead of being refused outright."""
    machine = machine or platform.machine()
    if machine not in _ARCHES:
        raise SeccompUnsupported(
            errno.ENOTSUP, f"no seccomp filter for {machine} (x86_64 and aarch64 only)"
        )
    arch, numbers = _ARCHES[machine]
    eperm = _ERRNO | errno.EPERM
    code = [
        _insn(_LD_ABS_W, _ARCH),
        _insn(_JEQ, arch, jt=1),
        _insn(_RET, _KILL_PROCESS),
        _insn(_LD_ABS_W, _NR),
    ]
    if machine == "x86_64":  # x32 system calls: another ABI, another table
        code += [_insn(0x35, _X32_BIT, jf=1), _insn(_RET, eperm)]  # 0x35: jge
    denied = [
        *DENIED,
        *(_X86_ONLY if machine == "x86_64" else ()),
        *(FD_PASSING if shared_uid else ()),
    ]
    for name in denied:
        refusal = errno.EACCES if name == "socket" else errno.EPERM
        action = _USER_NOTIF if answered and name in ANSWERED else _ERRNO | refusal
        code += [_insn(_JEQ, numbers[name], jf=1), _insn(_RET, action)]
    code += [_insn(_JEQ, numbers["clone3"], jf=1), _insn(_RET, _ERRNO | errno.ENOSYS)]
    self_only = dict(SELF_ONLY)
    if not own_pids_only:  # every pid the bot can name is one of its own tasks
        for name in OWN_TASKS:
            del self_only[name]
    if own_pids_only:
        self_only.update(OWN_PIDS_ONLY)
        for name in NO_PIDFDS:
            code += [_insn(_JEQ, numbers[name], jf=1), _insn(_RET, _ERRNO | errno.ENOSYS)]
    # Calls on another process by pid. The accumulator still holds the call number.
    for name, index in self_only.items():
        which = _WHICH_PROCESS.get(name)
        if which is None:
            code += [_insn(_JEQ, numbers[name], jf=4)]
        else:  # the first argument must say "a process", not "a group" or "a user"
            code += [
                _insn(_JEQ, numbers[name], jf=6),
                _insn(_LD_ABS_W, _ARG0),
                _insn(_JEQ, which, jf=3),
            ]
        code += [
            _insn(_LD_ABS_W, _ARG0 + 8 * index),
            _insn(_JEQ, 0, jf=1),
            _insn(_RET, _ALLOW),
            _insn(_RET, eperm),
        ]
    # preadv2(RWF_NOWAIT) tells whether a page is cached without reading it.
    code += [
        _insn(_JEQ, numbers["preadv2"], jf=4),
        _insn(_LD_ABS_W, _ARG0 + 8 * 5),
        _insn(_JSET, _RWF_NOWAIT, jf=1),
        _insn(_RET, _ERRNO | errno.EOPNOTSUPP),
        _insn(_RET, _ALLOW),
    ]
    # futex(): only private ones. The accumulator holds the call number.
    waits, wakes = len(_FUTEX_WAITS), len(_FUTEX_WAKES)
    code += [
        _insn(_JEQ, numbers["futex"], jf=waits + wakes + 7),
        _insn(_LD_ABS_W, _ARG1),
        _insn(_JSET, _FUTEX_PRIVATE, jf=1),
        _insn(_RET, _ALLOW),
        _insn(_ALU_AND_K, _FUTEX_COMMAND),
    ]
    # Each wait jumps to the EAGAIN answer, each wake to the "woke nobody" one after it.
    code += [_insn(_JEQ, op, jt=waits - i + wakes) for i, op in enumerate(_FUTEX_WAITS)]
    code += [_insn(_JEQ, op, jt=wakes - i + 1) for i, op in enumerate(_FUTEX_WAKES)]
    code += [_insn(_RET, eperm), _insn(_RET, _ERRNO | errno.EAGAIN), _insn(_RET, _ERRNO | 0)]
    # madvise(): no deactivating or evicting pages (the accumulator holds the call number).
    denied_advice = len(_MADVISE_DENIED)
    code += [_insn(_JEQ, numbers["madvise"], jf=denied_advice + 3), _insn(_LD_ABS_W, _ARG2)]
    code += [_insn(_JEQ, advice, jt=denied_advice - i) for i, advice in enumerate(_MADVISE_DENIED)]
    code += [_insn(_RET, _ALLOW), _insn(_RET, eperm)]
    # fcntl(): no lock, lease or dnotify command. The accumulator still holds the call number.
    commands = len(_FCNTL_DENIED)
    code += [_insn(_JEQ, numbers["fcntl"], jf=commands + 3), _insn(_LD_ABS_W, _ARG1)]
    for index, command in enumerate(_FCNTL_DENIED):
        code.append(_insn(_JEQ, command, jt=commands - index))
    code += [_insn(_RET, _ALLOW), _insn(_RET, eperm)]
    # clone(): no new namespaces.
    code += [
        _insn(_JEQ, numbers["clone"], jf=3),
        _insn(_LD_ABS_W, _ARG0),
        _insn(_JSET, _CLONE_NEW, jf=1),
        _insn(_RET, eperm),
        _insn(_RET, _ALLOW),
    ]
    return b"".join(code)


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Filter:
    """A compiled filter, kept alive in the referee so the child only makes one call."""

    def __init__(self, code: bytes) -> None:
        self._buffer = ctypes.create_string_buffer(code, len(code))
        self._prog = _Fprog(len(code) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))
        self._address = ctypes.addressof(self._prog)  # nothing to build after fork
        self._pointer = ctypes.c_void_p(self._address)
        self._seccomp = _SECCOMP.get(platform.machine())

    def install(self, listener: bool = False) -> int | None:
        """Load the filter into the calling process (``no_new_privs`` must be set first);
        with ``listener``, return the descriptor its ``ANSWERED`` calls arrive on (closed
        at ``exec``), or None where this machine cannot give one."""
        if listener and self._seccomp is not None:
            return check(
                libc.syscall(self._seccomp, _SET_MODE_FILTER, _NEW_LISTENER, self._pointer),
                "seccomp",
            )
        check(
            libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, self._address, 0, 0),
            "seccomp",
        )
        return None
