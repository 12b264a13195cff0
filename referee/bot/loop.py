"""The protocol loop: a bot is one function from a ``Decision`` to an action.

``run(strategy, name=...)`` reads the referee's lines on stdin and answers on stdout: ``ready``
to ``hello``, and to each ``act`` the action ``strategy(decision)`` returns, with the act's
``id``, flushed. Everything else is handled here: ``rejected`` is logged to stderr (the next
``act`` follows and carries the rejection), ``hand_end`` and ``match_end`` go to the optional
hooks, unknown messages, fields and events are ignored, and a strategy that raises or returns
something that is not one of ``legal_actions`` is answered with the first legal action and a
line on stderr. ``Bot`` is the same loop one line at a time, for tests and in-process play.

A kit bot says ``"matches": "many"`` by default: it plays match after match in one process,
and a tournament saves its start-up (the interpreter, ``referee`` and msgspec imported) for
every match after the first. That is safe because everything the kit keeps — the ``hello``,
``rng``, the hand history behind ``Decision.seen``, a pending rejection — is made anew at
each ``hello``, so a strategy that decides from its ``Decision`` plays each match exactly as
a fresh process would. A bot that keeps state of its own across decisions resets it in
``on_match_end``, or passes ``matches="one"`` to be started fresh for every match.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, TextIO

import msgspec

from referee.bot.lenient import UnknownType, lenient
from referee.bot.seen import HandHistory, Seen
from referee.rules.actions import Action
from referee.rules.events import Acted, HandStarted, TrickTaken
from referee.rules.hand import Hand
from referee.rules.tiles import Partnership, Seat
from referee.rules.views import Review, View
from referee.wire.messages import Forced, Matches

#: The public events the kit decodes (``Forced``: the referee played the next action for a
#: seat, after its fault); any other event type is kept raw in ``other_events``.
KnownEvent = Acted | TrickTaken | HandStarted | Forced
_KNOWN_EVENTS = frozenset({"acted", "trick", "hand_start", "forced"})


class Hello(msgspec.Struct, frozen=True):
    """What ``hello`` told this seat (unknown fields are ignored)."""

    seat: Seat
    partnership: Partnership
    #: The seed for the bot's own randomness; ``Decision.rng`` is seeded with it.
    seed: int
    protocol: int = 1
    limits: dict[str, Any] = {}


class Rejection(msgspec.Struct, frozen=True):
    """A refused answer: the act's ``id``, the ``reason`` code and the ``detail``."""

    id: int
    reason: str = ""
    detail: str = ""


class Decision:
    """One ``act``: the seat's view, its legal actions, what happened since, the time left.

    - ``view``: a ``referee.rules.View``; ``legal_actions``: the engine's action objects
      (``Pass()``, ``Bid(31)``, ``Play(Tile(3, 5))``, ...), in the referee's order;
    - ``events``: the public events since this seat's last message (``Acted``, ``TrickTaken``,
      ``HandStarted``), ``other_events`` the ones of types this kit does not know, as dicts;
    - ``time_ms`` as sent, ``time_left()`` the seconds left now;
    - ``seen``: this seat's information about the hand so far (``referee.bot.Seen``), and
      ``hand_so_far()`` a ``referee.rules.Hand`` rebuilt from it for simulation;
    - ``hello``, ``rng`` (a ``random.Random`` seeded from ``hello.seed``: reproducible),
      ``rejection`` (the refusal of the previous answer to this decision, if any), ``raw``
      (the message as parsed JSON).
    """

    def __init__(
        self,
        *,
        id: int,
        view: View,
        legal_actions: list[Action],
        events: list[KnownEvent],
        other_events: list[Any],
        time_ms: int,
        received: float,
        hello: Hello | None,
        rng: random.Random,
        rejection: Rejection | None,
        history: HandHistory,
        raw: dict[str, Any],
    ) -> None:
        self.id = id
        self.view = view
        self.legal_actions = legal_actions
        self.events = events
        self.other_events = other_events
        self.time_ms = time_ms
        self.received = received
        self.hello = hello
        self.rng = rng
        self.rejection = rejection
        self.raw = raw
        self._history = history

    @property
    def seat(self) -> Seat:
        return self.view.seat

    def time_left(self) -> float:
        """Seconds left to answer, counted from when the kit read the act (the referee's clock
        started a little earlier, when it wrote it: keep a margin)."""
        return self.time_ms / 1000 - (time.monotonic() - self.received)

    @cached_property
    def seen(self) -> Seen:
        """What this seat has seen of the hand so far (raises ``HistoryMismatch`` if events
        were lost)."""
        return self._history.seen(self.view)

    def hand_so_far(
        self,
        hidden: dict[Seat, list[Any]] | None = None,
        rng: random.Random | None = None,
    ) -> Hand:
        """The hand at this decision as a ``referee.rules.Hand``, the other seats' tiles from
        ``hidden`` or drawn at random (``rng``, default ``self.rng``) consistently with
        everything seen."""
        return self.seen.hand_so_far(hidden, rng or self.rng)


