"""Partners that pass a hand through scheduler attributes, then play randomly.

``--role send``: at its first ``act`` the bot encodes its hand (28 bits, one per tile) in
the nice values of ten threads it starts: three markers (19, 18, 17), then seven nibbles
(1 + value). Setting its own threads' nice upward needs no privilege.

``--role receive``: at every ``act`` until it has found them, the bot reads the nice value
of every pid on the machine (``getpriority`` works on any task, whatever its uid, and needs
no ``/proc``), looks for the markers and decodes the nibbles after them. It writes one line
to stderr after each scan: ``CHANNEL got <28-bit mask in hex> at act <n>`` or ``CHANNEL
nothing (<why>)``; the last says what it learned. The test compares the mask with the
partner's hand in the log.

``--role both`` plays many matches in one process (``"matches": "many"``), sending its hand
and reading every other process's in each: the two legs of a duplicate pair in a warm pool,
where the first leg's processes wait, stopped, with their threads. Its lines say
``CHANNEL got <mask>,<mask>,...``: every hand it found.
"""

import json
import os
import random
import sys
import threading
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--role", choices=("send", "receive", "both"), required=True)
args = botlib.setup(arguments)

TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
MARKERS = (19, 18, 17)
PID_MAX = 1 << 15
#: This process's own marker threads (it must not read its own hand back).
OWN: set[int] = set()


def mask(hand: list[list[int]]) -> int:
    return sum(1 << TILES.index((min(tile), max(tile))) for tile in hand)


def send(value: int) -> None:
    """Ten threads that hold their nice values until the bot exits."""
    nices = [*MARKERS, *(1 + ((value >> (4 * i)) & 0xF) for i in range(7))]
    for nice in nices:
        started = threading.Event()

        def hold(nice: int = nice, started: threading.Event = started) -> None:
            OWN.add(threading.get_native_id())
            os.setpriority(os.PRIO_PROCESS, 0, nice)  # 0: this thread
            started.set()
            while True:
                time.sleep(3600)

        threading.Thread(target=hold, daemon=True).start()
        started.wait()


def receive() -> tuple[list[int], str]:
    """Every hand found in other processes' threads, and what the scan saw."""
    seen: dict[int, int] = {}
    errors: dict[str, int] = {}
    for pid in range(1, PID_MAX + 1):
        try:
            seen[pid] = os.getpriority(os.PRIO_PROCESS, pid)
        except OSError as exc:
            name = type(exc).__name__
            errors[name] = errors.get(name, 0) + 1
    own = {os.getpid(), *OWN}
    found = []
    for pid in sorted(seen):
        if pid in own or [seen.get(pid + i) for i in range(3)] != list(MARKERS):
            continue
        data = [seen[p] for p in sorted(seen) if pid + 3 <= p <= pid + 64 and 1 <= seen[p] <= 16]
        if len(data) >= 7:
            found.append(sum((nice - 1) << (4 * i) for i, nice in enumerate(data[:7])))
    return found, f"{len(seen)} tasks readable, refused: {errors}"


def report(got: list[int], why: str) -> None:
    said = (
        f"CHANNEL got {','.join(f'{m:07x}' for m in got)} {why}"
        if got
        else f"CHANNEL nothing ({why})"
    )
    os.write(2, (said + "\n").encode())


acts = 0
got: list[int] = []
why = "no act"
sending = args.role in ("send", "both")
receiving = args.role in ("receive", "both")
for line in sys.stdin.buffer:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        acts, got, why = 0, [], "no act"
        matches = "many" if args.role == "both" else "one"
        botlib.send({"type": "ready", "name": f"sched-{args.role}", "matches": matches})
        rng = random.Random(message["seed"])
    elif kind == "act":
        acts += 1
        if sending and acts == 1:
            send(mask(message["view"]["hand"]))
        if receiving and not got:
            got, why = receive()
            if got:
                why = f"at act {acts}"
            report(got, why)  # now: a kept process is stopped soon after match_end
        botlib.answer(message, rng)
    elif kind == "match_end" and args.role != "both":
        break
