"""The strong bundled bot's parts (``example_bots/strong_bot.py`` plays with them), over the
exact search of ``referee.solver``: the choice of a tile from sampled worlds solved with it
(``play``), bids and trump from sampled deals solved with it
(``auction``: deals drawn by ``worlds`` as the auction model ``beliefs`` weighs them, chances
corrected by ``calibration``), the fitted feature model (``bidding``, fitted by ``fit``) and
the bids it makes alone (``fallback``), the fits to match logs (``logs``, ``fit_beliefs``,
``calibrate``; their commands: ``referee strong``)."""
