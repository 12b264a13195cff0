#!/usr/bin/env python3
"""The smallest complete Texas 42 bot: it answers every decision with a random legal action.

Copy it to start your own. Protocol (see protocol/PROTOCOL.md): one JSON object per line on
stdin; answer `hello` with `ready` and every `act` with an `action` carrying the same `id`
and one element of `legal_actions`, verbatim. Ignore any other message or field. It says
`"matches": "many"`: after `match_end` a tournament may send another `hello` (a new match,
perhaps another seat), so it reads on until the end of its input.
"""

import json
import random
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:  # ends at the end of input: then exit
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":  # each match starts here: all the bot keeps is its seeded rng
            rng.seed(message["seed"])  # the referee's seed makes the bot reproducible
            send({"type": "ready", "name": "random", "matches": "many"})
        elif kind == "act":
            action = rng.choice(message["legal_actions"])
            send({"type": "action", "id": message["id"], "action": action})
        # hand_end, match_end, rejected, and message types added later need no answer.


if __name__ == "__main__":
    main()
