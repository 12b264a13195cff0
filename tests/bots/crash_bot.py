"""Plays ``--after`` acts, then exits with status ``--status`` when asked for the next one."""

import sys

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--after", type=int, default=3)
arguments.add_argument("--status", type=int, default=3)
args = botlib.setup(arguments)
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "crash")
    elif message["type"] == "act":
        if acts == args.after:
            sys.exit(args.status)
        acts += 1
        botlib.answer(message, rng)
