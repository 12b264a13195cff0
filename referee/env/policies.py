"""The seats an environment plays itself: kit strategies, in process, fed as the referee would.

A policy is a kit ``Strategy`` — a function from a ``referee.bot.Decision`` to an action —
so every kit bot's decision function (``example_bots/heuristic_bot.py``'s ``strategy``) and
any callable of that shape can sit at the table. ``KitSeat`` builds each ``Decision`` from
the engine directly, with the public events since the seat's last decision, its hand history
(``decision.seen``) and an ``rng`` seeded per match: no process, no JSON, same answers.
"""

from __future__ import annotations

import functools
import importlib.util
import random
import time
from typing import Final

from referee.bot.loop import Decision, Hello, KnownEvent, Strategy
from referee.bot.seen import HandHistory
from referee.bundled import BOTS, BY_NAME
from referee.env.actions import ACTIONS
from referee.env.game import Game
from referee.rules.actions import Action
from referee.rules.events import Acted, Event, HandStarted, TrickTaken
from referee.rules.tiles import PARTNERSHIP_OF, Seat

#: The milliseconds each decision is told it has (``decision.time_left()``).
TIME_MS: Final = 1_000
#: The bundled bots whose program is a kit strategy that ``bundled_strategy`` can load.
KIT_BOTS: Final = ("heuristic", "kit-random", "search")


def random_strategy(decision: Decision) -> Action:
    """A random legal action, from the decision's seeded ``rng`` (the kit random bot)."""
    return decision.rng.choice(decision.legal_actions)


@functools.cache
def bundled_strategy(name: str) -> Strategy:
    """The ``strategy`` function of the bundled kit bot ``name`` (``heuristic``, ...)."""
    bot = BY_NAME.get(name)
    if bot is None or name not in KIT_BOTS:
        raise ValueError(f"{name!r} is no bundled kit bot; these are: {', '.join(KIT_BOTS)}")
    module_name = f"referee_env_{name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, BOTS / bot.file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    strategy: Strategy = module.strategy
    return strategy


def policy(choice: Strategy | str) -> Strategy:
    """A strategy from a callable, ``"random"``, or a bundled kit bot's name."""
    if callable(choice):
        return choice
    if choice == "random":
        return random_strategy
    return bundled_strategy(choice)


class KitSeat:
    """One seat played by a strategy: its hand history and pending events, as the kit's loop
    keeps them, renewed with each match."""

    def __init__(self, seat: Seat, strategy: Strategy) -> None:
        self.seat = seat
        self.strategy = strategy
        self.decisions = 0
        self.rng = random.Random()
        self.history = HandHistory()
        self.pending: list[KnownEvent] = []
        self.hello = Hello(seat=seat, partnership=PARTNERSHIP_OF[seat], seed=0)

    def start(self, seed: int) -> None:
        """A new match: nothing of the last one is kept; ``rng`` is seeded from the match."""
        self.hello = Hello(seat=self.seat, partnership=PARTNERSHIP_OF[self.seat], seed=seed)
        self.rng.seed(f"{seed}:{self.seat}")
        self.history, self.pending = HandHistory(), []

    def see(self, events: list[Event]) -> None:
        """Public events, in order (the kit's loop decodes these three kinds)."""
        self.pending += [e for e in events if type(e) in (Acted, TrickTaken, HandStarted)]  # type: ignore[misc]

    def choose(self, game: Game) -> int:
        """The action index the strategy picks now (the first legal one if it picks none)."""
        legal = game.legal()
        actions = [ACTIONS[i] for i in legal]
        self.history.see(self.pending)
        events, self.pending = self.pending, []
        self.decisions += 1
        decision = Decision(
            id=self.decisions,
            view=game.view(self.seat),
            legal_actions=actions,
            events=events,
            other_events=[],
            time_ms=TIME_MS,
            received=time.monotonic(),
            hello=self.hello,
            rng=self.rng,
            rejection=None,
            history=self.history,
            raw={},
        )
        choice = self.strategy(decision)
        return legal[actions.index(choice)] if choice in actions else legal[0]
