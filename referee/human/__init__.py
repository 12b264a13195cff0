"""A person at the table (``referee play``): one seat played from the terminal.

The person's seat is an ordinary connection to the live table (``match.table``), made in this
process: the table sends it the same ``act`` lines it sends a bot — the view that
``Match.view`` gives that seat, the public events, the legal actions — and judges the line it
answers with exactly as it judges a bot's. Between the two sits ``Person`` (``person.py``),
which reads the referee's lines, shows them (``screen.py``, ``narration.py``), reads what the
person types (``keyboard.py``) and turns it into one of the legal actions (``choices.py``).
"""
