"""The in-process arena: duplicate matches of kit strategies and index policies, the same
games as the referee's (one checked against ``referee match`` with real bots), scored by
the tournament's own standings and SPRT, and a policy's illegal choice refused by name."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.processes import referee

from referee.bot import Decision
from referee.errors import IllegalAction
from referee.rules import Action, Bid
from referee.tournament.arena import IndexPolicy, arena
from referee.tournament.plan import deal_seeds
from referee.tournament.sprt import Sprt, sprt_report
from referee.tournament.standings import pair_scores, standings

KIT = {"heuristic": "heuristic", "random": "random"}


def _masked_random(seed: int) -> Any:
    """An index policy: a random legal index, from its own seeded generator."""
    rng = np.random.default_rng(seed)

    def act(tensor: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
        assert tensor.dtype == np.float32
        return int(rng.choice(np.flatnonzero(mask)))

    return act


def test_the_heuristic_wins_more_than_random_in_the_tournaments_standings() -> None:
    played = arena(KIT, seeds=4, seed=3)
    assert [r.match_id for r in played.results] == [
        f"heuristic~random~s{i}~{leg}" for i in range(4) for leg in (1, 2)
    ]
    assert played.standings == standings(["heuristic", "random"], played.results)
    rows = {row.name: row for row in played.standings.standings}
    assert rows["heuristic"].win_rate > rows["random"].win_rate
    assert rows["heuristic"].win_rate_low > 0.5 > rows["random"].win_rate_high
    assert rows["heuristic"].elo is not None and rows["heuristic"].elo_pairs == 4
    assert "heuristic: 8 matches" in played.lines()[0]


def test_the_seed_reproduces_every_match_and_another_seed_deals_others() -> None:
    once = [r.game_digest for r in arena(KIT, seeds=2, seed=11).results]
    again = [r.game_digest for r in arena(KIT, seeds=2, seed=11).results]
    other = [r.game_digest for r in arena(KIT, seeds=2, seed=12).results]
    assert once == again
    assert not set(once) & set(other)
    assert len(set(once)) == 4  # each leg of a pair is a game of its own


def test_a_match_is_the_referees_match_with_the_same_bots(tmp_path: Path) -> None:
    # leg 2 of the first seed: kit-random (the random strategy) holds A+C, heuristic B+D
    played = arena(KIT, seeds=1, seed=5).results[1]
    assert (played.first, played.seed) == ("random", deal_seeds(5, 1)[0])
    ran = referee(
        "match", "--seed", str(played.seed), "--json", "--log", str(tmp_path / "m.jsonl"),
        "bundled:kit-random", "bundled:heuristic", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    assert outcome["game_digest"] == played.game_digest
    assert (outcome["hands"], outcome["marks"]) == (played.hands, played.marks)


def test_the_sprt_is_the_tournaments_and_stops_on_a_whole_pair() -> None:
    test = Sprt(0, 200)
    played = arena(KIT, seeds=30, seed=1, sprt=test)
    report = played.sprt
    assert report is not None and report.verdict == "H1"
    assert report.decided_at_pairs == report.pairs < 30
    assert len(played.results) == 2 * report.pairs  # both legs of every pair, no more
    decided = (report.pairs, test.llr(pair_scores(played.results, "heuristic")))
    assert report == sprt_report(test, played.results, "heuristic", "random", decided, run=True)
    undecided = arena(KIT, seeds=1, seed=1, sprt=test).sprt
    assert undecided is not None and undecided.verdict == "continue"


def test_index_policies_play_on_either_tensor() -> None:
    played = arena(
        {
            "heuristic": "heuristic",
            "net": _masked_random(1),
            "seen": IndexPolicy(_masked_random(2), observed="observation"),
        },
        seeds=2,
        format="gauntlet",
    )
    assert len(played.results) == 8
    assert all(r.first != "net" or r.second != "seen" for r in played.results)
    rows = {row.name: row for row in played.standings.standings}
    assert rows["heuristic"].win_rate > max(rows["net"].win_rate, rows["seen"].win_rate)


def test_max_hands_ends_matches_unfinished() -> None:
    played = arena(KIT, seeds=2, max_hands=1)
    assert {(r.hands, r.end, r.winner) for r in played.results} == {(1, "max_hands", None)}
    assert played.standings.standings[0].unfinished == 4


def test_an_illegal_index_names_the_policy_the_index_and_the_legal_ones() -> None:
    def bids_41_always(tensor: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> int:
        return 12  # bid 41: legal for a while, never once the bidding is over

    with pytest.raises(IllegalAction, match=r"policy 'stubborn' at seat [ABCD] .* index 12 "):
        arena({"stubborn": bids_41_always, "random": "random"}, seeds=1)


def test_an_illegal_action_from_a_strategy_is_refused_not_replaced() -> None:
    def bids_30(decision: Decision) -> Action:
        return Bid(30) if decision.view.hand_number < 9 else random.choice(decision.legal_actions)

    with pytest.raises(IllegalAction, match=r"policy 'bidder' at seat [ABCD] \(decision \d+"):
        arena({"random": "random", "bidder": bids_30}, seeds=1)


def test_an_arena_needs_two_names_and_an_sprt_exactly_two() -> None:
    with pytest.raises(ValueError, match="at least two"):
        arena({"alone": "random"})
    with pytest.raises(ValueError, match="exactly two"):
        arena({**KIT, "third": "random"}, sprt=Sprt(0, 10))


def test_the_command_prints_the_sprt_as_json_and_refuses_a_bad_policy(tmp_path: Path) -> None:
    ran = referee(
        "arena", "--policy", "h=heuristic", "--policy", "r=random", "--seeds", "40",
        "--sprt", "0,100", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    document = json.loads(ran.stdout)
    assert document["sprt"]["verdict"] == "H1"
    assert document["matches"] == 2 * document["sprt"]["pairs"] < 80
    assert [row["name"] for row in document["standings"]["standings"]] == ["h", "r"]
    bad = referee("arena", "--policy", "h=heuristic", "--policy", "r=nope", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "'nope' is no bundled kit bot" in bad.stderr


def test_forked_workers_play_the_same_matches_closures_and_all() -> None:
    chosen = {"heuristic": "heuristic", "net": lambda tensor, mask: int(np.flatnonzero(mask)[-1])}
    alone = arena(chosen, seeds=3, seed=2)
    forked = arena(chosen, seeds=3, seed=2, jobs=2)
    assert forked.results == alone.results and forked.standings == alone.standings
    test = Sprt(0, 200)
    assert (
        arena(KIT, seeds=30, sprt=test, jobs=2).results == arena(KIT, seeds=30, sprt=test).results
    )


def test_a_bundled_bot_plays_with_its_flags_and_a_flag_it_lacks_is_one_line(
    tmp_path: Path,
) -> None:
    """The strong bot in process as its flags describe it (budgets sized for a 100 ms move,
    the clock far off: the counts alone decide, so the games repeat); a flag it does not
    take, or flags for a bot that takes none, is a usage mistake said in one line."""
    from referee.env.policies import policy

    small = policy("strong --move-ms 100 --budget-ms 60000")
    assert small.move_ms == 100 and small.budget_ms == 60000  # type: ignore[attr-defined]
    assert policy("strong --baseline").name == "strong-baseline"  # type: ignore[attr-defined]
    chosen = {"strong": "strong --move-ms 100 --budget-ms 60000", "heuristic": "heuristic"}
    first, again = arena(chosen, seeds=1, max_hands=2), arena(chosen, seeds=1, max_hands=2)
    assert [r.game_digest for r in first.results] == [r.game_digest for r in again.results]
    for kit, said in (
        ("strong --bogus", "strong --bogus: unrecognized arguments: --bogus"),
        ("heuristic --fast", "'heuristic' takes no flags"),
    ):
        bad = referee("arena", "--policy", f"s={kit}", "--policy", "r=random", cwd=tmp_path)
        assert bad.returncode == 2
        assert bad.stderr.count("\n") == 1 and said in bad.stderr, bad.stderr
