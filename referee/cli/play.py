"""``referee play``: a person at the table, in one seat, against bots in the other three."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

if TYPE_CHECKING:
    from referee.human.person import Person
    from referee.match.outcome import MatchOutcome
    from referee.rules.tiles import Seat
    from referee.sandbox.policy import SandboxPlan
    from referee.settings import MatchSettings, SandboxSettings

from referee.cli.app import app
from referee.cli.foreground import in_foreground
from referee.cli.groups import Given, Output, limit_options, output_options, sandbox_options
from referee.cli.options import (
    SeatName,
    SeedOption,
    bot_commands,
    bundled_bot,
    check_commands,
    fail,
    new_log,
    sandbox_plan,
    seat_of,
)

#: What the log's header gives as the command of the person's seat (``people`` names it).
PERSON_COMMAND: Final = "(a person at the terminal)"
#: The bot in the other seats when none is given: the strongest bundled bot, which plays in
#: about 10 ms a move (a person never waits on it) and makes a partner worth having.
DEFAULT_BOT: Final = "strong"
DEFAULT_SEAT: Final = SeatName("A")
#: The limits a person's match is played under: every fault forfeits (under a policy that
#: plays a random action instead, a person's leaving would not forfeit at once).
PERSON_LIMITS: Final = limit_options(without=("on_fault", "max_strikes"))


@app.command("play")
def play_command(
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="BOT",
            help="One bot command for the three other seats, or three (the other seats in"
            " order, e.g. B, C, D when you play A), each one string split as a shell would,"
            " or a bundled bot's name (bundled:heuristic; 'referee bots' lists them)."
            " None: the bundled strong bot in all three.",
            show_default=False,
        ),
    ] = None,
    seat: Annotated[
        SeatName, typer.Option(help="The seat you play (A+C against B+D).")
    ] = DEFAULT_SEAT,
    *,
    seed: SeedOption = None,
    name: Annotated[str, typer.Option(help="Your name in the log (1-100 characters).")] = "person",
    limits: Annotated[Given, PERSON_LIMITS],
    sandbox: Annotated[Given, sandbox_options()],
    output: Annotated[Output, output_options(log=True)],
) -> None:
    """Play a match yourself, in one seat, against bots in the other three.

    Your view and your choices, numbered, are shown in the terminal; answer with a number or
    the action (pass, 31, sixes, 6-4). You have no time limit; the bots keep theirs and run
    as in 'referee match'. q leaves the match (your side forfeits); the replay log is an
    ordinary one. Exits 0 when the match was played to its end, 2 for bad arguments or
    without a terminal, 130 after Ctrl-C.
    """
    from referee.match.runner import random_seed
    from referee.rules.tiles import PARTNER_OF, SEATS
    from referee.settings import MatchSettings
    from referee.terminal.escapes import name_problem

    problem = name_problem(name)
    if not 1 <= len(name) <= 100 or problem is not None:
        raise fail(f"--name: {problem or 'give 1 to 100 characters'}")
    mine = seat_of(seat)
    others = [other for other in SEATS if other != mine]
    given = bot_commands(bots) if bots else [bundled_bot(DEFAULT_BOT)]
    if len(given) not in (1, 3):
        raise fail(
            f"give one bot command (all three other seats) or three ({', '.join(others)}),"
            f" not {len(given)}"
        )
    seated = dict(zip(others, given * 3 if len(given) == 1 else given, strict=True))
    check_commands(seated)
    if not sys.stdin.isatty():
        raise fail("play needs a terminal to read your moves: run it in a terminal, not a pipe")
    settings = MatchSettings(seed=random_seed() if seed is None else seed, **limits)
    log_path = new_log(output.log)
    # The person's seat is planned as its partner's bot would be, so that the line and the
    # header say the bots' layers; no process runs there.
    planned = {s: seated.get(s, seated[PARTNER_OF[mine]]) for s in SEATS}
    try:
        plan = sandbox_plan(sandbox, settings, planned, [log_path.parent])
    except typer.Exit:
        log_path.unlink(missing_ok=True)  # refused: no match, no log
        raise
    commands = {s: seated.get(s, PERSON_COMMAND) for s in SEATS}
    person = _person(mine, name, commands)
    outcome = in_foreground(
        lambda: _play(settings, commands, log_path, plan, person),
        f"the log ends there: {log_path}",
        log_path,
    )
    _farewell(outcome, commands, mine, log_path, plan.settings)


def _person(seat: Seat, name: str, commands: dict[Seat, str]) -> Person:
    from rich.console import Console

    from referee.human.keyboard import Keyboard
    from referee.human.person import Person
    from referee.human.screen import Screen

    console = Console(highlight=False, emoji=False)
    screen = Screen(console, seat)
    screen.welcome(commands)
    return Person(seat, screen, Keyboard(console), name)


async def _play(
    settings: MatchSettings,
    commands: dict[Seat, str],
    log_path: Path,
    sandbox: SandboxPlan,
    person: Person,
) -> MatchOutcome:
    """The match with the person in their seat; it ends once the person has seen its end."""
    import trio

    from referee.match.runner import run_match

    seat = {person.seat: person.connect(settings.max_line_bytes)}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(person.run)
        outcome = await run_match(settings, commands, log_path, sandbox, people=seat)
        await person.close_table_side()
        await person.finished.wait()
    return outcome


def _farewell(
    outcome: MatchOutcome,
    commands: dict[Seat, str],
    seat: Seat,
    log: Path,
    sandbox: SandboxSettings,
) -> None:
    """The result as ``referee match`` prints it, what it means for the person, and how to
    see the match again."""
    from rich.console import Console

    from referee.match.display import print_outcome
    from referee.rules.contract import side_name
    from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF
    from referee.terminal.escapes import markup

    print_outcome(outcome, commands, sandbox)
    console = Console(highlight=False, emoji=False, soft_wrap=True)  # a command to copy whole
    side = PARTNERSHIP_OF[seat]
    marks = f"{outcome.marks[side]} marks to {outcome.marks[OPPONENTS_OF[side]]}"
    if outcome.forfeit is not None and outcome.forfeit.seat == seat:
        verdict = f"You left the match: {side_name(side)} forfeits ({marks})."
    elif outcome.winner == side:
        verdict = f"You won, {side_name(side)}: {marks}."
    elif outcome.winner is not None:
        verdict = f"You lost, {side_name(side)}: {marks}."
    else:
        verdict = f"Nobody won ({outcome.end}): {marks}."
    console.print(verdict, style="bold")
    program = sys.argv[0] if Path(sys.argv[0]).name == "referee" else "referee"
    command = shlex.join([program, "replay", str(log), "--html"])
    console.print(f"See it again in the viewer: {markup(command)}  (then open the page it writes)")
