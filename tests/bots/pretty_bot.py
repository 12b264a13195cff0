"""Plays like the random bot, but writes every message as indented, multi-line JSON."""

import json

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        botlib.send_bytes(
            json.dumps({"type": "ready", "name": "pretty"}, indent=2).encode() + b"\n"
        )
        rng = botlib.random.Random(message["seed"])
    elif message["type"] == "act":
        action = rng.choice(message["legal_actions"])
        answer = {"type": "action", "id": message["id"], "action": action}
        botlib.send_bytes(json.dumps(answer, indent=2).encode() + b"\n")
