"""The wire protocol, version 1: every message a referee and a bot exchange.

One JSON object per line, UTF-8, ``\\n``-terminated, each with a ``"type"``. The JSON Schema
in ``protocol/schema.json`` is generated from these types (``referee schema``), and
``protocol/PROTOCOL.md`` explains them to bot authors.

Referee -> bot: ``hello``, ``act``, ``rejected``, ``hand_end``, ``match_end``.
Bot -> referee: ``ready`` (answers ``hello``), ``action`` (answers ``act``).

Public events (every action with its seat, every completed trick, every new hand) are not
sent as lines of their own: each seat gets them, in order, in the ``events`` list of the
next message sent to it — so every seat has seen every event before its next decision and
before ``hand_end``. One line per decision keeps the referee near the raw pipe rate.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from referee.rules.actions import Action
from referee.rules.events import Acted, HandStarted, TrickTaken
from referee.rules.tiles import Partnership, Seat
from referee.rules.views import Review, View
from referee.terminal.escapes import NAME_PATTERN, name_problem

PROTOCOL_VERSION: Final = 1


class Forced(msgspec.Struct, frozen=True, tag_field="type", tag="forced"):
    """The referee played the next action for ``seat`` (``--on-fault random``): the seat's
    fault, by its reason code (``timeout``, ``crashed``, ...). The ``acted`` event follows."""

    seat: Seat
    reason: str


#: A public event as carried in ``events``: a seat's action, a completed trick, a new hand,
#: an action the referee played for a seat.
PublicEvent = Acted | TrickTaken | HandStarted | Forced


class _Message(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=False):
    pass


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The time and error limits a seat plays under, as told in ``hello``."""

    #: Milliseconds to answer each ``act`` (plus whatever is left in the time bank).
    move_timeout_ms: int
    #: Milliseconds to answer ``hello`` with ``ready``.
    startup_timeout_ms: int
    #: Milliseconds of extra time for the whole match, drawn on when a move overruns.
    time_bank_ms: int
    #: Rejected answers allowed for one decision before it counts as a fault.
    max_rejections: int
    #: What a fault does: ``forfeit`` the match, or play a ``random`` legal action (a strike).
    on_fault: Literal["forfeit", "random"]
    #: Strikes (faults under ``random``) allowed before the seat forfeits.
    max_strikes: int
    #: Longest line, in bytes, a bot may send; a longer one is discarded unread (a fault).
    max_line_bytes: int
    #: Present (true) when turns are paced: every message is sent at a time that depends only
    #: on the public state, each decision's outcome at its deadline, so a bot may use its
    #: whole move time at no cost to anyone.
    pace: bool | msgspec.UnsetType = msgspec.UNSET
    #: Present (true) when a bot's processes are stopped while it is not its turn: it cannot
    #: think on others' turns.
    frozen_when_idle: bool | msgspec.UnsetType = msgspec.UNSET


# -- referee -> bot --------------------------------------------------------------------------


class Hello(_Message, frozen=True, tag="hello"):
    """The first message to each bot; answer with ``ready`` within the startup limit."""

    protocol: int
    seat: Seat
    partnership: Partnership
    #: A seed for the bot's own randomness (not the match seed, which would reveal the deals):
    #: 0 to 2**64-1, which a parser of JSON numbers as doubles cannot hold exactly.
    seed: int
    limits: Limits
    #: ``seed`` as a decimal string, for such parsers.
    seed_text: str = ""


class Act(_Message, frozen=True, tag="act"):
    """A decision: answer ``{"type": "action", "id": <id>, "action": <one of legal_actions>}``."""

    id: int
    #: Public events since the last message to this seat, oldest first.
    events: list[PublicEvent]
    view: View
    legal_actions: list[Action]
    #: Milliseconds allowed for this answer (move timeout plus the time bank left).
    time_ms: int


class Rejected(_Message, frozen=True, tag="rejected"):
    """The answer to ``act`` number ``id`` was refused; nothing changed, a fresh ``act`` follows."""

    id: int
    #: A stable code: invalid_utf8, invalid_json, bad_message, illegal_action.
    reason: str
    #: What exactly was wrong, for people.
    detail: str


class HandEnd(_Message, frozen=True, tag="hand_end"):
    """A hand is over: its public review (every action with its author) and the score."""

    events: list[PublicEvent]
    review: Review
    marks: dict[Partnership, int]


class MatchEnd(_Message, frozen=True, tag="match_end"):
    """The match is over. ``winner`` is null for an unfinished match; the bot should exit."""

    events: list[PublicEvent]
    winner: Partnership | None
    marks: dict[Partnership, int]
    #: Why the match ended: "marks", "forfeit", "void" or "max_hands".
    reason: str
    detail: str


RefereeMessage = Hello | Act | Rejected | HandEnd | MatchEnd


# -- bot -> referee --------------------------------------------------------------------------


#: What a bot says it can play: ``one`` match, then exit; or ``many``, one after another in
#: the same process (after ``match_end`` it waits for another ``hello``, or end of input).
Matches = Literal["one", "many"]


class Ready(_Message, frozen=True, tag="ready", forbid_unknown_fields=True):
    """The answer to ``hello``: the bot's display name, and whether it can play another match
    after this one without being started again."""

    #: 1-100 characters that are all drawn: names are shown in terminals, so none may be a
    #: control (C0, DEL, C1), a format character (bidi, zero-width, ...) or a line or paragraph
    #: separator (``referee.terminal.escapes.name_problem``; the schema's ``pattern`` is the
    #: same rule).
    name: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=100,
            description="Every character drawn: no control (C0, DEL, C1), format character"
            " (Unicode category Cf: bidi, zero-width, ...) or line or paragraph separator. The"
            " pattern says so for the Basic Multilingual Plane; the referee refuses the format"
            " characters above it too.",
            extra_json_schema={"pattern": NAME_PATTERN},
        ),
    ]
    #: ``many``: keep this process for later matches (a tournament reuses it); absent or
    #: ``one``: it is closed after ``match_end``, as every bot was before.
    matches: Matches = "one"

    def __post_init__(self) -> None:
        # Raised while decoding, this is a msgspec.ValidationError: refused as ``bad_message``
        # with this detail, as a name too long is.
        problem = name_problem(self.name)
        if problem is not None:
            raise ValueError(problem)


class ActionAnswer(_Message, frozen=True, tag="action", forbid_unknown_fields=True):
    """The answer to ``act``: its ``id`` and one element of its ``legal_actions``, verbatim."""

    id: int
    action: Action


BotMessage = Ready | ActionAnswer

ENCODER: Final = msgspec.json.Encoder()
BOT_MESSAGE_DECODER: Final = msgspec.json.Decoder(BotMessage)


def encode_line(message: RefereeMessage) -> bytes:
    """One message as one protocol line."""
    return ENCODER.encode(message) + b"\n"
