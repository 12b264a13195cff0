"""How much the strong bot may search for a decision: counts fixed from the match's move time
as ``hello`` gives it (``limits.move_timeout_ms``) and the constants here — never from a clock
reading — so that a seeded bot searches the same positions on every run and ``replay
--rerun`` reproduces its matches; the clock is only a guard against a slow machine.

The hard decisions get more (``HARD``): every bid and trump (the auction decides the
contract; the baseline's auction ran out of positions in over half of its searches) and the
first two tricks (most worlds, the deepest searches); the later tricks are cheap and keep the
baseline's count. The time bank is not spent: it is for a machine's hiccup, not for thinking.

``Budgets.baseline`` is the strong bot before its budgets followed the move time (``--baseline``):
the same counts whatever the move time, a guard of the smaller of 200 ms and a fifth of the
move time, and the search as it was then (not pruned).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from referee.rules.views import View
from referee.strong.play import MAX_NODES, MAX_WORLDS
from referee.strong.simulation import Settings

#: The move time the counts below are sized for: at another, they scale with it.
REFERENCE_MS: Final = 1_000
#: At the reference move time, a hard decision searches this many times the baseline's count:
#: about 150 ms of a quiet machine's search at the first lead, 400 ms on a loaded one, under
#: the guard.
HARD: Final = 3.0
#: The share of the move time after which the clock stops a search (its answer is then the
#: best so far, and the bot says so on stderr): the rest covers the answer's way back.
GUARD: Final = 0.45
#: Tiles in hand from which a play is among the first two tricks.
FIRST_TRICKS_HAND: Final = 6
#: Worlds at least, whatever the move time: fewer say too little.
MIN_PLAY_WORLDS: Final = 32
MIN_AUCTION_WORLDS: Final = 16


@dataclass(frozen=True)
class Budget:
    """One decision's bounds: ``nodes`` positions (the count that ends it), ``worlds`` at
    most, and ``seconds`` on the clock (the guard)."""

    nodes: int
    worlds: int
    seconds: float


@dataclass(frozen=True)
class Budgets:
    """The budgets of a match whose move time is ``move_ms``."""

    move_ms: int
    #: The baseline's budgets: fixed counts, the old guard.
    fixed: bool = False
    #: The auction's settings at the reference move time (their counts are scaled).
    settings: Settings = field(default_factory=Settings)

    @classmethod
    def baseline(cls, move_ms: int) -> Budgets:
        return cls(move_ms, fixed=True, settings=Settings(pruned=False))

    @property
    def scale(self) -> float:
        return 1.0 if self.fixed else self.move_ms / REFERENCE_MS

    @property
    def seconds(self) -> float:
        if self.fixed:
            return min(0.2, self.move_ms / 5000)
        return GUARD * self.move_ms / 1000

    def play(self, view: View) -> Budget:
        """A play's: the first two tricks are hard."""
        hard = not self.fixed and len(view.hand) >= FIRST_TRICKS_HAND
        factor = self.scale * (HARD if hard else 1.0)
        worlds = max(MIN_PLAY_WORLDS, round(MAX_WORLDS * factor))
        return Budget(round(MAX_NODES * factor), worlds, self.seconds)

    def auction(self) -> Settings:
        """A bid's or trump's settings: every one is hard. The deals, the proposals they are
        drawn from, the positions and the deals an opponent's contract is priced in all grow
        alike; one deal's bound stays (a deal that needs more is no easier for more time)."""
        base = self.settings
        if self.fixed:
            return base
        factor = self.scale * HARD
        worlds = max(MIN_AUCTION_WORLDS, round(base.worlds * factor))
        return replace(
            base,
            worlds=worlds,
            proposals=base.proposals * worlds // base.worlds,
            max_nodes=round(base.max_nodes * factor),
            defence_deals=max(1, base.defence_deals * worlds // base.worlds),
        )


def move_ms(limits: dict[str, object], time_ms: int) -> int:
    """The move time ``hello``'s limits give, or the act's ``time_ms`` where they give none
    (a referee that sends no limits, the in-process arena)."""
    given = limits.get("move_timeout_ms")
    return given if isinstance(given, int) and given > 0 else time_ms
