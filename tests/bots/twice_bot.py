"""Writes every answer twice: the referee ignores the copy (a stale id), so this bot is
conforming, and check-bot must say so."""

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "twice")
    elif message["type"] == "act":
        answer = {"type": "action", "id": message["id"], "action": message["legal_actions"][0]}
        botlib.send(answer)
        botlib.send(answer)
