"""A bot that attacks the referee, the other seats and the machine, then plays randomly.

At its first ``act`` (every seat is running by then, and the log holds the deal) it tries
the attack named by ``--attack``, aimed at ``$ATTACK_TARGET``, and writes one line to
stderr, which the referee keeps beside the log: ``ATTACK <name>: SUCCEEDED <what it got>``
or ``ATTACK <name>: BLOCKED <why>``. Every attack is also run with the sandbox off in the
tests, where it must succeed: that is what shows the attack is real.
"""

import ctypes
import errno
import os
import signal
import socket
import sys
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--attack", required=True)
args = botlib.setup(arguments)
libc = ctypes.CDLL(None, use_errno=True)


def others() -> list[int]:
    """The other bots: processes whose parent is the referee (found through /proc), or, when
    /proc cannot be listed, the pids next to this one (bots start one after the other)."""
    parent = os.getppid()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:  # in a PID namespace of its own, pid 1 is the seat's init
        near = range(max(2, os.getpid() - 6), os.getpid() + 6)
        return [pid for pid in near if pid != os.getpid()]
    for name in names:
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open(f"/proc/{name}/stat") as stream:
                    if int(stream.read().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def read(path: str) -> str:
    with open(path, "rb") as stream:
        return repr(stream.read(60))


def attack() -> str:
    """What the attack got; raises OSError when it is refused."""
    name, target = args.attack, os.environ.get("ATTACK_TARGET", "")
    referee = os.getppid()
    if name == "read-file":
        return read(target)
    if name == "list-dir":
        return repr(sorted(os.listdir(target))[:5])
    if name == "write-file":
        with open(target, "ab") as stream:
            stream.write(b'{"forged": true}\n')
        return "appended"
    if name == "referee-fd":
        fds = os.listdir(f"/proc/{referee}/fd")
        logs = [os.readlink(f"/proc/{referee}/fd/{fd}") for fd in fds]
        log = next(fd for fd, link in zip(fds, logs, strict=True) if link.endswith(".jsonl"))
        return read(f"/proc/{referee}/fd/{log}")
    if name == "referee-cmdline":
        return read(f"/proc/{referee}/cmdline")
    if name == "referee-environ":
        return read(f"/proc/{referee}/environ")
    if name == "referee-mem":
        with open(f"/proc/{referee}/maps") as maps:
            start = int(next(line for line in maps if " r" in line).split("-")[0], 16)
        with open(f"/proc/{referee}/mem", "rb") as memory:
            memory.seek(start)
            return repr(memory.read(16))
    if name == "steal-stdin":
        refused = OSError(errno.ESRCH, "no other bot found")
        for victim in others():
            try:
                with open(f"/proc/{victim}/fd/0", "rb") as stream:
                    return f"opened {victim}'s stdin {stream}"
            except OSError as exc:
                refused = exc if not isinstance(exc, FileNotFoundError) else refused
        raise refused
    if name == "signal-referee":
        os.kill(referee, 0)  # permission to signal, without doing it
        return f"may signal {referee}"
    if name == "signal-bot":
        refused = OSError(errno.ESRCH, "no other bot found")
        for victim in others():
            try:
                os.kill(victim, 0)
                return f"may signal {victim}"
            except ProcessLookupError:
                pass
            except OSError as exc:
                refused = exc
        raise refused
    if name == "ptrace":
        # PTRACE_SEIZE does not stop the referee, and a tracer that exits lets it go: seize
        # from a child that exits at once (a detach would need the referee stopped).
        child = os.fork()
        if child == 0:
            result = libc.ptrace(0x4206, referee, None, None)
            os._exit(0 if result == 0 else ctypes.get_errno())
        _, status = os.waitpid(child, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            code = os.waitstatus_to_exitcode(status)
            raise OSError(code, os.strerror(code))
        return f"traced {referee}"
    if name == "open-files":
        opened = []
        try:
            while len(opened) < 5000:
                opened.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as exc:
            raise OSError(exc.errno, f"stopped after {len(opened)} files") from None
        finally:
            for fd in opened:
                os.close(fd)
        return f"{len(opened)} files"
    if name == "prlimit-referee":  # a seat of the referee's uid could cap its file size
        import resource

        resource.prlimit(referee, resource.RLIMIT_NOFILE)  # reading is allowed anyway
        soft, hard = resource.prlimit(referee, resource.RLIMIT_CORE)
        resource.prlimit(referee, resource.RLIMIT_CORE, (soft, hard))  # the same: harmless
        return f"may set the limits of {referee}"
    if name == "chmod":  # metadata Landlock does not cover
        os.chmod(target, 0o644)
        return f"chmod {target}"
    if name == "utime":
        os.utime(target, ns=(123456789, 987654321))
        return f"utime {target}"
    if name == "page-cache":  # evict a page of a file every bot can read: one bit for another
        with open(sys.executable, "rb") as shared:
            os.posix_fadvise(shared.fileno(), 0, 4096, os.POSIX_FADV_DONTNEED)
        return "evicted a page of the interpreter"
    if name == "page-probe":  # ask whether a page is cached without reading it
        with open(sys.executable, "rb") as shared:
            os.preadv(shared.fileno(), [bytearray(16)], 0, os.RWF_NOWAIT)
        return "probed the page cache"
    if name == "vm-read":
        buffer = ctypes.create_string_buffer(8)

        class IoVec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

        local = IoVec(ctypes.cast(buffer, ctypes.c_void_p), 8)
        remote = IoVec(0x400000, 8)
        result = libc.process_vm_readv(referee, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if result < 0 and ctypes.get_errno() in (errno.EPERM, errno.ENOSYS, errno.EACCES):
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return "process_vm_readv reached the referee"
    if name == "tcp":
        with socket.create_connection(("127.0.0.1", int(target)), timeout=1):
            return f"connected to port {target}"
    if name == "udp":
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"x", ("127.0.0.1", int(target)))
            return "sent a datagram"
    if name == "sysv-shm":  # a segment both partners (or both legs) could share
        segment = libc.shmget(0x42424242, 4096, 0o1666)  # IPC_CREAT, rw for all
        if segment < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        libc.shmctl(segment, 0, None)  # IPC_RMID: leave nothing behind
        return f"shared memory segment {segment}"
    if name == "unix-socket":
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
            path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"attack-{os.getpid()}")
            unix.bind(path)
            os.unlink(path)
            return f"bound {path}"
    if name == "flock":  # a lock on a file every bot can read is a channel between partners
        import fcntl

        with open(sys.executable, "rb") as shared:
            fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)
            fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return f"locked {sys.executable}"
    if name == "inotify":
        watcher = libc.inotify_init1(0)
        if watcher < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        os.close(watcher)
        return "an inotify instance"
    if name == "sysinfo":  # the machine's process count: a channel other bots can modulate
        info = ctypes.create_string_buffer(256)  # struct sysinfo is 112 bytes on 64 bits
        if libc.sysinfo(info) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return f"{int.from_bytes(info.raw[80:82], 'little')} processes on the machine"
    if name == "setsid":
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                os.setsid()
                os.write(write_end, b"escaped")
            except OSError as exc:
                os.write(write_end, f"E{exc.errno}".encode())
                os._exit(0)
            time.sleep(600)
            os._exit(0)
        said = os.read(read_end, 100).decode()
        if said.startswith("E"):
            raise OSError(int(said[1:]), os.strerror(int(said[1:])))
        botlib.record_pid(args.pid_dir, child, "escaped")
        return f"child {child} left the process group"
    if name == "statvfs":  # free space of a filesystem everyone sees, moved by writing 32 MiB
        shared = "/tmp"
        folder = os.environ.get("TMPDIR", shared)
        before = os.statvfs(shared)
        path = os.path.join(folder, "statvfs-mark")
        with open(path, "wb") as stream:
            for _ in range(32):
                stream.write(b"\1" * (1 << 20))
            stream.flush()
            os.fsync(stream.fileno())
        after = os.statvfs(shared)
        os.unlink(path)
        moved = (before.f_bfree - after.f_bfree) * after.f_frsize >> 20
        if moved >= 16:
            return f"the free space of {shared} moved by {moved} MiB"
        raise OSError(errno.EPERM, f"the free space of {shared} moved by {moved} MiB")
    if name == "nest":  # deeper than a recursive delete goes, and a directory closed to it
        folder = os.environ.get("TMPDIR", "/tmp")
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        os.mkdir("closed", dir_fd=top)
        os.mkdir("closed/inside", 0o300, dir_fd=top)  # chmod is refused; mkdir's mode is not
        os.mkdir("closed/inside/more", dir_fd=top)
        current = top
        for _ in range(int(target or 1500)):
            os.mkdir("d", dir_fd=current)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=current)
            os.close(current)
            current = deeper
        os.close(current)
        return f"{target or 1500} nested directories and one of mode 0300 in {folder}"
    if name == "fork-bomb":
        children = 0
        try:
            while children < 2000:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                children += 1
        except OSError as exc:
            raise OSError(exc.errno, f"stopped after {children} processes") from None
        return f"{children} processes"
    if name == "memory":
        hoard = []
        try:
            while len(hoard) < 4096:
                hoard.append(bytearray(16 << 20))
        except MemoryError:
            raise OSError(errno.ENOMEM, f"MemoryError after {16 * len(hoard)} MiB") from None
        return f"{16 * len(hoard)} MiB"
    if name == "disk-fill":
        folder = os.environ.get("TMPDIR", "/tmp")
        written = 0
        try:
            while written < 64:
                with open(os.path.join(folder, f"fill-{written}"), "wb") as stream:
                    stream.write(b"\0" * (1 << 20))
                written += 1
        except OSError as exc:
            raise OSError(exc.errno, f"stopped after {written} MiB: {exc.strerror}") from None
        return f"{written} MiB"
    if name == "cpu-hog":  # spinners that take the CPU from whoever is thinking
        for _ in range(int(target or 40)):
            if os.fork() == 0:
                while True:
                    pass
        return "spinning"
    if name == "cpu":
        while True:
            pass
    if name == "file-size":
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a C program would have it
        with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "big"), "wb") as stream:
            for _ in range(64):
                stream.write(b"\0" * (1 << 20))
        return "wrote 64 MiB"
    raise SystemExit(f"unknown attack {name}")


attacked = False
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "attacker")
    elif message["type"] == "act":
        if not attacked:
            attacked = True
            try:
                result = f"SUCCEEDED {attack()}"
            except (OSError, StopIteration, IndexError) as exc:
                result = f"BLOCKED {type(exc).__name__}: {exc}"
            sys.stderr.write(f"ATTACK {args.attack}: {result}\n")
            sys.stderr.flush()
        botlib.answer(message, rng)
