"""A bot that tells the tests when it hears, answers and runs: the timing channel between
partners and the freezing of idle seats, measured from inside real bot processes.

``--think SECONDS``: wait that long before each answer. ``--send STEP``: and then wait
``STEP * s`` seconds, where ``s`` (0 to 3) is two bits of the bot's hand taken in turn: the
referee's own timing as a channel to its partner. ``--vanish N``: at the Nth ``act``, close
stdout and stay (the referee waits a while to learn how a bot that went away ended).

Every bot writes to stderr, on the machine's monotonic clock (``CLOCK_MONOTONIC``, one clock
for every process):

- ``ACT <id> <t>`` when an ``act`` arrives, ``ANSWER <id> <t> <s>`` when it answers (``s``,
  the symbol it sent, or -1);
- at the end, ``RUN <start> <end>`` for each stretch in which its ticking thread ran (a
  thread that notes the clock every millisecond: a gap of more than 20 ms is a stop).
"""

import os
import threading
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--send", type=float, default=0.0)
arguments.add_argument("--think", type=float, default=0.0, help="seconds before each answer")
arguments.add_argument("--vanish", type=int, default=0, help="at this act, close stdout, stay")
args = botlib.setup(arguments)
TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
GAP = 0.02
ticks: list[float] = []


def tick() -> None:
    while True:
        ticks.append(time.monotonic())
        time.sleep(0.001)


def stretches() -> list[tuple[float, float]]:
    found: list[tuple[float, float]] = []
    for now in list(ticks):
        if found and now - found[-1][1] <= GAP:
            found[-1] = (found[-1][0], now)
        else:
            found.append((now, now))
    return found


def symbols(hand: list[list[int]]) -> list[int]:
    mask = sum(1 << TILES.index((min(tile), max(tile))) for tile in hand)
    return [(mask >> (2 * i)) & 3 for i in range(14)]


def main() -> None:
    threading.Thread(target=tick, daemon=True).start()
    rng = None
    sent: list[int] = []
    acts = 0
    for message in botlib.messages():
        kind = message["type"]
        if kind == "hello":
            rng = botlib.ready(message, "turn-probe")
        elif kind == "act":
            botlib.log(f"ACT {message['id']} {time.monotonic():.6f}")
            acts += 1
            if acts == args.vanish:
                os.close(1)
                time.sleep(30)
            assert rng is not None
            symbol = -1
            if args.send:
                if not sent:
                    sent = symbols(message["view"]["hand"]) * 20
                symbol = sent.pop(0)
                time.sleep(args.send * symbol)
            time.sleep(args.think)
            botlib.log(f"ANSWER {message['id']} {time.monotonic():.6f} {symbol}")
            botlib.answer(message, rng)
    for start, end in stretches():
        botlib.log(f"RUN {start:.6f} {end:.6f}")


main()
