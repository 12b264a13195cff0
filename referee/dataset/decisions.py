"""A verified log's decisions as dataset rows: for each move, the deciding seat's information
state and observation as ``referee.env`` makes them (``referee.env.tensors``), the legal
actions, the action, and — once the hand and the match are over — how they ended for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from referee.dataset.columns import LABELS, NO_LABEL, schema
from referee.dataset.labels import MAX_NODES, Labeller
from referee.env.actions import INDEX, SIZE
from referee.env.game import dealt
from referee.env.tensors import information_state, observation
from referee.record.log import LogFile
from referee.record.records import BotReady, MatchEndRecord, MoveRecord
from referee.record.walk import LogWalk
from referee.rules.events import HandEnded
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat

_LITTLE = np.dtype(np.float32).newbyteorder("<")


@dataclass
class Rows:
    """Columns being gathered, one list a column; ``table()`` makes them an Arrow table."""

    with_labels: bool = False
    columns: dict[str, list[Any]] = field(default_factory=dict)
    #: Decisions whose labels were given up (the search's bound), and hands over.
    given_up: int = 0
    hands: int = 0

    def __post_init__(self) -> None:
        self.columns = {name: [] for name in schema(self.with_labels).names}

    def __len__(self) -> int:
        return len(self.columns["action"])

    def table(self) -> pa.Table:
        return pa.table(self.columns, schema=schema(self.with_labels))


def add_log(
    rows: Rows,
    log: LogFile,
    match: str,
    bots: dict[Seat, str] | None = None,
    max_nodes: int = MAX_NODES,
) -> None:
    """Add a verified log's decisions; ``bots`` names each seat's bot (a tournament's
    entrants), else the name each bot gave when ready."""
    walk = LogWalk(log.records)
    names = dict(bots or {})
    seed = log.header.seed
    columns = rows.columns
    open_rows: list[tuple[int, Seat]] = []  # the rows of the hand in progress
    decision = 0
    labeller = Labeller(max_nodes) if rows.with_labels else None
    for moment in walk:
        record = moment.record
        if type(record) is BotReady and not bots:
            names[record.seat] = record.name
        elif type(record) is MoveRecord:
            hand, seat = moment.match.hand, record.seat
            legal = np.zeros(SIZE, np.uint8)
            legal[[INDEX[a] for a in hand.legal_actions()]] = 1
            state = information_state(seat, hand.dealer, hand.marks, dealt(hand, seat), hand.moves)
            columns["match"].append(match)
            columns["seed"].append(seed)
            columns["hand"].append(hand.hand_number)
            columns["decision"].append(decision)
            columns["seat"].append(SEATS.index(seat))
            columns["bot"].append(names.get(seat) or log.header.bots[seat])
            columns["phase"].append(hand.phase)
            columns["forced"].append(record.forced)
            columns["action"].append(INDEX[record.action])
            columns["mask"].append(legal.tobytes())
            columns["information_state"].append(state.astype(_LITTLE).tobytes())
            columns["observation"].append(observation(hand.view(seat)).astype(_LITTLE).tobytes())
            if labeller is not None:
                made, given_up = labeller.labels(hand)
                columns[LABELS.name].append(made.tobytes())
                rows.given_up += given_up
            open_rows.append((len(rows) - 1, seat))
            decision += 1
            for event in moment.play():
                if type(event) is HandEnded:
                    _hand_over(rows, open_rows, event)
                    open_rows = []
        elif type(record) is MatchEndRecord:
            _match_over(rows, open_rows, len(rows) - decision, record)


def _hand_over(rows: Rows, open_rows: list[tuple[int, Seat]], event: HandEnded) -> None:
    result = event.result
    rows.hands += 1
    for _, seat in open_rows:
        side = PARTNERSHIP_OF[seat]
        won = 0 if result.winner is None else result.marks
        rows.columns["hand_reward"].append(won if result.winner == side else -won)
        rows.columns["hand_over"].append(True)
        rows.columns["hand_points"].append(result.points[side])


def _match_over(
    rows: Rows, open_rows: list[tuple[int, Seat]], first: int, end: MatchEndRecord
) -> None:
    """The match's outcome for each of its rows; a hand cut short gets no hand outcome."""
    for _ in open_rows:
        rows.columns["hand_reward"].append(0)
        rows.columns["hand_over"].append(False)
        rows.columns["hand_points"].append(-1)
    seats = rows.columns["seat"]
    for at in range(first, len(rows)):
        side = PARTNERSHIP_OF[SEATS[seats[at]]]
        rows.columns["match_reward"].append(
            0 if end.winner is None else 1 if end.winner == side else -1
        )


__all__ = ["NO_LABEL", "Rows", "add_log"]
