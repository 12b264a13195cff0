"""An exact search of a hand's play with every tile known ("double dummy"): does the declaring
side make its contract if both sides play perfectly from here?

For a bot's own search (sampled worlds, as the strong bot does): deal the tiles you cannot
see at random consistently with what you saw (``Decision.hand_so_far()``), ask
``play_values`` of each such deal, and play what makes — or, defending, sets — in the most.
``referee.bot`` re-exports ``play_values``, ``makes`` and ``CORE``.

Two cores give the same answers: a compiled one (``_search.c``, built at install: about 40
million positions a second here) and ``search.PythonSolver`` (about 0.9 million), used where
no C compiler was found. ``CORE`` says which is in use. Both prune alike (twin tiles tried
once, a follower's cheap play first: about half the positions at a first lead);
``pruned=False`` searches every tile, strongest first.
"""

from referee.solver.hands import makes, play_values, search_of
from referee.solver.search import CORE, OutOfTime, Position, Solver

__all__ = ["CORE", "OutOfTime", "Position", "Solver", "makes", "play_values", "search_of"]
