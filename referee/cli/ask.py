"""``referee ask``: replay a logged decision to a bot, and show its answer beside the log's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from typer.core import TyperCommand

from referee.cli.app import app
from referee.cli.exits import FAILED, OK
from referee.cli.groups import Given, Output, limit_options, output_options, sandbox_options
from referee.cli.options import SeatName, check_commands, fail, sandbox_plan, seat_of
from referee.terminal.escapes import json_text, shown

if TYPE_CHECKING:
    from referee.ask.conversation import Answer
    from referee.ask.report import Report
    from referee.ask.session import Session
    from referee.ask.transcript import Question, Transcript
    from referee.match.trace import WireTrace
    from referee.record.log import LogFile
    from referee.rules.tiles import Seat
    from referee.sandbox.policy import SandboxPlan
    from referee.settings import MatchSettings

_BEFORE = "ask replays only a log that verifies"
#: The limits of a bot asked alone, the logged match's unless given: its clock, its line and
#: its sandbox. The match goes on as logged whatever it answers, so the time bank (the logged
#: one, as it stood at each decision), the rejections, the fault policy and the hands do not
#: apply; its stderr is kept only for the report.
ASKED_LIMITS: Final = limit_options(
    default="the logged match's",
    without=(
        *("time_bank", "max_rejections", "on_fault", "max_strikes", "max_hands", "stderr_limit"),
        *("pace", "freeze_idle"),  # one bot asked alone: no other seat to hide its time from
    ),
)


class _Usage(TyperCommand):
    """One argument list reads DECISION and BOT (DECISION may be left out with --seat): the
    usage line says so, as typer's would for separate arguments."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return ["[OPTIONS]", "{LOG}", "[DECISION]", "{BOT}"]


@app.command("ask", cls=_Usage)
def ask_command(
    log: Annotated[
        Path, typer.Argument(metavar="LOG", help="A replay log written by 'referee match'.")
    ],
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="DECISION BOT",
            help="DECISION: the id of an act in the log, as 'referee replay LOG' shows it at"
            " each decision (#12); any id of a decision asked again after a refusal names it."
            " BOT: the bot's command, one string split as a shell would. With --seat the"
            " DECISION is optional.",
            show_default=False,
        ),
    ],
    seat: Annotated[
        SeatName | None,
        typer.Option(
            help="Ask every decision of this seat in turn (up to DECISION, if given) and list"
            " each answer that differs from what was played, is illegal or missing.",
            show_default=False,
        ),
    ] = None,
    *,
    limits: Annotated[Given, ASKED_LIMITS],
    sandbox: Annotated[Given, sandbox_options()],
    output: Annotated[Output, output_options("the answers", debug=True)],
) -> None:
    """Send a bot exactly what a seat was told in a logged match, up to one of its decisions,
    and show the bot's answer — legal or not, and why — beside what was played.

    The bot runs sandboxed as a match seat (it cannot read the log). Earlier decisions of the
    seat are asked too, and the match goes on as logged whatever the bot answers. Exit
    status: 0 when every decision asked got a legal answer, 1 when one did not (illegal, no
    answer, a crash), 2 for a usage mistake.
    """
    import msgspec

    from referee.match.rerun import logged_settings
    from referee.record.sandbox import Layer
    from referee.rules.tiles import SEATS

    decision, command = _decision_and_bot(words, seat is not None)
    replay_log = _verified(log)
    asked_seat, told = _seat_and_transcript(replay_log, decision, seat)
    check_commands({asked_seat: command})
    settings = msgspec.structs.replace(logged_settings(replay_log.header), **limits)
    plan = sandbox_plan(sandbox, settings, dict.fromkeys(SEATS, command), [log.parent]).lifted(
        (Layer.PAGE_CACHE,), "a bot asked alone has no partner to pass a hand to"
    )
    session = _run(command, told, decision, seat is not None, settings, plan, output.trace())
    from referee.ask.report import report

    result = report(
        str(log), command, told, decision, seat is not None, session, plan.report.summary()
    )
    if output.json:
        typer.echo(json_text(result))
    else:
        _print(result, told)
    raise typer.Exit(OK if result.ok else FAILED)


