"""``protocol/examples/transcript-seat-A.txt``: a real conversation, made by the real referee.

A recording bot (``protocol/examples/transcript_bot.py``) plays seat A against the bundled
random bot in a one-hand match with a fixed seed; it copies every line it reads and writes to
its stderr, which the referee keeps beside the log. Everything in it follows from the seed
and the bots — but for the time left after the refused answer (see ``untimed``) — so the
file can be made again, and a test does.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Final

import trio

from referee.match.runner import BUNDLED_BOTS, run_match, stderr_path
from referee.rules.tiles import Seat
from referee.settings import MatchSettings
from referee.spec.schema import PROTOCOL_DIR

#: The transcript's place in the protocol's folder.
TRANSCRIPT_FILE: Final = "examples/transcript-seat-A.txt"
TRANSCRIPT: Final = PROTOCOL_DIR / TRANSCRIPT_FILE
_BOT: Final = PROTOCOL_DIR / "examples" / "transcript_bot.py"
_SEED: Final = 20261204


def transcript() -> bytes:
    """Play the match and return seat A's side of it."""
    recorder = shlex.join([sys.executable, str(_BOT)])
    random_bot = shlex.join([sys.executable, str(BUNDLED_BOTS / "random_bot.py")])
    commands: dict[Seat, str] = {"A": recorder, "B": random_bot, "C": random_bot, "D": random_bot}
    with tempfile.TemporaryDirectory(prefix="texas42-transcript-") as folder:
        log = Path(folder) / "transcript.jsonl"
        trio.run(run_match, MatchSettings(seed=_SEED, max_hands=1), commands, log)
        return stderr_path(log, "A").read_bytes()


def untimed(text: bytes) -> bytes:
    """The transcript with the milliseconds left set aside: a re-asked ``act`` carries the time
    left after the refused answer, which depends on the clock."""
    return re.sub(rb'"time_ms":\d+', b'"time_ms":0', text)
