"""Fit the calibration (``calibration.json``) to a bot's own contracts in match logs:
``referee strong calibrate LOGS... [--name strong]``.

For each point or all-tricks contract the bot declared, the simulation is run again as the
bot runs it when it declares trump (``auction``: the same counts, the deal's other tiles drawn
as the whole auction makes them likely, this time for the trump it named), and its share of
deals made, with the fitted feature model's chance, is paired with whether the contract was
made. A logistic regression of "made" on the log-odds of both and the bid's level gives the
map (all tricks gets a term of its own once the logs hold ``MIN_ALL_TRICKS`` such contracts);
the share of the opponents' contracts made against the bot gives ``opponents_make``. Each
time the bot passed over an opponent's bid that then stood, the simulation is run again as
the bot priced that pass (the opponent's contract solved in deals from the bot's view), and a
regression of "made" on that share gives the defence's map. It prints both curves:
simulated chance against the share really made, by bins.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from referee.rules.actions import DOUBLES, NO_TRUMP, Bid, Pass
from referee.rules.tiles import PARTNERSHIP_OF, SEATS
from referee.solver.search import mask
from referee.strong import beliefs
from referee.strong.beliefs import Auction
from referee.strong.bidding import BiddingModel
from referee.strong.calibration import Calibration, logit
from referee.strong.logs import LoggedHand, NothingToFit, all_hands
from referee.strong.simulation import Judge, Settings, Simulation
from referee.strong.worlds import draw

#: (simulated share, the model's chance, level or None for all tricks, made)
Contract = tuple[float, float, int | None, bool]
#: All-tricks contracts needed to fit their own term.
MIN_ALL_TRICKS = 20


def simulated(logged: LoggedHand, settings: Settings, seed: int) -> float | None:
    """The share of deals in which the declarer's side makes its contract, as the bot's
    simulation finds it when it names trump (None: no deal solved)."""
    contract = logged.contract
    assert contract is not None
    seat = contract.declarer
    hand = mask(logged.hands[seat])
    target = contract.bid.points if isinstance(contract.bid, Bid) else None
    worlds = draw(seat, hand, Auction(logged.bids), random.Random(seed), settings.worlds,
                  settings.proposals)  # fmt: skip
    sim = Simulation(seat, worlds.deals, settings, time.perf_counter() + 3600)
    judge = Judge(Calibration(), {contract.trump: 0.5}, target)
    made, solved = sim.tally([contract.trump], target, judge)[contract.trump]
    return made / solved if solved else None


def contracts(
    hands: list[LoggedHand], name: str, settings: Settings
) -> tuple[list[Contract], int, int]:
    """The bot's contracts with their simulated shares, and (made, declared) of the
    opponents' contracts against it."""
    out: list[Contract] = []
    theirs = made = 0
    model = BiddingModel.load()
    for n, logged in enumerate(hands):
        contract = logged.contract
        if contract is None:
            continue
        ours = logged.names.get(contract.declarer) == name
        if not ours:
            defenders = {s for s in logged.names if PARTNERSHIP_OF[s] != contract.declarers}
            if any(logged.names[s] == name for s in defenders):
                theirs += 1
                made += logged.outcome == "made"
            continue
        share = simulated(logged, settings, n)
        if share is not None:
            level = contract.bid.points if isinstance(contract.bid, Bid) else None
            trump = DOUBLES if contract.trump == NO_TRUMP else contract.trump
            modelled = model.chance(logged.hands[contract.declarer], trump, level or 42)
            out.append((share, modelled, level, logged.outcome == "made"))
    return out, made, theirs


def fit(data: list[Contract]) -> Calibration:
    """Logistic regression of made on (1, logit(share), logit(model), level - 30, all
    tricks), the last only with ``MIN_ALL_TRICKS`` all-tricks contracts."""
    with_all_tricks = sum(level is None for _, _, level, _ in data) >= MIN_ALL_TRICKS
    size = 5 if with_all_tricks else 4
    rows = [
        ([1.0, logit(s), logit(m), 0.0 if lv is None else lv - 30.0, float(lv is None)][:size], y)
        for s, m, lv, y in data
        if with_all_tricks or lv is not None
    ]
    w = logistic(rows)
    return Calibration(w[0], w[1], w[2], w[3], w[4] if with_all_tricks else None)


