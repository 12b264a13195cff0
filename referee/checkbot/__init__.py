"""check-bot: a conformance checker for bots, in the spirit of fastchess's ``--compliance``.

``check_bot(command)`` starts the bot sandboxed as a match seat, runs scripted conversations
made of real engine states in seat A — start-up, each phase of a hand, a refusal, unknown
messages and fields, the end of a match — then, for a bot whose ``ready`` says ``"matches":
"many"``, a match in each seat A to D in one process of it, and real matches (8 by
default) in seats A to D in turn, on seeds chosen to lead it into every situation
(``seeds``, ``situations``), against the bundled heuristic and random bots or the opponents
given; it returns a ``CheckReport`` (msgspec
structs: ``msgspec.json.encode(report)`` is its JSON), whose checks of whole matches say seat
by seat what failed (``SeatCheck``), with the fix per fault reason (``advice``), and it
counts the situations the bot met (``Met``). ``report_lines(report)`` renders it as text.
"""

from referee.checkbot.checks import check_bot, check_bot_async
from referee.checkbot.results import (
    CHECKS,
    Check,
    CheckReport,
    CheckSpec,
    DecisionTimes,
    SeatCheck,
    report_lines,
    report_table,
    summary_lines,
)
from referee.checkbot.steps import EXIT_LIMIT

__all__ = [
    "CHECKS",
    "EXIT_LIMIT",
    "Check",
    "CheckReport",
    "CheckSpec",
    "DecisionTimes",
    "SeatCheck",
    "check_bot",
    "check_bot_async",
    "report_lines",
    "report_table",
    "summary_lines",
]
