"""The dataset's columns: one table of names, Arrow types and meanings, and the reader.

Each tensor is stored as its float32 bytes (little-endian) in a fixed-size binary cell — the
information state 2,575 floats, the observation 502, in the layouts of ``referee.env.layout``
— so a reader gets them back exactly with one ``numpy.frombuffer``; Parquet's compression
takes their zeros (about 100 bytes a decision). The mask and the labels are a byte an action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from referee.env.actions import SIZE
from referee.env.layout import INFORMATION_STATE, OBSERVATION


class Column(NamedTuple):
    """One column: its name, Arrow type, and what a cell holds."""

    name: str
    type: pa.DataType
    meaning: str


#: No label: a bid, an action not legal, or a search stopped at its bound.
NO_LABEL: Final = -1

COLUMNS: Final = (
    Column("match", pa.string(), "the match: its id in a tournament, else the log's file name"),
    Column("seed", pa.uint64(), "the match's seed"),
    Column("hand", pa.uint16(), "the hand's number in the match (1, 2, ...)"),
    Column("decision", pa.uint16(), "the decision's number in the match (0, 1, ...)"),
    Column("seat", pa.uint8(), "the seat that decided, 0-3 (A-D)"),
    Column("bot", pa.string(), "the seat's bot: its entrant's name, else the name it gave"),
    Column("phase", pa.string(), "bidding, declaring or playing"),
    Column(
        "forced",
        pa.bool_(),
        "the action was drawn by the referee for a faulted bot, not chosen by it",
    ),
    Column("action", pa.uint8(), "the action taken: its index, 0-72 (docs/env.md)"),
    Column(
        "mask",
        pa.binary(SIZE),
        f"the legal actions: {SIZE} bytes, 1 for each legal index, else 0",
    ),
    Column(
        "information_state",
        pa.binary(4 * INFORMATION_STATE.size),
        f"the seat's information state: {INFORMATION_STATE.size} float32, little-endian",
    ),
    Column(
        "observation",
        pa.binary(4 * OBSERVATION.size),
        f"the seat's observation: {OBSERVATION.size} float32, little-endian",
    ),
    Column(
        "hand_reward",
        pa.int8(),
        "the marks the seat's side won (+) or lost (-) in this hand; 0 if all passed or the"
        " hand never ended",
    ),
    Column("hand_over", pa.bool_(), "the hand was played to its end (not cut by a forfeit)"),
    Column(
        "hand_points",
        pa.int8(),
        "the points the seat's side took in the hand, -1 if it never ended",
    ),
    Column(
        "match_reward",
        pa.int8(),
        "+1 if the seat's side won the match, -1 if it lost, 0 if no side won",
    ),
)

#: With ``--labels``: the exact solver on the real deal (every tile known).
LABELS: Final = Column(
    "makes",
    pa.binary(SIZE),
    f"{SIZE} int8, one per action index: for each legal trump (declaring) and each legal tile"
    " (playing), 1 if the declaring side then makes its contract with both sides playing"
    f" perfectly, 0 if it is set; {NO_LABEL} for bids, actions not legal, and a search stopped"
    " at its bound",
)


def schema(labels: bool) -> pa.Schema:
    """The file's schema: every column, the labels' last when asked."""
    columns = [*COLUMNS, LABELS] if labels else list(COLUMNS)
    return pa.schema([pa.field(c.name, c.type, nullable=False) for c in columns])


def table_markdown(labels: bool = True) -> str:
    """The columns as a Markdown table (``docs/dataset.md`` holds it; a test compares)."""
    rows = ["| column | type | meaning |", "| --- | --- | --- |"]
    for column in [*COLUMNS, LABELS] if labels else COLUMNS:
        rows.append(f"| `{column.name}` | {column.type} | {column.meaning} |")
    return "\n".join(rows)


def _cells(column: pa.ChunkedArray, dtype: Any, width: int) -> npt.NDArray[Any]:
    """A fixed-size binary column's cells as one (rows, width) array of ``dtype``."""
    joined = column.combine_chunks()
    data = joined.buffers()[1]
    if data is None:  # an empty column
        return np.zeros((0, width), dtype)
    item = np.dtype(dtype).itemsize
    cells = np.frombuffer(
        data, dtype, count=len(joined) * width, offset=joined.offset * width * item
    )
    return cells.reshape(len(joined), width)


class Decisions(NamedTuple):
    """A dataset's rows as numpy arrays: the tensors float32, the mask bool, the labels int8
    (None without them); ``table`` holds every column as Arrow has it."""

    table: pa.Table
    information_states: npt.NDArray[np.float32]
    observations: npt.NDArray[np.float32]
    masks: npt.NDArray[np.bool_]
    actions: npt.NDArray[np.uint8]
    makes: npt.NDArray[np.int8] | None


def decoded(table: pa.Table) -> Decisions:
    """The rows of ``table`` (a dataset's, or a filter of it) as arrays."""
    little = np.dtype(np.float32).newbyteorder("<")
    makes = table.column("makes") if "makes" in table.column_names else None
    return Decisions(
        table=table,
        information_states=_cells(table["information_state"], little, INFORMATION_STATE.size),
        observations=_cells(table["observation"], little, OBSERVATION.size),
        masks=_cells(table["mask"], np.uint8, SIZE).view(np.bool_),
        actions=table["action"].to_numpy(),
        makes=None if makes is None else _cells(makes, np.int8, SIZE),
    )


def read(path: Path | str, filters: list[tuple[str, str, object]] | None = None) -> Decisions:
    """A dataset file's rows (those passing pyarrow ``filters``, e.g. ``[("bot", "==",
    "strong")]``) as arrays."""
    import pyarrow.parquet as pq

    return decoded(pq.read_table(path, filters=filters))
