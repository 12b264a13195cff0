"""Plays like the random bot; its first ``ready`` says ``"matches": "many"``, every later one
``"one"`` (allowed: the process is then closed after that match). It reads to the end of
its input."""

import sys

import botlib

args = botlib.setup(botlib.parser(__doc__))
hellos = 0
for line in sys.stdin:
    message = botlib.json.loads(line)
    if message["type"] == "hello":
        hellos += 1
        matches = "many" if hellos == 1 else "one"
        botlib.send({"type": "ready", "name": "many once", "matches": matches})
        rng = botlib.random.Random(message["seed"])
    elif message["type"] == "act":
        botlib.answer(message, rng)
