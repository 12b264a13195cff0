"""Plays correctly while a background thread writes ``--mib`` MiB to stderr."""

import os
import threading

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--mib", type=int, default=50)
args = botlib.setup(arguments)


def flood() -> None:
    chunk = b"stderr flood " * 5041 + b"\n"  # 65534 bytes
    for _ in range(args.mib * 16):
        os.write(2, chunk)  # unbuffered: no lock held against the interpreter's shutdown


threading.Thread(target=flood, daemon=True).start()
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "stderr flood")
    elif message["type"] == "act":
        botlib.answer(message, rng)
