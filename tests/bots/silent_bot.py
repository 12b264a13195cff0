"""Reads everything it is sent and never answers, not even hello; ignores end of input."""

import sys
import time

import botlib

botlib.setup(botlib.parser(__doc__))
for _line in sys.stdin.buffer:
    pass
time.sleep(600)
