"""``referee ask``: a logged decision replayed to a bot, to reproduce a bad move.

``transcript`` rebuilds from a verified log what one seat was told, byte for byte, with the
live table's own parts; ``conversation`` puts those questions to a bot over its
``BotConnection`` and judges each answer with the table's own exchange and rules engine;
``session`` starts the bot sandboxed as a match seat (the log's directory out of its reach)
and closes it on every way out; ``report`` says how each answer stands against what was
played (``--json``) and ``text`` says it to people.
"""

from referee.ask.conversation import Answer, Asked, Conversation
from referee.ask.report import Report, report
from referee.ask.session import Session, ask_bot
from referee.ask.transcript import Question, Transcript, seat_of_act, transcript

__all__ = [
    "Answer",
    "Asked",
    "Conversation",
    "Question",
    "Report",
    "Session",
    "Transcript",
    "ask_bot",
    "report",
    "seat_of_act",
    "transcript",
]
