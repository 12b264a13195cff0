"""Check an engine against the published conformance vectors: the lockstep hook.

``check_engine(new_engine)`` plays every vector of ``protocol/conformance/`` through an engine
that offers the small ``facts.Engine`` interface — the Python engine (``PythonEngine``), a
compiled core's Python binding, anything loaded from Python — and returns every disagreement
(an empty list: the engine conforms). At every move it checks that the seat is the one to act
and the action is legal; then each vector's legal actions, events, state, perft counts, match
results. The first disagreement ends a vector: what follows it would only repeat it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from referee.errors import RefereeError
from referee.spec.facts import Engine, NewEngine, json_form
from referee.spec.schema import PROTOCOL_DIR
from referee.spec.vectors import FOLDER, VERSION, perft

#: The published vectors: ``positions``, ``perft`` and ``matches``, one JSON-lines file each.
VECTORS: Final = PROTOCOL_DIR / FOLDER
KINDS: Final = ("positions", "perft", "matches")


@dataclass(frozen=True)
class Disagreement:
    """Where an engine and a vector part: the file, the vector, what was compared."""

    kind: str
    vector: str
    what: str
    expected: Any
    got: Any

    def __str__(self) -> str:
        return (
            f"{self.kind} {self.vector}: {self.what}: expected {json.dumps(self.expected)},"
            f" got {json.dumps(self.got)}"
        )


class Parted(Exception):
    """Raised at a check's first disagreement: what was compared, what was expected, what
    the engine gave (``same`` raises it)."""

    def __init__(self, what: str, expected: Any, got: Any) -> None:
        super().__init__(what)
        self.what, self.expected, self.got = what, expected, got


def read_vectors(kind: str, folder: Path = VECTORS) -> list[dict[str, Any]]:
    """The vectors of one file, after its header line (format and version) is checked."""
    path = folder / f"{kind}.jsonl"
    header, *lines = path.read_text().splitlines()
    head = json.loads(header)
    if head.get("format") != f"texas42-conformance/{kind}" or head.get("version") != VERSION:
        raise RefereeError(f"{path}: not version {VERSION} {kind} vectors: {header}")
    return [json.loads(line) for line in lines]


def check_engine(
    new_engine: NewEngine,
    *,
    folder: Path = VECTORS,
    kinds: Collection[str] = KINDS,
    fields: Collection[str] | None = None,
) -> list[Disagreement]:
    """Every disagreement between the engine ``new_engine(seed)`` makes and the vectors.

    ``fields`` limits the comparison of each position's ``state`` to those keys (an engine
    that does not yet report them all); by default every key is compared.
    """
    checks = {"positions": _position, "perft": _perft, "matches": _match}
    found = []
    for kind in kinds:
        for vector in read_vectors(kind, folder):
            try:
                checks[kind](new_engine, vector, fields)
            except Parted as parted:
                found.append(
                    Disagreement(kind, vector["id"], parted.what, parted.expected, parted.got)
                )
            except Exception as error:  # the engine's own failure is a disagreement too
                raised = f"{type(error).__name__}: {error}"
                found.append(Disagreement(kind, vector["id"], "the engine raised", None, raised))
    return found


def _replay(engine: Engine, moves: list[Any]) -> Iterator[tuple[int, list[Any], Any]]:
    """Apply each move after checking its seat and legality; yields the step, the legal
    actions before it, and the events it caused."""
    for index, move in enumerate(moves):
        seat, action = move["seat"], move["action"]
        if engine.turn != seat:
            raise Parted(f"move {index}: the seat to act", seat, engine.turn)
        legal = json_form(list(engine.legal_actions()))
        if action not in legal:
            raise Parted(f"move {index}: {json.dumps(action)} among the legal actions", legal, None)
        yield index, legal, list(engine.apply(seat, action))


def same(what: str, expected: Any, got: Any) -> None:
    """Raise ``Parted`` unless the engine gave what was expected, read as JSON reads it (a
    tile given as a tuple is the list the vectors write)."""
    got = json_form(got)
    if json_form(expected) != got:
        raise Parted(what, expected, got)


def _state(engine: Engine, expected: dict[str, Any], fields: Collection[str] | None) -> None:
    state = engine.state()
    for key in fields if fields is not None else expected:
        same(f"state.{key}", expected[key], state.get(key))


def _position(
    new_engine: NewEngine, vector: dict[str, Any], fields: Collection[str] | None
) -> None:
    engine = new_engine(vector["seed"])
    events: list[Any] = []
    for _, _, caused in _replay(engine, vector["moves"]):
        events = caused
    same("events of the last move", vector["events"], events)
    same("legal actions", vector["legal"], list(engine.legal_actions()))
    _state(engine, vector["state"], fields)
    for move in vector["refused"]:
        probe = engine.clone()
        try:
            probe.apply(move["seat"], move["action"])
        except Exception:
            _state(probe, vector["state"], fields)  # refused, and nothing changed
        else:
            raise Parted(f"refusing {json.dumps(move)}", "refused", "accepted")


def _perft(new_engine: NewEngine, vector: dict[str, Any], _: Collection[str] | None) -> None:
    engine = new_engine(vector["seed"])
    for _step in _replay(engine, vector["moves"]):
        pass
    counts = perft(engine, vector["depth"])
    for name in ("nodes", "tricks", "hand_ends"):
        same(f"perft {name}, depth 1 to {vector['depth']}", vector[name], counts[name])


def _match(new_engine: NewEngine, vector: dict[str, Any], fields: Collection[str] | None) -> None:
    engine = new_engine(vector["seed"])
    counts, choices, results = vector["legal_counts"], vector["choices"], iter(vector["results"])
    for index, legal, events in _replay(engine, vector["moves"]):
        same(f"move {index}: how many actions are legal", counts[index], len(legal))
        same(
            f"move {index}: its place among them",
            choices[index],
            legal.index(vector["moves"][index]["action"]),
        )
        for event in events:
            if event.get("type") == "hand_end":
                same(f"move {index}: the hand's result", next(results, None), event["result"])
    same("the results after the last hand", None, next(results, None))
    same("the seat to act after the last move", None, engine.turn)
    _state(engine, vector["state"], fields)
