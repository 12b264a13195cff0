"""Matches over fake bots with every kind of fault, for the tests that verify and render
their logs: each case gives the bots, the settings, the end and the faults the match must show.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.rules import SEATS, TILES, Play, Seat
from referee.settings import MatchSettings
from referee.wire.messages import Act
from support.fakes import (
    CLOSE,
    CLOSE_INPUT,
    FakeBot,
    Reply,
    Sleep,
    always_pass,
    answer,
    any_act,
    delayed,
    illegal_action,
    misbehave,
    ready,
    settings,
)
from support.tables import bots, silent


def playing(act: Act) -> bool:
    return act.view.phase == "playing"


def illegal(act: Act) -> Reply:
    return answer(act.id, illegal_action(act))


def stall(act: Act) -> Reply:
    return [Sleep(30), answer(act.id, act.legal_actions[0])]


def stale_then_right(act: Act) -> Reply:
    return [answer(act.id - 1, act.legal_actions[-1]), answer(act.id, act.legal_actions[0])]


def play_a_tile_not_held(act: Act) -> Reply:
    return answer(act.id, Play(next(t for t in TILES if t not in act.view.hand)))


def long_line(act: Act) -> Reply:
    return [b"x" * 10_000 + b"\n", answer(act.id, act.legal_actions[0])]


#: Matches with every kind of fault: (bots, settings, the end, faults the match must show).
FAULTY: dict[
    str, Callable[[], tuple[list[FakeBot], MatchSettings, str, dict[Seat, dict[str, int]]]]
] = {
    "invalid_json": lambda: (
        bots(C=misbehave(any_act, lambda act: [Sleep(0.4), b"{not json\n"])),
        settings(seed=4),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "invalid_utf8": lambda: (
        bots(
            C=misbehave(
                any_act,
                lambda act: (
                    b'{"type":"action","id":%d,"action":{"type":"pass"},"x":"\xff"}\n' % act.id
                ),
            )
        ),
        settings(seed=4),
        "marks",
        {"C": {"invalid_utf8": 1}},
    ),
    "bad_message": lambda: (
        bots(
            C=misbehave(
                any_act,
                lambda act: (
                    b'{"type":"action","id":%d,"action":{"type":"bid","points":29}}\n' % act.id
                ),
            )
        ),
        settings(seed=4),
        "marks",
        {"C": {"bad_message": 1}},
    ),
    "illegal_action": lambda: (
        bots(B=misbehave(playing, illegal)),
        settings(seed=8),
        "marks",
        {"B": {"illegal_action": 1}},
    ),
    "illegal_action: a tile not held": lambda: (
        bots(C=misbehave(playing, play_a_tile_not_held)),
        settings(seed=4),
        "marks",
        {"C": {"illegal_action": 1}},
    ),
    "a refused line cut to 200 characters": lambda: (
        bots(C=misbehave(any_act, lambda act: b"{" + b"x" * 500 + b"\n")),
        settings(seed=4),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "too_many_rejections, forfeit": lambda: (
        bots(B=misbehave(any_act, illegal, times=None)),
        settings(seed=8),
        "forfeit",
        {"B": {"illegal_action": 3, "too_many_rejections": 1}},
    ),
    "too_many_rejections, random then forfeit": lambda: (
        bots(D=misbehave(any_act, illegal, times=None)),
        settings(seed=8, on_fault="random", max_strikes=2),
        "forfeit",
        {"D": {"illegal_action": 9, "too_many_rejections": 3}},
    ),
    "ignored stale id": lambda: (
        bots(A=misbehave(lambda act: act.id > 1, stale_then_right)),
        settings(seed=6),
        "marks",
        {"A": {"ignored": 1}},
    ),
    "timeout, forfeit": lambda: (
        bots(C=misbehave(playing, stall)),
        settings(seed=2),
        "forfeit",
        {"C": {"timeout": 1}},
    ),
    "timeout, random: forced moves, strikes, then forfeit": lambda: (
        bots(C=misbehave(playing, stall, times=None)),
        settings(seed=2, on_fault="random", max_strikes=2),
        "forfeit",
        {"C": {"timeout": 3}},
    ),
    "time bank, timeout under random, late answer ignored": lambda: (
        bots(B=delayed([1.5, 0.5, 2.6, 0.2])),
        settings(seed=13, time_bank=2.0, on_fault="random"),
        "marks",
        {"B": {"timeout": 1, "ignored": 1}},
    ),
    "crash, forfeit": lambda: (
        bots(A=misbehave(playing, lambda act: [CLOSE])),
        settings(seed=5),
        "forfeit",
        {"A": {"crashed": 1}},
    ),
    "crash, random then forfeit": lambda: (
        bots(A=misbehave(playing, lambda act: [CLOSE])),
        settings(seed=5, on_fault="random", max_strikes=2),
        "forfeit",
        {"A": {"crashed": 3}},
    ),
    "stops reading, random": lambda: (
        bots(B=misbehave(lambda act: act.id > 5, lambda act: [CLOSE_INPUT])),
        settings(seed=3, on_fault="random"),
        "forfeit",
        {"B": {"timeout": 1, "crashed": 3}},
    ),
    "line_too_long, forfeit": lambda: (
        bots(D=misbehave(lambda act: act.id > 3, long_line)),
        settings(seed=10, max_line_bytes=4096),
        "forfeit",
        {"D": {"line_too_long": 1}},
    ),
    "line_too_long, random": lambda: (
        bots(D=misbehave(lambda act: act.id > 3, long_line)),
        settings(seed=10, max_line_bytes=4096, on_fault="random"),
        "marks",
        {"D": {"line_too_long": 1, "ignored": 1}},
    ),
    "start-up timeout, forfeit": lambda: (
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1),
        "forfeit",
        {"D": {"timeout": 1}},
    ),
    "start-up timeout under random still forfeits": lambda: (
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, on_fault="random"),
        "forfeit",
        {"D": {"timeout": 1}},
    ),
    "start-up timeout of one partnership": lambda: (
        [FakeBot(hello=silent), FakeBot(), FakeBot(hello=silent), FakeBot()],
        settings(seed=1),
        "forfeit",
        {"A": {"timeout": 1}, "C": {"timeout": 1}},
    ),
    "start-up timeout of both partnerships: void": lambda: (
        [FakeBot(), FakeBot(), FakeBot(hello=silent), FakeBot(hello=silent)],
        settings(seed=1),
        "void",
        {"C": {"timeout": 1}, "D": {"timeout": 1}},
    ),
    "exit before ready": lambda: (
        [FakeBot(), FakeBot(hello=lambda hello: [CLOSE]), FakeBot(), FakeBot()],
        settings(seed=1),
        "forfeit",
        {"B": {"crashed": 1}},
    ),
    "junk before ready": lambda: (
        [FakeBot(), FakeBot(), FakeBot(hello=lambda hello: [b"garbage\n", ready()]), FakeBot()],
        settings(seed=3),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "all pass until max_hands": lambda: (
        [FakeBot(always_pass) for _ in SEATS],
        settings(seed=9, max_hands=5),
        "max_hands",
        {},
    ),
    "max_hands after a played hand": lambda: (
        bots(),
        settings(seed=3, max_hands=1),
        "max_hands",
        {},
    ),
}
