"""The commands of the bots the tests start: a bot file run by this interpreter, and the
bundled bots the tests play against (the test bots are in ``support.processes.BOTS``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Final

from referee.match.runner import BUNDLED_BOTS


def python(path: Path, *args: str) -> str:
    """The command that runs the Python bot ``path`` with ``args`` in this interpreter."""
    return shlex.join([sys.executable, str(path), *args])


#: The bundled random bot (``example_bots/random_bot.py``).
RANDOM_BOT: Final = python(BUNDLED_BOTS / "random_bot.py")
#: The bundled heuristic bot, which beats the random one.
HEURISTIC_BOT: Final = python(BUNDLED_BOTS / "heuristic_bot.py")
