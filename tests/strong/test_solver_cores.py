"""The compiled search (``referee/solver/_search.c``) against the Python one, its oracle: the
same value for every legal tile on random endings and whole deals of every trump and
contract, all-tricks contracts and early ends included, pruned or not (the oracle is the
plain Python search); its budgets; and bad input refused,
never a crash. Where a C compiler is, the compiled core must have been built: a failed build
would silently leave the bot 30 times slower."""

from __future__ import annotations

import random
import shutil
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules.actions import TRUMPS, Trump
from referee.solver import search as solvers
from referee.solver.search import CORE, OutOfTime, Position, PythonSolver

pytestmark = pytest.mark.skipif(CORE != "c", reason="no compiled core: built without a C compiler")


def test_the_compiled_core_is_built_where_a_compiler_is() -> None:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    assert CORE == "c"


def _deal(rng: random.Random, tricks_played: int) -> tuple[tuple[int, int, int, int], int]:
    tiles = list(range(28))
    rng.shuffle(tiles)
    left = tiles[tricks_played * 4 :]
    size = len(left) // 4
    hands = tuple(sum(1 << tile for tile in left[i * size : (i + 1) * size]) for i in range(4))
    return hands, rng.randrange(4)  # type: ignore[return-value]


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    tricks_played=st.integers(0, 6),
    trump=st.sampled_from(TRUMPS),
    declarers=st.integers(0, 1),
    target=st.sampled_from([30, 31, 33, 35, 38, 41, None]),
    into_trick=st.integers(0, 3),
)
def test_every_tiles_value_is_the_python_searchs(
    seed: int,
    tricks_played: int,
    trump: Trump,
    declarers: int,
    target: int | None,
    into_trick: int,
) -> None:
    rng = random.Random(seed)
    hands, turn = _deal(rng, tricks_played)
    trick: list[tuple[int, int]] = []
    for step in range(into_trick if tricks_played < 7 else 0):  # tiles already down
        seat = (turn + step) % 4
        mine = [tile for tile in range(28) if hands[seat] >> tile & 1]
        if not mine:
            break
        tile = rng.choice(mine)
        trick.append((seat, tile))
        hands = tuple(h & ~(1 << tile) if i == seat else h for i, h in enumerate(hands))  # type: ignore[assignment]
    if any(bin(hands[(turn + len(trick)) % 4]).count("1") == 0 for _ in [0]):
        return  # nothing left to play
    points = (rng.randrange(0, 6 * tricks_played + 1), rng.randrange(0, 6 * tricks_played + 1))
    if target is not None and (points[0] >= target or points[1] > 42 - target):
        return  # a hand already decided is not searched
    position = Position(hands, (turn + len(trick)) % 4, tuple(trick), points)
    python = PythonSolver(trump, declarers, target, pruned=False)
    expected = python.move_values(position)
    made = python.makes(position)
    for pruned in (True, False):
        compiled = solvers.CompiledSolver(trump, declarers, target, pruned=pruned)
        assert compiled.move_values(position) == expected
        assert compiled.makes(position) == made
    assert PythonSolver(trump, declarers, target).move_values(position) == expected


def test_whole_deals_from_the_first_lead_agree() -> None:
    rng = random.Random(42)
    for _ in range(12):
        hands, turn = _deal(rng, 0)
        trump = rng.choice(TRUMPS)
        target = rng.choice([30, 32, 34, 36, None])
        position = Position(hands, turn)
        python = PythonSolver(trump, turn % 2, target, pruned=False)
        compiled = solvers.CompiledSolver(trump, turn % 2, target)
        assert compiled.move_values(position) == python.move_values(position)


