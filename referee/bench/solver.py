"""How fast the strong bot's exact solver answers make-or-set, trick by trick, on each core
(the compiled one and the Python one it falls back to), and what pruning saves (twin tiles
tried once, follows cheap first: the compiled search run plain too).

Each of ``deals`` seeded deals gets a point contract: the first bidder bids 30 to 35 and
names as trump the number it holds most of. At the lead of each trick — the hand played on
by the solver's own first making (or setting) tile — every legal tile's value is solved from
scratch with all hands known, and timed: the cost the bot pays per sampled world.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from referee.rules import Bid, DeclareTrump, Hand, Pass, Play
from referee.rules.deal import deal
from referee.rules.tiles import LEFT_OF, PARTNERSHIP_OF, SEATS, TILES, seats_from
from referee.solver.search import CORE, CompiledSolver, Position, PythonSolver, Solver, mask
from referee.stats import percentile


@dataclass
class SolverBench:
    #: Per trick (1-7), the seconds of each solve at its lead.
    seconds: dict[int, list[float]] = field(default_factory=dict)
    nodes: int = 0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / sum(sum(times) for times in self.seconds.values())


def _contract(seed: int) -> Hand:
    rng = random.Random(seed)
    dealer = SEATS[seed % 4]
    hand = Hand(dealer, deal(seed, 1, dealer))
    bidder = LEFT_OF[dealer]
    tiles = hand.hands[bidder]
    trump = max(range(7), key=lambda n: (sum(n in tile for tile in tiles), n))
    hand.apply(bidder, Bid(points=30 + rng.randrange(6)))
    for seat in seats_from(bidder)[1:]:
        hand.apply(seat, Pass())
    hand.apply(bidder, DeclareTrump(trump=trump))
    return hand


def run(
    deals: int,
    seed: int = 1,
    solver: type[PythonSolver] | type[CompiledSolver] = Solver,
    pruned: bool = True,
) -> SolverBench:
    """Every deal played out by ``solver``'s own first making (or setting) tile, each lead
    solved and timed."""
    bench = SolverBench()
    for number in range(seed, seed + deals):
        hand = _contract(number)
        contract = hand.contract
        assert contract is not None and isinstance(contract.bid, Bid)
        target = contract.bid.points
        declarers = contract.declarers
        defenders = contract.defenders
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            if not hand.trick:
                declaring = SEATS.index(contract.declarer) % 2
                search = solver(contract.trump, declaring, target, pruned=pruned)
                a, b, c, d = (mask(hand.hands[s]) for s in SEATS)
                position = Position(
                    hands=(a, b, c, d),
                    turn=SEATS.index(seat),
                    points=(hand.points[declarers], hand.points[defenders]),
                )
                started = time.perf_counter()
                values = search.move_values(position)
                bench.seconds.setdefault(len(hand.piles) + 1, []).append(
                    time.perf_counter() - started
                )
                bench.nodes += search.nodes
                ours = PARTNERSHIP_OF[seat] == declarers
                good = [tile for tile, value in values.items() if value == ours]
                tile = TILES[good[0] if good else next(iter(values))]
                hand.apply(seat, Play(tile=tile))
            else:
                hand.apply(seat, hand.legal_actions()[0])
    return bench


def summary(times: list[float]) -> tuple[float, float, float]:
    """(mean, 90th percentile, max) in milliseconds."""
    return statistics.mean(times) * 1000, percentile(times, 0.9) * 1000, max(times) * 1000


def lines(deals: int, seed: int) -> Iterator[str]:
    """Run the benchmark on each core there is (the compiled one first); its lines for
    people, the figure last."""
    cores: list[tuple[str, type[PythonSolver] | type[CompiledSolver], bool]] = []
    if CORE == "c":
        cores += [("C", CompiledSolver, True), ("C, not pruned,", CompiledSolver, False)]
    cores.append(("Python", PythonSolver, True))
    results = {}
    for name, solver, pruned in cores:
        result = results[name] = run(deals, seed, solver, pruned)
        yield f"{name} core:"
        for trick, times in sorted(result.seconds.items()):
            mean, p90, most = summary(times)
            yield (
                f"  trick {trick}: {len(times)} leads, every legal tile solved in {mean:.2f} ms"
                f" mean ({p90:.2f} p90, {most:.2f} max)"
            )
        yield f"  {result.nodes_per_second / 1e6:.2f} M positions/s"
    python = results["Python"]
    first = summary(python.seconds[1])[0]
    if "C" not in results:
        yield (
            f"solver: Python core only (no compiled one here), {python.nodes_per_second / 1e6:.2f}"
            f" M positions/s; first lead {first:.0f} ms mean"
        )
        return
    c, plain = results["C"], results["C, not pruned,"]
    ratio = c.nodes_per_second / python.nodes_per_second
    yield (
        f"pruning: {c.nodes:,} positions against {plain.nodes:,} not pruned"
        f" ({plain.nodes / c.nodes:.1f}x fewer), first lead {summary(c.seconds[1])[0]:.1f} ms"
        f" mean against {summary(plain.seconds[1])[0]:.1f} ms"
    )
    yield (
        f"solver: C {c.nodes_per_second / 1e6:.1f} M positions/s, {ratio:.0f}x Python's"
        f" {python.nodes_per_second / 1e6:.2f} M (target 30x); first lead"
        f" {summary(c.seconds[1])[0]:.1f} ms mean against {first:.0f} ms"
    )
