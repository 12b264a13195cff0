"""The strong bot's budgets: counts fixed from the move time ``hello`` gives and constants,
scaled with it, more for the hard decisions, the clock a guard well inside the move time;
the baseline's as they were."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.strong import first_lead, mid_hand, strong_bot

from referee.bot.loop import Decision, Hello
from referee.bot.seen import HandHistory
from referee.rules import Hand
from referee.rules.deal import deal
from referee.solver import search
from referee.strong import play
from referee.strong.budget import GUARD, HARD, REFERENCE_MS, Budgets, move_ms
from referee.strong.calibration import Calibration, shipped
from referee.strong.play import MAX_NODES, MAX_WORLDS
from referee.strong.simulation import Settings


def decision(hand: Hand, time_ms: int, limits: dict[str, object]) -> Decision:
    """The seat to act's decision in ``hand``, every move so far seen."""
    seat = hand.turn
    assert seat is not None
    history = HandHistory()
    history.moves = list(hand.moves)
    return Decision(
        id=1,
        view=hand.view(seat),
        legal_actions=hand.legal_actions(),
        events=[],
        other_events=[],
        time_ms=time_ms,
        received=0.0,
        hello=Hello(seat=seat, partnership="AC" if seat in "AC" else "BD", seed=1, limits=limits),
        rng=random.Random(1),
        rejection=None,
        history=history,
        raw={},
    )


def test_a_hard_play_gets_the_hard_share_and_a_late_one_the_baselines() -> None:
    """At the reference move time: the first two tricks are hard, the later ones are not."""
    budgets = Budgets(REFERENCE_MS)
    first = budgets.play(first_lead(3).view("A"))
    late = mid_hand(3, 4)
    seat = late.turn
    assert seat is not None
    later = budgets.play(late.view(seat))
    assert (first.nodes, first.worlds) == (round(MAX_NODES * HARD), round(MAX_WORLDS * HARD))
    assert (later.nodes, later.worlds) == (MAX_NODES, MAX_WORLDS)


@given(st.integers(100, 60_000))
def test_the_counts_scale_with_the_move_time_and_the_guard_stays_inside_it(ms: int) -> None:
    budgets, reference = Budgets(ms), Budgets(REFERENCE_MS)
    view = first_lead(3).view("A")
    assert budgets.play(view).nodes == pytest.approx(
        reference.play(view).nodes * ms / REFERENCE_MS, abs=1
    )
    auction = budgets.auction()
    assert auction.max_nodes == pytest.approx(
        reference.auction().max_nodes * ms / REFERENCE_MS, abs=1
    )
    assert auction.deal_nodes == Settings().deal_nodes  # a hard deal is no easier with more time
    assert auction.proposals == 4 * auction.worlds
    # the bound: no decision past 60% of the move time
    assert budgets.seconds == GUARD * ms / 1000 <= 0.6 * ms / 1000


@given(st.integers(100, 60_000))
def test_the_baselines_budgets_are_the_same_at_any_move_time(ms: int) -> None:
    budgets = Budgets.baseline(ms)
    assert budgets.auction() == Settings(pruned=False)  # the search as it was
    view = first_lead(3).view("A")
    assert (budgets.play(view).nodes, budgets.play(view).worlds) == (MAX_NODES, MAX_WORLDS)
    assert budgets.seconds == min(0.2, ms / 5000)


def test_the_move_time_is_hellos_not_the_acts_which_counts_the_bank_left() -> None:
    assert move_ms({"move_timeout_ms": 1000, "time_bank_ms": 5000}, 6000) == 1000
    assert move_ms({}, 800) == 800  # no limits sent (the arena): the act's time
    assert move_ms({"move_timeout_ms": "soon"}, 800) == 800


def test_the_bot_sizes_its_budgets_from_hello_and_its_flags() -> None:
    module = strong_bot()
    hand = Hand("D", deal(5, 1, "D"))
    limits = {"move_timeout_ms": 2000, "time_bank_ms": 3000}
    asked = decision(hand, 4500, limits)
    assert module.Strong().budgets(asked) == Budgets(2000)
    assert module.Strong(baseline=True).budgets(asked) == Budgets.baseline(2000)
    assert module.Strong(move_ms=300).budgets(asked) == Budgets(300)


