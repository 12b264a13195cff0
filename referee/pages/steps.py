"""A match as the viewer steps through it: one step per action, each with what every
perspective may see at that moment, rebuilt with the rules engine from a verified log.

The perspectives are the ones ``referee replay`` prints:

- ``all``: every hand open and every pile face up (for after the match);
- a seat (``A``-``D``): exactly what ``Match.view(seat)`` shows that seat, the view
  ``replay --seat`` prints; its own notes in full, of another seat's only what happened,
  never what it sent (a refused answer can name a tile its author holds);
- ``public``: the same view without its hand, what everyone may see.

Only the perspectives asked for are built, so a page made for one seat holds nothing else:
no other seat's unplayed tile is in its data at all — nor the match seed (every deal follows
from it), the digests (they hash the deals), the details of how the match ended (a
forfeit's names the tiles its seat held), or how long other seats took to answer (a bot that
thinks longer with more choices tells how many it had), which only the ``all`` data carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from referee.record import render
from referee.record.log import LogFile
from referee.record.records import (
    BotReady,
    DealRecord,
    FaultRecord,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.record.verify import Verified
from referee.record.visibility import (
    PERSPECTIVES,
    Perspective,
    may_time,
    reads_in_full,
    sees_everything,
    tiles_in_hand,
)
from referee.record.walk import LogWalk, Moment
from referee.rules import DeclareTrump, Hand, HandEnded, Match, Play, TrickTaken
from referee.rules.contract import side_name
from referee.rules.tiles import MARKS_TO_WIN, SEATS, Partnership, Seat, Tile
from referee.stats import percentile


def code(tile: Tile) -> int:
    """A tile as the page's script reads it: ``10 * low + high``."""
    return 10 * tile.low + tile.high


class Note(msgspec.Struct, frozen=True, omit_defaults=True):
    """A refused answer, an ignored line or a fault, where it happened: ``text`` says what
    happened; ``detail`` and ``raw`` (what the bot sent, as sent) only where the perspective
    may read them."""

    seat: Seat
    kind: Literal["rejected", "ignored", "fault"]
    text: str
    detail: str | None = None
    raw: str | None = None


class Pile(msgspec.Struct, frozen=True):
    """A captured trick as the table shows it: tiles sorted, never who played which."""

    trick: int
    side: Partnership
    points: int
    tiles: list[int]


class Step(msgspec.Struct, frozen=True, omit_defaults=True):
    """The table just after one action (or at a hand's deal, or at the match's end)."""

    hand: int
    kind: Literal["deal", "bid", "trump", "play", "end"]
    text: str
    dealer: Seat
    marks: dict[Partnership, int]
    #: Hand points captured so far by each side.
    points: dict[Partnership, int]
    bids: list[tuple[Seat, str]]
    #: Per perspective, the tiles in hand it may see (``all``: every seat's; a seat: its own;
    #: ``public``: none).
    hands: dict[Perspective, dict[Seat, list[int]]]
    #: Every hand's size, and the captured piles face up (by trick number), as the views
    #: show them to every seat; ``all`` sees the first ``captured`` piles.
    sizes: dict[Seat, int]
    face_up: list[int]
    captured: int = 0
    #: Per perspective, the notes it may read, when there are any.
    notes: dict[Perspective, list[Note]] = {}
    seat: Seat | None = None
    contract: str | None = None
    declarer: Seat | None = None
    #: The trick on the table: (seat, tile) in the order played; a complete trick stays
    #: until the next lead, with ``taken`` saying who won it.
    trick: list[tuple[Seat, int]] = []
    taken: str | None = None
    winner: Seat | None = None
    #: The hand's result, on the step that ended it.
    result: str | None = None
    forced: bool = False
    #: The referee's measure of the answer's time, in milliseconds.
    ms: float | None = None


class SeatTimes(msgspec.Struct, frozen=True):
    decisions: int
    mean_ms: float
    p99_ms: float
    max_ms: float


