"""Copies every byte it reads to the file ``$RECORD_TO`` (run it with the sandbox off), and
answers as the bundled random bot does: what ``referee ask`` sends a bot, kept for the tests."""

import json
import os
import random
import sys

rng = random.Random()
with open(os.environ["RECORD_TO"], "wb") as record:
    for line in sys.stdin.buffer:
        record.write(line)
        record.flush()
        message = json.loads(line)
        if message["type"] == "hello":
            rng.seed(message["seed"])
            answer = {"type": "ready", "name": "recorder"}
        elif message["type"] == "act":
            action = rng.choice(message["legal_actions"])
            answer = {"type": "action", "id": message["id"], "action": action}
        else:
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
