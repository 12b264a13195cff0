"""The bot behind ``transcript-seat-A.txt``: plays the first legal action, answers its first
``act`` with an illegal play (to show a ``rejected``), and writes every line it reads (``>``)
and writes (``<``) to stderr, which the referee keeps beside the log. ``referee transcript``
plays it in seat A of a real match and copies that stderr here."""

import json
import sys


def say(message: dict) -> None:
    line = json.dumps(message)
    sys.stderr.write(f"< {line}\n")
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


refused_once = False
for raw in sys.stdin:
    sys.stderr.write(f"> {raw.rstrip()}\n")
    message = json.loads(raw)
    if message["type"] == "hello":
        say({"type": "ready", "name": "transcript-bot"})
    elif message["type"] == "act":
        action = message["legal_actions"][0]
        if not refused_once:
            refused_once = True
            action = {"type": "play", "tile": [0, 0]}  # no tile is played in the bidding
        say({"type": "action", "id": message["id"], "action": action})
    elif message["type"] == "match_end":
        break
