"""Where the files that travel with the referee are: the bundled bots and the protocol's files
(its JSON Schemas, example transcript and conformance vectors).

They live at the top of the repository (``example_bots/``, ``protocol/``), where a bot's author
looks for them, and ``referee/example_bots`` and ``referee/protocol`` are links to them. So the
package finds them as its own files however it was installed: in a clone (``pip install -e .``)
through the links, in a wheel (``pip install .``, ``pipx install .``) as the copies that
setuptools made of what the links lead to (``package-data`` in ``pyproject.toml``).

The paths are resolved: in a clone they name the repository's folders, as before the links
(the commands a match's log records, and what the sandbox lets a bundled bot read, stay the
same); in a wheel they name the installed copies. The package is read as a folder on disk, not
through ``importlib.resources``: the bots are programs another process runs by path, which a
package inside a zip could not give.

A bot command may name a bundled bot, ``bundled:heuristic``: ``CATALOGUE`` holds them, and
``referee.match.commands.resolved`` turns the name into the command that runs it here, which
is what a log records.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Final

import msgspec

_PACKAGE: Final = Path(__file__).resolve().parent

#: The bundled example bots (``referee match`` with no bot plays them).
BOTS: Final = (_PACKAGE / "example_bots").resolve()
#: The protocol's generated files: JSON Schemas, the example transcript, conformance vectors.
PROTOCOL: Final = (_PACKAGE / "protocol").resolve()
#: The clone's ``protocol/`` folder, where ``referee schema`` writes the files it makes, or None
#: in an installed package: its copies are pip's, made again only by installing anew.
CLONE_PROTOCOL: Final = PROTOCOL if (_PACKAGE / "protocol").is_symlink() else None


#: How a bot command names a bundled bot: ``bundled:heuristic`` (words after it go to the bot).
PREFIX: Final = "bundled:"


class BundledBot(msgspec.Struct, frozen=True, kw_only=True):
    """A bot that travels with the referee, by the name a bot command gives it."""

    name: str
    #: Its program, in ``BOTS``.
    file: str
    language: str
    #: What it plays like, in one line: how strong, and how it decides.
    about: str

    def argv(self) -> list[str]:
        """The command that runs it on this install: Python bots with the referee's own
        interpreter (the kit bots import ``referee``), the JavaScript one with ``node``."""
        path = str(BOTS / self.file)
        if self.file.endswith(".js"):
            return [shutil.which("node") or "node", path]
        return [sys.executable, path]


#: The bundled bots: the random ones, then the two examples, then the strongest.
CATALOGUE: Final = (
    BundledBot(
        name="random",
        file="random_bot.py",
        language="Python (standard library)",
        about="A random legal action for every decision, seeded from hello: the weakest"
        " opponent, and the smallest bot to copy.",
    ),
    BundledBot(
        name="random-js",
        file="random_bot.js",
        language="JavaScript (Node.js)",
        about="The random bot in JavaScript, standard library only: plays like random.",
    ),
    BundledBot(
        name="kit-random",
        file="kit_random_bot.py",
        language="Python (the kit)",
        about="The random bot in six lines of the Python kit: plays like random.",
    ),
    BundledBot(
        name="search",
        file="search_bot.py",
        language="Python (the kit's solver)",
        about="Each play from 24 sampled deals solved exactly, but bids at random up to 31:"
        " a 30-line example of the kit's solver.",
    ),
    BundledBot(
        name="heuristic",
        file="heuristic_bot.py",
        language="Python (the kit)",
        about="Bids from hand strength, picks a good trump, plays partner-aware; deterministic."
        " Beat random in 400 of 400 matches.",
    ),
    BundledBot(
        name="strong",
        file="strong_bot.py",
        language="Python (the kit, referee.strong)",
        about="The strongest: sampled deals solved exactly for play and bids; won 72% against"
        " heuristic. Slower: up to 45% of the move time a decision.",
    ),
)
#: The bundled bots by name.
BY_NAME: Final = {bot.name: bot for bot in CATALOGUE}


def unknown(name: str) -> str:
    """One line for a ``bundled:`` name that names no bundled bot."""
    return (
        f"{PREFIX}{name}: no such bundled bot; the bundled bots are"
        f" {', '.join(PREFIX + bot.name for bot in CATALOGUE)} (referee bots lists them)"
    )
