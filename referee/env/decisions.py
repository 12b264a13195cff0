"""A kit decision's tensors: what a bot in a real match computes for a network trained on the
environments' or a dataset's tensors.

A seat's information state is everything it was sent in this hand, and a kit bot's
``Decision`` keeps exactly that: ``decision.seen`` has the dealer, the marks before the hand,
the seat's tiles now and every ``acted`` event of the hand in order (``seen.moves``), and the
tiles it was dealt are those it holds plus those it played. The observation is made from
``decision.view`` alone, as the environments make it. ``tests/env/test_decisions.py`` holds
both equal to the environments' and to ``referee dataset``'s rows, decision by decision.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from referee.bot.loop import Decision
from referee.bot.seen import Seen
from referee.env.actions import INDEX, SIZE
from referee.env.tensors import Tensor, information_state, observation
from referee.rules.actions import Play
from referee.rules.tiles import Tile


def dealt_of(seen: Seen) -> list[Tile]:
    """The tiles the seat was dealt this hand: those it holds and those it played."""
    return [
        *seen.hand,
        *(m.action.tile for m in seen.moves if m.seat == seen.seat and type(m.action) is Play),
    ]


def information_state_of(decision: Decision) -> Tensor:
    """The seat's information state at ``decision``, as ``TexasEnv`` and ``referee dataset``
    give it (raises the kit's ``HistoryMismatch`` if the seat's events were lost)."""
    seen = decision.seen
    return information_state(seen.seat, seen.dealer, seen.marks, dealt_of(seen), list(seen.moves))


def observation_of(decision: Decision) -> Tensor:
    """The seat's observation at ``decision``, made from its view."""
    return observation(decision.view)


def mask_of(decision: Decision) -> npt.NDArray[np.bool_]:
    """The legal actions as a boolean mask over the action index (73)."""
    mask = np.zeros(SIZE, dtype=np.bool_)
    mask[[INDEX[a] for a in decision.legal_actions]] = True
    return mask
