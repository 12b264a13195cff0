"""The scripted conversations, by check name, and the start-up check that comes first.

Each is made of real engine states in seat A (``script``) and judged answer by answer
(``steps``); the checks of whole matches are in ``matches``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Final

import trio

from referee.wire.messages import ActionAnswer, Ready, Rejected, encode_line

from . import script as scripts
from .script import Script, extended, future_fields, unknown_event
from .session import Session
from .steps import (
    Context,
    Conversation,
    Verdict,
    ask,
    converse,
    exits,
    expect,
    failed,
    greet,
    in_ms,
    play_on,
)


async def _one_decision(
    make: Callable[[], Script], what: str, session: Session, context: Context
) -> Verdict:
    await greet(session, context)
    script = make()
    answer = await ask(session, context, script, 3)
    expect(answer, 3, script, legal=True)
    return Verdict("passed", f"act 3 ({what}): {answer.text} in {in_ms(answer.seconds)}")


async def playing(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.playing()
    act_id, first = 3, ""
    while script.advance():
        answer = await ask(session, context, script, act_id)
        play_on(script, expect(answer, act_id, script, legal=True))
        first = first or f"act 3 (must follow sixes): {answer.text}"
        act_id += 2
    asked = (act_id - 3) // 2
    return Verdict("passed", f"{first}; all {asked} plays of the hand legal")


async def rejected(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.bidding()
    answer = await ask(session, context, script, 5)
    expect(answer, 5, script, legal=False)
    # A copy of that answer already on its way (a bot that writes each answer twice) is not
    # a reply to the refusal: let it arrive first.
    await session.read_rest(trio.current_time() + 0.1, "act 5")
    refusal = Rejected(
        id=5,
        reason="illegal_action",
        detail="check-bot refuses this answer on purpose: answer the fresh act that follows",
    )
    context.findings.situations["refusal"] += 1
    # Here a repeat of the refused answer is the bug this check looks for: not ignored.
    again = await ask(session, context, script, 6, before=encode_line(refusal), stale_ok=False)
    message = again.message
    if again.kind == "message" and type(message) is ActionAnswer and message.id == 5:
        raise failed(f"after rejected 5 and act 6: {again.text}: the old id 5 again")
    expect(again, 6, script, legal=False)
    return Verdict("passed", f"after rejected 5 and act 6: {again.text}")


async def unknown_message(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.bidding()
    asked: list[int] = []
    act_id = 3
    while script.advance() and len(asked) < 2:
        answer = await ask(
            session, context, script, act_id, before=scripts.UNKNOWN_MESSAGES, extra=unknown_event
        )
        message = answer.message
        if answer.kind == "message" and type(message) is ActionAnswer and message.id == 999:
            raise failed(f"{answer.text}: it answered a message of an unknown type as an act")
        play_on(script, expect(answer, act_id, script, legal=False))
        asked.append(act_id)
        act_id += 2
    return Verdict(
        "passed",
        "answered acts "
        + " and ".join(map(str, asked))
        + ", each after two messages of unknown types and with an event of an unknown type",
    )


async def unknown_fields(session: Session, context: Context) -> Verdict:
    await greet(session, context, extended(scripts.hello(context.settings), future_fields))
    script = scripts.playing()
    act_id = 3
    while script.advance():
        answer = await ask(session, context, script, act_id, extra=future_fields)
        play_on(script, expect(answer, act_id, script, legal=False))
        act_id += 2
    assert script.hand_end is not None
    hand_end = extended(script.hand_end, future_fields)
    script = scripts.second_hand(script.marks_after)
    answer = await ask(session, context, script, act_id, before=hand_end, extra=future_fields)
    expect(answer, act_id, script, legal=False)
    return Verdict(
        "passed",
        f"answered all {(act_id - 1) // 2} acts with unknown fields in hello, limits, act, view,"
        " bids, trick, piles, contract, events, hand_end and review",
    )


async def exit_check(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.last_play({"AC": 6, "BD": 6})
    answer = await ask(session, context, script, 3)
    play_on(script, expect(answer, 3, script, legal=False))
    assert script.hand_end is not None
    end = scripts.match_end(script)
    unsent = await session.send(encode_line(script.hand_end) + encode_line(end))
    if unsent is not None:
        raise failed(f"hand_end and match_end could not be written: {unsent.text}", silent=True)
    took = await exits(session, trio.current_time(), "match_end")
    return Verdict("passed", f"exited with status 0, {in_ms(took)} after match_end")


#: The scripted conversations after start-up, by check name.
CONVERSATIONS: Final[dict[str, Conversation]] = {
    "bidding": partial(_one_decision, scripts.bidding, "bidding over 31"),
    "declaring": partial(_one_decision, scripts.declaring, "trump for a bid of 30"),
    "all_tricks": partial(_one_decision, scripts.all_tricks, "trump for all tricks, 2 marks"),
    "playing": playing,
    "rejected": rejected,
    "unknown_message": unknown_message,
    "unknown_fields": unknown_fields,
    "exit": exit_check,
}


async def startup(context: Context) -> tuple[Verdict, Ready | None, float | None, bool]:
    """hello -> ready: the verdict, the valid ready (None without one), the seconds from the
    bot's start to its ready, and whether it answered hello at all (a refused ready is an
    answer)."""
    began = trio.current_time()
    ready: Ready | None = None
    seconds: float | None = None
    responded = False

    async def talk(session: Session, context: Context) -> Verdict:
        nonlocal ready, seconds, responded
        answer = await greet(session, context)
        responded = True
        limit = context.settings.startup_timeout
        if answer.kind == "malformed":
            raise failed(f"hello: {answer.text}")
        assert type(answer.message) is Ready
        ready, seconds = answer.message, trio.current_time() - began
        if seconds > limit:
            raise failed(f"ready after {seconds:.2f} s, over the {limit:g} s start-up limit")
        return Verdict("passed", f"{answer.text} {in_ms(seconds)} after its start")

    return await converse(context, talk, "startup"), ready, seconds, responded
