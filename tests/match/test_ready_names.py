"""``ready`` refuses a name that would not look as it is: one holding a control (C0, DEL, C1), a
bidi or other format character, or a line or paragraph separator — as ``bad_message``, with a
detail that names the character, the way a name too long is refused. The schema says the same.
"""

from __future__ import annotations

import re

import jsonschema
import msgspec
import pytest
import trio
from support.fakes import FakeBot, play_match, ready, settings

from referee.errors import BadMessage
from referee.record.records import BotReady, RejectedRecord
from referee.spec.schema import protocol_schema
from referee.terminal.escapes import NAME_PATTERN, hidden, name_problem
from referee.wire.decode import decode_bot_line
from referee.wire.messages import Ready

WHY = "(names are shown in terminals: no control, format or line separator character)"


def ready_line(name: str) -> bytes:
    return msgspec.json.encode({"type": "ready", "name": name})


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("\u202eevil", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidi formatting character, at index 0"),
        ("ev\x9bil", "U+009B, a C1 control character, at index 2"),
        ("evil\x85", "U+0085, a C1 control character, at index 4"),
        ("a\u2066b", "U+2066 LEFT-TO-RIGHT ISOLATE, a bidi formatting character, at index 1"),
        ("a\u200fb", "U+200F RIGHT-TO-LEFT MARK, a bidi formatting character, at index 1"),
        ("a\u061cb", "U+061C ARABIC LETTER MARK, a bidi formatting character, at index 1"),
        ("a\u200bb", "U+200B ZERO WIDTH SPACE, an invisible format character, at index 1"),
        ("\ufeffb", "U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible format character, at index 0"),
        ("bot\U000e0001", "U+E0001 LANGUAGE TAG, an invisible format character, at index 3"),
        ("a\u2028b", "U+2028 LINE SEPARATOR, a line separator, at index 1"),
        ("a\u2029b", "U+2029 PARAGRAPH SEPARATOR, a paragraph separator, at index 1"),
        ("a\x1bb", "U+001B, a C0 control character, at index 1"),
        ("a\x7f", "U+007F, the control character DEL, at index 1"),
    ],
)  # fmt: skip
def test_a_name_that_does_not_look_as_it_is_is_refused(name: str, said: str) -> None:
    with pytest.raises(BadMessage) as raised:
        decode_bot_line(ready_line(name))
    assert str(raised.value) == f"name holds {said} {WHY} - at `$.name`"
    # Raw UTF-8 (C1 and bidi characters need no escape in JSON) is refused alike.
    if not any(c < " " for c in name):
        with pytest.raises(BadMessage, match=re.escape(said)):
            decode_bot_line(b'{"type":"ready","name":"' + name.encode() + b'"}')


@pytest.mark.parametrize(
    "name",
    [
        "élève",
        "中文 ボット",
        "😀 👍🏽 🇫🇷",
        "مرحبا",
        "नमस्ते",
        "a\xa0b",
        "back\\slash [bold] :smile:",
        "x" * 100,
    ],
)
def test_names_that_are_drawn_are_accepted(name: str) -> None:
    assert decode_bot_line(ready_line(name)) == Ready(name=name)


@pytest.mark.parametrize("bad", ["\u202eevil", "\x9bevil"])
async def test_a_refused_name_is_rejected_and_a_good_ready_still_accepted(
    bad: str, autojump_clock: trio.abc.Clock
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(hello=lambda hello: [ready(bad), ready("good")]), FakeBot(), FakeBot()],
        settings(seed=3),
    )
    (rejected,) = run.bots["B"].rejections
    assert (rejected.id, rejected.reason) == (0, "bad_message")
    assert rejected.detail == name_problem(bad)
    assert f"U+{ord(bad[0]):04X}" in rejected.detail
    (record,) = run.of(RejectedRecord)
    assert (record.seat, record.reason, record.detail) == ("B", "bad_message", rejected.detail)
    assert [r.name for r in run.of(BotReady) if r.seat == "B"] == ["good"]
    assert run.outcome.names["B"] == "good"
    assert run.outcome.end == "marks"


async def test_a_bot_that_only_gives_such_names_never_becomes_ready(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(hello=lambda hello: [ready("\u202eevil")] * 5), FakeBot(), FakeBot(), FakeBot()],
        settings(seed=3, max_rejections=3),
    )
    assert run.outcome.names["A"] == ""
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("A", "too_many_rejections")
    assert "RIGHT-TO-LEFT OVERRIDE" in run.outcome.forfeit.detail


def test_the_schema_pattern_is_the_same_rule_over_the_basic_plane() -> None:
    pattern = re.compile(NAME_PATTERN)
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue  # no JSON text decodes to a lone surrogate
        character = chr(code)
        assert (pattern.fullmatch(character) is None) == hidden(character), f"U+{code:04X}"
        assert (name_problem(character) is None) != hidden(character)
    # Above it only the referee checks (PROTOCOL.md says so): the ones it refuses there.
    above = [c for c in range(0x10000, 0x110000) if hidden(chr(c))]
    assert above and all(0x110BD <= c <= 0xE007F for c in above)


def test_the_schema_refuses_what_ready_refuses() -> None:
    schema = protocol_schema()
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/BotMessage", "$defs": schema["$defs"]}
    )
    assert schema["$defs"]["FromBot.Ready"]["properties"]["name"]["pattern"] == NAME_PATTERN
    for name in ("\u202eevil", "ev\x9bil", "a\u200bb", "a\u2028b", "a\x1bb"):
        assert not validator.is_valid({"type": "ready", "name": name}), repr(name)
    for name in ("élève", "中文", "😀", "back\\slash"):
        validator.validate({"type": "ready", "name": name})
