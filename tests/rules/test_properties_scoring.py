"""Properties of random complete matches: what a trick, a hand and a match score, when each
ends, and that the random policy reaches every kind of hand (see ``support.spectator``)."""

from __future__ import annotations

import random

from support.spectator import (
    MARKS_TO_WIN,
    MAX_HANDS,
    OTHER_SIDE,
    PROPERTY_SETTINGS,
    TRUMP_CHOICES,
    Step,
    ended,
    matches,
    play_match,
    proven,
)

from referee.rules import (
    Acted,
    HandStarted,
    MatchEnded,
    TrickTaken,
)


@PROPERTY_SETTINGS
@matches
def test_points_total_42_and_tricks_score_as_the_rules_say(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def after(step: Step) -> None:
        tr = step.tracker
        tricks = [e for e in step.events if isinstance(e, TrickTaken)]
        if tr.last_trick is None:
            assert not tricks
        else:
            number, winner, side, pts = tr.last_trick
            assert tricks == [TrickTaken(trick=number, winner=winner, side=side, points=pts)]  # type: ignore[arg-type]
        for end in ended(step.events):
            result = end.result
            total = result.points["AC"] + result.points["BD"]
            assert total <= 42
            assert result.points == tr.points
            assert result.tricks == len(tr.piles)
            if result.tricks == 7:
                assert total == 42, result
            if result.outcome == "passed":
                assert result.points == {"AC": 0, "BD": 0} and result.tricks == 0

    play_match(seed, rng, pass_rate, after=after)


@PROPERTY_SETTINGS
@matches
def test_hand_ends_exactly_when_the_result_is_proven(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def after(step: Step) -> None:
        tr = step.tracker
        ends = ended(step.events)
        assert len(ends) == (1 if tr.ended is not None else 0), (step.action, tr.ended, tr.points)
        if tr.last_trick is not None:
            # After each trick: over iff the captured tricks prove the contract.
            assert tr.contract is not None
            decided = proven(tr.contract, tr.points, tr.tricks)
            assert bool(ends) == (decided is not None)
        if ends:
            result = ends[0].result
            outcome, winner = tr.ended  # type: ignore[misc]
            assert (result.outcome, result.winner) == (outcome, winner), result
            if outcome != "passed":
                assert result.tricks == len(tr.piles) <= 7
        elif tr.last_trick is not None:
            assert tr.last_trick[0] < 7  # a hand cannot outlive its seventh trick
        acted = [e for e in step.events if isinstance(e, Acted)]
        assert acted == [Acted(step.seat, step.action)]  # type: ignore[arg-type]

    play_match(seed, rng, pass_rate, after=after)


@PROPERTY_SETTINGS
@matches
def test_marks_go_to_one_side_and_add_up(seed: int, rng: random.Random, pass_rate: float) -> None:
    def after(step: Step) -> None:
        match, tr = step.match, step.tracker
        ends = ended(step.events)
        if not ends:
            assert match.marks == step.marks_before
            assert len(match.results) == step.hands_before
            return
        result = ends[0].result
        assert match.results[-1] == result and len(match.results) == step.hands_before + 1
        gained = {s: match.marks[s] - step.marks_before[s] for s in ("AC", "BD")}
        if result.outcome == "passed":
            assert result.winner is None and result.marks == 0
            assert gained == {"AC": 0, "BD": 0}
            return
        c = tr.contract
        assert c is not None
        assert result.marks == c.stake  # 1 for points, the bid marks for all tricks
        expected_winner = c.declarers if result.outcome == "made" else c.defenders
        assert result.winner == expected_winner
        assert gained[expected_winner] == c.stake
        assert gained[OTHER_SIDE[expected_winner]] == 0

    match, _ = play_match(seed, rng, pass_rate, after=after)
    for side in ("AC", "BD"):
        assert match.marks[side] == sum(r.marks for r in match.results if r.winner == side)


@PROPERTY_SETTINGS
@matches
def test_match_ends_at_the_first_hand_reaching_7(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def after(step: Step) -> None:
        match = step.match
        over = [e for e in step.events if isinstance(e, MatchEnded)]
        reached = [s for s in ("AC", "BD") if match.marks[s] >= MARKS_TO_WIN]
        if not ended(step.events):
            assert not over and not match.is_over and not reached
            return
        assert max(step.marks_before.values()) < MARKS_TO_WIN
        if reached:
            assert len(reached) == 1
            assert match.is_over and match.winner == reached[0]
            assert over == [MatchEnded(winner=reached[0], marks=dict(match.marks))]  # type: ignore[arg-type]
            assert step.events[-1] == over[0]
            assert not any(isinstance(e, HandStarted) for e in step.events)
        else:
            assert not over and not match.is_over and match.winner is None
            assert isinstance(step.events[-1], HandStarted)

    match, _ = play_match(seed, rng, pass_rate, after=after)
    if match.is_over:
        assert match.winner is not None
        assert match.marks[match.winner] >= MARKS_TO_WIN
        assert match.marks[OTHER_SIDE[match.winner]] < MARKS_TO_WIN
        assert match.turn is None and match.legal_actions() == []
    else:
        assert len(match.results) == MAX_HANDS


def test_random_matches_reach_every_branch() -> None:
    """The policy above really produces every kind of hand the properties talk about."""
    seen: set[str] = set()

    def after(step: Step) -> None:
        for end in ended(step.events):
            result, c = end.result, step.tracker.contract
            seen.add(result.outcome)
            if c is not None:
                kind = "all_tricks" if c.all_tricks else "points"
                seen.add(f"{kind}_{result.outcome}")
                seen.add(f"trump_{c.trump}")
                seen.add("seven_tricks" if result.tricks == 7 else "early_end")
                if c.piles:
                    seen.add(f"piles_{c.piles}")
        if any(isinstance(e, MatchEnded) for e in step.events):
            seen.add("match_end")

    for seed in range(40):
        rng = random.Random(seed)
        play_match(seed, rng, [0.0, 0.6, 0.95][seed % 3], after=after)
    wanted = {
        "passed",
        "points_made",
        "points_set",
        "all_tricks_made",
        "all_tricks_set",
        "seven_tricks",
        "early_end",
        "piles_1",
        "piles_2",
        "match_end",
        *(f"trump_{t}" for t in TRUMP_CHOICES),
    }
    assert wanted <= seen, wanted - seen
