"""The in-process arena: policies play duplicate matches at engine speed, for evaluation
during training, scored by the tournament's own standings and SPRT.

No process, no pipe, no clock: each seat is asked in process, as ``referee.env`` asks it —
a kit strategy (``Decision`` -> action; ``"random"`` or a bundled kit bot's name) through
the kit's ``Decision``, or an index policy ((tensor, mask) -> action index) through the
environments' tensors. The plan is the tournament's: deal seeds from ``deal_seeds``, each
pairing played twice on a seed with the sides swapped, every deal from the seed as the
referee deals it, each kit seat's ``rng`` seeded as the referee's ``hello`` seeds it — so a
match here has the same ``game_digest`` as ``referee match --seed`` with the same bots.
The referee with real processes stays the judge of record: the arena trusts its policies
(no time limit, no sandbox), but an illegal choice raises ``IllegalAction``.

Needs the ``ai`` extra (numpy, for the tensors). See ``docs/env.md``, "Arena".
"""

from __future__ import annotations

import inspect
import multiprocessing
from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any, Final

import msgspec
import numpy as np

from referee.bot.loop import Decision, Hello, Strategy
from referee.env.actions import ACTIONS, SIZE
from referee.env.aec import Observed, mask
from referee.env.game import Game, PythonGame
from referee.env.policies import KitSeat, policy
from referee.errors import IllegalAction
from referee.match.startup import bot_seed
from referee.record.events import deal_record
from referee.record.records import GameHand, GameMove, GameRecord, game_digest
from referee.rules.actions import Action
from referee.rules.events import HandEnded, HandStarted, MatchEnded
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat
from referee.running.results import Format, MatchResult
from referee.tournament.plan import deal_seeds
from referee.tournament.sprt import Sprt, SprtReport, sprt_report
from referee.tournament.standings import Standings, pair_scores, standings
from referee.tournament.terminal_output import elo_text

#: The referee's default: a match nobody has won ends unfinished after this many hands.
MAX_HANDS: Final = 200

#: A policy's tensor and mask in, an action index out.
IndexFunction = Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any]], int]


@dataclass(frozen=True)
class IndexPolicy:
    """A policy over the environments' action index: ``act(tensor, mask)`` -> an index 0-72.

    ``observed``: the seat's information state (default) or its observation, float32 as the
    environments give it; ``mask`` is the int8 legal-action mask. A plain callable of two
    arguments is taken as one of these, on the information state."""

    act: IndexFunction
    observed: Observed = "information_state"


#: What sits at a seat: a kit strategy, ``"random"`` or a bundled kit bot's name, or an
#: index policy (an ``IndexPolicy``, or any callable of two arguments).
Policy = Strategy | str | IndexPolicy | IndexFunction


class ArenaResult(msgspec.Struct, frozen=True):
    """What the arena played and the tournament's verdict on it."""

    names: list[str]
    #: Every match, in plan order: the tournament's results lines (no log: ``log`` is "").
    results: list[MatchResult]
    standings: Standings
    #: The SPRT of the first policy against the second, when one was asked for.
    sprt: SprtReport | None = None

    def lines(self) -> list[str]:
        """The standings (and the SPRT) as plain text, one line an entrant."""
        out = []
        for row in self.standings.standings:
            out.append(
                f"{row.name}: {row.matches} matches, win rate {row.win_rate:.1%}"
                f" ({row.win_rate_low:.1%} to {row.win_rate_high:.1%}), Elo vs field"
                f" {elo_text(row.elo, row.elo_low, row.elo_high)},"
                f" rating {row.rating:.1f} ± {3 * row.rating_sigma:.1f}"
            )
        return out + (self.sprt.lines() if self.sprt else [])


class _IndexSeat:
    """One seat played by an index policy: shown its tensor and mask, its index checked."""

    def __init__(self, seat: Seat, name: str, chosen: IndexPolicy) -> None:
        self.seat, self.name, self.policy = seat, name, chosen

    def start(self, seed: int) -> None:
        """Nothing to forget: the tensors hold all the seat knows."""

    def see(self, events: list[Any]) -> None:
        """The game's tensors already hold the public events."""

    def choose(self, game: Game) -> int:
        legal = game.legal()
        tensor = (
            game.information_state(self.seat)
            if self.policy.observed == "information_state"
            else game.observation(self.seat)
        )
        index = self.policy.act(tensor, mask(legal))
        try:
            number = int(index)
        except (TypeError, ValueError):
            number = -1
        if number != index or number not in legal:
            shown = f"index {index!r}" + (f" ({ACTIONS[number]!r})" if 0 <= number < SIZE else "")
            raise IllegalAction(
                f"policy {self.name!r} at seat {self.seat} (match seed {game.seed}) chose"
                f" {shown}, not legal here; the legal indices: {legal}"
            )
        return number


