"""Fit the auction model (``beliefs.json``) to match logs:
``referee strong fit-beliefs LOGS...``.

Every bid or pass a bot chose (``logs.LoggedHand``: the true hand beside the action) is one
observation of the ordinal choice ``beliefs`` models, every declared trump one of the
softmax; both are fitted together, by maximum likelihood (Adam on the full batch; the
standard library only: a few thousand hands fit in a minute). Logs of the heuristic and the
strong bots against each other teach it how both bid; it prints the log-loss of each part
against the rate alone, so a fit that learned nothing shows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.rules.actions import TRUMPS
from referee.solver.search import mask
from referee.strong.beliefs import (
    ALL_TRICKS,
    ROLES,
    TRUMP_RANKS,
    Beliefs,
    Evidence,
    evidence,
    hand_count,
    role_counts,
)
from referee.strong.logs import LoggedHand, NothingToFit, all_hands

#: The parameters, in the order of the fitted vector: the roles' values (the last is 0),
#: then the scalars of ``Beliefs``.
SCALARS = (
    "count",
    "no_trump",
    "base",
    "per_point",
    "past_34",
    "overcall",
    "all_tricks",
    "trump_sharpness",
)
FREE_ROLES = ROLES - 1
START = [3.0, 2.5, 2.0, 1.6, 1.3, 1.1, 1.0, 1.0, 0.05, -1.0, 8.0, 0.3, 0.5, 0.5, 14.0, 1.0]


@dataclass(frozen=True)
class Example:
    hand: int
    #: Per trump: the role counts and the count held.
    roles: tuple[tuple[int, ...], ...]
    count: int
    said: Evidence | None = None
    trump: int | None = None  # the index in TRUMPS of the trump declared


def examples(hands: list[LoggedHand], names: set[str] | None = None) -> list[Example]:
    """The observations in ``hands``: each informative bid or pass, each declared trump (of
    the bots called ``names``; all when None)."""
    out = []
    for logged in hands:
        if not all(logged.chosen):
            continue  # a forced move says nothing of the bot
        said = evidence(logged.bids)
        for seat, tiles in logged.hands.items():
            if names is not None and logged.names.get(seat) not in names:
                continue
            hand = mask(tiles)
            roles = tuple(tuple(role_counts(t, hand)) for t in range(len(TRUMPS)))
            count = hand_count(hand)
            if seat in said:
                out.append(Example(hand, roles, count, said=said[seat]))
            contract = logged.contract
            if contract is not None and contract.declarer == seat:
                out.append(Example(hand, roles, count, trump=TRUMPS.index(contract.trump)))
    return out


def model_of(vector: list[float]) -> Beliefs:
    values = (*vector[:FREE_ROLES], 0.0)
    scalars = dict(zip(SCALARS, vector[FREE_ROLES:], strict=True))
    return Beliefs(values=values, **scalars)


def loss_and_gradient(vector: list[float], data: list[Example]) -> tuple[float, float, list[float]]:
    """(the bids' log-loss, the trumps' log-loss, the gradient of their sum), per example."""
    model = model_of(vector)
    at = {name: FREE_ROLES + i for i, name in enumerate(SCALARS)}
    grad = [0.0] * len(vector)
    bid_loss = trump_loss = 0.0
    bids = trumps = 0
    nt = TRUMPS.index("no_trump")

    def add_strength(t: int, example: Example, scale: float) -> None:
        """The gradient of strength under TRUMPS[t], times ``scale``."""
        counts = example.roles[t]
        for r in range(FREE_ROLES):
            if counts[r]:
                grad[r] += scale * counts[r]
        grad[at["count"]] += scale * example.count
        if t == nt:
            grad[at["no_trump"]] += scale

    for example in data:
        strengths = model.strengths(example.hand)
        if example.said is not None:
            said = example.said
            best = max(range(len(TRUMPS)), key=strengths.__getitem__)
            z = strengths[best] - model.threshold(said.level, said.overcall)
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            y = 1.0 if said.bid else 0.0
            bid_loss -= math.log(max(1e-12, p if said.bid else 1 - p))
            bids += 1
            error = p - y  # d loss / d z
            add_strength(best, example, error)
            if said.level >= ALL_TRICKS:
                grad[at["all_tricks"]] -= error
            else:
                grad[at["base"]] -= error
                grad[at["per_point"]] -= error * (said.level - 30)
                grad[at["past_34"]] -= error * max(0, said.level - 34)
                if said.overcall:
                    grad[at["overcall"]] += error
        if example.trump is not None:
            k = model.trump_sharpness
            scores = [k * s for s in strengths]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            chances = [e / total for e in exps]
            trump_loss -= math.log(max(1e-12, chances[example.trump]))
            trumps += 1
            mean = sum(c * s for c, s in zip(chances, strengths, strict=True))
            grad[at["trump_sharpness"]] += mean - strengths[example.trump]
            for t, c in enumerate(chances):
                add_strength(t, example, k * (c - (1.0 if t == example.trump else 0.0)))
    n = max(1, bids + trumps)
    return bid_loss / max(1, bids), trump_loss / max(1, trumps), [g / n for g in grad]


def fit(data: list[Example], steps: int = 300, rate: float = 0.05) -> tuple[Beliefs, str]:
    """The model of the highest likelihood (Adam from ``START``), and a line on the fit."""
    vector = list(START)
    m = [0.0] * len(vector)
    v = [0.0] * len(vector)
    for step in range(1, steps + 1):
        _, _, grad = loss_and_gradient(vector, data)
        for i, g in enumerate(grad):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            corrected = math.sqrt(v[i] / (1 - 0.999**step)) + 1e-8
            vector[i] -= rate * (m[i] / (1 - 0.9**step)) / corrected
        vector[FREE_ROLES + SCALARS.index("trump_sharpness")] = max(
            0.01, vector[FREE_ROLES + SCALARS.index("trump_sharpness")]
        )
    bid_loss, trump_loss, _ = loss_and_gradient(vector, data)
    said = [e.said for e in data if e.said is not None]
    rate_bid = sum(s.bid for s in said) / max(1, len(said))
    base = -(rate_bid * math.log(rate_bid) + (1 - rate_bid) * math.log(1 - rate_bid))
    line = (
        f"{len(said)} bids and passes: log-loss {bid_loss:.3f} (the rate alone: {base:.3f});"
        f" {len(data) - len(said)} trumps: log-loss {trump_loss:.3f}"
        f" (uniform: {math.log(len(TRUMPS)):.3f})"
    )
    return model_of(vector), line


def refit(logs: list[Path], out: Path, steps: int = 300) -> Iterator[str]:
    """Fit the model to every hand of ``logs`` and write it to ``out``; a line on the fit,
    then one on the file."""
    data = examples(list(all_hands(logs)))
    if not data:
        raise NothingToFit("no bid, pass or trump in these logs")
    model, line = fit(data, steps=steps)
    yield line
    record = model.to_dict()
    record["values"] = list(model.values)
    record["fitted_on"] = {"logs": len(logs), "examples": len(data), "trump_ranks": TRUMP_RANKS}
    out.write_text(json.dumps(record, indent=1) + "\n")
    yield f"wrote {out}"
