"""Lenient decoding: the referee's messages into the engine's types, ignoring what is new.

The protocol grows by adding fields and message or event types, and a bot must ignore what
it does not know. The engine's types (``View``, actions, events) forbid unknown fields — they
are what the referee checks a bot's answers against — so the kit first drops every field the
type does not declare, at any depth, and then converts. A value whose own shape is wrong
still fails, with msgspec's message.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec
import msgspec.inspect as mi


class UnknownType(ValueError):
    """A tagged object (an event, an action) of a ``type`` this kit does not know."""


@functools.cache
def _info(kind: Any) -> mi.Type:
    return mi.type_info(kind)


def _prune(value: Any, info: mi.Type) -> Any:
    """``value`` with every object field ``info`` does not declare removed, recursively."""
    if isinstance(info, mi.StructType):
        if not isinstance(value, dict):
            return value
        known = {field.encode_name: field.type for field in info.fields}
        kept = {k: _prune(v, known[k]) for k, v in value.items() if k in known}
        if info.tag_field is not None and info.tag_field in value:
            kept[info.tag_field] = value[info.tag_field]
        return kept
    if isinstance(info, mi.UnionType):
        if isinstance(value, dict):
            structs = [t for t in info.types if isinstance(t, mi.StructType)]
            tagged = [t for t in structs if t.tag_field is not None]
            if tagged:
                tag = value.get(tagged[0].tag_field)
                for struct in tagged:
                    if struct.tag == tag:
                        return _prune(value, struct)
                raise UnknownType(f"unknown type {tag!r}")
            if len(structs) == 1:
                return _prune(value, structs[0])
        return value
    if isinstance(info, mi.ListType | mi.VarTupleType | mi.FrozenSetType | mi.SetType):
        return [_prune(v, info.item_type) for v in value] if isinstance(value, list) else value
    if isinstance(info, mi.DictType):
        if isinstance(value, dict):
            return {k: _prune(v, info.value_type) for k, v in value.items()}
        return value
    return value


def lenient(value: Any, kind: Any) -> Any:
    """Convert plain JSON data to ``kind`` (a struct or a union), ignoring unknown fields.

    Raises ``UnknownType`` for a tagged object of an unknown ``type`` and
    ``msgspec.ValidationError`` for a known one of the wrong shape.
    """
    return msgspec.convert(_prune(value, _info(kind)), kind)
