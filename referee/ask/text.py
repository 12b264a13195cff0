"""``referee ask`` for people: the decision in context, the log's course, the bot's answer,
and a sweep's table of the acts listed.

The lines hold bot text and log text unescaped: the command prints each through
``terminal.shown``. The table's cells are escaped here (``terminal.markup``).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.table import Table

from referee.ask.conversation import Answer
from referee.ask.report import AskedAct, LoggedAnswer, Report, Standing
from referee.ask.transcript import Decision
from referee.record.records import ActRecord
from referee.record.render import marks_text, view_lines
from referee.rules.actions import counted
from referee.terminal.escapes import markup


def logged_text(logged: LoggedAnswer) -> str:
    """The log's answer to one act, in a few words."""
    if logged.kind == "played":
        return str(logged.action)
    if logged.kind == "refused":
        rule = f" [{logged.rule}]" if logged.rule else ""
        return f"refused ({logged.reason}{rule})"
    if logged.kind == "fault":
        return f"no answer ({logged.reason})"
    return "not answered: the log ends"


def answer_text(answer: Answer) -> str:
    """The bot's answer now, in a few words."""
    if answer.verdict == "legal":
        return str(answer.action) if answer.action is not None else f"ready '{answer.name}'"
    if answer.verdict == "illegal":
        return f"{answer.action}: illegal ({answer.rule})"
    if answer.verdict == "refused":
        return f"refused ({answer.reason})"
    return f"no answer ({answer.reason})"


STANDING_TEXT: dict[Standing, str] = {
    "as_played": "as played",
    "differs": "legal, not as played",
    "illegal": "ILLEGAL",
    "refused": "REFUSED",
    "missing": "NO ANSWER",
}


def course_lines(decision: Decision) -> Iterator[str]:
    """How the log settled the decision: each act's answer, then the move or the forfeit."""
    for act_id, logged in zip(decision.ids, decision.logged, strict=True):
        if logged.kind == "refused":
            rule = f" [{logged.rule}]" if logged.rule else ""
            yield f"  #{act_id}: refused ({logged.reason}{rule}): {logged.detail}"
            yield f"      its line: {logged.raw}"
        elif logged.kind == "fault":
            yield f"  #{act_id}: no answer counted ({logged.reason}): {logged.detail}"
        elif logged.kind == "played":
            yield f"  #{act_id}: answered {logged.action}: played"
    if decision.ignored:
        yield f"  ({decision.ignored} lines with another id were ignored meanwhile)"
    fault = decision.fault
    if decision.forced and fault is not None:
        yield (
            f"  the referee played {decision.played} for it (fault {fault.reason},"
            f" strike {fault.strikes})"
        )
    elif decision.played is None and fault is not None:
        yield f"  the fault ({fault.reason}) forfeited the match"
    elif decision.played is None:
        yield "  the log ends before it was settled"


def took_text(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


def answer_lines(answer: Answer, standing: Standing) -> Iterator[str]:
    """The bot's answer in full: its line, what it is, and why it is not legal."""
    took = took_text(answer.ms)
    if answer.verdict == "missing":
        yield f"  {STANDING_TEXT[standing]} after {took}: {answer.reason}: {answer.detail}"
    else:
        yield f"  its line: {answer.raw}"
        yield f"  {answer_text(answer)} — {STANDING_TEXT[standing]} ({took})"
        if answer.verdict != "legal":
            rule = f" ({answer.rule})" if answer.rule else ""
            yield f"  the table would refuse it: {answer.reason}: {answer.detail}{rule}"
    for line in answer.ignored:
        yield f"  ignored first (another id): {line}"


def decision_lines(decision: Decision, act_id: int, asked: AskedAct | None) -> Iterator[str]:
    """The decision in context, the log's course, and the bot's answer to act ``act_id`` now
    (``asked`` None: the bot went away, or did not start, before it)."""
    view = decision.view
    yield (
        f"Decision #{decision.first_id} of seat {decision.seat}: hand {view.hand_number},"
        f" dealer {view.dealer}, marks {marks_text(view.marks)}"
    )
    record = ActRecord(id=act_id, seat=decision.seat, legal_actions=decision.legal_actions)
    yield from view_lines(view, record)
    yield "In the log:"
    yield from course_lines(decision)
    yield f"The bot now (#{act_id}):"
    if asked is None:
        yield "  not asked (why: below)"
    else:
        yield from answer_lines(asked.answer, asked.standing)


def startup_lines(startup: list[Answer]) -> Iterator[str]:
    for answer in startup:
        if answer.verdict == "legal":
            matches = f", matches {answer.matches}" if answer.matches else ""
            yield f"ready: '{answer.name}'{matches} ({took_text(answer.ms)})"
        else:
            yield f"start-up: {answer_text(answer)}: {answer.detail}"
            if answer.raw:
                yield f"  its line: {answer.raw}"


def listed_table(acts: list[AskedAct]) -> Table:
    """The acts whose answers are listed, one row each (cells escaped for rich)."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ("act", "hand", "phase", "in the log", "the bot now", ""):
        table.add_column(column)
    for act in acts:
        table.add_row(
            f"#{act.id}",
            str(act.hand),
            act.phase,
            markup(logged_text(act.logged)),
            markup(answer_text(act.answer)),
            STANDING_TEXT[act.standing],
        )
    return table


def summary_line(report: Report) -> str:
    """How the acts asked stand, in one line."""
    counts = {standing: 0 for standing in STANDING_TEXT}
    for act in report.acts:
        counts[act.standing] += 1
    parts = [f"{counts[standing]} {text}" for standing, text in _COUNTED.items()]
    return f"{counted(len(report.acts), 'act')} asked: " + ", ".join(parts)


_COUNTED: dict[Standing, str] = {
    "as_played": "as played",
    "differs": "legal but not as played",
    "illegal": "illegal",
    "refused": "refused",
    "missing": "without an answer",
}


#: Earlier acts not answered as logged that the single decision's report shows.
EARLIER_SHOWN = 10


def earlier_lines(acts: list[AskedAct]) -> Iterator[str]:
    """Single mode: the acts asked before the one shown, and those that did not go as logged."""
    if not acts:
        return
    listed = [act for act in acts if act.standing != "as_played"]
    same = len(acts) - len(listed)
    yield (
        f"Before it: {counted(len(acts), 'act')} asked, {same or 'none'} answered as played"
        + (":" if listed else ".")
    )
    for act in listed[:EARLIER_SHOWN]:
        yield (
            f"  #{act.id}: in the log {logged_text(act.logged)}; now {answer_text(act.answer)}"
            f" — {STANDING_TEXT[act.standing]}"
        )
    if len(listed) > EARLIER_SHOWN:
        yield f"  and {len(listed) - EARLIER_SHOWN} more (--seat lists them all, --json too)"
