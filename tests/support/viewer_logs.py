"""Logs for the viewer and report tests: real matches between fake bots (in memory, under the
autojump clock), one of them hostile — its name and a line it sends are HTML and script, and
it tries to play a tile it holds out of turn with the suit (a refused answer naming a tile of
its hand)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.record.log import LogFile, parse_log
from referee.rules import Play
from referee.rules.tiles import SEATS
from referee.wire.messages import Act, Hello
from support.fakes import (
    FakeBot,
    MatchRun,
    Reply,
    answer,
    misbehave,
    play_match,
    random_policy,
    ready,
    settings,
)

#: A name and a line no page may ever read as markup.
HOSTILE_NAME = '</script><script>document.title="pwned"</script><img src=x onerror="alert(1)">'
HOSTILE_LINE = b"<img src=x onerror=\"document.title='pwned'\"></script><b>bold</b>\n"


def _hostile_hello(hello: Hello) -> Reply:
    return ready(HOSTILE_NAME)


def _holds_but_may_not(act: Act) -> bool:
    """A play where the seat holds a tile it may not play now (it must follow suit)."""
    legal = {action for action in act.legal_actions if isinstance(action, Play)}
    return bool(legal) and any(Play(tile) not in legal for tile in act.view.hand)


def _junk_then_a_held_tile_it_may_not_play() -> Callable[[Act], Reply]:
    """First a line of markup (refused: not JSON), then, asked again, a tile it holds but
    may not play (refused: illegal); then it behaves."""
    sent = []

    def reply(act: Act) -> Reply:
        sent.append(act.id)
        if len(sent) == 1:
            return HOSTILE_LINE
        legal = {action for action in act.legal_actions if isinstance(action, Play)}
        held = next(Play(tile) for tile in act.view.hand if Play(tile) not in legal)
        return answer(act.id, held)

    return reply


async def hostile_match(seed: int = 5) -> MatchRun:
    """Seat B is hostile; the other seats play at random."""
    bots = [FakeBot(random_policy(seed * 10 + i)) for i in range(4)]
    bots[1] = FakeBot(
        misbehave(
            _holds_but_may_not,
            _junk_then_a_held_tile_it_may_not_play(),
            random_policy(seed),
            times=2,
        ),
        hello=_hostile_hello,
    )
    return await play_match(dict(zip(SEATS, bots, strict=True)), settings(seed=seed))


async def random_match(seed: int) -> MatchRun:
    return await play_match(
        [FakeBot(random_policy(seed * 10 + i)) for i in range(4)], settings(seed=seed)
    )


def log_of(run: MatchRun, path: Path = Path("<log>")) -> LogFile:
    return parse_log(run.log, path)


def _always_a_held_tile_it_may_not_play(act: Act) -> Reply:
    legal = {action for action in act.legal_actions if isinstance(action, Play)}
    held = next(Play(tile) for tile in act.view.hand if Play(tile) not in legal)
    return answer(act.id, held)


async def forfeit_match(seed: int = 7) -> MatchRun:
    """Seat B keeps trying a tile it holds but may not play, until it forfeits: the match's
    end names the tiles B held."""
    bots = [FakeBot(random_policy(seed * 10 + i)) for i in range(4)]
    bots[1] = FakeBot(
        misbehave(
            _holds_but_may_not, _always_a_held_tile_it_may_not_play, random_policy(seed), None
        )
    )
    return await play_match(dict(zip(SEATS, bots, strict=True)), settings(seed=seed))


async def never_ready_match(seed: int = 3) -> MatchRun:
    """Seat C never answers hello: the match ends before any hand is dealt."""
    bots = [FakeBot(random_policy(i)) for i in range(4)]
    bots[2] = FakeBot(hello=lambda hello: None)
    return await play_match(dict(zip(SEATS, bots, strict=True)), settings(seed=seed))