class MatchSteps(msgspec.Struct, frozen=True):
    """Everything a viewer page shows, for the perspectives it was built for."""

    #: The match seed, as decimal text: only with ``all`` (it deals every hand). Text, since
    #: a page's ``JSON.parse`` reads numbers as doubles, which round seeds past 2**53.
    seed: str | None
    names: dict[Seat, str]
    commands: dict[Seat, str]
    perspectives: list[Perspective]
    steps: list[Step]
    #: Per hand number, its captured piles: each was face up when it was taken, so every
    #: perspective saw it then (a step's ``face_up`` says which it sees at that moment).
    piles: dict[int, list[Pile]]
    times: dict[Seat, SeatTimes]
    end: str
    winner: Partnership | None
    marks: dict[Partnership, int]
    #: The marks a partnership needs to win: the line the page's plot of marks draws.
    target: int
    #: Only with ``all``: each hashes the deals, so a reader who knows every played tile
    #: could try the few ways the unplayed ones of a hand that ended early may lie.
    game_digest: str | None
    log_digest: str | None
    #: What ``referee replay --verify`` said of the log.
    verified: str


def build(
    log: LogFile, verified: Verified, perspectives: Iterable[Perspective] = PERSPECTIVES
) -> MatchSteps:
    """The steps of a log ``verify`` passed, seen from ``perspectives``."""
    return _Builder(log, verified, tuple(perspectives)).run()


class _Builder:
    """Walks the log (``LogWalk``) and takes a step after each move."""

    def __init__(
        self, log: LogFile, verified: Verified, perspectives: tuple[Perspective, ...]
    ) -> None:
        self.log = log
        self.verified = verified
        self.perspectives = perspectives
        self.walk = LogWalk(log.records)
        self.match = self.walk.match
        self.steps: list[Step] = []
        self.piles: dict[int, list[Pile]] = {}
        self.notes: list[Note] = []
        self.trick: list[tuple[Seat, int]] = []
        self.bids: list[tuple[Seat, str]] = []
        #: The hand of the log's last deal record; None before the first (a match can end
        #: before any hand is dealt, when a bot never starts).
        self.dealt: Hand | None = None

    def run(self) -> MatchSteps:
        header = self.log.header
        names = {seat: "" for seat in SEATS}
        times: dict[Seat, list[float]] = {seat: [] for seat in SEATS}
        end: MatchEndRecord | None = None
        for at in self.walk:
            record = at.record
            if isinstance(record, DealRecord):
                self.dealt = self.match.hand
                self.trick, self.bids = [], []
                self._step("deal", f"hand {record.hand} dealt by {record.dealer}")
            elif isinstance(record, BotReady):
                names[record.seat] = record.name
            elif isinstance(record, RejectedRecord):
                rule = f" [{record.rule}]" if record.rule else ""
                text = f"answer refused: {record.reason}"
                detail = f"{record.detail}{rule}"
                self.notes.append(Note(record.seat, "rejected", text, detail, record.raw))
            elif isinstance(record, IgnoredRecord):
                text = f"line ignored (waiting for the answer to act {record.expected_id})"
                self.notes.append(Note(record.seat, "ignored", text, None, record.raw))
            elif isinstance(record, FaultRecord):
                text = f"fault: {record.reason} → {record.penalty} (strikes {record.strikes})"
                self.notes.append(Note(record.seat, "fault", text, record.detail))
            elif isinstance(record, MoveRecord):
                ms = record.timing.latency_ms if record.timing else None
                ms = None if ms is None else round(ms, 1)
                if not self._may_time(record.seat):
                    ms = None
                if ms is not None and not record.forced:
                    times[record.seat].append(ms)
                self._move(at, record, ms)
            elif isinstance(record, MatchEndRecord):
                end = record
        assert end is not None, "build() takes a verified log, which ends with match_end"
        everything = sees_everything(self.perspectives)
        end_text = render.end_text(end, everything)
        self._step("end", f"match over: {end_text}", hand=self.dealt)
        return MatchSteps(
            seed=str(header.seed) if everything else None,
            names=names,
            commands=dict(header.bots),
            perspectives=list(self.perspectives),
            steps=self.steps,
            piles=self.piles,
            times={
                seat: _times(values)
                for seat, values in times.items()
                if values and self._may_time(seat)
            },
            end=end_text,
            winner=end.winner,
            marks=dict(end.marks),
            target=MARKS_TO_WIN,
            game_digest=end.game_digest if everything else None,
            log_digest=self.verified.log_digest if everything else None,
            verified=f"{self.verified.records} records, {self.verified.hands} hands, every"
            " one re-simulated from the seed; the chain is intact",
        )

    def _may_time(self, seat: Seat) -> bool:
        return may_time(self.perspectives, seat)

    def _move(self, at: Moment, record: MoveRecord, ms: float | None) -> None:
        action = record.action
        hand = at.hand
        if isinstance(action, Play) and len(self.trick) == 4:
            self.trick = []  # the complete trick stays on the table until the next lead
        events = at.play()
        text = f"{record.seat} {action}" + (" (played by the referee)" if record.forced else "")
        taken: str | None = None
        winner: Seat | None = None
        result: str | None = None
        kind: Literal["bid", "trump", "play"] = "bid"
        if isinstance(action, Play):
            kind = "play"
            self.trick.append((record.seat, code(action.tile)))
        elif isinstance(action, DeclareTrump):
            kind = "trump"
        else:
            self.bids.append((record.seat, str(action)))
        for event in events:  # the others say nothing the step does not
            if isinstance(event, TrickTaken):
                winner = event.winner
                taken = (
                    f"trick {event.trick} to {event.winner} ({side_name(event.side)}),"
                    f" {event.points} point{'s' if event.points != 1 else ''}"
                )
                pile = hand.piles[-1]
                self.piles.setdefault(hand.hand_number, []).append(
                    Pile(event.trick, event.side, event.points, [code(t) for t in pile.tiles])
                )
            elif isinstance(event, HandEnded):
                result = render.result_text(event.result)
        self._step(
            kind, text, hand=hand, seat=record.seat, taken=taken, winner=winner,
            result=result, forced=record.forced, ms=ms,
        )  # fmt: skip

    def _step(
        self,
        kind: Literal["deal", "bid", "trump", "play", "end"],
        text: str,
        *,
        hand: Hand | None = None,
        seat: Seat | None = None,
        taken: str | None = None,
        winner: Seat | None = None,
        result: str | None = None,
        forced: bool = False,
        ms: float | None = None,
    ) -> None:
        notes, self.notes = self.notes, []
        shown = hand if hand is not None else self.match.hand
        if self.dealt is None:  # nothing was dealt: no hand to show
            self.steps.append(_undealt(kind, text, self.match, self.perspectives, notes))
            return
        contract = shown.contract
        public = shown.view("A")
        self.steps.append(
            Step(
                hand=shown.hand_number,
                kind=kind,
                text=text,
                dealer=shown.dealer,
                marks=dict(self.match.marks),
                points=dict(shown.points),
                bids=list(self.bids),
                hands={p: _hands(p, shown) for p in self.perspectives},
                sizes=dict(public.hand_sizes),
                face_up=[pile.trick for pile in public.piles],
                captured=len(shown.piles),
                notes=_notes_seen(notes, self.perspectives),
                seat=seat,
                contract=str(contract) if contract is not None else None,
                declarer=contract.declarer if contract is not None else None,
                trick=list(self.trick),
                taken=taken,
                winner=winner,
                result=result,
                forced=forced,
                ms=ms,
            )
        )


