"""The published protocol files stay true to the code: schemas fresh, the transcript valid."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import msgspec
import pytest

from referee.spec.schema import PROTOCOL_DIR, SCHEMA_FILES, protocol_schema, render
from referee.spec.transcript import TRANSCRIPT, transcript, untimed
from referee.wire.messages import BotMessage, RefereeMessage


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_schema_file_is_fresh(name: str) -> None:
    path = PROTOCOL_DIR / name
    assert path.read_text() == render(SCHEMA_FILES[name]()), (
        f"{path} is stale: run 'referee schema'"
    )


def test_transcript_is_what_the_referee_says() -> None:
    # Made again by a real match: the file is the referee's own output, byte for byte but for
    # the milliseconds left after the refused answer.
    made = transcript()
    assert untimed(TRANSCRIPT.read_bytes()) == untimed(made), (
        f"{TRANSCRIPT} is stale: run 'referee schema'"
    )


def test_what_bots_read_may_grow_what_they_write_may_not() -> None:
    to_bot, from_bot = _validator("RefereeMessage"), _validator("BotMessage")
    body = next(body for direction, body in _transcript() if direction == ">")
    grown = {**json.loads(body), "added_in_a_later_version": {"x": 1}}
    grown["limits"] = {**grown["limits"], "new_limit_ms": 5}
    to_bot.validate(grown)
    act = next(json.loads(b) for d, b in _transcript() if d == ">" and b'"act"' in b)
    to_bot.validate({**act, "events": [*act["events"], {"type": "added_later", "x": 1}]})
    to_bot.validate({"type": "a_message_added_later", "anything": [1, 2]})
    assert not to_bot.is_valid({**act, "id": "seven"})  # what it knows stays exact
    answer = {"type": "ready", "name": "x"}
    from_bot.validate(answer)
    assert not from_bot.is_valid({**answer, "extra": 1})
    assert not from_bot.is_valid({"type": "action", "id": 1.5, "action": {"type": "pass"}})


def test_hello_carries_the_seed_as_text_too() -> None:
    hello = json.loads(_transcript()[0][1])
    assert hello["type"] == "hello" and hello["seed_text"] == str(hello["seed"])


def _transcript() -> list[tuple[str, bytes]]:
    lines = []
    for raw in TRANSCRIPT.read_bytes().splitlines():
        direction, _, body = raw.partition(b" ")
        lines.append((direction.decode(), body))
    return lines


def test_transcript_shows_every_message_type() -> None:
    kinds = {json.loads(body)["type"] for _, body in _transcript()}
    assert kinds == {"hello", "ready", "act", "action", "rejected", "hand_end", "match_end"}


def _validator(root: str) -> jsonschema.Draft202012Validator:
    schema = protocol_schema()
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{root}", "$defs": schema["$defs"]})


def test_transcript_matches_schema_and_types() -> None:
    referee, bot = _validator("RefereeMessage"), _validator("BotMessage")
    for direction, body in _transcript():
        (referee if direction == ">" else bot).validate(json.loads(body))
        msgspec.json.decode(body, type=RefereeMessage if direction == ">" else BotMessage)


def test_schema_rejects_what_the_referee_rejects() -> None:
    validator = _validator("BotMessage")
    good = {"type": "action", "id": 3, "action": {"type": "play", "tile": [3, 5]}}
    validator.validate(good)
    for bad in (
        {**good, "extra": 1},
        {"type": "action", "id": 3, "action": {"type": "bid", "points": 29}},
        {"type": "action", "id": "3", "action": {"type": "pass"}},
        {"type": "action", "id": 3, "action": {"type": "play", "tile": [3, 7]}},
    ):
        assert not validator.is_valid(bad), bad


def test_docs_name_every_file_they_link() -> None:
    text = (PROTOCOL_DIR / "PROTOCOL.md").read_text()
    for target in ("schema.json", "examples/transcript-seat-A.txt", "LOG.md"):
        assert target in text
        assert (PROTOCOL_DIR / target).exists()
    assert Path(PROTOCOL_DIR / "log.schema.json").exists()


def test_legal_actions_come_in_the_documented_order() -> None:
    import random

    from referee.rules import AllTricksBid, Bid, DeclareTrump, Match, Pass, Play
    from referee.rules.actions import TRUMPS

    rng = random.Random(5)
    for seed in range(40):
        match = Match(seed=seed)
        while not match.is_over:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            view = match.view(seat)
            if view.phase == "bidding":
                assert legal[0] == Pass()
                points = [a.points for a in legal if isinstance(a, Bid)]
                assert points == sorted(points)
                marks = [a.marks for a in legal if isinstance(a, AllTricksBid)]
                assert marks == sorted(marks) and legal[1 + len(points) :] == [
                    AllTricksBid(m) for m in marks
                ]
            elif view.phase == "declaring":
                assert all(isinstance(a, DeclareTrump) for a in legal)
                order = [(TRUMPS.index(a.trump), a.piles or 0) for a in legal]  # type: ignore[union-attr]
                assert order == sorted(order)
            else:
                tiles = [a.tile for a in legal if isinstance(a, Play)]
                assert tiles == [t for t in view.hand if t in tiles]
            match.apply(seat, rng.choice(legal))
