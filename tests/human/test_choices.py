"""What a person types at a decision: every legal action by its number and by its name, and
one line of hint for anything else (never an action that is not legal, never an error)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.human.choices import (
    Help,
    Hint,
    Quit,
    choose,
    label,
    spellings,
    summary,
)
from referee.human.sorting import in_order
from referee.rules import (
    DOUBLES,
    NO_TRUMP,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Match,
    Pass,
    Play,
    Tile,
    View,
)


def decisions(seeds: range) -> Iterator[tuple[View, list[Action]]]:
    """Every decision of random matches: the view and the legal actions, as the table has
    them (the random bidding makes all-tricks contracts often enough to meet every trump and
    pile choice)."""
    for seed in seeds:
        rng = random.Random(seed)
        match = Match(seed)
        while not match.is_over and match.hand.hand_number <= 6:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            yield match.view(seat), legal
            match.apply(seat, rng.choice(legal))


def test_every_legal_action_by_its_number_its_label_and_its_spellings() -> None:
    met: set[str] = set()
    for view, legal in decisions(range(60)):
        for number, action in enumerate(in_order(legal, view), start=1):
            assert choose(str(number), legal, view) == action
            assert choose(f"  {number} ", legal, view) == action
            assert choose(label(action), legal, view) == action, label(action)
            assert choose(label(action).upper(), legal, view) == action
            for spelling in spellings(action):
                assert choose(spelling, legal, view) == action, (spelling, action)
            met.add(type(action).__name__)
            if isinstance(action, DeclareTrump):
                met.add(f"trump {action.trump} {action.piles}")
    assert {"Pass", "Bid", "AllTricksBid", "DeclareTrump", "Play"} <= met
    for trump in (*range(7), DOUBLES, NO_TRUMP):
        for piles in (None, 1, 2):
            assert f"trump {trump} {piles}" in met


def _state(phase: str, seed: int = 3) -> tuple[View, list[Action]]:
    for view, legal in decisions(range(seed, seed + 40)):
        under_way = phase != "playing" or len(view.trick) == 1
        for_points = phase != "declaring" or legal[0] == DeclareTrump(0)
        if view.phase == phase and under_way and for_points:
            return view, legal
    raise AssertionError(f"no {phase} decision")


def test_tiles_in_every_usual_spelling() -> None:
    view, legal = _state("playing")
    plays = [a for a in legal if isinstance(a, Play)]
    low, high = plays[0].tile
    for typed in (
        f"{high}-{low}",
        f"[{high}|{low}]",
        f"[{low}|{high}]",
        f"{low}|{high}",
        f"{high}{low}",
        f"{high} {low}",
        f"play {high}-{low}",
        f"{high}/{low}",
    ):
        assert choose(typed, legal, view) == plays[0], typed


def test_a_tile_with_a_blank_half_is_a_tile_not_a_number() -> None:
    view = View(
        seat="A",
        hand_number=1,
        dealer="D",
        marks={"AC": 0, "BD": 0},
        phase="playing",
        turn="A",
        hand=[Tile(0, 1), Tile(2, 2)],
        hand_sizes={"A": 2, "B": 2, "C": 2, "D": 2},
        bids=[],
        contract=None,
        trick=[],
        piles=[],
    )
    legal: list[Action] = [Play(Tile(0, 1)), Play(Tile(2, 2))]
    assert choose("01", legal, view) == Play(Tile(0, 1))
    assert choose("10", legal, view) == Play(Tile(0, 1))
    assert choose("1", legal, view) == Play(Tile(2, 2))  # numbered as the hand is shown


def test_trump_by_name_and_no_trump_in_its_spellings() -> None:
    view, legal = _state("declaring")
    if legal[0].piles is None:  # type: ignore[union-attr]
        assert choose("sixes", legal, view) == DeclareTrump(6)
        assert choose("6s", legal, view) == DeclareTrump(6)
        assert choose("trump sixes", legal, view) == DeclareTrump(6)
        for typed in ("no trump", "No Trump", "notrump", "no_trump", "nt", "follow me"):
            assert choose(typed, legal, view) == DeclareTrump(NO_TRUMP), typed
        assert choose("doubles", legal, view) == DeclareTrump(DOUBLES)


def test_bids_by_points_and_all_tricks_by_marks() -> None:
    view, legal = _state("bidding")
    assert choose("pass", legal, view) == Pass()
    assert choose("p", legal, view) == Pass()
    highest = max(a.points for a in legal if isinstance(a, Bid))
    assert choose(str(highest), legal, view) == Bid(highest)
    assert choose(f"bid {highest}", legal, view) == Bid(highest)
    marks = [a for a in legal if isinstance(a, AllTricksBid)]
    assert choose(f"all tricks for {marks[-1].marks} marks", legal, view) == marks[-1]
    if len(marks) > 1:
        assert "say for how many marks" in _hint("all", legal, view)


def _hint(text: str, legal: list[Action], view: View) -> str:
    choice = choose(text, legal, view)
    assert isinstance(choice, Hint), (text, choice)
    assert "\n" not in choice.text
    return choice.text


def test_a_hint_says_why_and_what_would_do() -> None:
    view, legal = _state("playing")
    held = {a.tile for a in legal if isinstance(a, Play)}
    missing = next(t for t in (Tile(6, 6), Tile(0, 0), Tile(3, 4)) if t not in view.hand)
    assert f"you do not hold {missing}" in _hint(str(missing), legal, view)
    unplayable = [tile for tile in view.hand if tile not in held]
    if unplayable:
        text = _hint(str(unplayable[0]), legal, view)
        assert "does not follow the suit led" in text and str(sorted(held)[0]) in text
    assert f"from 1 to {len(legal)}" in _hint("99", legal, view)
    assert "is not a choice now" in _hint("what now", legal, view)
    assert _hint("", legal, view).startswith("type ")
    view, legal = _state("bidding")
    taken = [a for a in legal if isinstance(a, Bid)]
    if taken and taken[0].points > 30:
        assert "bid 30 is not allowed now" in _hint("30", legal, view)
    assert "tiles are played once trump is named" in _hint("6-4", legal, view)


def test_help_and_leaving_words() -> None:
    view, legal = _state("bidding")
    for typed in ("?", "help", "HELP", "h"):
        assert choose(typed, legal, view) == Help()
    for typed in ("q", "Q", "quit", "exit", "leave"):
        assert choose(typed, legal, view) == Quit()


def test_summary_reads_the_choices() -> None:
    _, legal = _state("bidding")
    assert summary(legal).startswith("pass, bid ")
    _, legal = _state("playing")
    assert summary(legal) == "play " + " ".join(str(a.tile) for a in legal if isinstance(a, Play))


_STATES = list(decisions(range(3)))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30), st.integers(min_value=0, max_value=len(_STATES) - 1))
def test_any_line_is_a_legal_action_help_leave_or_a_one_line_hint(text: str, at: int) -> None:
    view, legal = _STATES[at]
    choice = choose(text, legal, view)
    if isinstance(choice, Hint):
        assert "\n" not in choice.text and choice.text.isprintable()
    else:
        assert isinstance(choice, Help | Quit) or choice in legal