def _undealt(
    kind: Literal["deal", "bid", "trump", "play", "end"],
    text: str,
    match: Match,
    perspectives: tuple[Perspective, ...],
    notes: list[Note],
) -> Step:
    """A step before any hand was dealt: an empty table."""
    return Step(
        hand=match.hand.hand_number,
        kind=kind,
        text=text,
        dealer=match.hand.dealer,
        marks=dict(match.marks),
        points={"AC": 0, "BD": 0},
        bids=[],
        hands={p: {} for p in perspectives},
        sizes=dict.fromkeys(SEATS, 0),
        face_up=[],
        notes=_notes_seen(notes, perspectives),
    )


def _hands(perspective: Perspective, hand: Hand) -> dict[Seat, list[int]]:
    """The tiles in hand ``perspective`` sees, as the page's codes."""
    return {
        seat: list(map(code, tiles)) for seat, tiles in tiles_in_hand(perspective, hand).items()
    }


def _notes_seen(
    notes: list[Note], perspectives: tuple[Perspective, ...]
) -> dict[Perspective, list[Note]]:
    """Per perspective, the step's notes as it may read them (none: an empty map)."""
    return {p: [_seen_note(n, p) for n in notes] for p in perspectives} if notes else {}


def _seen_note(note: Note, perspective: Perspective) -> Note:
    """A note as ``perspective`` may read it (``visibility.reads_in_full``)."""
    if reads_in_full(perspective, note.seat):
        return note
    return Note(note.seat, note.kind, note.text)


def _times(values: list[float]) -> SeatTimes:
    ordered = sorted(values)
    return SeatTimes(
        decisions=len(values),
        mean_ms=sum(values) / len(values),
        p99_ms=percentile(ordered, 0.99),
        max_ms=ordered[-1],
    )
