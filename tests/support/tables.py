"""Helpers for the tests of the table over four in-memory fake bots.

Every such test takes trio's autojump clock (pytest-trio uses a ``Clock`` only when it is an
argument of the test), so timeouts and time banks cost no real time. Each test checks the
outcome and the log, and ``check_run`` checks, for every match, that the log replays through
the rules engine, that its game record gives the logged digest, and that every bot was told
exactly what the engine says it should have been told.
"""

from __future__ import annotations

from referee.match.outcome import told_detail
from referee.record.records import (
    ActRecord,
    DealRecord,
    FaultRecord,
    HandEndRecord,
    Header,
    MatchEndRecord,
    MoveRecord,
    game_digest,
)
from referee.rules import PARTNERSHIP_OF, SEATS, Move, Seat
from referee.rules.tiles import OPPONENTS_OF
from referee.wire.messages import Hello
from support.fakes import (
    FakeBot,
    MatchRun,
    Policy,
    Reply,
    game_record_from_log,
    play_match,
    random_policy,
    replay,
    settings,
    simple,
)

NO_FAULTS: dict[Seat, dict[str, int]] = {seat: {} for seat in SEATS}


def faults(**by_seat: dict[str, int]) -> dict[Seat, dict[str, int]]:
    return {seat: by_seat.get(seat, {}) for seat in SEATS}  # type: ignore[misc]


def bots(**policies: Policy) -> list[FakeBot]:
    """Four fake bots: ``simple`` unless a seat's policy is given (``bots(B=...)``)."""
    return [FakeBot(policies.get(seat, simple)) for seat in SEATS]


def check_run(run: MatchRun) -> None:
    """Everything that must hold for any match, whatever the bots did."""
    records, outcome, end = run.records, run.outcome, run.end
    assert isinstance(records[0], Header)
    assert sum(isinstance(r, Header) for r in records) == 1
    assert sum(isinstance(r, MatchEndRecord) for r in records) == 1

    # The outcome is the match_end record; its digest is the log's game record's digest.
    assert (outcome.winner, outcome.marks, outcome.hands, outcome.end) == (
        end.winner,
        end.marks,
        end.hands,
        end.end,
    )
    assert (outcome.detail, outcome.forfeit, outcome.faults) == (
        end.detail,
        end.forfeit,
        end.faults,
    )
    game = game_record_from_log(records)
    assert game_digest(game) == end.game_digest == outcome.game_digest
    assert outcome.hands == len(game.hands) == len(run.of(DealRecord))
    if outcome.end == "forfeit":
        assert outcome.forfeit is not None
        assert outcome.winner == OPPONENTS_OF[PARTNERSHIP_OF[outcome.forfeit.seat]]
    else:
        assert outcome.forfeit is None

    # The log replays through the engine (every move legal, every deal the seed's deal).
    engine = replay(records)
    hand_ends = {record.hand: record for record in run.of(HandEndRecord)}
    for record in hand_ends.values():
        assert engine.match.results[record.hand - 1] == record.result
    if outcome.end == "marks":
        assert engine.match.winner == outcome.winner
        assert engine.match.marks == outcome.marks

    # Every bot was told every public event once, in order, before each decision and
    # before each hand_end; its views and legal actions are the engine's.
    for seat, bot in run.bots.items():
        if bot.messages:
            assert isinstance(bot.messages[0], Hello)
            assert bot.messages[0].seat == seat
        for act, seen in bot.acts:
            decision = engine.decisions[act.id]
            assert decision.seat == seat == act.view.seat == act.view.turn
            assert act.view == decision.view
            assert act.legal_actions == decision.legal_actions
            assert seen == decision.events_before
            assert bot.events[:seen] == engine.events[:seen]
        for hand_end, seen in bot.hand_ends:
            number = hand_end.review.hand_number
            assert seen == engine.events_before_hand_end[number]
            assert bot.events[:seen] == engine.events[:seen]
            assert hand_end.review.result == hand_ends[number].result
            assert hand_end.marks == hand_ends[number].marks
            logged = game.hands[number - 1].moves
            assert hand_end.review.moves == [Move(m.seat, m.action) for m in logged]
        if bot.match_end is not None:
            assert bot.events == engine.events
            assert bot.match_end.winner == outcome.winner
            assert bot.match_end.marks == outcome.marks
            assert bot.match_end.reason == outcome.end
            assert bot.match_end.detail == told_detail(outcome, bot.seat)  # type: ignore[arg-type]


def moves_of(run: MatchRun, seat: Seat) -> list[MoveRecord]:
    return [m for m in run.of(MoveRecord) if m.seat == seat]


def acts_of(run: MatchRun, seat: Seat) -> list[ActRecord]:
    return [a for a in run.of(ActRecord) if a.seat == seat]


def faults_of(run: MatchRun, seat: Seat) -> list[FaultRecord]:
    return [f for f in run.of(FaultRecord) if f.seat == seat]


async def random_match(seed: int) -> MatchRun:
    return await play_match(
        [FakeBot(random_policy(seed * 10 + i)) for i in range(4)], settings(seed=seed)
    )


def silent(hello: Hello) -> Reply:
    return None
