"""What a person may type at a decision, and the legal action it names.

Every legal action can be chosen two ways: by its number in the list the screen shows (1 for
the first), or by typing it — ``pass``; a bid's points (``31``); ``all 2`` for all tricks at 2
marks; a tile in any usual spelling (``6-4``, ``[6|4]``, ``4|6``, ``64``, ``6 4``); a trump by
name (``sixes``, ``6s``, ``doubles``, ``no trump`` or ``nt``), followed for an all-tricks
contract by the piles face up (``sixes 2``). The label the screen shows for an action
(``bid 31``, ``play [4|6]``, ``trump sixes, 1 pile face up``) reads back as that action too.

Anything else is a ``Hint``: one line saying why it is not a choice now, never a fault — the
person is asked again. Only a legal action ever leaves here, and the table still judges it as
it judges a bot's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from referee.human.sorting import in_order
from referee.rules.actions import (
    DOUBLES,
    NO_TRUMP,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Pass,
    Play,
    Trump,
    trump_name,
)
from referee.rules.suits import CALLED, suit_name
from referee.rules.tiles import Tile
from referee.rules.views import View
from referee.terminal.escapes import shown


@dataclass(frozen=True)
class Help:
    """``?`` or ``help``: show what can be typed."""


@dataclass(frozen=True)
class Quit:
    """``q`` (or the end of input): leave the match, once confirmed."""


@dataclass(frozen=True)
class Hint:
    """Not a choice now: one line saying why, and what to type instead."""

    text: str


Choice = Action | Help | Quit | Hint

HELP_WORDS: Final = frozenset({"?", "h", "help"})
QUIT_WORDS: Final = frozenset({"q", "quit", "exit", "leave"})

#: Words that may surround an action without changing it: ``bid 31``, ``play 6-4``,
#: ``trump sixes, 1 pile face up``, ``all tricks for 2 marks``.
_FILLER: Final = frozenset(
    {"play", "bid", "trump", "trumps", "declare", "for", "pile", "piles", "face", "up"}
    | {"mark", "marks", "trick", "tricks"}
)
#: Punctuation read as a space: tiles are ``6-4``, ``[6|4]``, ``6/4``, ``6,4``.
_SEPARATORS: Final = str.maketrans({c: " " for c in "[]|-/,_.:;()"})

#: Each trump's names (after ``_normal``: ``no trump`` and ``notrump`` read ``nt``).
TRUMP_NAMES: Final[dict[Trump, tuple[str, ...]]] = {
    0: ("blanks", "blank", "0s"),
    1: ("ones", "one", "aces", "1s"),
    2: ("twos", "two", "deuces", "2s"),
    3: ("threes", "three", "treys", "3s"),
    4: ("fours", "four", "4s"),
    5: ("fives", "five", "5s"),
    6: ("sixes", "six", "6s"),
    DOUBLES: ("doubles", "double", "dbl"),
    NO_TRUMP: ("nt", "follow me"),
}

_TILE: Final = re.compile(r"^([0-6]) ?([0-6])$")
_NUMBER: Final = re.compile(r"^\d+$")
_ALL_TRICKS: Final = re.compile(r"^all ?(\d*)$")


def _normal(text: str) -> str:
    """Lower case, separators as spaces, ``no trump`` as ``nt``, filler words dropped."""
    words = text.lower().translate(_SEPARATORS).split()
    joined = " ".join(words).replace("no trump", "nt").replace("notrump", "nt")
    return " ".join(word for word in joined.split() if word not in _FILLER)


def spellings(action: Action) -> tuple[str, ...]:
    """The typed forms of ``action`` (already ``_normal``)."""
    if isinstance(action, Pass):
        return ("pass", "p")
    if isinstance(action, Bid):
        return (str(action.points),)
    if isinstance(action, AllTricksBid):
        return (f"all {action.marks}", f"all{action.marks}")
    if isinstance(action, DeclareTrump):
        names = TRUMP_NAMES[action.trump]
        if action.piles is None:
            return names
        return tuple(f"{name} {action.piles}" for name in names)
    low, high = action.tile
    return (f"{low} {high}", f"{high} {low}", f"{low}{high}", f"{high}{low}")


def label(action: Action) -> str:
    """How the screen shows ``action`` in the numbered list (it reads back as the action)."""
    return str(action)


def choose(text: str, legal: list[Action], view: View) -> Choice:
    """What the person's line means at a decision whose legal actions are ``legal``, which
    the screen numbers from 1 in the order of ``sorting.in_order``."""
    legal = in_order(legal, view)
    raw = text.strip()
    if raw.lower() in HELP_WORDS:
        return Help()
    if raw.lower() in QUIT_WORDS:
        return Quit()
    if _index(raw) in range(1, len(legal) + 1):
        return legal[_index(raw) - 1]
    typed = _normal(raw)
    for action in legal:
        if typed in spellings(action):
            return action
    all_tricks = [action for action in legal if isinstance(action, AllTricksBid)]
    if typed == "all" and len(all_tricks) == 1:
        return all_tricks[0]
    return Hint(_why_not(raw, typed, legal, view))


def _index(raw: str) -> int:
    """The choice a line of digits numbers (0 for none: ``01`` is a tile, not a number)."""
    if raw.isdecimal() and raw.isascii() and not raw.startswith("0"):
        return int(raw)
    return 0


def _why_not(raw: str, typed: str, legal: list[Action], view: View) -> str:
    """One line: why ``raw`` is not a choice now, and what would be."""
    count = len(legal)
    numbers = f"a number from 1 to {count}" if count > 1 else "1"
    if not typed:
        return f"type {numbers}, or the action itself ({summary(legal)}); ? for help"
    tile = _TILE.match(typed)
    if tile and view.phase == "playing":
        return _why_not_tile(Tile(*sorted(map(int, tile.groups()))), legal, view)
    if tile and not _NUMBER.match(typed):
        return f"tiles are played once trump is named; now: {summary(legal)}"
    if _NUMBER.match(typed) and 30 <= int(typed) <= 41 and view.phase == "bidding":
        return f"bid {typed} is not allowed now: {summary(legal)}"
    if _NUMBER.match(typed):
        return f"there is no choice {typed}: type {numbers}, or the action ({summary(legal)})"
    all_tricks = [action.marks for action in legal if isinstance(action, AllTricksBid)]
    if typed == "all" and all_tricks:
        return "say for how many marks: " + " or ".join(f"all {n}" for n in all_tricks)
    if _ALL_TRICKS.match(typed) and view.phase == "bidding":
        return f"that all-tricks bid is not allowed now: {summary(legal)}"
    named = [trump for trump, names in TRUMP_NAMES.items() if typed in names]
    if named and any(isinstance(a, DeclareTrump) and a.trump == named[0] for a in legal):
        said = shown(raw.strip())
        return f"say how many piles face up too: {said} 1 or {said} 2"
    return f"{shown(raw)!r} is not a choice now: {summary(legal)}; type {numbers}, or ? for help"


def _why_not_tile(tile: Tile, legal: list[Action], view: View) -> str:
    playable = " ".join(str(action.tile) for action in legal if isinstance(action, Play))
    if tile not in view.hand:
        return f"you do not hold {tile}: you may play {playable}"
    assert view.contract is not None and view.trick
    led = CALLED[view.contract.trump][view.trick[0].tile]
    return f"{tile} does not follow the suit led ({suit_name(led)}): you may play {playable}"


def summary(legal: list[Action]) -> str:
    """The choices in a few words: ``pass, bid 31 to 41, or all tricks for 1 or 2 marks``."""
    parts: list[str] = []
    if any(isinstance(action, Pass) for action in legal):
        parts.append("pass")
    points = [action.points for action in legal if isinstance(action, Bid)]
    if points:
        parts.append(f"bid {_span(points)}")
    marks = [action.marks for action in legal if isinstance(action, AllTricksBid)]
    if marks:
        parts.append(f"all tricks for {_span(marks)} mark{'s' if max(marks) > 1 else ''}")
    trumps = [action for action in legal if isinstance(action, DeclareTrump)]
    if trumps:
        names = dict.fromkeys(trump_name(action.trump) for action in trumps)
        piles = " with 1 or 2 piles face up" if trumps[0].piles else ""
        parts.append("name trump: " + ", ".join(names) + piles)
    tiles = [str(action.tile) for action in legal if isinstance(action, Play)]
    if tiles:
        parts.append("play " + " ".join(tiles))
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + ", or " + parts[-1]


def _span(values: list[int]) -> str:
    low, high = min(values), max(values)
    if low == high:
        return str(low)
    return f"{low} or {high}" if high == low + 1 else f"{low} to {high}"
