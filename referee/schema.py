"""JSON Schemas generated from the message and record types, for tools in other languages.

``protocol/schema.json`` (the wire protocol) and ``protocol/log.schema.json`` (the replay log)
are written by ``referee schema``; a test fails when either is stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import msgspec

from referee.messages import PROTOCOL_VERSION, BotMessage, RefereeMessage
from referee.records import LOG_VERSION, GameRecord, LogRecord

PROTOCOL_DIR: Final = Path(__file__).resolve().parent.parent / "protocol"
_DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"


def _document(title: str, description: str, roots: dict[str, Any]) -> dict[str, Any]:
    schemas, components = msgspec.json.schema_components(
        list(roots.values()), ref_template="#/$defs/{name}"
    )
    defs = dict(sorted(components.items()))
    for name, schema in zip(roots, schemas, strict=True):
        defs[name] = schema
    return {
        "$schema": _DRAFT,
        "title": title,
        "description": description,
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in roots],
        "$defs": defs,
    }


def protocol_schema() -> dict[str, Any]:
    return _document(
        f"Texas 42 referee protocol, version {PROTOCOL_VERSION}",
        "One JSON object per line. RefereeMessage: what a bot reads on stdin; BotMessage: what"
        " it writes on stdout. Bots must ignore unknown message types and fields.",
        {"RefereeMessage": RefereeMessage, "BotMessage": BotMessage},
    )


def log_schema() -> dict[str, Any]:
    return _document(
        f"Texas 42 replay log, version {LOG_VERSION}",
        "Each line of a replay log is one LogRecord. GameRecord is the canonical game content"
        " that game_digest hashes.",
        {"LogRecord": LogRecord, "GameRecord": GameRecord},
    )


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


SCHEMA_FILES: Final = {"schema.json": protocol_schema, "log.schema.json": log_schema}
