"""How a match ends: its outcome, the early ends, and what each bot is told of a forfeit."""

from __future__ import annotations

import msgspec

from referee.errors import BotFault, reason_code
from referee.match.stderr import StderrTail
from referee.match.stderr_lines import StderrSummary
from referee.record.records import EndReason, Forfeit
from referee.record.sandbox import SandboxReport
from referee.record.visibility import public_detail
from referee.rules.tiles import Partnership, Seat


class BotFailure(msgspec.Struct, frozen=True):
    """Why a seat's bot failed in a match: its first fault, and what it wrote on stderr."""

    reason: str
    detail: str
    stderr: StderrTail


class MatchOutcome(msgspec.Struct, frozen=True):
    """The result of a match as ``referee match --json`` prints it."""

    winner: Partnership | None
    marks: dict[Partnership, int]
    hands: int
    end: EndReason
    detail: str
    forfeit: Forfeit | None
    #: Per seat, by reason: faults and, as the log counts them, refused and ignored answers
    #: (``records.split_counts`` tells them apart; ``--json`` prints them apart).
    faults: dict[Seat, dict[str, int]]
    names: dict[Seat, str]
    seed: int
    game_digest: str
    #: The chain of the log's last record: stands for the whole log (see ``referee.record.log``).
    log_digest: str
    #: Decisions asked of the bots (rejected answers' fresh ``act`` not counted twice).
    decisions: int
    #: Seconds from the first deal to the end (bot start-up excluded).
    play_seconds: float
    log: str | None = None
    #: The sandbox layers the bots ran under.
    sandbox: SandboxReport | None = None
    #: Each seat charged with a fault: the first one, and the end of its bot's stderr.
    failures: dict[Seat, BotFailure] = msgspec.field(default_factory=dict)
    #: What each seat's bot wrote on stderr, faults or not (seats that wrote nothing left out).
    stderr: dict[Seat, StderrSummary] = msgspec.field(default_factory=dict)


class MatchOver(Exception):
    """Ends the match early (a forfeit, a void start, too many hands)."""

    def __init__(self, end: EndReason, detail: str, forfeit: Forfeit | None = None) -> None:
        super().__init__(detail)
        self.end = end
        self.detail = detail
        self.forfeit = forfeit


class SeatLost(MatchOver):
    """The referee lost its way to a seat's bot — the machine running it, or the connection
    to it — which is no fault of the bot's: the match is void, and a competition plays it
    again."""

    def __init__(self, seat: Seat, detail: str) -> None:
        super().__init__("void", f"seat {seat} was lost, no fault of its bot: {detail}")
        self.seat = seat


def forfeit(seat: Seat, fault: BotFault, what: str = "forfeits") -> MatchOver:
    """The end of a match that ``seat`` loses by ``fault``."""
    return MatchOver(
        "forfeit",
        f"{seat} {what}: {reason_code(fault)}: {fault}",
        Forfeit(seat=seat, reason=reason_code(fault), detail=str(fault)),
    )


def told_detail(outcome: MatchOutcome, seat: Seat) -> str:
    """The ``match_end`` detail ``seat`` is sent: a forfeit's in full only to the seat that
    forfeited — its fault may quote a refused answer that names the tiles it held — and to
    the others only who forfeited and why (the log keeps every word)."""
    forfeit = outcome.forfeit
    if forfeit is not None and forfeit.seat == seat:
        return outcome.detail
    return public_detail(outcome.detail, forfeit)
