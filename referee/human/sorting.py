"""The order a person reads a hand in: by suit, highest first, trump first once it is named;
the tiles to play are numbered in the same order."""

from __future__ import annotations

from referee.rules.actions import Action, Play, Trump
from referee.rules.suits import CALLED, STRENGTH, suit_name
from referee.rules.tiles import SUIT_NAMES, Tile
from referee.rules.views import View


def hand_groups(tiles: list[Tile], trump: Trump | None) -> list[tuple[str, list[Tile]]]:
    """The tiles by suit, highest first: before trump is named, by the higher half; after,
    trump first and then the suit each tile calls, each by its strength in that suit."""
    groups: dict[int, list[Tile]] = {}
    for tile in tiles:
        suit = tile.high if trump is None else CALLED[trump][tile]
        groups.setdefault(suit, []).append(tile)
    named: list[tuple[str, list[Tile]]] = []
    for suit in sorted(groups, reverse=True):
        if trump is None:
            ranked = sorted(groups[suit], key=lambda t: (t.is_double, t.low), reverse=True)
        else:
            strength = STRENGTH[trump][suit]
            ranked = sorted(groups[suit], key=lambda t: strength[t], reverse=True)
        named.append((suit_name(suit) if trump is not None else SUIT_NAMES[suit], ranked))
    return named


def in_order(legal: list[Action], view: View) -> list[Action]:
    """The legal actions as numbered for the person: the table's order, but tiles in the
    order the hand is shown."""
    plays = [action for action in legal if isinstance(action, Play)]
    if not plays or len(plays) != len(legal):
        return legal
    trump = view.contract.trump if view.contract else None
    shown = [tile for _, tiles in hand_groups(view.hand, trump) for tile in tiles]
    ordered: list[Action] = [play for play in sorted(plays, key=lambda p: shown.index(p.tile))]
    return ordered
