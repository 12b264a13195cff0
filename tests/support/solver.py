"""What the solver's tests check its tables by: a trick's winner read from them the plain way,
to hold against the engine's own; and the cores this install has."""

from __future__ import annotations

from referee.solver.search import CORE, CompiledSolver, PythonSolver, Tables

#: Each core this install has: the compiled one is held to the same answers as the Python one.
CORES = [PythonSolver, *([CompiledSolver] if CORE == "c" else [])]


def trick_winner(trick: tuple[tuple[int, int], ...], rules: Tables) -> int:
    """The seat whose tile takes a complete trick."""
    suit = rules.called[trick[0][1]]
    strength = rules.strength[suit]
    return max(trick, key=lambda played: strength[played[1]])[0]
