"""Plays like the random bot and says ``"matches": "many"``, but exits after ``match_end``
anyway: a second match in the same process finds it gone."""

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():  # they end at match_end
    if message["type"] == "hello":
        botlib.send({"type": "ready", "name": "many, but exits", "matches": "many"})
        rng = botlib.random.Random(message["seed"])
    elif message["type"] == "act":
        botlib.answer(message, rng)
