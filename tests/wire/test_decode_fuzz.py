"""Whatever bytes a bot sends, ``decode_bot_line`` returns a message or raises a ``Rejection``.

Anything else escaping it would end the match in "error" with no fault charged, so a losing
bot could send it to never lose. The regression: a ~2 KB line nesting 1000 arrays before its
``"type"`` made msgspec raise ``RecursionError``. The adversarial lines come from the same
generators as ``referee bench decode`` (``referee/bench/decoding.py``).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from support.fakes import FakeBot, any_act, misbehave, play_match, ready, replay, settings

import referee.wire.decode
from referee.bench import decoding as bench
from referee.errors import BadMessage, InvalidUtf8, Rejection, reason_code
from referee.record.records import MoveRecord, RejectedRecord
from referee.rules import SEATS
from referee.wire.decode import decode_bot_line
from referee.wire.messages import ActionAnswer, Ready

#: The reported line: a deep value in an unknown field, before "type" (so it is skipped).
NESTED = b'{"x":' + b"[" * 1000 + b"]" * 1000 + b',"type":"action"}'


def outcome(line: bytes) -> object:
    """What decoding ``line`` gives: the message, or the ``Rejection``; nothing else passes."""
    try:
        return decode_bot_line(line)
    except Rejection as rejection:
        assert reason_code(rejection) in {"invalid_utf8", "invalid_json", "bad_message"}
        assert str(rejection)
        return rejection


# -- the regression ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(NESTED, id="reported"),
        pytest.param(
            b'{"x":' + b'{"a":' * 1000 + b"1" + b"}" * 1000 + b',"type":"ready"}', id="obj"
        ),
        pytest.param(b'{"x":' + b"[" * 100_000 + b',"type":"action"}', id="unclosed-100k"),
        pytest.param(
            b'{"type":"action","id":1,"action":{"x":' + b"[" * 5000 + b"]" * 5000 + b"}}",
            id="in-action",
        ),
        pytest.param(b'{"name":' + b"[" * 5000 + b"]" * 5000 + b',"type":"ready"}', id="name"),
    ],
)
def test_deep_nesting_is_a_bad_message(line: bytes) -> None:
    with pytest.raises(BadMessage, match=r"^nested too deep$"):
        decode_bot_line(line)


def test_deep_nesting_with_bad_utf8_is_invalid_utf8() -> None:
    # As for every other refusal, bytes that are not UTF-8 are what is reported first.
    with pytest.raises(InvalidUtf8, match=r"at byte 1$"):
        decode_bot_line(b'{\xff"x":' + b"[" * 2000 + b',"type":"action"}')


def test_memory_running_out_while_decoding_is_a_bad_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seen for real with a 300 MB unknown key under `ulimit -v` (msgspec quotes the key in its
    # error): too slow and too machine-dependent to reproduce here, so the decoder is faked.
    class Exhausted:
        def decode(self, line: bytes) -> Any:
            raise MemoryError

    monkeypatch.setattr(referee.wire.decode, "BOT_MESSAGE_DECODER", Exhausted())
    with pytest.raises(BadMessage, match=r"^too large to decode$"):
        decode_bot_line(b'{"type":"ready","name":"x"}')


def test_a_huge_unknown_key_gives_a_short_detail() -> None:
    # The detail goes back to the bot and into the log: it must not be the size of the line.
    line = b'{"type":"action","id":1,"action":{"type":"pass","' + b"k" * 1_000_000 + b'":1}}'
    with pytest.raises(BadMessage) as info:
        decode_bot_line(line)
    detail = str(info.value)
    assert len(detail) == 300
    assert detail.startswith("Object contains unknown field `kkk")
    assert detail.endswith("kkk` - at `$.action`")
    assert "…" in detail


@pytest.mark.parametrize("at", [0, 1, 65533, 65534, 65535, 65536, 65537, 131071, 131072, 200_000])
@pytest.mark.parametrize(
    "bad", [b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc3(", b"\xf0\x9f\x98"]
)
def test_long_lines_are_checked_for_utf8_in_chunks_exactly_as_whole(at: int, bad: bytes) -> None:
    # A long line is checked a chunk at a time (decoding it whole could need four times its
    # size); the byte reported must be the one a whole decode reports, even across chunks.
    good = "é😀".encode()  # two- and four-byte characters, to straddle the chunk boundaries
    body = (good * (250_000 // len(good)))[:at]
    body = body[: len(body.decode("utf-8", errors="ignore").encode())]  # whole characters
    line = b'{"type":"ready","name":"x"}' + body + bad + good * 3
    with pytest.raises(UnicodeDecodeError) as whole:
        line.decode("utf-8")
    with pytest.raises(InvalidUtf8) as chunked:
        decode_bot_line(line)
    assert (
        str(chunked.value) == f"not valid UTF-8: {whole.value.reason} at byte {whole.value.start}"
    )


def test_a_long_valid_line_with_wide_characters_is_accepted() -> None:
    # One emoji and a megabyte of spaces: accepted, and checked without a 4 MB str.
    line = b'{"type":"ready","name":"\xf0\x9f\x98\x80"' + b" " * 1_000_000 + b"}"
    assert decode_bot_line(line) == Ready(name="😀")


# -- through the table ------------------------------------------------------------------------


async def test_a_nested_answer_is_rejected_and_the_match_goes_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(any_act, lambda act: NESTED + b"\n")
    run = await play_match([FakeBot(), FakeBot(), FakeBot(policy), FakeBot()], settings(seed=4))
    (refused,) = policy.triggered  # type: ignore[attr-defined]
    (rejected,) = run.bots["C"].rejections
    assert (rejected.id, rejected.reason, rejected.detail) == (
        refused.id,
        "bad_message",
        "nested too deep",
    )
    (record,) = run.of(RejectedRecord)
    assert (record.id, record.seat, record.reason, record.detail) == (
        refused.id,
        "C",
        "bad_message",
        "nested too deep",
    )
    assert record.raw == NESTED[:200].decode() + "…"
    # Asked again, and the match is played to its end as usual, the rejection its only fault.
    acts = run.bots["C"].act_messages
    assert acts[acts.index(refused) + 1].id == refused.id + 1
    assert run.outcome.end == "marks"
    assert run.outcome.faults == {seat: {"bad_message": 1} if seat == "C" else {} for seat in SEATS}
    assert not [m for m in run.of(MoveRecord) if m.id == refused.id]
    replay(run.records)  # every logged move legal, every deal the seed's


async def test_a_nested_line_before_ready_is_rejected_and_ready_accepted(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [
            FakeBot(),
            FakeBot(hello=lambda hello: [NESTED + b"\n", ready("late")]),
            FakeBot(),
            FakeBot(),
        ],
        settings(seed=3),
    )
    (rejected,) = run.bots["B"].rejections
    assert (rejected.id, rejected.reason, rejected.detail) == (0, "bad_message", "nested too deep")
    assert run.outcome.names["B"] == "late"
    assert run.outcome.end == "marks"
    assert run.outcome.faults == {seat: {"bad_message": 1} if seat == "B" else {} for seat in SEATS}


# -- properties -------------------------------------------------------------------------------

FUZZ = hypothesis_settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@FUZZ
@given(rng=st.randoms(use_true_random=True), generator=st.sampled_from(sorted(bench.GENERATORS)))
def test_generated_lines_decode_or_are_rejected(rng: random.Random, generator: str) -> None:
    outcome(bench.GENERATORS[generator](rng))


@FUZZ
@given(line=st.binary(max_size=400))
def test_random_bytes_decode_or_are_rejected(line: bytes) -> None:
    outcome(line)


VALID = [
    b'{"type":"ready","name":"bot"}',
    b'{"type":"action","id":7,"action":{"type":"pass"}}',
    b'{"type":"action","id":1,"action":{"type":"bid","points":30}}',
    b'{"type":"action","id":2,"action":{"type":"trump","trump":"no_trump","piles":2}}',
    b'{"type":"action","id":3,"action":{"type":"play","tile":[3,5]}}',
]


@FUZZ
@given(
    line=st.sampled_from(VALID),
    edits=st.lists(
        st.tuples(st.integers(0, 80), st.integers(0, 3), st.binary(min_size=1, max_size=8)),
        min_size=1,
        max_size=6,
    ),
)
def test_mutated_answers_decode_or_are_rejected(
    line: bytes, edits: list[tuple[int, int, bytes]]
) -> None:
    data = bytearray(line)
    for at, kind, blob in edits:
        at %= len(data) + 1
        if kind == 0:
            data[at:at] = blob  # insert
        elif kind == 1:
            data[at : at + len(blob)] = blob  # overwrite
        elif kind == 2:
            del data[at : at + len(blob)]  # delete
        else:
            data[at:at] = blob * 500  # a long run of the same bytes: brackets, digits...
    outcome(bytes(data))


_KEYS = st.sampled_from(["type", "id", "action", "name", "tile", "points", "marks", "trump", ""])
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(10**4000), 10**4000)  # json.dumps stops at 4300 digits
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(exclude_categories=()), max_size=8)  # surrogates included
    | st.sampled_from(["ready", "action", "pass", "bid", "play", "trump", "all_tricks"])
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=20,
)


@FUZZ
@given(
    value=st.dictionaries(_KEYS, _JSON, max_size=5),
    depth=st.integers(0, 3000),
    ascii_only=st.booleans(),
)
def test_json_shaped_values_decode_or_are_rejected(
    value: dict[str, Any], depth: int, ascii_only: bool
) -> None:
    # json writes NaN and Infinity as bare words, and lone surrogates as \\udxxx escapes (or,
    # not ASCII-only, encoded as they stand, which is not UTF-8).
    text = json.dumps(value, ensure_ascii=ascii_only)
    line = text.encode("utf-8", errors="surrogatepass")
    if depth:
        line = b'{"x":' + b"[" * depth + b"]" * depth + b"," + line[1:] if len(line) > 2 else line
    if isinstance(outcome(line), Ready | ActionAnswer):
        line.decode("utf-8")  # nothing accepted is other than UTF-8, surrogates included


# -- the benchmark's own checks ---------------------------------------------------------------


def test_the_benchmark_counts_every_line() -> None:
    fuzz = bench.run(3000, seed=7)
    assert fuzz.lines == 3000
    assert fuzz.accepted + sum(fuzz.rejected.values()) == fuzz.lines
    assert fuzz.accepted > 0
    assert set(fuzz.rejected) == {"invalid_utf8", "invalid_json", "bad_message"}
    assert fuzz.seconds > 0 and fuzz.total_seconds >= fuzz.seconds
    assert bench.run(500, seed=7).rejected == bench.run(500, seed=7).rejected


def test_the_benchmark_stops_at_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    def leaky(line: bytes) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(bench, "decode_bot_line", leaky)
    with pytest.raises(bench.Escaped, match=r"let ValueError \(boom\) escape") as info:
        bench.run(10, seed=1)
    assert isinstance(info.value.error, ValueError)
