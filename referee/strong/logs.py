"""The hands of match logs as the strong bot's fitting reads them: every seat's dealt tiles,
the auction in order, the contract and how it ended, and which bot sat where.

The auction model (``beliefs``) learns from each seat's true hand and its bid or pass, the
calibration (``calibration``) from the contracts a bot declared and whether they were made:
both read the logs here, once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.record.log import read_log
from referee.record.records import BotReady, DealRecord, HandEndRecord, MoveRecord
from referee.rules.actions import AllTricksBid, Bid, Pass
from referee.rules.contract import Contract
from referee.rules.tiles import Partnership, Seat, Tile
from referee.rules.views import Move

BIDDING = (Bid, AllTricksBid, Pass)


class NothingToFit(ValueError):
    """The logs hold nothing of the named bot to fit to (another name, or other logs): said
    in one line, as a usage mistake."""


@dataclass(frozen=True)
class LoggedHand:
    """One finished hand of a log."""

    #: The bot's name (from its ``ready``) in each seat.
    names: dict[Seat, str]
    dealer: Seat
    #: Every seat's tiles as dealt.
    hands: dict[Seat, tuple[Tile, ...]]
    #: The auction: every bid and pass, in order.
    bids: tuple[Move, ...]
    #: The marks before the hand.
    marks: dict[Partnership, int]
    contract: Contract | None
    #: "made", "set" or "passed".
    outcome: str
    #: The bids a bot answered itself (not a move the referee forced after a fault).
    chosen: tuple[bool, ...]


def logged_hands(path: Path) -> Iterator[LoggedHand]:
    """The finished hands of one log, in order (a hand cut short by the match's end is not)."""
    records = read_log(path).records
    names = {r.seat: r.name for r in records if isinstance(r, BotReady)}
    marks: dict[Partnership, int] = {"AC": 0, "BD": 0}
    deal: DealRecord | None = None
    bids: list[Move] = []
    chosen: list[bool] = []
    for record in records:
        if isinstance(record, DealRecord):
            deal, bids, chosen = record, [], []
        elif isinstance(record, MoveRecord) and isinstance(record.action, BIDDING):
            bids.append(Move(seat=record.seat, action=record.action))
            chosen.append(not record.forced)
        elif isinstance(record, HandEndRecord) and deal is not None:
            yield LoggedHand(
                names=dict(names),
                dealer=deal.dealer,
                hands={seat: tuple(tiles) for seat, tiles in deal.hands.items()},
                bids=tuple(bids),
                marks=dict(marks),
                contract=record.result.contract,
                outcome=record.result.outcome,
                chosen=tuple(chosen),
            )
            marks = dict(record.marks)
            deal = None


def all_hands(paths: Iterable[Path]) -> Iterator[LoggedHand]:
    for path in paths:
        yield from logged_hands(path)


def log_paths(where: Path) -> list[Path]:
    """The logs in a directory (a tournament's ``logs``), or the one log given."""
    return sorted(where.glob("*.jsonl")) if where.is_dir() else [where]
