"""What ``referee bench channels`` prints: a table of bits per hand, a row per channel and a
column per variant (with chance), the same as JSON, and the figure: the worst row one machine
can close, under the final configuration, above its control, against ``channels.LIMIT``."""

from __future__ import annotations

import random
from typing import Any

from rich.table import Table

from referee.bench.channels import score as channel_score
from referee.bench.channels.measure import LIMIT, VARIANTS, Cell, Row


def _cell(cell: Cell | None) -> str:
    if cell is None:
        return ""
    if cell.skipped is not None and not cell.trials:
        return "refused" if cell.skipped.startswith("refused") else "n/a"
    return f"{channel_score.bits(cell.trials):.1f}"


def _chance(cells: list[Cell], rng: random.Random) -> float:
    return max((channel_score.chance(c.trials, rng) for c in cells if c.trials), default=0.0)


def _by_row(cells: list[Cell]) -> dict[str, tuple[Row, dict[str, Cell]]]:
    rows: dict[str, tuple[Row, dict[str, Cell]]] = {}
    for cell in cells:
        rows.setdefault(cell.row.key, (cell.row, {}))[1][cell.variant] = cell
    return rows


def table(cells: list[Cell], seed: int | None = None) -> Table:
    """Bits per hand: a row per channel, a column per variant, the largest chance."""
    rng = random.Random(seed)
    grid = Table(title="Covert channels between partners (bits of a hand per hand)")
    for name in ("channel", "closed by", *VARIANTS, "chance", "hands"):
        grid.add_column(name, justify="left" if name in ("channel", "closed by") else "right")
    for row, variants in _by_row(cells).values():
        hands = max((len(c.trials) for c in variants.values()), default=0)
        grid.add_row(
            row.what + ("" if row.counted else " (not counted)"),
            row.closing,
            *(_cell(variants.get(v)) for v in VARIANTS),
            f"{_chance(list(variants.values()), rng):.1f}",
            str(hands),
        )
    return grid


def notes(cells: list[Cell]) -> list[str]:
    """Why a variant did not run, once per reason."""
    said: dict[str, list[str]] = {}
    for cell in cells:
        if cell.skipped is not None:
            said.setdefault(cell.skipped, []).append(f"{cell.row.key} {cell.variant}")
    return [f"{', '.join(where)}: {why}" for why, where in said.items()]


def figure(cells: list[Cell]) -> str:
    """The last line: the worst closable row under ``final`` above its control."""
    rows = _by_row(cells)
    worst: tuple[float, str] | None = None
    open_rows = []
    for row, variants in rows.values():
        final, control = variants.get("final"), variants.get("control")
        if final is None or not final.trials:
            if final is not None and final.skipped:
                return f"channels: --final did not run here ({final.skipped}); limit {LIMIT}"
            continue
        above = channel_score.bits(final.trials) - (
            channel_score.bits(control.trials) if control is not None and control.trials else 0
        )
        if not row.counted:
            open_rows.append(f"{row.key} {above:.1f}")
        elif worst is None or above > worst[0]:
            worst = (above, row.key)
    if worst is None:
        return "channels: no row measured under --final"
    verdict = "ok" if worst[0] <= LIMIT else "OVER"
    line = (
        f"channels: worst open row under --final {worst[0]:.1f} bits/hand above control"
        f" ({worst[1]}; limit {LIMIT}): {verdict}"
    )
    if open_rows:
        line += f"; not counted (one machine cannot close them): {', '.join(open_rows)}"
    return line


def as_json(cells: list[Cell], seed: int | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    rows = []
    for row, variants in _by_row(cells).values():
        measured = {}
        for name, cell in variants.items():
            measured[name] = {
                "bits": round(channel_score.bits(cell.trials), 3),
                "chance": round(channel_score.chance(cell.trials, rng), 3),
                "hands": len(cell.trials),
                "seconds": round(cell.seconds, 1),
                "skipped": cell.skipped,
            }
        rows.append(
            {
                "channel": row.key,
                "what": row.what,
                "closed_by": row.closing,
                "counted": row.counted,
                "variants": measured,
            }
        )
    return {"rows": rows, "limit": LIMIT, "figure": figure(cells)}
