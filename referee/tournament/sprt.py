"""The sequential probability ratio test (SPRT) of one entrant against another, on duplicate
pairs, and what it reports as fastchess users read it: the entrant tested and against whom,
the Elo bounds, the log-likelihood ratio against its bounds, Elo ± its 95% interval, the LOS,
and the pairs' counts (lost both, split, won both — a match has no draw).

The unit is the duplicate pair (the two legs of one deal set, seats swapped): its score for
the tested entrant is 0, ½ or 1 — a trinomial, where fastchess's pairs of chess games are a
pentanomial — and ¼ or ¾ only when one leg was unfinished (nobody won it). The LLR is
fastchess's logistic one on those pair scores (``SPRT::getLLR_logistic``, the generalized
SPRT of fishtest: under each hypothesis the maximum-likelihood distribution of the observed
outcomes with that hypothesis's expected score, Van den Bergh, "Comments on Normalized Elo",
proposition 1.1); an outcome never seen counts 0.001 (fastchess's ``regularize``). Elo and
LOS come from ``referee.stats.elo_estimate`` on the same pairs. Only whole pairs count, so
the test can only decide when a pair ends.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Literal

import msgspec

from referee.running.results import MatchResult
from referee.stats import elo_estimate, signed_elo
from referee.tournament.standings import pair_scores

Verdict = Literal["H1", "H0", "continue"]

#: A pair's score: each leg 1, 0.5 (unfinished) or 0, averaged over the two legs. The
#: quarters take part only once a pair scored one (a leg unfinished).
_TRINOMIAL = (0.0, 0.5, 1.0)
_QUARTERS = (0.25, 0.75)
#: What an outcome never seen counts, as in fastchess: the LLR stays finite.
_UNSEEN = 1e-3


@dataclass(frozen=True)
class Sprt:
    """A sequential test of ``elo0`` against ``elo1`` for the first entrant vs the second."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, pair_scores: list[float]) -> float:
        """The generalized log-likelihood ratio of the whole pairs' scores (0 for fewer than
        two pairs)."""
        return self.llr_of(Counter(pair_scores))

    def llr_of(self, scored: Counter[float]) -> float:
        """``llr`` of the pairs counted by their scores (how many scored each)."""
        if scored.total() < 2:
            return 0.0
        outcomes = sorted({*_TRINOMIAL, *(q for q in _QUARTERS if scored[q])})
        counts = [float(scored[x]) or _UNSEEN for x in outcomes]
        total = sum(counts)
        empirical = [count / total for count in counts]
        p0 = _closest_with_mean(outcomes, empirical, expected_score(self.elo0))
        p1 = _closest_with_mean(outcomes, empirical, expected_score(self.elo1))
        return sum(c * math.log(b / a) for c, a, b in zip(counts, p0, p1, strict=True))

    def verdict(self, llr: float) -> Verdict:
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return "continue"


def _closest_with_mean(outcomes: list[float], empirical: list[float], mean: float) -> list[float]:
    """The distribution over ``outcomes`` with the given mean that maximizes the likelihood
    of ``empirical``: p_i = e_i / (1 + lam (x_i - mean)), lam the root of the slope, which
    falls as lam grows: Newton's steps inside a bracket that bisection keeps (a few steps
    where bisection alone takes fifty)."""
    shifts = [x - mean for x in outcomes]
    low = -1 / max(shifts) + 1e-12
    high = -1 / min(shifts) - 1e-12
    lam = 0.0
    for _ in range(200):
        terms = [d / (1 + lam * d) for d in shifts]
        slope = sum(e * t for e, t in zip(empirical, terms, strict=True))
        if slope > 0:
            low = lam
        else:
            high = lam
        falling = sum(e * t * t for e, t in zip(empirical, terms, strict=True))
        step = lam + slope / falling if falling > 0 else (low + high) / 2
        step = step if low < step < high else (low + high) / 2
        if abs(step - lam) <= 1e-15 * max(1.0, abs(lam)) or high - low <= 1e-15:
            break
        lam = step
    weights = [e / (1 + lam * d) for e, d in zip(empirical, shifts, strict=True)]
    total = sum(weights)
    return [w / total for w in weights]


def expected_score(elo: float) -> float:
    """The score an Elo difference expects (logistic, as fastchess's ``leloToScore``)."""
    return 1 / (1 + 10 ** (-elo / 400))


