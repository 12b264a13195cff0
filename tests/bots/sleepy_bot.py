"""Answers hello, plays ``--after`` moves, then sleeps ``--sleep`` seconds before each answer."""

import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--after", type=int, default=0, help="acts answered at once first")
arguments.add_argument("--sleep", type=float, default=600.0, help="seconds to sleep per act")
arguments.add_argument("--marker", help="a word to find this bot by in its command line")
args = botlib.setup(arguments)
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "sleepy")
    elif message["type"] == "act":
        acts += 1
        if acts > args.after:
            time.sleep(args.sleep)
        botlib.answer(message, rng)
