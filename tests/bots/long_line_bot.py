"""At its first act writes ``--mib`` MiB with no newline, waits ``--pause`` s, then the newline."""

import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--mib", type=int, default=10)
arguments.add_argument("--pause", type=float, default=30.0)
args = botlib.setup(arguments)
for message in botlib.messages():
    if message["type"] == "hello":
        botlib.ready(message, "long line")
    elif message["type"] == "act":
        chunk = b"x" * (1 << 16)
        for _ in range(args.mib * 16):
            botlib.send_bytes(chunk)  # blocks once the referee stops reading
        time.sleep(args.pause)
        botlib.send_bytes(b"\n")
