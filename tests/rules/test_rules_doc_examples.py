"""protocol/RULES.md's worked examples are played, and every claim in them must hold.

Each block (read by ``support.rules_doc``) is played through ``referee.rules`` — inside a
``Match``, so the marks and the match's end are checked too: the seat to act, the legal
actions, refused actions (which must change nothing), trick winners and points, what every seat
sees, the early end, the result and the marks.
"""

from __future__ import annotations

import re

import pytest
from support.helpers import hand_state
from support.rules_doc import (
    SIDES,
    Block,
    DocError,
    document,
    example_blocks,
    parse_action,
    parse_legal,
    parse_moves,
    parse_per_side,
    parse_piles,
    parse_seat,
    parse_tiles,
    parse_trump,
)

from referee.errors import IllegalAction
from referee.rules import (
    SEATS,
    TILES,
    Action,
    Event,
    Hand,
    HandEnded,
    HandStarted,
    Match,
    MatchEnded,
    Play,
    PlayedTile,
    Seat,
    Tile,
    TrickTaken,
)


class Example:
    """One example block, played line by line against a ``Match``."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.match: Match | None = None
        self.hand: Hand | None = None  # the example's hand (kept when the match deals the next)
        self.events: list[Event] = []
        self.setup: dict[str, str] = {}
        self.deal: dict[Seat, list[Tile]] = {}
        self.checked_result = False
        self.checked_tricks = 0

    def run(self) -> None:
        for number, text in self.block.lines:
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            key, sep, value = text.partition(":")
            if not sep:
                raise DocError(f"line {number}: not 'key: value': {text!r}")
            try:
                self.line(key.strip(), value.strip())
            except (DocError, AssertionError) as exc:
                raise type(exc)(f"RULES.md line {number} ({text.strip()!r}): {exc}") from exc
        if self.hand is None:
            raise DocError("the example never starts a hand")
        if not self.checked_result:
            raise DocError("every example states its result ('result: ...')")

    # The hand starts at the first line that is not part of the set-up.
    def start(self) -> Hand:
        if self.hand is not None:
            return self.hand
        setup = self.setup
        if "seed" in setup:
            match = Match(seed=int(setup["seed"]))
            if "marks" in setup:
                raise DocError("a seeded example starts the match: it has no marks before it")
            hand = match.hand
            if "dealer" in setup:
                assert hand.dealer == parse_seat(setup["dealer"]), (
                    f"seed {setup['seed']}: the first dealer is {hand.dealer}"
                )
            for seat, tiles in self.deal.items():
                assert hand.hands[seat] == tiles, (
                    f"seed {setup['seed']}: {seat} holds {hand.hands[seat]}"
                )
        else:
            if "dealer" not in setup or set(self.deal) != set(SEATS):
                raise DocError("an example needs 'seed:' or 'dealer:' and the tiles of A, B, C, D")
            match = Match(seed=0)
            marks = parse_per_side(setup.get("marks", "A+C 0, B+D 0"))
            match.marks = marks
            # White-box: the example's own deal as the match's current hand.
            hand = Hand(parse_seat(setup["dealer"]), self.deal, marks=match.marks)
            match.hand = hand
        self.match, self.hand = match, hand
        return hand

    def apply(self, moves: list[tuple[Seat, Action]], *, trick: bool = False) -> None:
        """Play ``moves``; only a ``trick N:`` line (``trick``) may complete a trick."""
        hand = self.start()
        assert self.match is not None
        for seat, action in moves:
            assert hand.turn == seat, f"it is {hand.turn}'s turn, not {seat}'s"
            try:
                events = self.match.apply(seat, action)
            except IllegalAction as exc:
                raise AssertionError(f"{seat} {action} is refused: {exc}") from exc
            self.events.extend(events)
            if not trick and any(isinstance(e, TrickTaken) for e in events):
                raise DocError("a trick is completed on a 'trick N:' line, not 'play:' or 'bids:'")

    def line(self, key: str, value: str) -> None:
        if self.hand is None and (key in self.setup or key in self.deal):
            raise DocError(f"'{key}:' is given twice")
        if self.hand is None and key in ("name", "seed", "dealer", "marks"):
            self.setup[key] = value
            return
        if self.hand is None and key in SEATS:
            seat = parse_seat(key)
            self.deal[seat] = parse_tiles(value)
            if len(self.deal[seat]) != 7:
                raise DocError(f"{seat} is dealt seven tiles")
            return
        hand = self.start()
        method = getattr(self, "do_" + key.replace(" ", "_"), None)
        trick = re.fullmatch(r"trick (\d+)", key)
        if trick:
            self.do_trick(int(trick.group(1)), value)
        elif key.startswith("hand ") and len(key) == 6:
            seat = parse_seat(key[5])
            assert hand.view(seat).hand == parse_tiles(value), (
                f"{seat} holds {hand.view(seat).hand}"
            )
        elif method is None:
            raise DocError(f"unknown key {key!r}")
        else:
            method(value)

    def do_bids(self, value: str) -> None:
        self.apply(parse_moves(value))

    def do_trump(self, value: str) -> None:
        seat, _, declaration = value.partition(" ")
        self.apply([(parse_seat(seat), parse_trump(declaration))])

    def do_play(self, value: str) -> None:
        self.apply(parse_moves(value))

    def do_trick(self, number: int, value: str) -> None:
        plays, arrow, outcome = value.partition("->")
        match = re.fullmatch(r"\s*([A-D]), (\d+) points?\s*", outcome)
        if not arrow or not match:
            raise DocError("a trick line ends '-> WINNER, N points'")
        if number != self.checked_tricks + 1:
            raise DocError(f"trick {number} follows trick {self.checked_tricks}")
        self.checked_tricks = number
        before = len(self.events)
        self.apply(parse_moves(plays), trick=True)
        taken = [e for e in self.events[before:] if isinstance(e, TrickTaken)]
        assert len(taken) == 1, "the plays on a 'trick' line complete exactly one trick"
        event = taken[0]
        assert event.trick == number, f"this is trick {event.trick}"
        assert (event.winner, event.points) == (match.group(1), int(match.group(2))), (
            f"trick {number} goes to {event.winner} for {event.points} points"
        )
        assert self.hand is not None
        assert self.hand.piles[-1].side == event.side

    def do_turn(self, value: str) -> None:
        assert self.hand is not None
        assert self.hand.turn == parse_seat(value), f"it is {self.hand.turn}'s turn"

    def do_legal(self, value: str) -> None:
        assert self.hand is not None
        legal = self.hand.legal_actions()
        assert len(legal) == len(set(legal))
        assert set(legal) == parse_legal(value), f"legal: {', '.join(map(str, legal))}"

    def do_refused(self, value: str) -> None:
        match = re.fullmatch(r'([A-D]) (.+?) because "(.+)"', value)
        if not match:
            raise DocError("write 'refused: SEAT ACTION because \"words of the reason\"'")
        seat, action, reason = (
            parse_seat(match.group(1)),
            parse_action(match.group(2)),
            match.group(3),
        )
        hand = self.hand
        assert hand is not None and self.match is not None
        before, legal = hand_state(hand), hand.legal_actions()
        with pytest.raises(IllegalAction) as caught:
            self.match.apply(seat, action)
        assert reason.lower() in str(caught.value).lower(), f"the engine says: {caught.value}"
        assert hand_state(hand) == before and hand.legal_actions() == legal

    def do_trick_now(self, value: str) -> None:
        assert self.hand is not None
        expected = []
        if value != "empty":
            for seat, action in parse_moves(value):
                if not isinstance(action, Play):
                    raise DocError(f"the trick holds tiles, not {action}")
                expected.append(PlayedTile(seat, action.tile))
        for seat in SEATS:
            assert self.hand.view(seat).trick == expected, (
                f"{seat} sees {self.hand.view(seat).trick}"
            )

    def do_hand_sizes(self, value: str) -> None:
        assert self.hand is not None
        expected = {}
        for item in value.split(","):
            seat, _, count = item.strip().partition(" ")
            expected[parse_seat(seat)] = int(count)
        for seat in SEATS:
            assert self.hand.view(seat).hand_sizes == expected

    def do_piles(self, value: str) -> None:
        assert self.hand is not None
        expected = parse_piles(value)
        for seat in SEATS:
            assert self.hand.view(seat).piles == expected, (
                f"{seat} sees {self.hand.view(seat).piles}"
            )

    def do_points(self, value: str) -> None:
        assert self.hand is not None
        assert self.hand.points == parse_per_side(value), f"points: {self.hand.points}"

    def do_result(self, value: str) -> None:
        hand = self.hand
        assert hand is not None
        self.checked_result = True
        if value == "open":
            assert not hand.is_over, f"the hand is over: {hand.result}"
            return
        result = hand.result
        assert result is not None, "the hand is still being played"
        assert hand.legal_actions() == [] and hand.turn is None
        # Tiles never played stay hidden: the review holds exactly the played tiles.
        played = {m.action.tile for m in hand.review().moves if isinstance(m.action, Play)}
        assert played == set(TILES) - {t for s in SEATS for t in hand.hands[s]}
        if value == "passed":
            assert (result.outcome, result.winner, result.marks) == ("passed", None, 0)
            return
        match = re.fullmatch(
            r"(made|set) after (\d+) tricks?, (A\+C|B\+D) scores? (\d+) marks?", value
        )
        if not match:
            raise DocError(
                "write 'result: open', 'passed' or 'made|set after N tricks, X+Y scores M marks'"
            )
        got = (result.outcome, result.tricks, result.winner, result.marks)
        want = (match.group(1), int(match.group(2)), SIDES[match.group(3)], int(match.group(4)))
        assert got == want, (
            f"the engine: {result.outcome} after {result.tricks} tricks,"
            f" {result.winner} +{result.marks} ({result.reason})"
        )
        ended = [e for e in self.events if isinstance(e, HandEnded)]
        assert len(ended) == 1 and ended[0].result == result
        assert self.checked_tricks == result.tricks, "write every trick of the hand out"

    def do_match(self, value: str) -> None:
        assert self.match is not None and self.hand is not None
        assert self.hand.is_over, "'match:' follows the end of the hand"
        marks_text, _, rest = value.rpartition(",")
        rest = rest.strip()
        assert self.match.marks == parse_per_side(marks_text), f"marks: {self.match.marks}"
        won = re.fullmatch(r"(A\+C|B\+D) wins", rest)
        if won:
            assert self.match.is_over and self.match.winner == SIDES[won.group(1)]
            assert isinstance(self.events[-1], MatchEnded)
            return
        dealer = re.fullmatch(r"next dealer ([A-D])", rest)
        if not dealer:
            raise DocError("write 'match: A+C n, B+D n, X+Y wins' or '..., next dealer S'")
        assert not self.match.is_over
        assert self.events[-1] == HandStarted(2, parse_seat(dealer.group(1))), self.events[-1]


BLOCKS = example_blocks(document())


def test_the_document_has_its_worked_examples() -> None:
    names = [block.name for block in BLOCKS]
    assert len(names) >= 8, names
    assert all(not name.startswith("line ") for name in names), "every example has a 'name:'"
    assert len(names) == len(set(names)), "example names are unique"
    # A block that looks like an example but is tagged otherwise would not be checked.
    untagged = re.findall(r"^```(?!example\b)[^\n]*\n(?:name:|dealer:)", document(), re.M)
    assert not untagged, untagged


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_worked_example(block: Block) -> None:
    Example(block).run()