def _decision_and_bot(words: list[str], sweep: bool) -> tuple[int | None, str]:
    """DECISION and BOT from the arguments after LOG; DECISION may be left out with --seat."""
    if len(words) == 2 and words[0].lstrip("#").isdigit():
        return int(words[0].lstrip("#")), words[1]
    if len(words) == 2:
        raise fail(f"'{words[0]}' is not a decision's id: give the number 'replay LOG' shows")
    if len(words) == 1 and sweep:
        if words[0].lstrip("#").isdigit():
            raise fail(f"give the bot's command after the decision {words[0]}")
        return None, words[0]
    if len(words) == 1:
        raise fail("give the decision's id before the bot's command, or --seat X to ask all")
    raise fail(f"give a decision's id and one bot command (quoted), not {len(words)} words")


def _verified(path: Path) -> LogFile:
    from referee.errors import LogError, VerificationError
    from referee.record.log import read_log
    from referee.record.verify import verify

    try:
        replay_log = read_log(path)
        verify(replay_log)
    except LogError as exc:
        raise fail(str(exc)) from None
    except VerificationError as exc:
        raise fail(f"{path} does not verify ({exc}): {_BEFORE}") from None
    return replay_log


def _seat_and_transcript(
    replay_log: LogFile, decision: int | None, choice: SeatName | None
) -> tuple[Seat, Transcript]:
    from referee.ask.transcript import seat_of_act, transcript
    from referee.record.records import ActRecord

    records = replay_log.records
    path = replay_log.path
    wanted = None if choice is None else seat_of(choice)
    if decision is not None:
        asked = seat_of_act(records, decision)
        if asked is None:
            last = max((r.id for r in records if type(r) is ActRecord), default=0)
            known = f"its acts are #1 to #{last}" if last else "no decision was asked in it"
            raise fail(f"no act #{decision} in {path}: {known} ('referee replay LOG' shows them)")
        if wanted is not None and wanted != asked:
            raise fail(f"act #{decision} was asked of seat {asked}, not {wanted}")
        return asked, transcript(records, asked)
    assert wanted is not None
    told = transcript(records, wanted)
    if not told.decisions:
        raise fail(f"seat {wanted} made no decision in {path}: there is nothing to ask")
    return wanted, told


def _run(
    command: str,
    told: Transcript,
    decision: int | None,
    sweep: bool,
    settings: MatchSettings,
    plan: SandboxPlan,
    trace: WireTrace | None,
) -> Session:
    """Ask the bot, showing how far a sweep has gone; Ctrl-C, SIGTERM and SIGHUP close it."""
    from functools import partial

    from referee.ask.session import ask_bot
    from referee.cli.foreground import in_foreground
    from referee.terminal.progress import LongWork
    from referee.terminal.tables import people_console

    questions = told.through(decision)
    acts = sum(1 for question in questions if question.decision is not None) if sweep else 0
    work = LongWork("decisions", acts, people_console(stderr=True), transient=True)

    def answered(question: Question, answer: Answer) -> None:
        if question.decision is not None and sweep:
            work.advance()

    asking = partial(ask_bot, command, told, questions, settings, plan, answered, trace)
    with work:
        return in_foreground(asking, "the bot was closed")


def _print(result: Report, told: Transcript) -> None:
    from referee.ask import text
    from referee.match.display import stderr_lines
    from referee.rules.actions import counted
    from referee.terminal.tables import people_console, print_table

    def say(line: str) -> None:
        typer.echo(shown(line))

    what = f"Act #{result.decision}" if not result.sweep else "Every decision"
    if result.sweep and result.decision is not None:
        what = f"Every decision up to #{result.decision}"
    say(f"{what} of seat {result.seat} in {result.log}, asked of: {result.command}")
    for line in text.startup_lines(result.startup):
        say(line)
    acts = result.acts
    if not result.sweep:
        assert result.decision is not None
        decision = told.decision_of(result.decision)
        assert decision is not None
        target = next((act for act in acts if act.id == result.decision), None)
        for line in text.decision_lines(decision, result.decision, target):
            say(line)
        for line in text.earlier_lines([act for act in acts if act is not target]):
            say(line)
    else:
        listed = [act for act in acts if act.standing != "as_played"]
        if listed:
            print_table(people_console(), text.listed_table(listed))
        say(text.summary_line(result))
        if listed:
            say(f"('referee ask LOG {listed[0].id} BOT' shows a decision in full)")
    if result.gone is not None:
        say(f"Not asked: {counted(result.unasked, 'act')}, as {result.gone}.")
    if result.stderr.lines:
        typer.echo("The bot's stderr:")
        for line in stderr_lines(result.stderr):
            typer.echo(line)  # escaped already
