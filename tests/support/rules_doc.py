"""Reading protocol/RULES.md for the tests that keep it true to the engine
(tests/rules/test_rules_doc_*.py): its worked examples, their lines parsed, and its marked tables.

Worked examples are fenced blocks tagged ``example``; their format is documented in RULES.md
itself (section *How the examples are written*) and parsed here line by line. A line this
parser does not understand raises ``DocError``, so a block cannot silently stop being checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from referee.rules import (
    SEATS,
    TRUMPS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Partnership,
    Pass,
    Pile,
    Play,
    Seat,
    Tile,
    Trump,
)

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


def document() -> str:
    """RULES.md's text."""
    return RULES.read_text(encoding="utf-8")


def marked_table(marker: str) -> list[list[str]]:
    """The body rows of the markdown table just after ``<!-- marker -->``, cells stripped."""
    lines = document().splitlines()
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
