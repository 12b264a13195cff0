"""Partners passing a hand through futexes on a file both may read.

A futex on a file-backed page is keyed by the file's inode and the offset, not by the
process: every process that maps the same runtime file (here the first page of ``os.py``,
read-only) shares its keys, whatever its uid or namespaces. C's threads wait on 29 words of
that page; A wakes the words that stand for its tiles, then word 28 ("done"). ``FUTEX_WAKE``
returns how many waiters it woke, so A also knows each bit arrived.

``--via exit``: A wakes each word by ending a thread whose ``clear_child_tid``
(``set_tid_address``) points at it instead of calling ``FUTEX_WAKE``: the kernel wakes that
address when the thread exits, even though the page is read-only. No filter on the futex
call's operation stops that one.

C writes ``CHANNEL got <28-bit mask in hex>``; A writes ``CHANNEL sent <mask>: <n> wakes``.
"""

import ctypes
import os
import sys
import threading
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--via", choices=("wake", "exit"), default="wake")
args = botlib.setup(arguments)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
SYS_FUTEX, SYS_SET_TID_ADDRESS = 202, 218  # x86_64
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # no FUTEX_PRIVATE_FLAG
TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
source = open(os.__file__, "rb")  # noqa: SIM115 - kept open for the mapping
PAGE = libc.mmap(None, 4096, 1, 2, source.fileno(), 0)  # PROT_READ, MAP_PRIVATE


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def word(i: int) -> int:
    return PAGE + 4 * (i + 64)


def wait(i: int, seconds: int) -> bool:
    value = ctypes.c_uint32.from_address(word(i)).value
    timeout = Timespec(seconds, 0)
    return libc.syscall(SYS_FUTEX, ctypes.c_void_p(word(i)), FUTEX_WAIT, value,
                        ctypes.byref(timeout), None, 0) == 0  # fmt: skip


def wake(i: int) -> int:
    if args.via == "exit":
        thread = threading.Thread(
            target=libc.syscall, args=(SYS_SET_TID_ADDRESS, ctypes.c_void_p(word(i)))
        )
        thread.start()
        time.sleep(0.002)
        return 1
    return libc.syscall(SYS_FUTEX, ctypes.c_void_p(word(i)), FUTEX_WAKE, 1, None, None, 0)


def mask(hand: list[list[int]]) -> int:
    return sum(1 << TILES.index((min(tile), max(tile))) for tile in hand)


def receive() -> None:
    woke = [False] * 29

    def one(i: int) -> None:
        woke[i] = wait(i, 20)

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(29)]
    for thread in threads:
        thread.start()
    threads[28].join()
    time.sleep(0.01)
    value = sum(1 << i for i in range(28) if woke[i])
    sys.stderr.write(f"CHANNEL got {value:07x}\n")
    sys.stderr.flush()


def send(value: int) -> None:
    landed = 0
    for i in [*range(28), 28]:
        if i == 28 or value >> i & 1:
            deadline = time.monotonic() + 0.5  # refused: give up soon, the match goes on
            while time.monotonic() < deadline:
                if wake(i) == 1:
                    landed += 1
                    break
                time.sleep(0.001)
    sys.stderr.write(f"CHANNEL sent {value:07x}: {landed} wakes\n")
    sys.stderr.flush()


sent = False
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "futex-channel")
        if message["seat"] == "C":
            threading.Thread(target=receive, daemon=True).start()
    elif message["type"] == "act":
        if message["view"]["seat"] == "A" and not sent:
            sent = True
            send(mask(message["view"]["hand"]))
        time.sleep(0.05)
        botlib.answer(message, rng)