def logistic(rows: list[tuple[list[float], bool]], steps: int = 25) -> list[float]:
    """The weights of a logistic regression, by Newton's method (a handful of steps for a
    handful of weights)."""
    size = len(rows[0][0])
    w = [0.0] * size
    for _ in range(steps):
        grad = [0.0] * size
        hessian = [[1e-6 if i == j else 0.0 for j in range(size)] for i in range(size)]
        for x, y in rows:
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            for i in range(size):
                grad[i] += (p - y) * x[i]
                for j in range(size):
                    hessian[i][j] += p * (1 - p) * x[i] * x[j]
        w = [wi - di for wi, di in zip(w, solve(hessian, grad), strict=True)]
    return w


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix . x = vector (Gaussian elimination with partial pivoting)."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x


def defended(hands: list[LoggedHand], name: str, settings: Settings) -> list[tuple[float, bool]]:
    """Each time a seat of the bot called ``name`` spoke over an opponent's point bid that
    then stood as the contract: the share of deals in which the simulation finds it made from
    that seat's view then (as ``auction`` prices a pass), and whether it was made."""
    out = []
    for n, logged in enumerate(hands):
        contract = logged.contract
        if contract is None or not isinstance(contract.bid, Bid):
            continue
        for i, move in enumerate(logged.bids):
            high = next((m for m in reversed(logged.bids[:i]) if not isinstance(m.action, Pass)),
                        None)  # fmt: skip
            if (
                logged.names.get(move.seat) != name
                or high is None
                or PARTNERSHIP_OF[high.seat] == PARTNERSHIP_OF[move.seat]
                or (high.seat, high.action) != (contract.declarer, contract.bid)
            ):
                continue
            hand = mask(logged.hands[move.seat])
            worlds = draw(move.seat, hand, Auction(logged.bids[:i]), random.Random(n),
                          settings.worlds, settings.proposals)  # fmt: skip
            sim = Simulation(move.seat, worlds.deals, settings, time.perf_counter() + 3600)
            made, solved = sim.contract(
                SEATS.index(high.seat), contract.bid.points, beliefs.shipped().likeliest_trump,
                settings.defence_deals,
            )  # fmt: skip
            if solved:
                out.append((made / solved, logged.outcome == "made"))
    return out


def curve(data: list[Contract], calibration: Calibration) -> list[str]:
    """Lines of the calibration curve: by bins of the simulated share, the contracts, the
    share made and the calibrated chance."""
    lines = []
    edges = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.97, 1.01]
    for low, high in itertools.pairwise(edges):
        chosen = [c for c in data if low <= c[0] < high and c[2] is not None]
        if chosen:
            made = sum(c[3] for c in chosen) / len(chosen)
            chance = sum(calibration.chance(s, m, lv) for s, m, lv, _ in chosen) / len(chosen)
            lines.append(
                f"simulated {low:.2f}-{min(high, 1):.2f}: {len(chosen):4} contracts,"
                f" {made:.1%} made, calibrated {chance:.1%}"
            )
    return lines


def recalibrate(logs: list[Path], name: str, out: Path) -> Iterator[str]:
    """Fit the calibration to the contracts the bot called ``name`` declared and defended in
    ``logs`` and write it to ``out``; the curves, a line on the data, then one on the file."""
    hands = list(all_hands(logs))
    data, made, theirs = contracts(hands, name, Settings())
    if not data:
        raise NothingToFit(f"no contract declared by {name!r} in these logs")
    defence = defended(hands, name, Settings())
    a, b = (
        logistic([([1.0, logit(share)], made) for share, made in defence])
        if defence
        else (None, None)
    )
    calibration = replace(
        fit(data),
        opponents_make=made / theirs if theirs else 0.5,
        defence_intercept=a,
        defence_slope=b,
    )
    yield from curve(data, calibration)
    yield (
        f"{len(data)} contracts, {sum(c[3] for c in data) / len(data):.1%} made;"
        f" the opponents made {made} of {theirs}; {len(defence)} passes over an opponent's bid"
        f" that stood"
    )
    for low, high in itertools.pairwise([0.0, 0.4, 0.6, 0.8, 0.9, 1.01]):
        chosen = [(s, m) for s, m in defence if low <= s < high]
        if chosen:
            real = sum(m for _, m in chosen) / len(chosen)
            chance = sum(calibration.opponents(s) for s, _ in chosen) / len(chosen)
            yield (f"theirs simulated {low:.2f}-{min(high, 1):.2f}: {len(chosen):4},"
                   f" {real:.1%} made, calibrated {chance:.1%}")  # fmt: skip
    record: dict[str, object] = dict(calibration.to_dict())
    record["fitted_on"] = {
        "logs": len(logs),
        "contracts": len(data),
        "passes": len(defence),
        "name": name,
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    yield f"wrote {out}"
