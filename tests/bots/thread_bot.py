"""Plays randomly, starting and joining eight threads before every answer: a bot that needs
a few processes of its own, and exits with status 3 and a line on stderr when the machine
will not give it one (another seat has taken them all)."""

import sys
import threading

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "threads")
    elif message["type"] == "act":
        threads = [threading.Thread(target=sum, args=([1, 2],)) for _ in range(8)]
        try:
            for thread in threads:
                thread.start()
        except RuntimeError as exc:
            sys.stderr.write(f"THREADS refused: {exc}\n")
            sys.exit(3)
        for thread in threads:
            if thread.ident is not None:
                thread.join()
        botlib.answer(message, rng)
