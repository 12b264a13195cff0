"""Plays ``--after`` acts, then closes its stdout (fd 1) and keeps running, reading stdin."""

import os
import sys
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--after", type=int, default=3)
args = botlib.setup(arguments)
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "close stdout")
    elif message["type"] == "act":
        if acts == args.after:
            sys.stdout.flush()
            os.close(1)
            for _line in sys.stdin.buffer:
                pass
            time.sleep(600)
        acts += 1
        botlib.answer(message, rng)
