"""Answers every act with a legal action but the wrong id (``id + --offset``)."""

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--offset", type=int, default=1000)
args = botlib.setup(arguments)
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "wrong id")
    elif message["type"] == "act":
        action = rng.choice(message["legal_actions"])
        botlib.send({"type": "action", "id": message["id"] + args.offset, "action": action})
