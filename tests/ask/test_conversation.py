"""A seat's questions put to a bot over memory streams: each answer judged as the table judged
it (the same verdict, reason, detail and rule as the log's refusal), the log's course kept
whatever the bot says, the clock the table's (move timeout plus the bank the log left), and
a bot that goes away leaving the rest unasked."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import trio
from support.fakes import (
    CLOSE,
    FakeBot,
    MatchRun,
    Policy,
    Sleep,
    answer,
    delayed,
    misbehave,
    play_match,
    settings,
    simple,
)
from support.faulty_matches import FAULTY
from support.tables import bots

from referee.ask.conversation import Asked, Conversation
from referee.ask.report import standing
from referee.ask.transcript import transcript
from referee.match.rerun import logged_settings
from referee.record.records import RejectedRecord
from referee.rules import Seat
from referee.wire.messages import Act


async def ask(run: MatchRun, seat: Seat, bot: FakeBot, **limits: Any) -> Asked:
    """Put every question of ``seat`` in the logged match to ``bot``."""
    told = transcript(run.records, seat)
    match = msgspec.structs.replace(logged_settings(run.header), **limits)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot.run)
        asked = await Conversation(bot.connection(seat, 1 << 20), told, match).ask(told.questions)
        await bot.close_referee_side()
    return asked


def standings(asked: Asked) -> list[str]:
    return [standing(q.decision, a) for q, a in asked.answers if q.decision is not None]


async def test_the_bot_that_played_answers_every_act_as_played(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(bots(), settings(seed=3))
    asked = await ask(run, "B", bot := FakeBot(simple))
    assert set(standings(asked)) == {"as_played"}
    assert asked.unasked == [] and asked.gone is None
    hello, *acts = asked.answers
    assert hello[1].verdict == "legal" and hello[1].name == "fake-B"
    # Every act allowed the logged move limit, as the table told it then.
    assert {act.time_ms for act in bot.act_messages} == {1000}
    assert len(bot.act_messages) == len(acts) == len(transcript(run.records, "B").decisions)


@pytest.mark.parametrize(
    "case",
    [
        "invalid_json",
        "invalid_utf8",
        "bad_message",
        "illegal_action",
        "illegal_action: a tile not held",
        "a refused line cut to 200 characters",
        "too_many_rejections, random then forfeit",
    ],
)
async def test_a_refused_answer_is_judged_as_the_table_judged_it(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    """The bot that played answers the same again: each refusal the log holds is the verdict
    ask gives now, with the same reason, detail, rule and line."""
    played, match, _, _ = FAULTY[case]()
    run = await play_match(played, match)
    refusals = run.of(RejectedRecord)
    assert refusals
    seat = refusals[0].seat
    again, _, _, _ = FAULTY[case]()  # the same misbehaving policy, from its start
    asked = await ask(run, seat, again["ABCD".index(seat)])
    answers = {a.id: a for q, a in asked.answers if q.decision is not None}
    for refused in refusals:
        now = answers[refused.id]
        assert now.verdict == ("illegal" if refused.reason == "illegal_action" else "refused")
        assert (now.reason, now.detail, now.rule, now.raw) == (
            refused.reason,
            refused.detail,
            refused.rule,
            refused.raw,
        )
    assert set(standings(asked)) <= {"as_played", "illegal", "refused"}


async def test_the_course_is_the_logs_whatever_the_bot_answers(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The log refused B's play and asked again; a bot that now answers legally is still told
    the refusal and asked the next act, as the seat was."""
    played, match, _, _ = FAULTY["illegal_action"]()
    run = await play_match(played, match)
    refused = run.of(RejectedRecord)[0]
    asked = await ask(run, "B", bot := FakeBot(simple))
    assert [r.id for r in bot.rejections] == [refused.id]
    act_ids = [act.id for act in bot.act_messages]
    assert refused.id in act_ids and refused.id + 1 in act_ids
    first = next(a for q, a in asked.answers if q.act_id == refused.id and q.decision)
    # What the bot now answers at once is what the log played after the refusal.
    assert first.verdict == "legal" and set(standings(asked)) == {"as_played"}


async def test_a_late_answer_is_missing_then_ignored_and_the_clock_is_the_logs(
    autojump_clock: trio.abc.Clock,
) -> None:
    """B overran into its bank and then timed out in the match; asked again, each decision has
    the move limit plus the bank the log left it, and the late answer is ignored later."""
    played, match, _, _ = FAULTY["time bank, timeout under random, late answer ignored"]()
    run = await play_match(played, match)
    asked = await ask(run, "B", bot := FakeBot(delayed([1.5, 0.5, 2.6, 0.2])))
    times = [act.time_ms for act in bot.act_messages]
    assert times[:4] == [3000, 2500, 2500, 1000]  # 1 s a move, bank 2 s, then 1.5 s, then 0
    verdicts = [a.verdict for q, a in asked.answers if q.decision is not None]
    assert verdicts[:4] == ["legal", "legal", "missing", "legal"]
    assert asked.answers[3][1].reason == "timeout"
    assert len(asked.answers[4][1].ignored) == 1  # the late answer, as the table ignored it
    assert asked.gone is None


async def test_the_move_limit_can_be_raised(autojump_clock: trio.abc.Clock) -> None:
    run = await play_match(bots(), settings(seed=3))
    slow: Policy = delayed([3.0, 3.0])
    asked = await ask(run, "C", bot := FakeBot(slow), move_timeout=5.0)
    assert {a.verdict for _, a in asked.answers} == {"legal"}
    assert bot.act_messages[0].time_ms == 5000


async def test_a_bot_that_goes_away_leaves_the_rest_unasked(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(bots(), settings(seed=3))
    leaving = misbehave(lambda act: len(leaving.triggered) == 0 and act.id > 8, lambda a: [CLOSE])  # type: ignore[attr-defined]
    asked = await ask(run, "D", FakeBot(leaving))
    last = asked.answers[-1][1]
    assert (last.verdict, last.reason) == ("missing", "crashed")
    assert asked.gone is not None and asked.gone.startswith("the bot went away: crashed")
    assert asked.unasked and all(q.decision is not None for q in asked.unasked)


async def test_an_answer_to_another_id_is_skipped_as_the_table_skips_it(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(bots(), settings(seed=3))

    def stale_first(act: Act) -> Any:
        return [answer(act.id - 1, act.legal_actions[0]), Sleep(0.1), *[simple(act)]]

    asked = await ask(run, "A", FakeBot(misbehave(lambda act: act.id > 1, stale_first)))
    skipped = [a for _, a in asked.answers if a.ignored]
    assert len(skipped) == 1 and skipped[0].verdict == "legal"
    assert '"id":' in skipped[0].ignored[0]


async def test_a_bot_without_ready_is_asked_nothing_more(autojump_clock: trio.abc.Clock) -> None:
    """At the table it would have forfeited: its acts are left unasked, not sent to a bot
    that may answer them with a late ready."""
    run = await play_match(bots(), settings(seed=3))
    asked = await ask(run, "B", FakeBot(hello=lambda hello: [Sleep(20), b'{"type":"ready"}\n']))
    assert [a.verdict for _, a in asked.answers] == ["missing"]
    assert asked.gone == "the bot did not start: timeout: no answer in time"
    assert len(asked.unasked) == len(transcript(run.records, "B").questions) - 1
