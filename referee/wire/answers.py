"""Which answer a bot may give now: written once, for the live match, check-bot and verify.

No I/O. A bot's decoded message is judged against what the referee awaits from it — its
``ready`` (from a fresh process, or from one kept from an earlier match) or its answer to one
``act`` — and is either the answer, an answer to an earlier act (``stale``: the referee
ignores it and waits on), an answer with an id never asked (``wrong_id``: ignored by the
referee, reported by check-bot), or the wrong type of message (refused as ``BadMessage``).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from referee.errors import BadMessage
from referee.wire.messages import ActionAnswer, BotMessage, Ready

#: Answers with a stale or wrong id the referee skips while waiting for one answer (one ``act``,
#: or one ``ready``); the next is the fault ``too_many_rejections``.
MAX_IGNORED: Final = 100

#: ``answer``: the message awaited. ``stale``: an ``action`` answering an earlier act (or, from
#: a kept process before its ``ready``, its last match's act). ``wrong_id``: an ``action``
#: whose id is later than the act awaited. ``wrong_type``: a ``ready`` where an action is
#: awaited, or an ``action`` where a fresh process's ``ready`` is.
Verdict = Literal["answer", "stale", "wrong_id", "wrong_type"]


class Awaited(msgspec.Struct, frozen=True):
    """What the referee waits for from one seat."""

    #: ``ready`` after ``hello``; ``action`` after an ``act``.
    kind: Literal["ready", "action"]
    #: The id of the act awaited (0 while waiting for ``ready``).
    act_id: int = 0
    #: The process played an earlier match: an ``action`` before its ``ready`` is that
    #: match's late answer.
    kept: bool = False


def awaiting_ready(kept: bool = False) -> Awaited:
    return Awaited("ready", 0, kept)


def awaiting_action(act_id: int) -> Awaited:
    return Awaited("action", act_id)


def judge(awaited: Awaited, message: BotMessage) -> Verdict:
    """Whether ``message`` is the answer awaited, one to ignore, or the wrong message."""
    if type(message) is ActionAnswer:
        if awaited.kind == "ready":
            return "stale" if awaited.kept else "wrong_type"
        if message.id == awaited.act_id:
            return "answer"
        return "stale" if message.id < awaited.act_id else "wrong_id"
    return "answer" if awaited.kind == "ready" else "wrong_type"


def ignored(verdict: Verdict) -> bool:
    """Does the referee skip (and log as ignored) a message so judged?"""
    return verdict == "stale" or verdict == "wrong_id"


def refusal(awaited: Awaited, message: BotMessage) -> BadMessage:
    """The rejection of a message of the wrong type (``judge`` said ``wrong_type``)."""
    got = "ready" if type(message) is Ready else "action"
    return BadMessage(f"expected a {awaited.kind!r} message, got {got!r}")
