"""Regenerate the bidding model (``bidding.json``): ``referee strong fit-bidding``.

1. Data: random hands for the declarer; for each of its three likeliest trumps, a few deals
   of the other 21 tiles, each solved exactly with the declarer leading — the most points
   the declarers make (the highest bid whose make-or-set answer is "make").
2. Fit: ordinal logistic regression of "makes b" on the hand's features (``bidding``), by
   gradient descent (standard library only: the data is small).

3. Shift: ``referee strong fit-bidding --calibrate LOGS`` reads match logs of the strong bot
   (a tournament's), compares the model's chance of each point contract it declared with how
   often it was made, and prints the log-odds shift that makes the two agree; ``--shift X``
   writes it in.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
from pathlib import Path

from referee.rules.actions import DOUBLES, Trump
from referee.rules.suits import is_trump
from referee.rules.tiles import TILES, Tile
from referee.solver.search import Position, Solver, mask
from referee.strong.bidding import BIDS, CANDIDATE_TRUMPS, FEATURES, features
from referee.strong.logs import NothingToFit


def most_made(hands: list[list[Tile]], trump: Trump) -> int:
    """The most points seat 0's side makes double dummy with seat 0 leading (29: not even 30)."""
    position = Position(hands=tuple(mask(h) for h in hands), turn=0)  # type: ignore[arg-type]
    if not Solver(trump, 0, BIDS[0]).makes(position):
        return BIDS[0] - 1
    low, high = BIDS[0], BIDS[-1]  # makes low; find the highest that makes
    while low < high:
        middle = (low + high + 1) // 2
        if Solver(trump, 0, middle).makes(position):
            low = middle
        else:
            high = middle - 1
    return low


def likely_trumps(hand: list[Tile], count: int = 3) -> list[Trump]:
    def held(trump: Trump) -> int:
        return sum(is_trump(trump, tile) for tile in hand)

    return sorted(CANDIDATE_TRUMPS, key=lambda t: -held(t) - (0.5 if t == DOUBLES else 0))[:count]


def samples(seed: int, worlds: int) -> list[tuple[list[float], int]]:
    """(features, most points made) for one random hand: its likely trumps, ``worlds`` deals."""
    rng = random.Random(seed)
    tiles = list(TILES)
    rng.shuffle(tiles)
    hand, rest = tiles[:7], tiles[7:]
    out = []
    for trump in likely_trumps(hand):
        x = features(hand, trump)
        for _ in range(worlds):
            rng.shuffle(rest)
            hands = [hand, rest[0:7], rest[7:14], rest[14:21]]
            out.append((x, most_made(hands, trump)))
    return out


def fit(data: list[tuple[list[float], int]], steps: int = 400, rate: float = 2.0) -> dict:  # type: ignore[type-arg]
    """Ordinal logistic regression by full-batch gradient descent on standardised features."""
    n = len(FEATURES)
    means = [sum(x[i] for x, _ in data) / len(data) for i in range(n)]
    scales = [
        math.sqrt(sum((x[i] - means[i]) ** 2 for x, _ in data) / len(data)) or 1.0 for i in range(n)
    ]
    rows = [([(x[i] - means[i]) / scales[i] for i in range(n)], made) for x, made in data]
    w = [0.0] * n
    c = {bid: 0.0 for bid in BIDS}
    pairs = len(rows) * len(BIDS)
    for _ in range(steps):
        gw = [0.0] * n
        gc = dict.fromkeys(BIDS, 0.0)
        for x, made in rows:
            z0 = sum(wi * xi for wi, xi in zip(w, x, strict=True))
            for bid in BIDS:
                p = 1 / (1 + math.exp(-(z0 + c[bid])))
                error = p - (1.0 if made >= bid else 0.0)
                gc[bid] += error
                for i in range(n):
                    gw[i] += error * x[i]
        w = [wi - rate * g / pairs for wi, g in zip(w, gw, strict=True)]
        c = {bid: c[bid] - rate * gc[bid] * len(BIDS) / pairs for bid in BIDS}
    # Back to raw features: w . (x - m) / s + c = (w / s) . x + (c - sum(w m / s)).
    weights = [w[i] / scales[i] for i in range(n)]
    offset = sum(w[i] * means[i] / scales[i] for i in range(n))
    return {
        "features": list(FEATURES),
        "weights": weights,
        "intercepts": {str(bid): c[bid] - offset for bid in BIDS},
        "samples": len(rows),
    }


def calibrate(logs: list[Path], name: str = "strong") -> tuple[int, float, float, float]:
    """(contracts, mean predicted chance, share made, the shift that makes them agree) over
    the point contracts in a trump (not no trump) the bot called ``name`` declared in
    ``logs``."""
    from referee.rules.actions import NO_TRUMP, Bid
    from referee.strong.bidding import BiddingModel
    from referee.strong.logs import all_hands

    model = BiddingModel.load()
    model = BiddingModel(model.weights, model.intercepts)  # unshifted
    logits: list[float] = []
    made = 0
    for hand in all_hands(logs):
        contract = hand.contract
        if contract is None or hand.names.get(contract.declarer) != name:
            continue
        if isinstance(contract.bid, Bid) and contract.trump != NO_TRUMP:  # the model has none
            chance = model.chance(list(hand.hands[contract.declarer]), contract.trump,
                                  contract.bid.points)  # fmt: skip
            logits.append(math.log(chance / (1 - chance)))
            made += hand.outcome == "made"
    if not logits:
        raise NothingToFit(f"no point contract declared by {name!r} in these logs")
    share = made / len(logits)

    def mean(shift: float) -> float:
        return sum(1 / (1 + math.exp(-(z + shift))) for z in logits) / len(logits)

    low, high = -10.0, 10.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if mean(middle) > share else (middle, high)
    return len(logits), mean(0.0), share, (low + high) / 2


def refit(
    hands: int,
    worlds: int,
    seed: int,
    jobs: int,
    shift: float,
    out: Path,
    keep: Path | None = None,
    kept: Path | None = None,
) -> str:
    """Fit the model on ``hands`` new hands of ``worlds`` deals each (or on the samples ``kept``
    by an earlier run, saved to ``keep``), write it to ``out`` with ``shift``; the line that
    says so."""
    if kept is not None:
        data = [(x, made) for x, made in map(json.loads, kept.read_text().splitlines())]
    else:
        seeds = range(seed, seed + hands)
        with multiprocessing.Pool(jobs) as pool:
            chunks = pool.starmap(samples, [(s, worlds) for s in seeds])
        data = [row for chunk in chunks for row in chunk]
    if keep is not None:
        keep.write_text("".join(json.dumps(row) + "\n" for row in data))
    model = fit(data)
    model["shift"] = shift
    model["hands"], model["worlds"], model["seed"] = hands, worlds, seed
    out.write_text(json.dumps(model, indent=1) + "\n")
    return f"fitted on {len(data)} samples; wrote {out}"


def shift_line(logs: list[Path], name: str = "strong") -> str:
    """The line of ``--calibrate``: the shift that makes the model agree with ``logs``."""
    count, predicted, share, shift = calibrate(logs, name)
    return (
        f"{count} contracts: {predicted:.1%} predicted double dummy, {share:.1%} made;"
        f" shift {shift:.3f}"
    )
