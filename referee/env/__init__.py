"""Environments for training agents: the game as PettingZoo and Gymnasium know it.

- ``referee.env.actions``: the canonical action index (0-72), both ways, pure Python;
- ``referee.env.layout`` and ``referee.env.tensors``: each seat's information state and
  observation as float32 tensors, and as text;
- ``referee.env.decisions``: the same tensors, and the mask, computed by a kit bot from its
  ``Decision`` (what its seat was sent), for a trained network at the table;
- ``referee.env.game``: the seam an engine plugs in under (``Game``; ``PythonGame`` is
  ``referee.rules``);
- ``referee.env.aec``: ``TexasEnv``, a PettingZoo AEC environment of four agents;
- ``referee.env.seat``: ``SeatEnv``, a Gymnasium environment of one seat, the other three
  played by kit strategies or any callables (``referee.env.policies``);
- ``referee.env.openspiel``: one hand as an OpenSpiel game, ``python_texas42`` (the
  ``openspiel`` extra).

Needs the ``ai`` extra (``pip install 'referee[ai]'``: numpy, gymnasium, pettingzoo);
nothing else in the referee imports this package but the in-process arena
(``referee.tournament.arena``, ``referee arena``). See ``docs/env.md``.
"""
