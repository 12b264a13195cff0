"""check-bot: a conformance checker for bots, in the spirit of fastchess's ``--compliance``.

``check_bot(command)`` starts the bot sandboxed as a match seat, runs scripted conversations
made of real engine states — start-up, each phase of a hand, a refusal, unknown messages and
fields, the end of a match — and then a real match against the bundled random bot (and, for
a bot whose ``ready`` says ``"matches": "many"``, two matches in one process of it), and
returns a ``CheckReport`` (msgspec structs: ``msgspec.json.encode(report)`` is its JSON).
``report_lines(report)`` renders it as text.
"""

from referee.checkbot.checks import EXIT_LIMIT, check_bot, check_bot_async
from referee.checkbot.report import (
    CHECKS,
    Check,
    CheckReport,
    CheckSpec,
    DecisionTimes,
    report_lines,
    report_table,
    summary_lines,
)

__all__ = [
    "CHECKS",
    "EXIT_LIMIT",
    "Check",
    "CheckReport",
    "CheckSpec",
    "DecisionTimes",
    "check_bot",
    "check_bot_async",
    "report_lines",
    "report_table",
    "summary_lines",
]
