"""Answers its first ``--times`` acts (all if negative) with a well-formed illegal action."""

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--times", type=int, default=-1, help="illegal answers before behaving")
args = botlib.setup(arguments)
# Well-formed actions: any one of them not in legal_actions is illegal now (a play during the
# bidding, a tile the bot does not hold or may not play, a bid out of turn...).
CANDIDATES = [
    {"type": "play", "tile": [low, high]} for low in range(7) for high in range(low, 7)
] + [{"type": "bid", "points": 30}, {"type": "pass"}]
illegal = 0
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "illegal")
    elif message["type"] == "act":
        if args.times < 0 or illegal < args.times:
            illegal += 1
            action = next(a for a in CANDIDATES if a not in message["legal_actions"])
            botlib.send({"type": "action", "id": message["id"], "action": action})
        else:
            botlib.answer(message, rng)