def _checked(name: str, strategy: Strategy) -> Strategy:
    """The strategy, raising on an illegal choice (where the kit's loop would answer the
    first legal action, and the referee refuse it)."""

    def checked(decision: Decision) -> Action:
        choice = strategy(decision)
        if choice not in decision.legal_actions:
            raise IllegalAction(
                f"policy {name!r} at seat {decision.seat} (decision {decision.id}, hand"
                f" {decision.view.hand_number}) chose {choice!r}, not legal here; the legal"
                f" actions: {decision.legal_actions}"
            )
        return choice

    return checked


def _index_policy(chosen: Policy) -> IndexPolicy | None:
    """The policy as an index policy, if it is one: a callable of two positional arguments
    (a strategy takes one, the ``Decision``)."""
    if isinstance(chosen, IndexPolicy):
        return chosen
    if callable(chosen):
        try:
            arguments = inspect.signature(chosen).parameters.values()
        except (TypeError, ValueError):  # a builtin without a signature: a strategy
            return None
        required = [
            p
            for p in arguments
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(required) == 2:
            return IndexPolicy(chosen)  # type: ignore[arg-type]
    return None


class _Seats:
    """The four seats of one match: the first policy at A and C, the second at B and D."""

    def __init__(self, first: tuple[str, Policy], second: tuple[str, Policy]) -> None:
        self.seats: dict[Seat, Any] = {}
        for seat in SEATS:
            name, chosen = first if PARTNERSHIP_OF[seat] == "AC" else second
            index = _index_policy(chosen)
            if index is not None:
                self.seats[seat] = _IndexSeat(seat, name, index)
            else:
                self.seats[seat] = KitSeat(seat, _checked(name, policy(chosen)))  # type: ignore[arg-type]

    def start(self, seed: int) -> None:
        for seat, player in self.seats.items():
            player.start(seed)
            if isinstance(player, KitSeat):  # its rng and hello as the referee seeds them
                own = bot_seed(seed, seat)
                player.hello = Hello(seat=seat, partnership=PARTNERSHIP_OF[seat], seed=own)
                player.rng.seed(own)


def play_match(
    first: tuple[str, Policy],
    second: tuple[str, Policy],
    seed: int,
    max_hands: int = MAX_HANDS,
) -> tuple[GameRecord, int]:
    """One match of ``seed``: the first (name, policy) at A and C, the second at B and D.
    Its canonical game record (as the referee's, ``game_digest`` hashes it) and the
    decisions asked."""
    table = _Seats(first, second)
    table.start(seed)
    game = PythonGame(seed)
    record = GameRecord(seed=seed)
    record.hands.append(_game_hand(game))
    opening = [HandStarted(hand_number=1, dealer=game.hand.dealer)]
    for player in table.seats.values():
        player.see(opening)
    decisions = 0
    while (seat := game.turn) is not None:
        index = table.seats[seat].choose(game)
        decisions += 1
        record.hands[-1].moves.append(GameMove(seat=seat, action=ACTIONS[index]))
        events = game.apply(index)
        for event in events:
            if type(event) is HandEnded:
                record.hands[-1].result = event.review.result
                record.marks = dict(game.marks)
            elif type(event) is MatchEnded:
                record.winner, record.end = event.winner, "marks"
            elif type(event) is HandStarted:
                if event.hand_number > max_hands:
                    record.end = "max_hands"
                    return record, decisions
                record.hands.append(_game_hand(game))
        for player in table.seats.values():
            player.see(events)
    return record, decisions


def _game_hand(game: PythonGame) -> GameHand:
    deal = deal_record(game.hand)
    return GameHand(hand=deal.hand, dealer=deal.dealer, deal=deal.hands)


def arena(
    policies: Mapping[str, Policy],
    seeds: int = 50,
    seed: int = 0,
    *,
    format: Format = "round-robin",
    sprt: Sprt | None = None,
    max_hands: int = MAX_HANDS,
    jobs: int = 1,
) -> ArenaResult:
    """Duplicate matches between ``policies`` (name -> policy) on the tournament's ``seeds``
    deal seeds of ``seed``, seed by seed, pairing by pairing (round robin, or ``gauntlet``:
    the first against each other), both legs of a pair one after the other.

    ``sprt``: the tournament's test of the first policy against the second (exactly two);
    play stops at the first whole pair where it decides, as ``referee tournament --sprt``.
    ``jobs``: pairs played at once, in forked worker processes (which inherit the policies:
    nothing is pickled but the games); the results are the same as with one."""
    names = list(policies)
    if len(names) < 2:
        raise ValueError("an arena needs at least two policies, by name")
    if sprt is not None and len(names) != 2:
        raise ValueError("an SPRT compares exactly two policies")
    if jobs > 1 and "fork" not in multiprocessing.get_all_start_methods():
        raise ValueError("jobs > 1 needs processes started by fork (Linux, macOS): use jobs=1")
    if format == "gauntlet":
        pairings = [(names[0], other) for other in names[1:]]
    else:
        pairings = list(combinations(names, 2))
    width = len(str(seeds))
    tasks = [
        (f"{a}~{b}~s{number:0{width}d}", deal, a, b)
        for number, deal in enumerate(deal_seeds(seed, seeds))
        for a, b in pairings
    ]
    results: list[MatchResult] = []
    decided: tuple[int, float] | None = None
    with closing(_played(dict(policies), tasks, max_hands, jobs)) as played:
        for (pair, _, a, b), legs in zip(tasks, played, strict=False):
            for leg, (first, second), (record, asked) in zip(
                (1, 2), ((a, b), (b, a)), legs, strict=True
            ):
                match_id = f"{pair}~{leg}"
                results.append(_result(match_id, first, second, leg, record, asked, len(results)))
            if sprt is not None:
                scores = pair_scores(results, names[0])
                llr = sprt.llr(scores)
                if len(scores) >= 2 and sprt.verdict(llr) != "continue":
                    decided = (len(scores), llr)
                    break
    report = None
    if sprt is not None:
        report = sprt_report(sprt, results, names[0], names[1], decided, run=True)
    return ArenaResult(names, results, standings(names, results), report)


#: A duplicate pair to play: its id, its deal seed, its two policies' names.
Task = tuple[str, int, str, str]
#: The policies of a forked worker: handed over at the fork (inherited, never pickled).
_PLAYING: dict[str, Policy] = {}


def _played(
    policies: dict[str, Policy], tasks: list[Task], max_hands: int, jobs: int
) -> Generator[list[tuple[GameRecord, int]]]:
    """Each task's two legs, in order: played here, or by ``jobs`` forked workers."""
    if jobs <= 1:
        yield from map(partial(_pair, policies, max_hands), tasks)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, initializer=_adopt, initargs=(policies,)) as pool:
        yield from pool.imap(partial(_worker_pair, max_hands), tasks)


def _adopt(policies: dict[str, Policy]) -> None:
    global _PLAYING
    _PLAYING = policies


def _worker_pair(max_hands: int, task: Task) -> list[tuple[GameRecord, int]]:
    return _pair(_PLAYING, max_hands, task)


def _pair(policies: dict[str, Policy], max_hands: int, task: Task) -> list[tuple[GameRecord, int]]:
    """Both legs of a duplicate pair: the first policy at A+C, then at B+D."""
    _, deal, a, b = task
    return [
        play_match((first, policies[first]), (second, policies[second]), deal, max_hands)
        for first, second in ((a, b), (b, a))
    ]


def _result(
    match_id: str, first: str, second: str, leg: int, record: GameRecord, asked: int, number: int
) -> MatchResult:
    side = record.winner
    return MatchResult(
        match_id=match_id,
        first=first,
        second=second,
        seed=record.seed,
        leg=leg,
        winner_side=side,
        winner=None if side is None else (first if side == "AC" else second),
        marks=dict(record.marks),
        hands=len(record.hands),
        end=record.end or "marks",
        forfeit=None,
        faults={},
        game_digest=game_digest(record),
        log_digest="",
        log="",
        number=number,
        decisions=asked,
    )
