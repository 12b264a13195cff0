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
    # The sender's threads follow one another in pid order, though other tasks started at
    # the same moment may come between them: look at the niced tasks after each marker.
    niced = [(pid, seen[pid]) for pid in sorted(seen) if seen[pid] != 0 and pid not in own]
    for at, (pid, _) in enumerate(niced):
        following = [value for other, value in niced[at : at + 10] if other - pid < 512]
        data = following[3:]
        if following[:3] == list(MARKERS) and len(data) == 7 and all(1 <= v <= 16 for v in data):
            found.append(sum((v - 1) << (4 * i) for i, v in enumerate(data)))
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
