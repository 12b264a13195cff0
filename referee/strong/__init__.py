"""The strong bundled bot's parts (``example_bots/strong_bot.py`` plays with them): an exact
solver of a hand's play with every tile known (``solver``), the choice of a tile from sampled
worlds solved with it (``play``), the bidding model (``bidding``, fitted by ``fit``), and
decision times from logs (``times``)."""
