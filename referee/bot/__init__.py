"""A kit for Python bots: the protocol loop, typed decisions, and simulation from what a seat saw.

A complete bot::

    from referee.bot import Decision, run

    def strategy(decision: Decision):
        return decision.rng.choice(decision.legal_actions)  # engine actions: Pass(), Play(...)

    if __name__ == "__main__":
        run(strategy, name="my bot")

``run`` answers ``hello`` and every ``act`` (with the right ``id``, flushed), logs rejections,
survives a failing strategy (it answers the first legal action and prints the traceback on
stderr), ignores messages, fields and events it does not know, and plays match after match
(it says ``"matches": "many"``; each ``hello`` starts afresh) until EOF. ``decision.seen``
is the seat's information about the hand (its tiles, every public action, the tiles still
hidden, the suits each seat showed out of), and ``decision.hand_so_far()`` a
``referee.rules.Hand`` rebuilt from it with the hidden tiles dealt at random consistently
with all of that — for PIMC-style search, which ``play_values`` (the exact search of
``referee.solver``: for each legal play of a deal with every tile known, does the declaring
side make its contract?) answers for each such deal. See ``example_bots/README.md`` and
``example_bots/search_bot.py``, a search bot in 30 lines.
"""

from referee.bot.lenient import UnknownType, lenient
from referee.bot.loop import Bot, Decision, HandOver, Hello, MatchOver, Rejection, Strategy, run
from referee.bot.seen import TRUMP_SUIT, HandHistory, HistoryMismatch, Seen
from referee.solver import CORE as SOLVER_CORE
from referee.solver import OutOfTime, makes, play_values

__all__ = [
    "SOLVER_CORE",
    "TRUMP_SUIT",
    "Bot",
    "Decision",
    "HandHistory",
    "HandOver",
    "Hello",
    "HistoryMismatch",
    "MatchOver",
    "OutOfTime",
    "Rejection",
    "Seen",
    "Strategy",
    "UnknownType",
    "lenient",
    "makes",
    "play_values",
    "run",
]
