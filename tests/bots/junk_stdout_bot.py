"""Plays like the random bot, but prints a debug line on stdout before each answer."""

import botlib

args = botlib.setup(botlib.parser(__doc__))
for message in botlib.messages():
    if message["type"] == "hello":
        botlib.send_bytes(b"starting up...\n")
        rng = botlib.ready(message, "junk")
    elif message["type"] == "act":
        botlib.send_bytes(f"thinking about act {message['id']}\n".encode())
        botlib.answer(message, rng)
