"""Plays like the random bot in seats A and B, and exits with status 3 at its first ``act``
when its ``hello`` seats it at C or D (the seats a check in A alone never shows).

``--many`` says ``"matches": "many"`` and reads on after ``match_end``: each new ``hello``
may seat it elsewhere, and the crash waits for C or D again.
"""

import sys

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--many", action="store_true", help='say "matches": "many"')
args = botlib.setup(arguments)
seat = "A"
for line in sys.stdin.buffer:
    message = botlib.json.loads(line)
    kind = message["type"]
    if kind == "hello":
        seat = message["seat"]
        ready = {"type": "ready", "name": "seat crash"}
        if args.many:
            ready["matches"] = "many"
        botlib.send(ready)
        rng = botlib.random.Random(message["seed"])
    elif kind == "act":
        if seat in ("C", "D"):
            sys.stderr.write(f"seat_crash_bot: no strategy for seat {seat}\n")
            sys.exit(3)
        botlib.answer(message, rng)
    elif kind == "match_end" and not args.many:
        break
