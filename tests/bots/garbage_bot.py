"""Answers with a line that is not JSON, to hello (``--on hello``) or to every act."""

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--on", choices=["hello", "act"], default="act")
args = botlib.setup(arguments)
GARBAGE = b"this is not JSON {\n"
for message in botlib.messages():
    if message["type"] == args.on:
        botlib.send_bytes(GARBAGE)
    elif message["type"] == "hello":
        rng = botlib.ready(message, "garbage")