def test_both_cores_prune_alike() -> None:
    """The same twins skipped and the same follow order: on endings (too small for the
    compiled table to lose an answer) both cores search exactly as many positions."""
    rng = random.Random(3)
    for _ in range(200):
        hands, leader = _deal(rng, rng.randrange(4, 7))
        trick: list[tuple[int, int]] = []
        for step in range(rng.randrange(4)):  # a trick under way: the root seat follows
            seat = (leader + step) % 4
            tile = rng.choice([t for t in range(28) if hands[seat] >> t & 1])
            trick.append((seat, tile))
            hands = tuple(h & ~(1 << tile) if i == seat else h for i, h in enumerate(hands))  # type: ignore[assignment]
        trump = rng.choice(TRUMPS)
        position = Position(hands, (leader + len(trick)) % 4, tuple(trick))
        python = PythonSolver(trump, leader % 2, 31)
        compiled = solvers.CompiledSolver(trump, leader % 2, 31)
        assert compiled.move_values(position) == python.move_values(position)
        assert compiled.nodes == python.nodes


def test_a_search_past_its_count_of_positions_gives_up_and_says_so() -> None:
    hands, turn = _deal(random.Random(7), 0)
    compiled = solvers.CompiledSolver(6, 0, 34, max_nodes=300)  # it needs about 500
    with pytest.raises(OutOfTime):
        compiled.move_values(Position(hands, turn))
    assert 300 < compiled.nodes < 400
    assert compiled.max_nodes == 300
    compiled.max_nodes = None  # a second search of the same position, with room: it answers
    assert compiled.max_nodes is None
    python = PythonSolver(6, 0, 34)
    assert compiled.move_values(Position(hands, turn)) == python.move_values(Position(hands, turn))


def test_a_search_past_its_deadline_gives_up() -> None:
    """The clock is read every 4,096 positions: a deal that takes more than that."""
    rng = random.Random(7)
    while True:
        hands, turn = _deal(rng, 0)
        probe = solvers.CompiledSolver(6, 0, 34)
        probe.move_values(Position(hands, turn))
        if probe.nodes > 20_000:
            break
    compiled = solvers.CompiledSolver(6, 0, 34, deadline=time.perf_counter() - 1)
    with pytest.raises(OutOfTime):
        compiled.move_values(Position(hands, turn))
    compiled.deadline = None  # no deadline now: it answers
    assert compiled.move_values(Position(hands, turn))


def test_the_count_of_positions_can_be_charged_from_outside() -> None:
    compiled = solvers.CompiledSolver(6, 0, 34)
    compiled.nodes += 100  # the bot charges a world's dealing this way
    assert compiled.nodes == 100


@pytest.mark.parametrize(
    ("hands", "turn", "trick", "why"),
    [
        ((1, 1, 0, 0), 0, (), "disjoint"),
        ((1 << 28, 0, 0, 0), 0, (), "disjoint"),
        ((1, 2, 4, 8), 4, (), "turn"),
        ((1, 2, 4, 8), 0, ((0, 28),), "tile 0-27"),
        ((1, 2, 4, 8), 0, ((0, 1), (1, 2), (2, 3), (3, 4)), "at most 3"),
    ],
)
def test_bad_positions_are_refused(
    hands: tuple[int, int, int, int], turn: int, trick: tuple[tuple[int, int], ...], why: str
) -> None:
    compiled = solvers.CompiledSolver(6, 0, 34)
    with pytest.raises(ValueError, match=why):
        compiled.move_values(Position(hands, turn, trick))


def test_bad_tables_are_refused() -> None:
    from referee.solver import _search  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="28 values"):
        _search.Solver([0] * 27, [0] * 8, [[0] * 28] * 8, [0] * 28, 0, 34)
    with pytest.raises(ValueError, match="suits are 0 to 7"):
        _search.Solver([9] * 28, [0] * 8, [[0] * 28] * 8, [0] * 28, 0, 34)
    with pytest.raises(ValueError, match="target"):
        _search.Solver([0] * 28, [0] * 8, [[0] * 28] * 8, [0] * 28, 0, 99)
    with pytest.raises(ValueError, match="twins and between"):
        _search.Solver([0] * 28, [0] * 8, [[0] * 28] * 8, [0] * 28, 0, 34, pruned=True)
    with pytest.raises(ValueError, match="between: 28 rows"):
        _search.Solver([0] * 28, [0] * 8, [[0] * 28] * 8, [0] * 28, 0, 34, twins=[0] * 28,
                       between=[[0] * 28] * 3, pruned=True)  # fmt: skip
