"""A bot command checked before any match: a typo is a usage mistake, not a forfeit.

``problem`` says why a command could not even start — it cannot be split, it is empty, its
program is not on PATH or not executable, or a script it names is missing — in one line
that says what to do. A program that starts and then fails is the match's business (a
``start_failed`` or ``crashed`` fault); this only catches what is certain beforehand.

``resolved`` is where a bundled bot's name (``bundled:heuristic``) becomes a command: every
option that takes a bot command passes its text through it before anything else reads it, so
the log records the command that really ran and a replay needs nothing of the name.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import Final

from referee import bundled

#: Words that name a bot's program file: if such a word is missing, the bot cannot run.
SCRIPT_SUFFIXES: Final = (".py", ".js", ".mjs", ".cjs", ".jar", ".rb", ".pl", ".lua", ".sh")


def resolved(command: str) -> str:
    """``command`` as it will run: a bundled bot's name replaced by the command that runs it
    on this install (``bundled:strong --nodes 5000``: words after the name go to the bot); any
    other command as given, an unknown name too (``problem`` says it)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if not words or not words[0].startswith(bundled.PREFIX):
        return command
    bot = bundled.BY_NAME.get(words[0].removeprefix(bundled.PREFIX))
    return command if bot is None else shlex.join(bot.argv() + words[1:])


def problem(command: str) -> str | None:
    """Why ``command`` cannot start here (relative paths are from the working directory)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"cannot split the bot command {command!r}: {exc} (quote it as a shell would)"
    if argv and argv[0].startswith(bundled.PREFIX):
        name = argv[0].removeprefix(bundled.PREFIX)
        return bundled.unknown(name) if name not in bundled.BY_NAME else problem(resolved(command))
    if not argv:
        return "a bot command is empty"
    program = argv[0]
    if os.sep in program:
        if not os.path.isfile(program):
            return f"{program}: no such file (bot command {command!r}, from {os.getcwd()})"
        if not os.access(program, os.X_OK):
            return f"{program}: not executable (chmod +x it, or name its interpreter first)"
    elif shutil.which(program) is None:
        return f"{program!r} is not a program on PATH (bot command {command!r})"
    for word in argv[1:]:
        if any(space in word for space in " \t\n"):
            continue  # a shell's script (sh -c '...'), not a file name
        if word.endswith(SCRIPT_SUFFIXES) and not word.startswith("-") and not Path(word).exists():
            return f"{word}: no such file (bot command {command!r}, from {os.getcwd()})"
    return None
