"""Running many matches, whichever competition asks: jobs in, results out (``jobs``,
``results``), played by worker processes here or on a Dask cluster (``executors``, ``worker``,
``cluster``) with warm bots lent fairly (``seating``); what every competition's matches share
besides: failures told once, logs found, sandboxes said, ratings. A competition (a tournament,
a league) decides which matches to play and what their results mean."""
