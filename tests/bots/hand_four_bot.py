"""Plays like the random bot until its first act of hand 4 (which no scripted conversation of
check-bot reaches: they are hands 1, 2 and 12), then does what it is told: ``--crash`` exits
with status 3, ``--null`` answers ``"action": null`` to every act from then on, ``--memory
MIB`` takes that much memory (touched, 16 MiB at a time) and plays on. ``--many`` says
``"matches": "many"`` and reads on after ``match_end``."""

import sys

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--crash", action="store_true")
arguments.add_argument("--null", action="store_true")
arguments.add_argument("--memory", type=int, default=0)
arguments.add_argument("--many", action="store_true")
args = botlib.setup(arguments)
held = []
reached = False  # hand 4 of this match seen (the exit check's conversation is in hand 12)
for line in sys.stdin.buffer:
    message = botlib.json.loads(line)
    kind = message["type"]
    if kind == "hello":
        ready = {"type": "ready", "name": "hand four"}
        if args.many:
            ready["matches"] = "many"
        botlib.send(ready)
        rng = botlib.random.Random(message["seed"])
        reached = False
    elif kind == "act" and (reached or message["view"]["hand_number"] == 4):
        reached = True
        if args.crash:
            botlib.log("hand_four_bot: IndexError in hand 4")
            sys.exit(3)
        if args.null:
            botlib.send({"type": "action", "id": message["id"], "action": None})
            continue
        while len(held) * 16 < args.memory:  # touched, 16 MiB at a time, as a table grows
            held.append(bytearray(b"x" * (16 << 20)))
        botlib.answer(message, rng)
    elif kind == "act":
        botlib.answer(message, rng)
    elif kind == "match_end" and not args.many:
        break
