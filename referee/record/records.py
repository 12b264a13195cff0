"""What a match leaves behind: the replay log's records and the canonical game record.

The replay log is JSON lines, one record per line, each with a ``"type"``. Game content and
timings are kept apart: every field that depends on the clock lives in a record's ``timing``
object (or in ``"timing"`` records), and nothing in the game record or ``game_digest`` does.

``game_digest`` is the SHA-256 of the canonical game record — seed, every hand's deal, every
accepted action, every result, the end of the match — encoded as compact JSON with keys
sorted (see ``canonical_json``), so any language can recompute it.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Final, Literal

import msgspec

from referee.errors import Rejection, reasons
from referee.record.sandbox import SandboxReport
from referee.rules.actions import Action
from referee.rules.contract import HandResult
from referee.rules.tiles import Partnership, Seat, Tile
from referee.settings import Penalty
from referee.wire.messages import Limits, Matches

LOG_VERSION: Final = 1

EndReason = Literal["marks", "forfeit", "void", "max_hands", "interrupted", "error"]


class _Record(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class Timing(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Clock readings, never part of the game content."""

    #: Milliseconds from sending ``hello``/``act`` to the answer (or to the fault).
    latency_ms: float | None = None
    #: Seconds since the Unix epoch (header and match end only).
    wall_time: float | None = None
    #: Milliseconds left in the seat's time bank after this decision.
    bank_ms: float | None = None
    #: Milliseconds of ``latency_ms`` spent relaying the lines to and from a bot on another
    #: machine (``--seats-apart``): the referee's round trip less the bot's time on its host.
    relay_ms: float | None = None


# -- the canonical game record --------------------------------------------------------------


class GameMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """An accepted action; ``forced`` when the referee chose it for a faulted seat."""

    seat: Seat
    action: Action
    forced: bool = False


class GameHand(msgspec.Struct, forbid_unknown_fields=True):
    """One hand: its deal, every accepted action in order, and its result (null if cut short)."""

    hand: int
    dealer: Seat
    deal: dict[Seat, list[Tile]]
    moves: list[GameMove] = msgspec.field(default_factory=list)
    result: HandResult | None = None


#: The reasons a log counts that are not faults: refused answers (every ``Rejection``'s
#: code), and ``ignored`` ones (a stale or wrong id). The fault policy charges nothing for them.
REJECTION_REASONS: Final = reasons(Rejection) | {"ignored"}


def split_counts(
    counts: dict[Seat, dict[str, int]],
) -> tuple[dict[Seat, dict[str, int]], dict[Seat, dict[str, int]]]:
    """A log's counts by seat and reason, as (faults, refused and ignored answers)."""
    faults = {
        s: {k: n for k, n in c.items() if k not in REJECTION_REASONS} for s, c in counts.items()
    }
    refused = {s: {k: n for k, n in c.items() if k in REJECTION_REASONS} for s, c in counts.items()}
    return faults, refused


class Forfeit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The seat whose fault lost the match for its partnership, and why."""

    seat: Seat
    reason: str
    detail: str


class GameForfeit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A forfeit as game content: the seat and the reason code, without the free text (whose
    wording can depend on timing or library versions)."""

    seat: Seat
    reason: str


class GameRecord(msgspec.Struct, forbid_unknown_fields=True):
    """Everything that decides the match and nothing that depends on timing or names."""

    seed: int
    hands: list[GameHand] = msgspec.field(default_factory=list)
    winner: Partnership | None = None
    marks: dict[Partnership, int] = msgspec.field(default_factory=lambda: {"AC": 0, "BD": 0})
    end: EndReason | None = None
    forfeit: GameForfeit | None = None


def canonical_json(value: Any) -> bytes:
    """Compact JSON, object keys sorted, UTF-8: the bytes ``game_digest`` hashes."""
    return msgspec.json.encode(value, order="sorted")


def game_digest(record: GameRecord) -> str:
    return hashlib.sha256(canonical_json(record)).hexdigest()


# -- replay log records ---------------------------------------------------------------------


