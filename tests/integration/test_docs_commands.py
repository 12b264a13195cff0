"""Every ``referee`` command the documents give in a ``sh`` block names a command the CLI has,
only options that command takes, and bundled or test bots that exist: a page moved or an
option renamed cannot leave a command that no longer works as written.

Read, not run (running them all would be minutes of matches and tournaments); what they do
is the other tests' work."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import typer.main
from support.docs import KIT, LEARNED, PAGES, ROOT

from referee.bundled import BY_NAME
from referee.cli import app

SOURCES = {
    **PAGES,
    "example_bots/README.md": KIT,
    "example_bots/learned/README.md": LEARNED,
}
REFEREE = ".venv/bin/referee"


def _commands() -> list[tuple[str, list[str]]]:
    """(where, the words after ``.venv/bin/referee``) for each command of every sh block."""
    found = []
    for name, text in SOURCES.items():
        for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                while REFEREE in words:  # "… && .venv/bin/referee match"
                    words = words[words.index(REFEREE) + 1 :]
                    rest = words[: words.index("&&")] if "&&" in words else words
                    found.append((name, rest))
    return found


COMMANDS = _commands()
#: The CLI as click sees it, built once (building it takes a good part of a second).
CLI: Any = typer.main.get_command(app)


def _resolve(words: list[str]) -> tuple[Any, list[str]]:
    """The command the words name (typer's own click: a group is what has ``commands``)."""
    command = CLI
    while hasattr(command, "commands") and words and words[0] in command.commands:
        command, words = command.commands[words[0]], words[1:]
    assert not hasattr(command, "commands"), f"no such command: {words[:1]}"
    return command, words


def test_the_documents_give_commands() -> None:
    assert len(COMMANDS) > 50 and {name for name, _ in COMMANDS} >= {"README.md"}


@pytest.mark.parametrize(
    ("where", "words"), COMMANDS, ids=[f"{n}:{' '.join(w)[:50]}" for n, w in COMMANDS]
)
def test_a_documented_command_is_one_the_cli_takes(where: str, words: list[str]) -> None:
    command, arguments = _resolve(words)
    options = {name for param in command.params for name in (*param.opts, *param.secondary_opts)}
    for word in arguments:
        option = word.split("=", 1)[0]
        if option.startswith("-") and option != "-":
            assert option in options, f"{where}: {command.name} takes no {option}"
        for bot in re.findall(r"(?:example_bots|tests/bots)/[\w./-]+\.(?:py|js|toml)", word):
            assert (ROOT / bot).is_file(), f"{where}: {bot} does not exist"
        for name in re.findall(r"(?:^|=)bundled:([\w-]+)", word):
            assert name in BY_NAME, f"{where}: bundled:{name} is no bundled bot"
