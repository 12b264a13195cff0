"""Plays legally, and on every ``--every``-th act catches an error of its own and writes its
traceback on stderr, as a bot that swallows a ``NullPointerException`` does: never a fault,
yet its author wants to see it. ``--chatter`` lines of ordinary logging come with each act."""

import sys
import traceback

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--every", type=int, default=5)
arguments.add_argument("--chatter", type=int, default=0)
args = botlib.setup(arguments)
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "caught")
        print("Picked up JAVA_TOOL_OPTIONS: -Xss1m", file=sys.stderr, flush=True)
    elif message["type"] == "act":
        acts += 1
        for _ in range(args.chatter):
            print(f"thinking about act {acts}", file=sys.stderr)
        if args.every and acts % args.every == 0:
            try:
                {}["trump"]
            except KeyError:
                traceback.print_exc()
        sys.stderr.flush()
        botlib.answer(message, rng)
