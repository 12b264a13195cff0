"""Plays like the random bot, but neither ``match_end`` nor the end of its input makes it exit."""

import sys
import time

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "no exit")
    elif message["type"] == "act":
        botlib.answer(message, rng)
sys.stdin.read()
time.sleep(600)
