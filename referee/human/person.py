"""The person's end of their seat's connection: the referee's lines in, the person's answers out.

``Person`` speaks the protocol from the far end of two in-memory streams, as a bot does from
the far end of its pipes: it answers ``hello`` with ``ready``, shows each message on the
screen, and answers each ``act`` with the action the person chose, by number or by name. Its
line goes back through the table's own judging (``match.exchange``), as any bot's does. When
the person leaves (``q`` and a confirmation, or the end of their input) it closes its output,
and the runner charges the seat ``resigned``: a forfeit, in an ordinary log.
"""

from __future__ import annotations

from typing import Final

import msgspec
import trio
import trio.testing

from referee.human.choices import Help, Hint, Quit, choose
from referee.human.keyboard import Ask
from referee.human.screen import CONFIRM, PROMPT, Screen
from referee.match.connection import BotConnection
from referee.rules.actions import Action
from referee.rules.tiles import Seat
from referee.wire.messages import (
    ENCODER,
    Act,
    ActionAnswer,
    HandEnd,
    Hello,
    MatchEnd,
    Ready,
    RefereeMessage,
    Rejected,
)

_DECODER: Final = msgspec.json.Decoder(RefereeMessage)
_LEAVE: Final = frozenset({"y", "yes"})


class Person:
    """One person at the table, in seat ``seat``; ``run`` plays until the match ends for
    them (its end, or their leaving)."""

    def __init__(self, seat: Seat, screen: Screen, ask: Ask, name: str = "person") -> None:
        self.seat = seat
        self.screen = screen
        self.ask = ask
        self.name = name
        #: The person left the match (their side forfeits).
        self.left = False
        #: The ``act`` the person is being asked to answer (None between their turns).
        self.asking: Act | None = None
        #: Set once ``run`` is over.
        self.finished = trio.Event()
        # Unbounded in-memory streams: the table never waits to write to the person.
        self._to_person = trio.testing.memory_stream_one_way_pair()
        self._from_person = trio.testing.memory_stream_one_way_pair()

    def connect(self, max_line_bytes: int) -> BotConnection:
        """The table's end: it writes the person's input and reads their answers."""
        return BotConnection(self.seat, self._to_person[0], self._from_person[1], max_line_bytes)

    async def close_table_side(self) -> None:
        """The match is over: the end of the person's input (``run`` returns)."""
        await self._to_person[0].aclose()
        await self._from_person[1].aclose()

    async def run(self) -> None:
        buffer = bytearray()
        try:
            while not self.left:
                try:
                    data = await self._to_person[1].receive_some()
                except trio.ClosedResourceError:
                    return
                if not data:
                    return
                buffer += data
                while not self.left and (newline := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    await self._handle(_DECODER.decode(line))
        finally:
            self.finished.set()

    async def _send(self, message: Ready | ActionAnswer) -> None:
        await self._from_person[0].send_all(ENCODER.encode(message) + b"\n")

    async def _handle(self, message: RefereeMessage) -> None:
        screen = self.screen
        if isinstance(message, Hello):
            await self._send(Ready(name=self.name))
        elif isinstance(message, Act):
            screen.events(message.events)
            self.asking = message
            action = await self._decide(message)
            self.asking = None
            if action is None:
                await self._leave()
            else:
                await self._send(ActionAnswer(id=message.id, action=action))
        elif isinstance(message, Rejected):  # never, for a legal action: said if it happens
            screen.hint(f"the referee refused that answer: {message.reason}: {message.detail}")
        elif isinstance(message, HandEnd):
            screen.events(message.events)
            screen.hand_end(message.review, message.marks)
        elif isinstance(message, MatchEnd):
            screen.events(message.events)
            screen.match_end(message)

    async def _decide(self, act: Act) -> Action | None:
        """The legal action the person chose, or None when they leave the match."""
        self.screen.decision(act.view, act.legal_actions)
        prompt = PROMPT.format(seat=self.seat)
        while True:
            line = await self.ask(prompt)
            choice = Quit() if line is None else choose(line, act.legal_actions, act.view)
            if isinstance(choice, Help):
                self.screen.help(act.legal_actions)
            elif isinstance(choice, Hint):
                self.screen.hint(choice.text)
            elif isinstance(choice, Quit):
                if await self._confirmed():
                    return None
            else:
                return choice

    async def _confirmed(self) -> bool:
        """Does the person mean to leave? A second end of input says yes."""
        answer = await self.ask(CONFIRM)
        return answer is None or answer.strip().lower() in _LEAVE

    async def _leave(self) -> None:
        """Close the person's output: the table reads its end, and the seat resigns."""
        self.left = True
        await self._from_person[0].aclose()
        await self._to_person[1].aclose()
