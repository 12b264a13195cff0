"""Plays like the random bot, but never flushes stdout: its lines leave only when it exits."""

import io
import json
import random
import sys

import botlib

args = botlib.setup(botlib.parser(__doc__))
# Block-buffered whatever the environment says (PYTHONUNBUFFERED, -u): Python flushes
# sys.stdout only at exit.
sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False), 65536))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = random.Random(message["seed"])
        sys.stdout.write(json.dumps({"type": "ready", "name": "unflushed"}) + "\n")
    elif message["type"] == "act":
        action = rng.choice(message["legal_actions"])
        sys.stdout.write(json.dumps({"type": "action", "id": message["id"], "action": action}))
        sys.stdout.write("\n")
