"""protocol/RULES.md's rank, count and early-end tables match the engine.

The tables are marked with an HTML comment (``<!-- ranks: ... -->``, ``<!-- count tiles -->``)
just above them (read by ``support.rules_doc.marked_table``) and compared with
``referee/rules/suits.py``, ``tiles.py`` and ``contract.py``.
"""

from __future__ import annotations

import pytest
from support.rules_doc import (
    SUITS,
    TRUMP_NAMES,
    DocError,
    marked_table,
    parse_tiles,
)

from referee.rules import (
    COUNT,
    TRUMPS,
    Bid,
    Tile,
    Trump,
)
from referee.rules.contract import Contract, proven_result
from referee.rules.suits import FOLLOWERS, STRENGTH, TRUMP_SUIT


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
