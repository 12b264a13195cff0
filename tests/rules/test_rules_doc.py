"""protocol/RULES.md stays true to the engine: every worked example is played, every table read.

Worked examples are fenced blocks tagged ``example``; their format is documented in RULES.md
itself (section *How the examples are written*) and parsed here line by line. Each block is
played through ``referee.rules`` — inside a ``Match``, so the marks and the match's end are
checked too — and every claim in it must hold: the seat to act, the legal actions, refused
actions (which must change nothing), trick winners and points, what every seat sees, the early
end, the result and the marks. A line this parser does not understand fails its example, so a
block cannot silently stop being checked.

The rank tables are marked with an HTML comment (``<!-- ranks: ... -->``, ``<!-- count tiles
-->``) just above them and compared with ``referee/rules/suits.py`` and ``tiles.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from referee.errors import IllegalAction
from referee.rules import (
    COUNT,
    SEATS,
    TILES,
    TRUMPS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Event,
    Hand,
    HandEnded,
    HandStarted,
    Match,
    MatchEnded,
    Partnership,
    Pass,
    Pile,
    Play,
    PlayedTile,
    Seat,
    Tile,
    TrickTaken,
    Trump,
)
from referee.rules.contract import Contract, proven_result
from referee.rules.suits import FOLLOWERS, STRENGTH, TRUMP_SUIT

RULES = Path(__file__).resolve().parents[2] / "protocol" / "RULES.md"

SUITS = ("blanks", "ones", "twos", "threes", "fours", "fives", "sixes")
TRUMP_NAMES: dict[str, Trump] = {"doubles": "doubles", "no-trump": "no_trump"}
TRUMP_NAMES.update({name: number for number, name in enumerate(SUITS)})
SIDES: dict[str, Partnership] = {"A+C": "AC", "B+D": "BD"}
TILE = re.compile(r"\[([0-6])\\?\|([0-6])\]")


class DocError(Exception):
    """RULES.md says something this test cannot read."""


# -- reading the document -------------------------------------------------------------------------


@dataclass
class Block:
    line: int  # 1-based line of the opening fence
    lines: list[tuple[int, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        for _, text in self.lines:
            if text.startswith("name:"):
                return text.removeprefix("name:").strip()
        return f"line {self.line}"


def example_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    fence = ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if current is None:
            match = re.match(r"^(`{3,}|~{3,})\s*(\S*)", stripped)
            if match:
                fence = match.group(1)
                # Another kind of block (a negative line) is skipped, but its fences tracked.
                current = Block(number if match.group(2) == "example" else -number)
        elif stripped == fence:
            if current.line > 0:
                blocks.append(current)
            current = None
        elif current.line > 0:
            current.lines.append((number, line))
    if current is not None:
        raise DocError(f"RULES.md line {abs(current.line)}: a fenced block is never closed")
    return blocks


def parse_tiles(text: str) -> list[Tile]:
    """``[5|5] [3|5]`` -> tiles, in the written order; anything else is an error."""
    found = [Tile(*sorted((int(a), int(b)))) for a, b in TILE.findall(text)]
    if TILE.sub("", text).strip(" ,·") or not found:
        raise DocError(f"not a list of tiles: {text!r}")
    for t, (a, b) in zip(found, TILE.findall(text), strict=True):
        if int(a) > int(b):
            raise DocError(f"a tile is written low half first: [{a}|{b}] is {t}")
    return found


def parse_seat(text: str) -> Seat:
    for seat in SEATS:
        if text == seat:
            return seat
    raise DocError(f"not a seat: {text!r}")


def parse_per_side(text: str) -> dict[Partnership, int]:
    """``A+C 6, B+D 0`` -> ``{"AC": 6, "BD": 0}``."""
    result: dict[Partnership, int] = {}
    for item in text.split(","):
        match = re.fullmatch(r"\s*(A\+C|B\+D) (\d+)\s*", item)
        if not match:
            raise DocError(f"not 'A+C n, B+D n': {text!r}")
        result[SIDES[match.group(1)]] = int(match.group(2))
    if set(result) != {"AC", "BD"}:
        raise DocError(f"give both partnerships: {text!r}")
    return result


def parse_trump(text: str) -> DeclareTrump:
    """``sixes``, ``doubles, 1 pile``, ``no-trump, 2 piles``."""
    match = re.fullmatch(r"([a-z-]+)(?:, ([12]) piles?)?", text.strip())
    if not match or match.group(1) not in TRUMP_NAMES:
        raise DocError(f"not a trump declaration: {text!r}")
    piles = int(match.group(2)) if match.group(2) else None
    return DeclareTrump(TRUMP_NAMES[match.group(1)], piles)


def parse_action(text: str) -> Action:
    """One action as the examples write it: ``pass``, ``30``, ``all-tricks 2``, ``[3|5]``,
    ``trump sixes, 1 pile``."""
    text = text.strip()
    if text == "pass":
        return Pass()
    if re.fullmatch(r"\d+", text):
        return Bid(int(text))  # not validated here, so a refused 29 or 42 can be written too
    match = re.fullmatch(r"all-tricks (\d+)", text)
    if match:
        return AllTricksBid(int(match.group(1)))
    if text.startswith("trump "):
        return parse_trump(text.removeprefix("trump "))
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise DocError(f"not one action: {text!r}")
    return Play(tiles[0])


def parse_moves(text: str) -> list[tuple[Seat, Action]]:
    """``A 30, B pass`` or ``A [5|5], B [3|5]``: seat-action pairs in order."""
    moves = []
    for item in text.split(","):
        seat, _, action = item.strip().partition(" ")
        moves.append((parse_seat(seat), parse_action(action)))
    return moves


def parse_legal(text: str) -> set[Action]:
    """The legal actions written out: tiles, or bids (``pass, 31-41, all-tricks 1``), or
    ``every trump`` / ``every trump, 1 or 2 piles``."""
    text = text.strip()
    if text == "every trump":
        return {DeclareTrump(t) for t in TRUMPS}
    if text == "every trump, 1 or 2 piles":
        return {DeclareTrump(t, p) for t in TRUMPS for p in (1, 2)}
    if text.startswith("["):
        return {Play(t) for t in parse_tiles(text)}
    actions: set[Action] = set()
    for item in text.split(","):
        item = item.strip()
        span = re.fullmatch(r"(\d+)-(\d+)", item)
        if span:
            actions |= {Bid(p) for p in range(int(span.group(1)), int(span.group(2)) + 1)}
        else:
            actions.add(parse_action(item))
    return actions


def parse_piles(text: str) -> list[Pile]:
    """``none`` or ``1 B+D [0|5] [3|5] [5|5] [6|6]; 2 A+C ...``."""
    if text.strip() == "none":
        return []
    piles = []
    for item in text.split(";"):
        match = re.fullmatch(r"\s*(\d+) (A\+C|B\+D) (.+?)\s*", item)
        if not match:
            raise DocError(f"not a pile ('trick side tiles'): {item!r}")
        piles.append(Pile(int(match.group(1)), SIDES[match.group(2)], parse_tiles(match.group(3))))
    return piles


# -- playing an example --------------------------------------------------------------------------


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
        before, legal = hand.snapshot(), hand.legal_actions()
        with pytest.raises(IllegalAction) as caught:
            self.match.apply(seat, action)
        assert reason.lower() in str(caught.value).lower(), f"the engine says: {caught.value}"
        assert hand.snapshot() == before and hand.legal_actions() == legal

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


def _document() -> str:
    return RULES.read_text(encoding="utf-8")


BLOCKS = example_blocks(_document())


def test_the_document_has_its_worked_examples() -> None:
    names = [block.name for block in BLOCKS]
    assert len(names) >= 8, names
    assert all(not name.startswith("line ") for name in names), "every example has a 'name:'"
    assert len(names) == len(set(names)), "example names are unique"
    # A block that looks like an example but is tagged otherwise would not be checked.
    untagged = re.findall(r"^```(?!example\b)[^\n]*\n(?:name:|dealer:)", _document(), re.M)
    assert not untagged, untagged


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_worked_example(block: Block) -> None:
    Example(block).run()


# -- the tables -----------------------------------------------------------------------------------


def marked_table(marker: str) -> list[list[str]]:
    """The body rows of the markdown table just after ``<!-- marker -->``, cells stripped."""
    lines = _document().splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == f"<!-- {marker} -->"]
    assert len(starts) == 1, f"RULES.md has {len(starts)} tables marked {marker!r}"
    i = starts[0] + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    rows = []
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        cells = re.split(r"(?<!\\)\|", lines[i].strip())[1:-1]
        rows.append([cell.strip() for cell in cells])
        i += 1
    assert len(rows) >= 3 and set(rows[1][0]) <= set("-: "), f"no table after {marker!r}"
    return rows[2:]


def engine_ranking(trump: Trump, suit: int) -> list[Tile]:
    """The tiles that follow ``suit`` under ``trump``, strongest first, as the engine ranks them."""
    members = FOLLOWERS[trump][suit]
    return sorted(members, key=lambda t: -STRENGTH[trump][suit][t])


def suit_key(name: str) -> int:
    name = name.strip("*")
    if name == "trump":
        return TRUMP_SUIT
    if name not in SUITS:
        raise DocError(f"not a suit: {name!r}")
    return SUITS.index(name)


def test_trump_suit_table() -> None:
    rows = {row[0].strip("*"): row[1] for row in marked_table("ranks: the trump suit")}
    assert set(rows) == set(TRUMP_NAMES), sorted(rows)
    for name, cell in rows.items():
        trump = TRUMP_NAMES[name]
        if trump == "no_trump":
            assert not FOLLOWERS[trump][TRUMP_SUIT]
            assert cell.startswith("none"), cell
        else:
            assert parse_tiles(cell) == engine_ranking(trump, TRUMP_SUIT), name


@pytest.mark.parametrize("trump_name", ["sixes", "doubles", "no-trump"])
def test_suit_tables_for_one_trump(trump_name: str) -> None:
    trump = TRUMP_NAMES[trump_name]
    rows = marked_table("ranks: no trump" if trump == "no_trump" else f"ranks: {trump_name} trump")
    seen = set()
    for row in rows:
        suit = suit_key(row[0])
        seen.add(suit)
        assert parse_tiles(row[1]) == engine_ranking(trump, suit), (trump_name, row[0])
    suits = set(range(7)) | ({TRUMP_SUIT} if trump != "no_trump" else set())
    assert seen == suits - ({trump} if isinstance(trump, int) else set())


def test_number_suits_under_any_trump_drop_the_trump_tiles() -> None:
    # The document: a number suit ranks as under no trump, without the tiles that are trump.
    no_trump = {suit_key(r[0]): parse_tiles(r[1]) for r in marked_table("ranks: no trump")}
    trump_suit = {TRUMP_NAMES[r[0].strip("*")]: r[1] for r in marked_table("ranks: the trump suit")}
    for trump in TRUMPS:
        trumps = set() if trump == "no_trump" else set(parse_tiles(trump_suit[trump]))
        for suit in range(7):
            if suit == trump:
                continue
            expected = [t for t in no_trump[suit] if t not in trumps]
            assert engine_ranking(trump, suit) == expected, (trump, suit)


def test_count_table() -> None:
    rows = marked_table("count tiles")
    table = {}
    for row in rows:
        (t,) = parse_tiles(row[0])
        table[t] = int(row[1])
    assert table == {t: v for t, v in COUNT.items() if v}
    assert sum(table.values()) + 7 == 42


def test_early_end_table() -> None:
    rows = marked_table("early end")
    assert [int(row[0]) for row in rows] == list(range(30, 42))
    for row in rows:
        bid = int(row[0])
        made = int(row[1].removesuffix(" points"))
        set_at = int(row[2].removesuffix(" points"))
        contract = Contract(declarer="A", bid=Bid(bid), trump=6)

        def outcome(declarers: int, defenders: int, c: Contract = contract) -> str | None:
            result = proven_result(c, {"AC": declarers, "BD": defenders}, {"AC": 1, "BD": 1})
            return None if result is None else result.outcome

        # Made exactly from the stated points on, set exactly from the stated points on.
        assert outcome(made, 0) == "made" and outcome(made - 1, 0) is None, bid
        assert outcome(0, set_at) == "set" and outcome(0, set_at - 1) is None, bid
        assert made + set_at == 43, bid