class HandOver(msgspec.Struct, frozen=True):
    """``hand_end``: the public review of the hand and the marks after it."""

    review: Review
    marks: dict[Partnership, int]


class MatchOver(msgspec.Struct, frozen=True):
    """``match_end``: the winner (None for an unfinished match), the marks, why it ended."""

    winner: Partnership | None
    marks: dict[Partnership, int]
    reason: str = ""
    detail: str = ""


Strategy = Callable[[Decision], Action]


class Bot:
    """The protocol loop without the streams: ``handle(line)`` returns the line to write."""

    def __init__(
        self,
        strategy: Strategy,
        name: str = "python bot",
        *,
        on_hand_end: Callable[[HandOver], object] | None = None,
        on_match_end: Callable[[MatchOver], object] | None = None,
        log: TextIO | None = None,
        matches: Matches = "many",
    ) -> None:
        self.strategy = strategy
        self.name = name
        self.on_hand_end = on_hand_end
        self.on_match_end = on_match_end
        self.log = log
        #: What ``ready`` says: ``many`` (read on after ``match_end``) or ``one``.
        self.matches: Matches = matches
        self.hello: Hello | None = None
        self.rng = random.Random()
        self.history = HandHistory()
        self.rejection: Rejection | None = None
        #: True once ``match_end`` has been read by a bot that said ``one``: the loop stops.
        self.finished = False

    def say(self, text: str) -> None:
        """A line on stderr (the referee keeps it beside the match log)."""
        log = self.log if self.log is not None else sys.stderr
        log.write(f"[{self.name}] {text}\n")
        log.flush()

    def handle(self, line: str | bytes) -> str | None:
        """The answer to one line from the referee (a JSON line with ``\\n``), or None."""
        received = time.monotonic()
        try:
            message = json.loads(line)
        except ValueError as error:
            self.say(f"ignored a line that is not JSON ({error})")
            return None
        if not isinstance(message, dict):
            return None
        kind = message.get("type")
        try:
            if kind == "hello":
                return self._hello(message)
            if kind == "act":
                return self._act(message, received)
            if kind == "rejected":
                self._rejected(message)
            elif kind == "hand_end":
                self._hand_end(message)
            elif kind == "match_end":
                self._match_end(message)
        except Exception:  # a message this kit cannot read: say why, answer if it must
            self.say(f"could not handle a {kind!r} message:\n{traceback.format_exc()}")
            if kind == "hello":
                return self._ready()
            legal = message.get("legal_actions")
            if kind == "act" and isinstance(legal, list) and legal:
                return _line({"type": "action", "id": message.get("id"), "action": legal[0]})
        return None

    # -- each message ----------------------------------------------------------------------

    def _hello(self, message: dict[str, Any]) -> str:
        """A new match: nothing of an earlier one is kept (seat, seed, hands, a rejection)."""
        self.hello = None  # not the last match's, should this one fail to decode
        self.history, self.rejection = HandHistory(), None
        self.hello = lenient(message, Hello)
        self.rng.seed(self.hello.seed)
        return self._ready()

    def _ready(self) -> str:
        return _line({"type": "ready", "name": self.name, "matches": self.matches})

    def _events(self, message: dict[str, Any]) -> tuple[list[KnownEvent], list[Any]]:
        known: list[KnownEvent] = []
        other: list[Any] = []
        for raw in message.get("events") or []:
            if isinstance(raw, dict) and raw.get("type") in _KNOWN_EVENTS:
                try:
                    known.append(lenient(raw, KnownEvent))
                    continue
                except (msgspec.ValidationError, UnknownType) as error:
                    self.say(f"ignored a malformed event {raw!r}: {error}")
            other.append(raw)
        self.history.see(known)
        return known, other

    def _act(self, message: dict[str, Any], received: float) -> str:
        act_id = message["id"]
        raw_legal = message["legal_actions"]
        events, other = self._events(message)
        view = lenient(message["view"], View)
        legal: list[Action] = []
        answers: list[Any] = []  # the referee's own JSON for each typed action, to echo
        for raw in raw_legal:
            try:
                legal.append(lenient(raw, Action))
                answers.append(raw)
            except (msgspec.ValidationError, UnknownType):
                continue  # an action type this kit does not know: not offered to the strategy
        decision = Decision(
            id=act_id,
            view=view,
            legal_actions=legal,
            events=events,
            other_events=other,
            time_ms=int(message.get("time_ms", 0)),
            received=received,
            hello=self.hello,
            rng=self.rng,
            rejection=self.rejection,
            history=self.history,
            raw=message,
        )
        self.rejection = None
        fallback = answers[0] if answers else raw_legal[0]
        try:
            choice = self.strategy(decision)
        except Exception:
            self.say(
                f"strategy failed at act {act_id}; playing the first legal action"
                f" ({_text(fallback)}):\n{traceback.format_exc()}"
            )
            return _line({"type": "action", "id": act_id, "action": fallback})
        try:
            if isinstance(choice, dict) and choice in answers:  # the JSON form works too
                answer = choice
            else:
                answer = answers[legal.index(choice)]
        except ValueError:
            self.say(
                f"strategy returned {choice!r} at act {act_id}, not one of the legal actions;"
                f" playing the first one ({_text(fallback)})"
            )
            answer = fallback
        return _line({"type": "action", "id": act_id, "action": answer})

    def _rejected(self, message: dict[str, Any]) -> None:
        self.rejection = lenient(message, Rejection)
        self.say(
            f"answer to act {self.rejection.id} rejected: {self.rejection.reason}:"
            f" {self.rejection.detail}"
        )

    def _hand_end(self, message: dict[str, Any]) -> None:
        self._events(message)
        if self.on_hand_end is not None:
            over = lenient(message, HandOver)
            self._hook(self.on_hand_end, over)

    def _match_end(self, message: dict[str, Any]) -> None:
        self.finished = self.matches == "one"
        self._events(message)
        if self.on_match_end is not None:
            self._hook(self.on_match_end, lenient(message, MatchOver))

    def _hook(self, hook: Callable[[Any], object], value: object) -> None:
        try:
            hook(value)
        except Exception:
            self.say(f"{getattr(hook, '__name__', 'hook')} failed:\n{traceback.format_exc()}")


def run(
    strategy: Strategy,
    name: str = "python bot",
    *,
    on_hand_end: Callable[[HandOver], object] | None = None,
    on_match_end: Callable[[MatchOver], object] | None = None,
    matches: Matches = "many",
    stdin: Iterable[str] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> None:
    """Play matches: read the referee's lines and answer them until EOF (``matches="one"``:
    return after the first ``match_end``). See the module's docstring for why ``many`` is
    the default.

    ``stdin``, ``stdout`` and ``stderr`` default to the process's; tests pass their own.
    """
    bot = Bot(
        strategy,
        name,
        on_hand_end=on_hand_end,
        on_match_end=on_match_end,
        log=stderr,
        matches=matches,
    )
    lines = sys.stdin if stdin is None else stdin
    for line in lines:
        answer = bot.handle(line)
        if answer is not None:
            out = sys.stdout if stdout is None else stdout
            out.write(answer)
            out.flush()
        if bot.finished:
            return


def _line(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":")) + "\n"


def _text(raw: Any) -> str:
    return json.dumps(raw, separators=(",", ":"))
