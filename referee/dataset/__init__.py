"""Training data from matches: one row per decision of every verified replay log, in Parquet.

- ``referee.dataset.columns``: the columns, their types and meaning (``docs/dataset.md``
  prints them), and ``read``: a file's rows back as numpy arrays, the tensors as float32;
- ``referee.dataset.decisions``: a log's decisions as rows (the seat's information state and
  observation as ``referee.env`` makes them, the mask, the action, the outcomes);
- ``referee.dataset.labels``: the exact solver's make-or-set answer for each legal tile and
  each trump in the real deal;
- ``referee.dataset.export``: many logs at once, on every core, into one file written whole
  or not at all (``referee dataset``).

Needs the ``ai`` extra (numpy, pyarrow).
"""
