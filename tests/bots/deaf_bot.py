"""Answers ``--after`` acts, then says so on stderr, shrinks its input pipe to one page and
never reads again: the referee's next lines fill the pipe, and its writes wait."""

import fcntl
import sys
import time

import botlib

F_SETPIPE_SZ = 1031

arguments = botlib.parser(__doc__)
arguments.add_argument("--after", type=int, default=2)
args = botlib.setup(arguments)
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "deaf")
    elif message["type"] == "act":
        if acts == args.after:
            print("deaf from now on", file=sys.stderr, flush=True)
            fcntl.fcntl(0, F_SETPIPE_SZ, 4096)
            time.sleep(600)
        acts += 1
        botlib.answer(message, rng)
