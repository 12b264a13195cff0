"""The conformance vectors in ``protocol/conformance/``, made from seeded play of the Python
engine: positions that exercise every rule of ``coverage.RULES``, perft counts from some of
them, and whole matches.

Every file is made again by ``referee schema``, and a test fails when one is stale. The play
is a fixed function of the vector's number (``Player``), drawing only ``random.Random.random``,
whose sequence Python keeps the same from version to version; the vectors themselves are plain
data and need none of it (``protocol/CONFORMANCE.md``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any, Final

import msgspec

from referee.errors import RefereeError
from referee.rules.actions import PASS, Action, Play
from referee.rules.events import HandEnded
from referee.rules.match import Match
from referee.rules.views import Move, PlayedTile
from referee.spec.coverage import RULES, Step
from referee.spec.facts import Engine, PythonEngine, event_facts, json_form, state_facts
from referee.spec.refusals import refused_moves

VERSION: Final = 1
FOLDER: Final = "conformance"
#: Seeds spread over the whole 64-bit range (vector ``i`` plays the match with seed
#: ``i * SPREAD mod 2**64``), so that an engine's seeds are tested large as well as small.
SPREAD: Final = 0x9E3779B97F4A7C15
#: How many seeded matches the search for the rules may play before it gives up.
_SEARCH_LIMIT: Final = 400
#: Perft from the position of a rule's vector, so many actions earlier, to this depth.
PERFT: Final = (
    ("deal.seed", 0, 4),
    ("bid.all-pass", 1, 3),
    ("declare.point", 0, 3),
    ("declare.all-tricks", 0, 2),
    ("win.double-high", 4, 4),
    ("end.all-tricks-set", 4, 5),
    ("end.point-made-early", 6, 7),
    ("view.piles-2", 0, 7),
)
#: The sampled positions: every so many positions of so many matches, numbered from here.
_SAMPLE_STRIDE: Final = 7
_SAMPLED_MATCHES: Final = 3
_SAMPLES_FROM: Final = 2000
#: The whole matches: so many, numbered from here (apart from the search's).
_MATCHES: Final = 12
_MATCHES_FROM: Final = 1000


def match_seed(number: int) -> int:
    return number * SPREAD % 2**64


class Player:
    """Seeded play with a bidding temper that changes from hand to hand: now mostly passing
    (so that four passes happen), now bidding at almost every turn (all tricks to 5 marks)."""

    def __init__(self, number: int) -> None:
        self._rng = random.Random(number)
        self._hand = 0
        self._passing = 0.5

    def _draw(self, count: int) -> int:
        return int(self._rng.random() * count)

    def choose(self, match: Match) -> Action:
        hand = match.hand
        if hand.hand_number != self._hand:
            self._hand = hand.hand_number
            self._passing = (0.9, 0.55, 0.15)[self._draw(3)]
        legal = match.legal_actions()
        if hand.phase == "bidding":
            if self._rng.random() < self._passing:
                return PASS
            legal = legal[1:]
        return legal[self._draw(len(legal))]


def played(number: int) -> Iterator[tuple[Step, list[Move]]]:
    """Every position of seeded match ``number`` with the moves that reached it."""
    match, player = Match(match_seed(number)), Player(number)
    moves: list[Move] = []
    yield Step(match, None, None, None, [], []), moves
    while not match.is_over:
        hand, seat = match.hand, match.turn
        assert seat is not None
        action = player.choose(match)
        trick = [*hand.trick, PlayedTile(seat, action.tile)] if type(action) is Play else []
        events = match.apply(seat, action)
        moves.append(Move(seat, action))
        yield Step(match, hand, seat, action, events, trick), moves


def step_after(seed: int, moves: list[Any]) -> Step:
    """The ``Step`` a position vector stands for, replayed from its seed and JSON moves."""
    match = Match(seed)
    step = Step(match, None, None, None, [], [])
    for move in msgspec.convert(moves, list[Move]):
        hand = match.hand
        action = move.action
        trick = [*hand.trick, PlayedTile(move.seat, action.tile)] if type(action) is Play else []
        events = match.apply(move.seat, action)
        step = Step(match, hand, move.seat, action, events, trick)
    return step


def positions() -> list[dict[str, Any]]:
    """For each rule, the first position of the seeded matches that exercises it (a position
    may be the first for several); then the sampled positions."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    missing = list(RULES)
    for number in range(_SEARCH_LIMIT):
        for step, moves in played(number):
            hits = [rule.id for rule in missing if rule.holds(step)]
            if not hits:
                continue
            missing = [rule for rule in missing if rule.id not in hits]
            vector = found.setdefault((number, len(moves)), _position(hits[0], step, moves))
            vector["covers"] = [*vector.get("covers", []), *hits]
            if not missing:
                order = {rule.id: i for i, rule in enumerate(RULES)}
                return sorted(found.values(), key=lambda v: order[v["id"]]) + _samples()
    raise RefereeError(f"no position exercises {', '.join(r.id for r in missing)}")


