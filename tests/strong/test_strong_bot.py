"""The strong bundled bot as a bot: it plays whole matches without a fault, its answers are
reproducible for a seed (``replay --rerun``), and its bidding model is a working file."""

from __future__ import annotations

from pathlib import Path

from support.bot_commands import HEURISTIC_BOT, python

from referee.match.runner import BUNDLED_BOTS, run_match
from referee.rules.tiles import TILES
from referee.settings import MatchSettings
from referee.strong.bidding import BIDS, CANDIDATE_TRUMPS, BiddingModel

STRONG = python(BUNDLED_BOTS / "strong_bot.py")


def test_the_shipped_model_gives_chances_that_fall_as_bids_rise() -> None:
    model = BiddingModel.load()
    hand = list(TILES[:7])
    for trump in CANDIDATE_TRUMPS:
        chances = [model.chance(hand, trump, bid) for bid in BIDS]
        assert all(0 <= c <= 1 for c in chances)
        assert chances == sorted(chances, reverse=True)


async def test_the_strong_bot_plays_a_match_without_a_fault_and_reproducibly(
    tmp_path: Path,
) -> None:
    """Generous time, so that only the count of positions bounds a decision: the same
    seed gives the same game. A's budgets are sized for a 300 ms move (the 10 s move the
    referee gives would make them 33 times the baseline's); C plays as the baseline."""
    commands = {
        "A": STRONG + " --budget-ms 5000 --move-ms 300",
        "B": HEURISTIC_BOT,
        "C": STRONG + " --baseline --budget-ms 5000",
        "D": HEURISTIC_BOT,
    }
    settings = MatchSettings(seed=21, move_timeout=10.0, max_hands=3)
    first = await run_match(settings, commands, tmp_path / "one.jsonl")  # type: ignore[arg-type]
    second = await run_match(settings, commands, tmp_path / "two.jsonl")  # type: ignore[arg-type]
    assert first.faults == {seat: {} for seat in "ABCD"}, first.faults
    assert (first.names["A"], first.names["C"]) == ("strong", "strong-baseline")
    assert first.game_digest == second.game_digest
