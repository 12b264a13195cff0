"""The published protocol files stay true to the code: schemas fresh, the transcript valid."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import msgspec
import pytest

from referee.messages import BotMessage, RefereeMessage
from referee.schema import PROTOCOL_DIR, SCHEMA_FILES, protocol_schema, render

TRANSCRIPT = PROTOCOL_DIR / "examples" / "transcript-seat-A.txt"


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_schema_file_is_fresh(name: str) -> None:
    path = PROTOCOL_DIR / name
    assert path.read_text() == render(SCHEMA_FILES[name]()), (
        f"{path} is stale: run 'referee schema'"
    )


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