def _samples() -> list[dict[str, Any]]:
    """Positions taken at a fixed stride through a few more matches, whatever they hold."""
    samples = []
    for number in range(_SAMPLES_FROM, _SAMPLES_FROM + _SAMPLED_MATCHES):
        for step, moves in played(number):
            if len(moves) % _SAMPLE_STRIDE == _SAMPLE_STRIDE - 1:
                samples.append(_position(f"sample-{number}-{len(moves)}", step, moves))
    return samples


def _position(name: str, step: Step, moves: list[Move]) -> dict[str, Any]:
    match = step.match
    return {
        "id": name,
        "covers": [],
        "seed": match.seed,
        "moves": json_form(moves),
        "events": event_facts(step.events),
        "legal": json_form(match.legal_actions()),
        "refused": json_form(refused_moves(match)),
        "state": state_facts(match),
    }


def replayed(engine: Engine, moves: list[Any]) -> Engine:
    """``engine`` after ``moves`` (``{"seat", "action"}``), each one by the seat to act."""
    for move in moves:
        engine.apply(move["seat"], move["action"])
    return engine


def perft(engine: Engine, depth: int) -> dict[str, list[int]]:
    """How many action sequences of each length 1..depth lead on from the position, and how
    many of them end with a trick taken or a hand over; a finished match ends a sequence."""
    counts = {name: [0] * depth for name in ("nodes", "tricks", "hand_ends")}

    def walk(position: Engine, ply: int) -> None:
        seat = position.turn
        if seat is None:
            return
        for action in position.legal_actions():
            child = position.clone()
            kinds = {event["type"] for event in child.apply(seat, action)}
            counts["nodes"][ply] += 1
            counts["tricks"][ply] += "trick" in kinds
            counts["hand_ends"][ply] += "hand_end" in kinds
            if ply + 1 < depth:
                walk(child, ply + 1)

    walk(engine, 0)
    return counts


def perft_vectors(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    covering = {rule: vector for vector in found for rule in vector["covers"]}
    vectors = []
    for name, back, depth in PERFT:
        origin = covering[name]
        moves = origin["moves"][: len(origin["moves"]) - back]
        engine = replayed(PythonEngine(origin["seed"]), moves)
        vectors.append(
            {
                "id": f"{name}-{back}" if back else name,
                "seed": origin["seed"],
                "moves": moves,
                "depth": depth,
                **perft(engine, depth),
            }
        )
    return vectors


def matches() -> list[dict[str, Any]]:
    """Whole seeded matches: every move, how many actions were legal before each and where
    the move stood among them, every hand's result, and the final position."""
    vectors = []
    for number in range(_MATCHES_FROM, _MATCHES_FROM + _MATCHES):
        match, player = Match(match_seed(number)), Player(number)
        moves: list[Move] = []
        counts: list[int] = []
        choices: list[int] = []
        results: list[Any] = []
        while not match.is_over:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            action = player.choose(match)
            counts.append(len(legal))
            choices.append(legal.index(action))
            events = match.apply(seat, action)
            moves.append(Move(seat, action))
            ended = [e for e in events if type(e) is HandEnded]
            results.extend(fact["result"] for fact in event_facts(ended))
        vectors.append(
            {
                "id": f"match-{number}",
                "seed": match.seed,
                "moves": json_form(moves),
                "legal_counts": counts,
                "choices": choices,
                "results": results,
                "state": state_facts(match),
            }
        )
    return vectors


def render(kind: str, vectors: list[dict[str, Any]]) -> str:
    """A file of JSON lines: a header line, then one vector a line."""
    header = {"format": f"texas42-conformance/{kind}", "version": VERSION, "count": len(vectors)}
    lines = [json.dumps(header), *(json.dumps(v, separators=(",", ":")) for v in vectors)]
    return "\n".join(lines) + "\n"


def vector_files() -> dict[str, str]:
    """Every file of ``protocol/conformance/``, by its path in the protocol's folder."""
    found = positions()
    return {
        f"{FOLDER}/positions.jsonl": render("positions", found),
        f"{FOLDER}/perft.jsonl": render("perft", perft_vectors(found)),
        f"{FOLDER}/matches.jsonl": render("matches", matches()),
    }
