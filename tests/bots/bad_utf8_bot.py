"""Sends invalid UTF-8: raw bytes to every act, or (``--on hello``) inside ready's JSON name."""

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--on", choices=["hello", "act"], default="act")
args = botlib.setup(arguments)
for message in botlib.messages():
    if message["type"] == "hello":
        if args.on == "hello":
            botlib.send_bytes(b'{"type": "ready", "name": "bad \xff\xfe name"}\n')
        else:
            rng = botlib.ready(message, "bad utf-8")
    elif message["type"] == "act":
        botlib.send_bytes(b"\xff\xfe\xc3\x28 not utf-8\n")
