"""Matches with a person in one seat, played in memory: the person's lines come from a script.

The table is the real one, the other seats are fake bots (``support.fakes``), and the person
is the real ``Person`` on its in-memory connection, drawing on a console that writes to a
string. A ``Script`` stands for the keyboard: it answers each prompt through an ``Answer``
function, and remembers every prompt with the ``act`` being answered and how much of the
screen had been drawn when it was asked.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import trio
from rich.console import Console

from referee.cli.play import PERSON_COMMAND
from referee.human.choices import label, spellings
from referee.human.person import Person
from referee.human.screen import PROMPT, Screen
from referee.match.outcome import MatchOutcome
from referee.match.table import Table
from referee.record.log import LogWriter
from referee.record.records import LogRecord
from referee.rules import SEATS, Seat, Tile
from referee.wire.messages import Act
from support.fakes import FakeBot, Logged, Policy, chained_records, random_policy, settings

#: How a script answers: the prompt and the act being answered (None: the confirmation of
#: leaving) -> the line typed, or None for the end of input.
Answer = Callable[[str, Act | None], str | None]

R = TypeVar("R")

TILE: Final = re.compile(r"\[(\d)\|(\d)\]")


def tiles_in(text: str) -> set[Tile]:
    """Every tile written ``[a|b]`` in ``text``."""
    return {Tile(*sorted((int(a), int(b)))) for a, b in TILE.findall(text)}


@dataclass
class Prompt:
    text: str
    act: Act | None
    #: Characters of the screen drawn before it.
    at: int


@dataclass
class Script:
    """The person's keyboard: each line from ``answer``, echoed as a terminal echoes it."""

    answer: Answer
    console: Console
    person: Person | None = None
    prompts: list[Prompt] = field(default_factory=list)
    #: Seconds the person thinks before each answer (virtual ones under the autojump clock).
    think: float = 0.0

    async def __call__(self, prompt: str) -> str | None:
        assert self.person is not None
        output = self.console.file
        assert isinstance(output, io.StringIO)
        act = self.person.asking if prompt == PROMPT.format(seat=self.person.seat) else None
        self.prompts.append(Prompt(prompt, act, len(output.getvalue())))
        await trio.sleep(self.think)
        line = self.answer(prompt, act)
        self.console.print(prompt + ("^D" if line is None else line))
        return line


def by_number(seed: int) -> Answer:
    """A random legal action, by its number; plays on when asked to confirm leaving."""
    rng = random.Random(seed)

    def answer(prompt: str, act: Act | None) -> str | None:
        if act is None:
            return ""
        return str(rng.randint(1, len(act.legal_actions)))

    return answer


def by_text(seed: int) -> Answer:
    """A random legal action, typed as its label or one of its spellings."""
    rng = random.Random(seed)

    def answer(prompt: str, act: Act | None) -> str | None:
        if act is None:
            return ""
        action = rng.choice(act.legal_actions)
        return rng.choice([label(action), *spellings(action)])

    return answer


def then(lines: list[str | None], after: Answer) -> Answer:
    """``lines`` first, one a prompt, then ``after``."""
    left = list(lines)

    def answer(prompt: str, act: Act | None) -> str | None:
        return left.pop(0) if left else after(prompt, act)

    return answer


@dataclass
class PersonRun(Logged):
    outcome: MatchOutcome
    log: bytes
    records: list[LogRecord]
    screen: str
    prompts: list[Prompt]
    person: Person
    bots: dict[Seat, FakeBot]


def console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, highlight=False, emoji=False)


async def play_with_person(
    answer: Answer,
    seat: Seat = "A",
    seed: int = 1,
    policies: Mapping[Seat, Policy] | None = None,
    think: float = 0.0,
    **overrides: Any,
) -> PersonRun:
    """A whole match: the person in ``seat``, random fake bots (or ``policies``) elsewhere."""
    match_settings = settings(seed=seed, **overrides)
    screen_console = console()
    screen = Screen(screen_console, seat)
    script = Script(answer, screen_console, think=think)
    person = Person(seat, screen, script)
    script.person = person
    given = policies or {}
    bots = {
        other: FakeBot(given.get(other, random_policy(seed * 10 + n)))
        for n, other in enumerate(SEATS)
        if other != seat
    }
    connections = {other: bot.connection(other, 1 << 20) for other, bot in bots.items()}
    connections[seat] = person.connect(match_settings.max_line_bytes)
    commands = {other: f"fake {other}" for other in bots} | {seat: PERSON_COMMAND}
    buffer = io.BytesIO()
    table = Table(match_settings, connections, LogWriter(buffer), commands, people=[seat])
    async with trio.open_nursery() as nursery:
        for bot in bots.values():
            nursery.start_soon(bot.run)
        nursery.start_soon(person.run)
        outcome = await table.play()
        for bot in bots.values():
            await bot.close_referee_side()
        await person.close_table_side()
        with trio.move_on_after(60):
            await person.finished.wait()
            for bot in bots.values():
                await bot.done.wait()
        nursery.cancel_scope.cancel()
    log = buffer.getvalue()
    output = screen_console.file
    assert isinstance(output, io.StringIO)
    return PersonRun(
        outcome=outcome,
        log=log,
        records=chained_records(log),
        screen=output.getvalue(),
        prompts=script.prompts,
        person=person,
        bots=bots,
    )
