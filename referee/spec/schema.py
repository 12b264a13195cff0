"""JSON Schemas generated from the message and record types, for tools in other languages.

``protocol/schema.json`` (the wire protocol) and ``protocol/log.schema.json`` (the replay log)
are written by ``referee schema``; a test fails when either is stale. ``PROTOCOL_DIR`` is the
package's folder of them: the clone's ``protocol/``, or the copies an installed package ships.
"""

from __future__ import annotations

import json
from typing import Any, Final

import msgspec

from referee import bundled
from referee.record.records import LOG_VERSION, GameRecord, LogRecord
from referee.wire.messages import PROTOCOL_VERSION, BotMessage, RefereeMessage

PROTOCOL_DIR: Final = bundled.PROTOCOL
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


def _lenient(schema: Any) -> Any:
    """The schema open to what a later version may add: no ``additionalProperties: false``
    anywhere, and every tagged union (messages, events, actions) also admits an object of a
    type it does not know — a bot that validates its input must not break when the protocol
    grows."""
    if isinstance(schema, dict):
        opened = {
            key: _lenient(value)
            for key, value in schema.items()
            if not (key == "additionalProperties" and value is False)
        }
        tag = opened.get("discriminator", {}).get("propertyName")
        if tag and "anyOf" in opened:
            known = sorted(opened["discriminator"].get("mapping", {}))
            later = {"type": "string", "not": {"enum": known}}
            opened["anyOf"] = [
                *opened["anyOf"],
                {"type": "object", "required": [tag], "properties": {tag: later}},
            ]
        return opened
    if isinstance(schema, list):
        return [_lenient(item) for item in schema]
    return schema


def protocol_schema() -> dict[str, Any]:
    """Two sets of definitions: what the referee sends (``ToBot.*``, open to new fields) and
    what it accepts (``FromBot.*``, exact: an unknown field is refused)."""
    defs: dict[str, Any] = {}
    for prefix, root, kind, strict in (
        ("ToBot", "RefereeMessage", RefereeMessage, False),
        ("FromBot", "BotMessage", BotMessage, True),
    ):
        (schema,), components = msgspec.json.schema_components(
            [kind], ref_template=f"#/$defs/{prefix}.{{name}}"
        )
        for name, component in sorted(components.items()):
            defs[f"{prefix}.{name}"] = component if strict else _lenient(component)
        defs[root] = schema if strict else _lenient(schema)
    return {
        "$schema": _DRAFT,
        "title": f"Texas 42 referee protocol, version {PROTOCOL_VERSION}",
        "description": "One JSON object per line. RefereeMessage: what a bot reads on stdin"
        " (it may gain message types and fields: ignore what you do not know); BotMessage:"
        " what it writes on stdout (exact: unknown fields are refused). Integers are JSON"
        " integers: 30, never 30.0 or 3e1.",
        "oneOf": [{"$ref": "#/$defs/RefereeMessage"}, {"$ref": "#/$defs/BotMessage"}],
        "$defs": defs,
    }


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
