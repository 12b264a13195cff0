"""Plays like the random bot but dies (exit status 1) on an ``act`` with a field it does not
know, as a bot that validates its input too strictly does."""

import botlib

KNOWN = {"type", "id", "events", "view", "legal_actions", "time_ms"}
args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "strict")
    elif message["type"] == "act":
        unknown = set(message) - KNOWN
        if unknown:
            raise SystemExit(f"unknown field in act: {sorted(unknown)}")
        botlib.answer(message, rng)
