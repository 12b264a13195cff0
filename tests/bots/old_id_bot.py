"""After a ``rejected``, sends its previous answer again (the old id), then answers the fresh
act properly: the referee ignores the repeat, but it is a bug (a stale answer)."""

import botlib

args = botlib.setup(botlib.parser(__doc__))
last = None
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "old id")
    elif message["type"] == "rejected" and last is not None:
        botlib.send(last)
    elif message["type"] == "act":
        last = {"type": "action", "id": message["id"], "action": message["legal_actions"][0]}
        botlib.send(last)
