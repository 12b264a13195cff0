"""The plan of a tournament: pairings, duplicate legs dealing the same tiles to the same seats,
64-bit deal seeds, match ids and log names that never hold a seed, the fingerprint, and the
entrants' names."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.tournaments import (
    INSTANT,
    entrants_of,
    settings_of,
    tournament_cli,
)

from referee.rules.deal import deal, first_dealer
from referee.rules.tiles import SEATS
from referee.running.results import read_results
from referee.settings import MatchLimits as Limits
from referee.tournament.plan import (
    check_entrants,
    deal_seeds,
    pairings,
    plan,
)


def test_round_robin_plays_every_pair_and_gauntlet_the_first_against_each_other() -> None:
    entrants = entrants_of("a", "b", "c", "d")
    names = [(x.name, y.name) for x, y in pairings(entrants, "round-robin")]
    assert names == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    names = [(x.name, y.name) for x, y in pairings(entrants, "gauntlet")]
    assert names == [("a", "b"), ("a", "c"), ("a", "d")]


@pytest.mark.parametrize(("format", "pairs"), [("round-robin", 6), ("gauntlet", 3)])
def test_every_pairing_plays_every_seed_in_duplicate(
    tmp_path: Path, format: str, pairs: int
) -> None:
    settings = settings_of(("a", "b", "c", "d"), seeds=3, format=format)
    jobs = plan(settings, tmp_path)
    seeds = deal_seeds(settings.seed, 3)
    assert len(jobs) == pairs * 3 * 2
    played = Counter((frozenset((job.first.name, job.second.name)), job.seed) for job in jobs)
    assert len(played) == pairs * 3 and set(played.values()) == {2}
    assert {seed for _, seed in played} == set(seeds)
    # Both legs of a duplicate pair are planned one after the other.
    for leg1, leg2 in zip(jobs[::2], jobs[1::2], strict=True):
        assert (leg1.leg, leg2.leg) == (1, 2)
        assert leg1.seed == leg2.seed == leg1.settings.seed == leg2.settings.seed
        assert (leg2.first, leg2.second) == (leg1.second, leg1.first)
        assert leg1.settings == leg2.settings
        one, other = leg1.first.command, leg1.second.command
        assert leg1.commands == {"A": one, "B": other, "C": one, "D": other}
        assert leg2.commands == {"A": other, "B": one, "C": other, "D": one}


def test_duplicate_legs_deal_the_same_tiles_to_the_same_seats_under_the_other_program(
    tmp_path: Path,
) -> None:
    jobs = plan(settings_of(("a", "b", "c"), seeds=2), tmp_path)
    for leg1, leg2 in zip(jobs[::2], jobs[1::2], strict=True):
        dealer = first_dealer(leg1.settings.seed)
        assert first_dealer(leg2.settings.seed) == dealer
        for hand in (1, 2, 3):
            deal1 = deal(leg1.settings.seed, hand, dealer)
            deal2 = deal(leg2.settings.seed, hand, dealer)
            for seat in SEATS:
                assert deal1[seat] == deal2[seat]
                assert leg1.commands[seat] != leg2.commands[seat]
        # The first entrant's partnership holds A+C's tiles in leg 1 and B+D's in leg 2.
        assert leg1.commands["A"] == leg2.commands["B"] == leg1.first.command


def test_match_ids_are_unique_and_deterministic(tmp_path: Path) -> None:
    settings = settings_of(("a", "b", "c"), seeds=5)
    jobs = plan(settings, tmp_path / "logs")
    ids = [job.match_id for job in jobs]
    assert len(set(ids)) == len(ids) == 3 * 5 * 2
    assert len({job.log for job in jobs}) == len(jobs)
    assert all(Path(job.log).parent == tmp_path / "logs" for job in jobs)
    again = plan(settings_of(("a", "b", "c"), seeds=5), tmp_path / "elsewhere")
    assert [job.match_id for job in again] == ids
    assert [job.seed for job in again] == [job.seed for job in jobs]
    other = plan(settings_of(("a", "b", "c"), seeds=5, seed=8), tmp_path / "logs")
    assert [job.match_id for job in other] == ids  # the ids do not tell the seeds apart...
    assert not {job.seed for job in other} & {job.seed for job in jobs}  # ...the deals differ
    # A fixed vector: the same ids on any machine, in any process (no hash randomization).
    assert deal_seeds(1, 1) == [0x6A518882839AF5EE]
    first = plan(settings_of(("a", "b"), seeds=1, seed=1), tmp_path)
    assert [job.match_id for job in first] == ["a~b~s0~1", "a~b~s0~2"]
    assert first[0].seed == 0x6A518882839AF5EE


def test_match_ids_and_log_names_hold_the_seed_index_not_the_seed(tmp_path: Path) -> None:
    """Whoever can list the logs directory must not learn the deals from the names."""
    settings = settings_of(("a", "b", "c"), seeds=12)
    jobs = plan(settings, tmp_path)
    seeds = deal_seeds(settings.seed, 12)
    for job in jobs:
        index = seeds.index(job.seed)
        first, second = sorted((job.first.name, job.second.name))
        assert job.match_id == f"{first}~{second}~s{index:02d}~{job.leg}"  # two digits for 12
        assert Path(job.log).name == f"{job.match_id}.jsonl"
        for text in (job.match_id, job.log):
            assert f"{job.seed:x}" not in text and str(job.seed) not in text
    assert [job.match_id for job in jobs[:2]] == ["a~b~s00~1", "a~b~s00~2"]
    assert jobs[-1].match_id == "b~c~s11~2"
    assert plan(settings_of(("a", "b"), seeds=1000), tmp_path)[-1].match_id == "a~b~s0999~2"


def test_deal_seeds_are_64_bit_and_distinct() -> None:
    seeds = deal_seeds(12345, 500)
    assert all(isinstance(seed, int) and 0 <= seed < 2**64 for seed in seeds)
    assert len(set(seeds)) == 500
    assert max(seeds) >= 2**63  # the whole 64-bit range is used, not 32 bits
    assert deal_seeds(12345, 500) == seeds
    assert not set(deal_seeds(12346, 500)) & set(seeds)
    assert len(deal_seeds(0, 3)) == 3 and len(deal_seeds(2**64 - 1, 3)) == 3


def test_limits_reach_every_match() -> None:
    limits = Limits(move_timeout=2.5, startup_timeout=4.0, max_hands=50, on_fault="random")
    for job in plan(settings_of(limits=limits), Path("logs")):
        assert job.settings.move_timeout == 2.5
        assert job.settings.startup_timeout == 4.0
        assert job.settings.max_hands == 50
        assert job.settings.on_fault == "random"


def test_fingerprint_stands_for_the_settings() -> None:
    base = settings_of()
    assert base.fingerprint() == settings_of().fingerprint()
    others = [
        settings_of(seed=8),
        settings_of(seeds=4),
        settings_of(format="gauntlet"),
        settings_of(("a", "b", "d")),
        settings_of(limits=Limits(move_timeout=2.0)),
    ]
    fingerprints = {settings.fingerprint() for settings in others}
    assert len(fingerprints) == len(others) and base.fingerprint() not in fingerprints


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ((), "at least two entrants"),
        (("solo",), "at least two entrants"),
        (("a", "a"), "must be different"),
        (("a", ""), "entrant name ''"),
        (("a", "two words"), "entrant name 'two words'"),
        (("a", "-dash"), "entrant name '-dash'"),
        (("a", "_under"), "entrant name '_under'"),
        (("a", "x" * 41), "entrant name"),
        (("a", "tilde~name"), "entrant name"),
        (("a", "slash/name"), "entrant name"),
        (("a", "café"), "entrant name"),
    ],
)
def test_bad_entrants_are_refused(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_entrants(entrants_of(*names))


def test_good_entrant_names_pass() -> None:
    check_entrants(entrants_of("A", "x" * 40, "bot_1.2+x-y", "9lives"))


def test_no_name_in_the_logs_directory_holds_a_deal_seed(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    done = tournament_cli(
        *("--bot", f"a={INSTANT}", "--bot", f"b={INSTANT}", "--seeds", "2", "--seed", "11"),
        *("--jobs", "2", "--results", str(results)),
    )
    assert done.returncode == 0, done.stderr
    names = [path.name for path in (tmp_path / "logs").iterdir()]  # logs and stderr files
    for seed in deal_seeds(11, 2):
        for text in (f"{seed:x}", f"{seed:016x}", str(seed)):
            assert not [name for name in names if text in name]
    assert sorted(name for name in names if name.endswith(".jsonl")) == [
        "a~b~s0~1.jsonl",
        "a~b~s0~2.jsonl",
        "a~b~s1~1.jsonl",
        "a~b~s1~2.jsonl",
    ]
    # The results file keeps the seeds (it is the operator's alone).
    assert {result.seed for result in read_results(results)[1]} == set(deal_seeds(11, 2))