class SeatPlace(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where a seat's bot ran under ``--seats-apart``: its Dask worker, the worker's host name
    and its kernel's boot id (two seats with the same one shared a machine and its kernel)."""

    worker: str
    host: str
    kernel: str


class Placement(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How a match's seats were placed on a cluster: ``hosts``, partners on different
    machines; ``workers``, each seat on a worker of its own, one machine allowed (a trial)."""

    apart: Literal["hosts", "workers"]
    seats: dict[Seat, SeatPlace]


class Header(_Record, frozen=True, tag="header"):
    """First record: versions, the seed, the bot commands and the limits (which a person's
    seat, named in ``people``, does not play under)."""

    log_version: int
    referee_version: str
    protocol: int
    seed: int
    bots: dict[Seat, str]
    limits: Limits
    max_hands: int
    timing: Timing
    #: The sandbox layers each seat ran under, and why any was off (absent in older logs).
    sandbox: SandboxReport | None = None
    #: The seats a person played at the terminal (``referee play``), with no time limit;
    #: absent when every seat was a bot (and in older logs).
    people: (
        Annotated[
            list[Seat],
            msgspec.Meta(
                description="The seats a person played at the terminal (referee play), in seat"
                " order, with no time limit; absent when every seat was a bot."
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    #: Where each seat's bot ran, when the seats were placed on machines of their own
    #: (``--seats-apart``); absent otherwise (and in older logs).
    placement: Placement | msgspec.UnsetType = msgspec.UNSET


class BotReady(_Record, frozen=True, tag="ready"):
    """A bot answered ``hello``: its display name, what it said it can play, and whether its
    process was kept from earlier matches (absent in older logs: a fresh process)."""

    seat: Seat
    name: str
    timing: Timing
    matches: Matches = "one"
    #: The process played earlier matches (a tournament's warm pool kept it).
    reused: bool = False
    #: How many: 0 for a process started for this match.
    previous_matches: Annotated[int, msgspec.Meta(ge=0)] = 0


class DealRecord(_Record, frozen=True, tag="deal"):
    """A hand was dealt: dealer and every seat's tiles in dealt order."""

    hand: int
    dealer: Seat
    hands: dict[Seat, list[Tile]]


class ActRecord(_Record, frozen=True, tag="act"):
    """A decision was asked of ``seat`` with these legal actions."""

    id: int
    seat: Seat
    legal_actions: list[Action]


class MoveRecord(_Record, frozen=True, tag="move"):
    """An action was applied: the bot's answer to ``id``, or ``forced`` by the fault policy."""

    seat: Seat
    action: Action
    id: int | None = None
    forced: bool = False
    timing: Timing | None = None


class RejectedRecord(_Record, frozen=True, tag="rejected"):
    """An answer was refused; ``raw`` is the line (cut to a bound)."""

    id: int
    seat: Seat
    reason: str
    detail: str
    raw: str
    rule: str | None = None


class IgnoredRecord(_Record, frozen=True, tag="ignored"):
    """An answer carrying a stale or wrong id, recorded and not applied."""

    seat: Seat
    expected_id: int
    raw: str


class FaultRecord(_Record, frozen=True, tag="fault"):
    """A fault and what it cost: ``forfeit``, ``random`` (a forced action and a strike), or
    ``restart`` (before the first deal: a kept process failed to start its next match and a
    fresh one took the seat)."""

    seat: Seat
    reason: str
    detail: str
    penalty: Penalty
    strikes: int
    id: int | None = None
    timing: Timing | None = None


class TrickRecord(_Record, frozen=True, tag="trick"):
    """A trick was completed."""

    hand: int
    trick: int
    winner: Seat
    side: Partnership
    points: int


class HandEndRecord(_Record, frozen=True, tag="hand_end"):
    """A hand ended; ``marks`` is the score after it."""

    hand: int
    result: HandResult
    marks: dict[Partnership, int]


class MatchEndRecord(_Record, frozen=True, tag="match_end"):
    """Last record: the outcome, and the digest of the game record."""

    winner: Partnership | None
    marks: dict[Partnership, int]
    hands: int
    end: EndReason
    detail: str
    forfeit: Forfeit | None
    faults: dict[Seat, dict[str, int]]
    game_digest: str
    timing: Timing


LogRecord = (
    Header
    | BotReady
    | DealRecord
    | ActRecord
    | MoveRecord
    | RejectedRecord
    | IgnoredRecord
    | FaultRecord
    | TrickRecord
    | HandEndRecord
    | MatchEndRecord
)
