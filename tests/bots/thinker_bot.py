"""Thinks for a fixed amount of CPU time before each answer (``--cpu-ms``), then plays a random
legal action: a bot whose answers arrive in time only if it gets its share of the CPU."""

import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--cpu-ms", type=float, default=150)
args = botlib.setup(arguments)
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "thinker")
    elif message["type"] == "act":
        until = time.process_time() + args.cpu_ms / 1000
        while time.process_time() < until:
            pass
        botlib.answer(message, rng)