class SprtReport(msgspec.Struct, frozen=True):
    """The test as it ended: ``--json``'s ``sprt``, the line printed, the report's section.
    Elo values are None before a whole pair, infinite (null in JSON) where every pair was
    won, or lost."""

    entrant: str
    against: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    lower: float
    upper: float
    #: ``H1`` (``entrant`` is ``elo1`` or more stronger), ``H0`` (``elo0`` or less), ``continue``.
    verdict: str
    #: Whole pairs played, and their log-likelihood ratio.
    pairs: int
    llr: float
    #: The pairs after which the test decided, and the ratio then (matches under way when it
    #: decided still finish, and the pairs they began are completed: never half a pair).
    decided_at_pairs: int | None
    decided_llr: float | None
    #: The pairs' counts for ``entrant``: lost both legs, won one each, won both, and pairs
    #: with an unfinished leg (scored ¼ or ¾).
    lost_both: int
    split: int
    won_both: int
    unfinished: int
    #: Elo of ``entrant`` against ``against`` with its 95% interval, and the likelihood of
    #: superiority (0 to 1).
    elo: float | None
    elo_error: float | None
    elo_low: float | None
    elo_high: float | None
    los: float | None

    def lines(self) -> list[str]:
        """The test in fastchess's terms, for people (plain text)."""
        head = (
            f"SPRT {self.entrant} vs {self.against}: elo0 {self.elo0:g}, elo1 {self.elo1:g},"
            f" alpha {self.alpha:g}, beta {self.beta:g} → {self.verdict}"
        )
        if self.verdict != "continue" and self.decided_at_pairs is not None:
            head += f" ({_verdict_words(self)}, decided after {self.decided_at_pairs} pairs"
            if self.decided_at_pairs != self.pairs:
                head += f" at LLR {self.decided_llr:.2f}"
            head += ")"
        elo = "Elo: no whole pair yet"
        if self.pairs:
            elo = f"Elo {_elo_text(self)}, LOS {self.los:.1%}"
        return [
            head,
            f"  {elo}; pairs {self.pairs} ({2 * self.pairs} matches): lost both"
            f" {self.lost_both}, split {self.split}, won both {self.won_both}"
            + (f", with an unfinished leg {self.unfinished}" if self.unfinished else ""),
            f"  LLR {self.llr:.2f} ({_way(self)}) (bounds {self.lower:.2f}, {self.upper:.2f})",
        ]


def _way(report: SprtReport) -> str:
    """How far the ratio has gone towards the bound it leans to (fastchess's percentage)."""
    if report.llr >= 0:
        return f"{report.llr / report.upper:.0%} of the way to H1"
    return f"{report.llr / report.lower:.0%} of the way to H0"


def _verdict_words(report: SprtReport) -> str:
    if report.verdict == "H1":
        return f"{report.entrant} is at least {report.elo1:g} Elo stronger"
    return f"{report.entrant} is at most {report.elo0:g} Elo stronger"


def _elo_text(report: SprtReport) -> str:
    """``+35.2 ± 20.1 (95%)``, or the interval's ends when one is infinite."""
    elo, error = report.elo or 0.0, report.elo_error or 0.0
    if math.isfinite(error):
        return f"{signed_elo(elo)} ± {error:.1f} (95%)"
    low, high = report.elo_low or 0.0, report.elo_high or 0.0
    return f"{signed_elo(elo)} (95%: {signed_elo(low)} to {signed_elo(high)})"


def sprt_report(
    sprt: Sprt,
    results: list[MatchResult],
    entrant: str,
    against: str,
    decided: tuple[int, float] | None = None,
    run: bool = False,
) -> SprtReport:
    """The test over ``results``' whole pairs. ``decided``: the pairs and LLR when the
    verdict was reached during the run (it stays the verdict: it stopped the run; ``run``:
    the run's own state, undecided without it); else the verdict is the first bound the
    pairs crossed, in seed order, as a run stops. ``llr`` is over every whole pair."""
    scores = pair_scores(results, entrant)
    if decided is None and not run:
        decided = first_crossing(sprt, scores)
    verdict = "continue" if decided is None else sprt.verdict(decided[1])
    estimate = elo_estimate(scores)
    return SprtReport(
        entrant=entrant,
        against=against,
        elo0=sprt.elo0,
        elo1=sprt.elo1,
        alpha=sprt.alpha,
        beta=sprt.beta,
        lower=sprt.lower,
        upper=sprt.upper,
        verdict=verdict,
        pairs=len(scores),
        llr=sprt.llr(scores),
        decided_at_pairs=None if decided is None else decided[0],
        decided_llr=None if decided is None else decided[1],
        lost_both=scores.count(0.0),
        split=scores.count(0.5),
        won_both=scores.count(1.0),
        unfinished=sum(score in _QUARTERS for score in scores),
        elo=estimate.elo if estimate else None,
        elo_error=estimate.error if estimate else None,
        elo_low=estimate.low if estimate else None,
        elo_high=estimate.high if estimate else None,
        los=estimate.los if estimate else None,
    )


def first_crossing(sprt: Sprt, scores: list[float]) -> tuple[int, float] | None:
    """The first whole pair after which the test crossed a bound, and its LLR (the pairs
    counted as they come: each prefix's ratio from its counts, not from its pairs)."""
    scored: Counter[float] = Counter()
    for count, score in enumerate(scores, start=1):
        scored[score] += 1
        llr = sprt.llr_of(scored)
        if count >= 2 and sprt.verdict(llr) != "continue":
            return count, llr
    return None
