"""The seats an environment plays itself: kit strategies, in process, fed as the referee would.

A policy is a kit ``Strategy`` — a function from a ``referee.bot.Decision`` to an action —
so every kit bot's decision function (``example_bots/heuristic_bot.py``'s ``strategy``) and
any callable of that shape can sit at the table. ``KitSeat`` builds each ``Decision`` from
the engine directly, with the public events since the seat's last decision, its hand history
(``decision.seen``) and an ``rng`` seeded per match: no process, no JSON, same answers.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import random
import shlex
import sys
import time
from types import ModuleType
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
KIT_BOTS: Final = ("heuristic", "kit-random", "search", "strong")


def random_strategy(decision: Decision) -> Action:
    """A random legal action, from the decision's seeded ``rng`` (the kit random bot)."""
    return decision.rng.choice(decision.legal_actions)


@functools.cache
def bundled_program(name: str) -> ModuleType:
    """The bundled kit bot ``name``'s program as a module (its folder importable meanwhile:
    the strong bot imports the heuristic bot beside it)."""
    bot = BY_NAME.get(name)
    if bot is None or name not in KIT_BOTS:
        raise ValueError(f"{name!r} is no bundled kit bot; these are: {', '.join(KIT_BOTS)}")
    module_name = f"referee_env_{name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, BOTS / bot.file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    folder = str(BOTS)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        spec.loader.exec_module(module)
    finally:
        if added:
            sys.path.remove(folder)
    return module


@functools.cache
def bundled_strategy(name: str, flags: tuple[str, ...] = ()) -> Strategy:
    """The strategy of the bundled kit bot ``name`` (``heuristic``, ...): its ``strategy``,
    or the one its command-line ``flags`` describe (``strategy_from``, as the strong bot
    has: ``("--move-ms", "250")``)."""
    module = bundled_program(name)
    if not flags and hasattr(module, "strategy"):
        strategy: Strategy = module.strategy
        return strategy
    if not hasattr(module, "strategy_from"):
        raise ValueError(f"{name!r} takes no flags")
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            strategy = module.strategy_from(list(flags))
    except SystemExit:  # argparse's usage, then its one line of what is wrong
        wrong = said.getvalue().strip().splitlines()[-1:] or ["flags it does not take"]
        raise ValueError(
            f"{name} {shlex.join(flags)}: {wrong[0].partition('error: ')[2] or wrong[0]}"
        ) from None
    return strategy


def policy(choice: Strategy | str) -> Strategy:
    """A strategy from a callable, ``"random"``, or a bundled kit bot's name with its flags,
    if any (``"strong --move-ms 250"``)."""
    if callable(choice):
        return choice
    if choice == "random":
        return random_strategy
    name, *flags = shlex.split(choice) or [""]
    return bundled_strategy(name, tuple(flags))


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
