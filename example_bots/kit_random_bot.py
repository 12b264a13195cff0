#!/usr/bin/env python3
"""A random bot written with the Python kit (``referee.bot``): the whole bot is one function.

Run it with the referee's Python (``.venv/bin/python example_bots/kit_random_bot.py``): the
kit is part of the ``referee`` package. Like every kit bot it says ``"matches": "many"``: the
kit starts each match afresh at its ``hello``, so one process can play a tournament's matches.
"""

from referee.bot import Decision, run
from referee.rules import Action


def strategy(decision: Decision) -> Action:
    return decision.rng.choice(decision.legal_actions)  # seeded from each hello: reproducible


if __name__ == "__main__":
    run(strategy, name="kit-random")
