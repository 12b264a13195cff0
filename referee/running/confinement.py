"""How a competition's bots will be confined, decided and said before its first match: a
refusal (``--sandbox strict`` without a protection, a bot that could read the logs) comes
before any file is made.
"""

from __future__ import annotations

from pathlib import Path

from referee.errors import SandboxRefused
from referee.rules.tiles import SEATS
from referee.running.jobs import Entrant
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchLimits, SandboxSettings


def describe_sandbox(
    sandbox: SandboxSettings, limits: MatchLimits, entrants: list[Entrant], secrets: list[Path]
) -> list[str]:
    """One line per distinct sandbox the entrants' bots get (tournament and league);
    ``SandboxRefused``, naming the entrant, when one cannot be had as asked."""
    lines: dict[str, list[str]] = {}
    said: list[str] = []
    for entrant in entrants:
        try:
            decided = plan_sandbox(sandbox, limits, dict.fromkeys(SEATS, entrant.command), secrets)
        except SandboxRefused as exc:
            raise SandboxRefused(f"{entrant.name}: {exc}") from None
        summary = decided.report.brief().replace("for A, B, C, D", "").replace("  ", " ")
        lines.setdefault(summary, []).append(entrant.name)
    for summary, names in lines.items():
        who = f" ({', '.join(names)})" if len(lines) > 1 else ""
        said.insert(0, summary.replace(":", who + ":", 1))
    return said
