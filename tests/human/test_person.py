"""A person at the real table, in memory: their answers take the bots' road through the
table's judging, the log is an ordinary one that verifies, they have no clock while the bots
keep theirs, bad input is asked again and never a fault, and leaving forfeits cleanly."""

from __future__ import annotations

import json

import jsonschema
import pytest
import trio.testing
from support.fakes import CLOSE, Reply, delayed, random_policy
from support.people import PersonRun, by_number, by_text, play_with_person, then
from support.tables import check_run

from referee.cli.play import PERSON_COMMAND
from referee.human.screen import CONFIRM
from referee.match.clock import UNTIMED_MS
from referee.record.log import parse_log
from referee.record.records import (
    ActRecord,
    FaultRecord,
    IgnoredRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.record.verify import verify
from referee.rules import Seat
from referee.spec.schema import log_schema

pytestmark = pytest.mark.filterwarnings("error")


def _check_ordinary(run: PersonRun, seat: Seat) -> None:
    """The log verifies, names the person's seat, and holds every answer of theirs as a
    move answering its act, with nothing refused."""
    verified = verify(parse_log(run.log))
    assert verified.game_digest == run.outcome.game_digest
    assert run.header.people == [seat]
    assert run.header.bots[seat] == PERSON_COMMAND
    asked = [act.id for act in run.of(ActRecord) if act.seat == seat]
    answered = [move.id for move in run.of(MoveRecord) if move.seat == seat]
    assert asked == answered and asked
    assert list(dict.fromkeys(p.act.id for p in run.prompts if p.act is not None)) == asked
    assert not [r for r in run.of(RejectedRecord) + run.of(IgnoredRecord) if r.seat == seat]


@pytest.mark.parametrize("seat", ["A", "B", "C", "D"])
async def test_a_person_plays_a_whole_match_by_number(seat: Seat) -> None:
    run = await play_with_person(by_number(7), seat=seat, seed=11)
    assert run.outcome.end == "marks"
    _check_ordinary(run, seat)
    assert run.outcome.names[seat] == "person"
    assert "Match over" in run.screen and "Hand 1 over" in run.screen


async def test_a_person_plays_a_whole_match_by_typing_the_actions() -> None:
    run = await play_with_person(by_text(3), seat="C", seed=5)
    assert run.outcome.end == "marks"
    _check_ordinary(run, "C")


async def test_the_person_has_no_clock_and_the_bots_keep_theirs(
    autojump_clock: trio.testing.MockClock,
) -> None:
    run = await play_with_person(by_number(1), seat="B", seed=4, think=90.0)
    assert run.outcome.end == "marks"
    _check_ordinary(run, "B")
    theirs = [m for m in run.of(MoveRecord) if m.seat == "B"]
    assert theirs and all(m.timing.latency_ms >= 90_000 for m in theirs)
    assert not run.of(FaultRecord)
    assert all(prompt.act.time_ms == UNTIMED_MS for prompt in run.prompts if prompt.act)
    acts = [act for bot in run.bots.values() for act in bot.act_messages]
    assert acts and all(act.time_ms <= 1000 for act in acts)

    slow = delayed([0.0, 2.0], random_policy(3))  # the bot's second decision takes 2 s
    run = await play_with_person(by_number(1), seat="B", seed=4, think=90.0, policies={"C": slow})
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("C", "timeout")
    verify(parse_log(run.log))


async def test_bad_input_is_asked_again_and_changes_nothing() -> None:
    plain = await play_with_person(by_number(2), seed=9)
    bad = ["", "zz", "99", "?", "help", "[7|7]", "-1"]
    run = await play_with_person(then(bad, by_number(2)), seed=9)
    assert run.outcome.game_digest == plain.outcome.game_digest
    _check_ordinary(run, "A")
    assert len(run.prompts) == len(plain.prompts) + len(bad)
    assert run.screen.count("✗ ") == 5  # a hint a bad line; help for ? and help
    assert run.screen.count("Answer with the number of a choice") == 2


async def test_q_asks_first_and_then_the_person_forfeits() -> None:
    run = await play_with_person(then(["1", "q", "y"], by_number(1)), seat="D", seed=3)
    assert [p.text for p in run.prompts][-1] == CONFIRM
    assert run.outcome.end == "forfeit" and run.person.left
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("D", "resigned")
    assert run.outcome.winner == "AC"
    assert run.end.faults["D"] == {"resigned": 1}
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.penalty) == ("D", "forfeit")
    verify(parse_log(run.log))
    for bot in run.bots.values():  # the bots hear the end, and only who left and why
        assert bot.match_end is not None and bot.match_end.detail == "D forfeits: resigned"


async def test_anything_but_yes_plays_on() -> None:
    plain = await play_with_person(by_number(4), seed=6)
    run = await play_with_person(then(["q", "no", "quit", ""], by_number(4)), seed=6)
    assert run.outcome.game_digest == plain.outcome.game_digest
    assert [p.text for p in run.prompts[:4]][1::2] == [CONFIRM, CONFIRM]


async def test_the_end_of_input_asks_too_and_a_second_one_leaves() -> None:
    run = await play_with_person(then([None, ""], by_number(5)), seed=8)
    assert run.outcome.end == "marks"
    run = await play_with_person(then([None, None], by_number(5)), seed=8)
    assert run.outcome.end == "forfeit" and run.outcome.forfeit is not None
    assert run.outcome.forfeit.reason == "resigned"
    verify(parse_log(run.log))


async def test_a_bots_forfeit_is_shown_to_the_person() -> None:
    def leaves(act: object) -> Reply:
        return [CLOSE]

    run = await play_with_person(by_number(1), seat="A", seed=2, policies={"B": leaves})
    assert run.outcome.end == "forfeit"
    assert "Match over" in run.screen and "B forfeits: crashed" in run.screen
    assert run.person.finished.is_set() and not run.person.left


async def test_the_bots_are_told_exactly_what_bots_are_told() -> None:
    run = await play_with_person(by_number(6), seat="B", seed=12)
    check_run(run)  # type: ignore[arg-type]


async def test_the_log_of_a_persons_match_follows_the_log_schema() -> None:
    schema = log_schema()
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/LogRecord", "$defs": schema["$defs"]}
    )
    run = await play_with_person(then(["q", "y"], by_number(1)), seat="B", seed=2)
    lines = [json.loads(line) for line in run.log.splitlines()]
    for line in lines:
        line.pop("chain")
        validator.validate(line)
    assert lines[0]["people"] == ["B"]
    assert not validator.is_valid({**lines[0], "people": ["E"]})


async def test_only_a_person_resigns_and_a_person_does_nothing_else_a_fault_is_for() -> None:
    from support.log_edits import forged, split, verification_error

    run = await play_with_person(then(["1", "q", "y"], by_number(1)), seat="D", seed=3)
    lines = split(run.log)
    at = next(i for i, line in enumerate(lines) if line.value["type"] == "fault")

    def as_crash(value: dict[str, object]) -> None:
        value["reason"] = "crashed"

    def as_bots(value: dict[str, object]) -> None:  # the header names no person
        del value["people"]

    crashed = forged([*lines[:at], lines[at].edited(as_crash), *lines[at + 1 :]])
    assert "only a person resigns" in str(verification_error(crashed))
    no_person = forged([lines[0].edited(as_bots), *lines[1:]])
    assert "only a person resigns" in str(verification_error(no_person))
