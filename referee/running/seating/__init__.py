"""Warm pools: bots that can play many matches are kept between them (``pool``), lent to a
match under the fairness rule of ``fairness``. A pool is one ``match.source.BotSource``; the
other, ``match.source.FreshBots``, starts every bot for its match and closes it after."""
