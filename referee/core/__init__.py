"""The compiled rules core: the rules of ``referee.rules`` in a small C library
(``texas42.h``), for the millions of steps a second that training an agent needs.

The library is built into this package at install, as the solver's search is, and builds
alone as a shared library other languages load (``make -C referee/core``; see
``docs/core.md``). ``CORE`` says which engine ``new_engine`` gives: ``"c"``, or ``"python"``
where no C compiler was found — then the Python engine (``referee.spec.facts.PythonEngine``)
answers alike, only slower. Both offer ``referee.spec.facts.Engine``, and
``referee.spec.conformance.check_engine`` and ``referee.spec.lockstep.lockstep`` hold the
compiled one to the Python one.
"""

from __future__ import annotations

from typing import Final

from referee.spec.facts import Engine, PythonEngine

try:
    from referee.core.engine import CompiledEngine
except ImportError:  # built without a C compiler: the Python engine answers alike
    CompiledEngine = None  # type: ignore[assignment,misc]

#: The engine ``new_engine`` gives: "c" (compiled at install) or "python".
CORE: Final = "python" if CompiledEngine is None else "c"


def new_engine(seed: int) -> Engine:
    """A new match from ``seed`` in the fastest engine there is."""
    if CompiledEngine is None:
        return PythonEngine(seed)
    return CompiledEngine(seed)


__all__ = ["CORE", "CompiledEngine", "new_engine"]