def test_a_hard_bid_searches_more_deals_than_the_baselines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings the bot's auction runs with: scaled from hello's move time."""
    module = strong_bot()
    hand = Hand("D", deal(5, 1, "D"))
    used: list[Settings] = []
    original = module.Auctioneer.bid

    def spy(self: object, *args: object) -> object:
        used.append(self.settings)  # type: ignore[attr-defined]
        return original(self, *args)

    monkeypatch.setattr(module.Auctioneer, "bid", spy)
    asked = decision(hand, 1000, {"move_timeout_ms": 1000})
    for strong in (module.Strong(baseline=True), module.Strong()):
        strong(asked)
    assert used[0] == Settings(pruned=False)
    assert (
        used[1].worlds == round(Settings().worlds * HARD) and used[1].max_nodes > used[0].max_nodes
    )


def test_the_flags_name_the_versions_and_the_levers_on_trial() -> None:
    module = strong_bot()
    levers = module.strategy_from(["--held-out", "--distinct-deals"])
    assert levers.settings == Settings(held_out=True, distinct=True) and not levers.baseline
    more = module.strategy_from(
        ["--read-play", "--caution", "0.2", "--look-ahead", "3", "--margin", "5"]
    )
    assert more.settings == Settings(read_play=True, caution=0.2, look_ahead=3, tie_margin=5)
    for flag, wrong in [("--look-ahead", "-1"), ("--look-ahead", "1"), ("--look-ahead", "8"),
                        ("--margin", "-1"), ("--margin", "13")]:  # fmt: skip
        with pytest.raises(SystemExit) as exit:
            module.strategy_from([flag, wrong])
        assert exit.value.code == 2
    older = module.strategy_from(["--older-baseline"])
    assert (older.name, older.baseline, older.bidding, older.weigh) == (
        "strong-older-baseline", True, "model", False,
    )  # fmt: skip
    assert older.max_nodes is not None and older.max_nodes < MAX_NODES
    assert module.strategy_from(["--baseline"]).name == "strong-baseline"
    for flags, pruned in [([], True), (["--unpruned-search"], False), (["--baseline"], False),
                          (["--older-baseline"], False)]:  # fmt: skip
        assert module.strategy_from(flags).settings.pruned is pruned  # the baselines as they were
    with pytest.raises(SystemExit):
        module.strategy_from(["--baseline", "--older-baseline"])


def test_a_calibration_file_given_is_the_one_bid_by(tmp_path: Path) -> None:
    module = strong_bot()
    refitted = Calibration(intercept=0.3, slope=0.5, per_point=-0.1, opponents_make=0.6)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(dataclasses.asdict(refitted)))
    assert module.strategy_from(["--calibration", str(path)]).calibration == refitted
    assert module.strategy_from([]).calibration == shipped()
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "other.json").write_text('{"weights": [1]}')
    for wrong in ("missing.json", "broken.json", "other.json"):
        with pytest.raises(SystemExit) as exit:
            module.strategy_from(["--calibration", str(tmp_path / wrong)])
        assert exit.value.code == 2
    with pytest.raises(SystemExit):
        module.strategy_from(["--caution", "3"])


def test_the_baselines_search_unpruned_on_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bid (the auction's deals), a play and its ties (``--margin``): every search the
    baseline makes is the plain one, every search of today's bot pruned."""
    module = strong_bot()
    real = search.Solver
    asked: list[bool] = []

    def spy(*args: object, **kwargs: object) -> object:
        asked.append(bool(kwargs.get("pruned", True)))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "Solver", spy)  # the auction's
    monkeypatch.setattr(play, "Solver", spy)  # the play's and the ties'
    bidding = decision(Hand("D", deal(5, 1, "D")), 1000, {"move_timeout_ms": 1000})
    playing = decision(mid_hand(2, tricks=5), 1000, {"move_timeout_ms": 1000})
    for strong, pruned in [
        (module.Strong(baseline=True, settings=Settings(tie_margin=5)), False),
        (module.strategy_from(["--baseline", "--margin", "5"]), False),
        (module.strategy_from(["--margin", "5"]), True),
    ]:
        asked.clear()
        strong(bidding)
        searched = len(asked)
        strong(playing)
        assert searched >= 1 and len(asked) >= searched + 2  # deals; a play's, then its ties'
        assert set(asked) == {pruned}
