"""Legal in the bidding and when naming trump; in play it always plays the first tile of its
hand, following suit or not."""

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "no follow")
    elif message["type"] == "act":
        view = message["view"]
        if view["phase"] == "playing":
            action = {"type": "play", "tile": view["hand"][0]}
            botlib.send({"type": "action", "id": message["id"], "action": action})
        else:
            botlib.answer(message, rng)
