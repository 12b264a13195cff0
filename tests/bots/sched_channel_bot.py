"""Partners that pass a hand through scheduler attributes, then play randomly.

``--role send``: at its first ``act`` the bot encodes its hand (28 bits, one per tile) in
the nice values of ten threads it starts: three markers (19, 18, 17), then seven nibbles
(1 + value). Setting its own threads' nice upward needs no privilege.

``--role receive``: at every ``act`` until it has found them, the bot reads the nice value
of every pid on the machine (``getpriority`` works on any task, whatever its uid, and needs
no ``/proc``), looks for the markers and decodes the nibbles after them. It writes one line
to stderr at the end: ``CHANNEL got <28-bit mask in hex> at act <n>`` or ``CHANNEL nothing
(<why>)``. The test compares the mask with the partner's hand in the log.
"""

import os
import threading
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--role", choices=("send", "receive"), required=True)
args = botlib.setup(arguments)

TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
MARKERS = (19, 18, 17)
PID_MAX = 1 << 15


def mask(hand: list[list[int]]) -> int:
    return sum(1 << TILES.index((min(tile), max(tile))) for tile in hand)


def send(value: int) -> None:
    """Ten threads that hold their nice values until the bot exits."""
    nices = [*MARKERS, *(1 + ((value >> (4 * i)) & 0xF) for i in range(7))]
    for nice in nices:
        started = threading.Event()

        def hold(nice: int = nice, started: threading.Event = started) -> None:
            os.setpriority(os.PRIO_PROCESS, 0, nice)  # 0: this thread
            started.set()
            while True:
                time.sleep(3600)

        threading.Thread(target=hold, daemon=True).start()
        started.wait()


def receive() -> tuple[int | None, str]:
    """The partner's mask, or None and what the scan saw."""
    seen: dict[int, int] = {}
    errors: dict[str, int] = {}
    for pid in range(1, PID_MAX + 1):
        try:
            seen[pid] = os.getpriority(os.PRIO_PROCESS, pid)
        except OSError as exc:
            name = type(exc).__name__
            errors[name] = errors.get(name, 0) + 1
    own = {os.getpid(), *(int(t) for t in _own_threads())}
    for pid in sorted(seen):
        if pid in own or [seen.get(pid + i) for i in range(3)] != list(MARKERS):
            continue
        data = [seen[p] for p in sorted(seen) if pid + 3 <= p <= pid + 64 and 1 <= seen[p] <= 16]
        if len(data) >= 7:
            return sum((nice - 1) << (4 * i) for i, nice in enumerate(data[:7])), ""
    return None, f"{len(seen)} tasks readable, refused: {errors}"


def _own_threads() -> list[str]:
    try:
        return os.listdir("/proc/self/task")
    except OSError:
        return []


acts = 0
got: int | None = None
why = "no act"
for message in botlib.messages():
    kind = message["type"]
    if kind == "hello":
        rng = botlib.ready(message, f"sched-{args.role}")
    elif kind == "act":
        acts += 1
        if args.role == "send" and acts == 1:
            send(mask(message["view"]["hand"]))
        elif args.role == "receive" and got is None:
            got, why = receive()
            if got is not None:
                why = f"at act {acts}"
        botlib.answer(message, rng)
if args.role == "receive":
    said = f"CHANNEL got {got:07x} {why}" if got is not None else f"CHANNEL nothing ({why})"
    os.write(2, (said + "\n").encode())
