"""What ``referee ask`` found, for scripts (``Report``, a msgspec struct: its JSON is
``--json``) and for people (``decision_lines``, ``course_text``...).

Each act asked gets a *standing*: ``as_played`` (the action the log played for its decision:
the bot's answer then, or the fault policy's choice), ``differs`` (legal, but not that action,
or one where the log played none: a forfeit), ``illegal``, ``refused`` (a line the table
refuses before the rules see it) or ``missing`` (no answer: a timeout, a crash...). Every
standing but ``as_played`` is *listed*: the author's regression check. ``ok`` (and the exit
status 0) only when every question asked got a legal answer.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from referee.ask.conversation import Answer
from referee.ask.session import Session
from referee.ask.transcript import Decision, Question, Transcript
from referee.match.stderr import StderrTail
from referee.rules import Action
from referee.rules.tiles import Seat
from referee.rules.views import View

Standing = Literal["as_played", "differs", "illegal", "refused", "missing"]


class LoggedAnswer(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the log says became of the seat's answer to the act."""

    kind: Literal["played", "refused", "fault", "unanswered"]
    action: Action | None = None
    reason: str | None = None
    detail: str | None = None
    rule: str | None = None
    raw: str | None = None


class AskedAct(msgspec.Struct, frozen=True):
    """One act put to the bot: the decision it belongs to, what the log says, the answer now."""

    id: int
    #: The decision's first act id (a refused answer asks it again with a new id).
    decision: int
    hand: int
    phase: str
    view: View
    legal_actions: list[Action]
    logged: LoggedAnswer
    #: How the log settled the decision: the action applied (null after a forfeit), whether
    #: the referee chose it after a fault, and the fault.
    played: Action | None
    forced: bool
    fault: str | None
    answer: Answer
    standing: Standing


class Report(msgspec.Struct, frozen=True):
    """``referee ask --json``."""

    log: str
    seat: Seat
    command: str
    #: The act asked (a sweep: the last one asked for, or null for every decision).
    decision: int | None
    sweep: bool
    startup: list[Answer]
    acts: list[AskedAct]
    #: Ids of the acts whose answer differs from what was played, is illegal, refused or
    #: missing.
    listed: list[int]
    #: Acts left unasked when the bot went away, and how it went.
    unasked: int
    gone: str | None
    #: Every question asked got a legal answer, and none was left unasked.
    ok: bool
    #: The end of the bot's stderr (its last lines; no copy is kept).
    stderr: StderrTail
    ended: str
    sandbox: str


def report(
    log: str,
    command: str,
    transcript: Transcript,
    decision: int | None,
    sweep: bool,
    session: Session,
    sandbox: str,
) -> Report:
    startup = [answer for question, answer in session.asked.answers if question.decision is None]
    acts = [_act(q, a) for q, a in session.asked.answers if q.decision is not None]
    unasked = sum(1 for question in session.asked.unasked if question.decision is not None)
    ok = (
        not session.asked.unasked
        and all(answer.verdict == "legal" for answer in startup)
        and all(act.answer.verdict == "legal" for act in acts)
    )
    return Report(
        log=log,
        seat=transcript.seat,
        command=command,
        decision=decision,
        sweep=sweep,
        startup=startup,
        acts=acts,
        listed=[act.id for act in acts if act.standing != "as_played"],
        unasked=unasked,
        gone=session.asked.gone,
        ok=ok,
        stderr=session.stderr,
        ended=session.ended,
        sandbox=sandbox,
    )


def _act(question: Question, answer: Answer) -> AskedAct:
    decision = question.decision
    assert decision is not None
    logged = decision.logged_at(question.act_id)
    return AskedAct(
        id=question.act_id,
        decision=decision.first_id,
        hand=decision.hand_number,
        phase=decision.view.phase,
        view=decision.view,
        legal_actions=decision.legal_actions,
        logged=LoggedAnswer(
            logged.kind,
            logged.action,
            logged.reason or None,
            logged.detail or None,
            logged.rule,
            logged.raw or None,
        ),
        played=decision.played,
        forced=decision.forced,
        fault=None if decision.fault is None else decision.fault.reason,
        answer=answer,
        standing=standing(decision, answer),
    )


def standing(decision: Decision, answer: Answer) -> Standing:
    if answer.verdict != "legal":
        return answer.verdict
    same = decision.played is not None and decision.played == answer.action
    return "as_played" if same else "differs"
