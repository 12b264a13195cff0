"""Decision times of one bot from match logs, per phase: ``python -m referee.strong.times
LOGS --name strong``. A decision's time is the referee's own measure (``timing.latency_ms``
of each move: from its write to its read), so it counts the pipes as well as the bot."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from referee.record.log import read_log
from referee.record.records import BotReady, MoveRecord
from referee.rules import AllTricksBid, Bid, DeclareTrump, Pass, Play
from referee.stats import percentile


def phase(action: object) -> str:
    if isinstance(action, Play):
        return "play"
    if isinstance(action, DeclareTrump):
        return "trump"
    assert isinstance(action, Bid | AllTricksBid | Pass)
    return "bid"


def decision_times(logs: list[Path], name: str) -> dict[str, list[float]]:
    """Milliseconds of every decision the bot called ``name`` answered, by phase."""
    times: dict[str, list[float]] = {"bid": [], "trump": [], "play": []}
    for path in logs:
        records = read_log(path).records
        seats = {r.seat for r in records if isinstance(r, BotReady) and r.name == name}
        for record in records:
            if not isinstance(record, MoveRecord) or record.seat not in seats or record.forced:
                continue
            latency = record.timing.latency_ms if record.timing is not None else None
            if latency is not None:
                times[phase(record.action)].append(latency)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", type=Path, help="a directory of match logs")
    parser.add_argument("--name", default="strong", help="the bot's name in its ready")
    parser.add_argument("--limit-ms", type=float, default=220.0)
    args = parser.parse_args()
    times = decision_times(sorted(args.logs.glob("*.jsonl")), args.name)
    every = [t for values in times.values() for t in values]
    for name, values in times.items():
        if values:
            print(
                f"{name}: {len(values)} decisions, {statistics.mean(values):.1f} ms mean,"
                f" {percentile(values, 0.99):.1f} ms p99, {max(values):.1f} ms max"
            )
    over = sum(t > args.limit_ms for t in every)
    print(
        f"times: {len(every)} decisions, max {max(every):.1f} ms,"
        f" {over} over {args.limit_ms:.0f} ms"
    )


if __name__ == "__main__":
    main()
