"""The exact solver's answers on the real deal, as labels: for each legal trump and each legal
tile, does the declaring side make its contract after it, both sides playing perfectly with
every tile known? A bid has none (its worth depends on the trump the winner would name)."""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from referee.dataset.columns import NO_LABEL
from referee.env.actions import FIRST_PLAY, INDEX, SIZE
from referee.rules.actions import DeclareTrump, Trump
from referee.rules.hand import Hand
from referee.solver import OutOfTime, Position, search_of
from referee.solver.search import Search

#: Positions one search may visit before its label is given up (about 0.1 s compiled).
MAX_NODES: Final = 4_000_000


class Labeller:
    """Labels decision after decision of one log. The searches of a hand are kept, one per
    trump, and asked again at its next decisions: what one learned of the deal's positions
    (its table of answers) serves the next, and the declaring seat's search of the trump it
    names is the first trick's."""

    def __init__(self, max_nodes: int = MAX_NODES) -> None:
        self.max_nodes = max_nodes
        self._hand: Hand | None = None
        self._searches: dict[Trump, Search] = {}

    def labels(self, hand: Hand) -> tuple[npt.NDArray[np.int8], bool]:
        """The labels of the decision ``hand`` waits for, one per action index, and whether
        a search was given up at its bound (then every label is ``NO_LABEL``)."""
        out = np.full(SIZE, NO_LABEL, np.int8)
        if hand.phase not in ("playing", "declaring"):
            return out, False
        if self._hand is not hand:
            self._hand, self._searches = hand, {}
        try:
            if hand.phase == "playing":
                search, position = self._search_of(hand)
                for tile, made in search.move_values(position).items():
                    out[FIRST_PLAY + tile] = made  # the search's tiles: TILES order
            else:
                self._declarations(hand, out)
        except OutOfTime:
            return np.full(SIZE, NO_LABEL, np.int8), True
        return out, False

    def _search_of(self, hand: Hand) -> tuple[Search, Position]:
        fresh, position = search_of(hand, self.max_nodes)
        assert hand.contract is not None
        search = self._searches.setdefault(hand.contract.trump, fresh)
        search.nodes = 0  # the bound is each question's
        return search, position

    def _declarations(self, hand: Hand, out: npt.NDArray[np.int8]) -> None:
        """Each legal declaration, in a copy of the hand: the piles shown change what the
        seats see, never what perfect play with every tile known makes, so a trump is
        searched once."""
        seat = hand.turn
        assert seat is not None
        by_trump: dict[Trump, bool] = {}
        for action in hand.legal_actions():
            assert type(action) is DeclareTrump
            if action.trump not in by_trump:
                declared = hand.clone()
                declared.apply(seat, action)
                search, position = self._search_of(declared)
                by_trump[action.trump] = search.makes(position)
            out[INDEX[action]] = by_trump[action.trump]
