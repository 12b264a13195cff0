"""decode_bot_line's precise rejections, and BotConnection over in-memory trio streams.

Every timeout here runs under trio's autojump clock (the ``autojump_clock`` fixture), so it
takes no real time.
"""

from __future__ import annotations

import msgspec
import pytest
import trio
import trio.testing

from referee.errors import (
    BadMessage,
    BotCrashed,
    BotFault,
    BotNotReading,
    BotTimeout,
    InvalidJson,
    InvalidUtf8,
    LineTooLong,
    Rejection,
    reason_code,
)
from referee.match.connection import BotConnection
from referee.rules import AllTricksBid, Bid, DeclareTrump, Pass, Play, Tile
from referee.wire.decode import decode_bot_line, excerpt
from referee.wire.messages import ActionAnswer, Ready

# -- decode_bot_line -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"type":"ready","name":"bot"}', Ready(name="bot")),
        (b'{"type": "ready", "name": "\xc3\xa9l\xc3\xa8ve"}', Ready(name="élève")),
        (b'  {"type":"ready","name":"x"}  ', Ready(name="x")),
        (b'{"name":"x","type":"ready"}', Ready(name="x")),
        (b'{"type":"ready","name":"' + b"n" * 100 + b'"}', Ready(name="n" * 100)),
        (b'{"type":"action","id":7,"action":{"type":"pass"}}', ActionAnswer(7, Pass())),
        (
            b'{"type":"action","id":1,"action":{"type":"bid","points":41}}',
            ActionAnswer(1, Bid(41)),
        ),
        (
            b'{"type":"action","id":2,"action":{"type":"all_tricks","marks":2}}',
            ActionAnswer(2, AllTricksBid(2)),
        ),
        (
            b'{"type":"action","id":3,"action":{"type":"trump","trump":"doubles","piles":1}}',
            ActionAnswer(3, DeclareTrump("doubles", 1)),
        ),
        (
            b'{"type":"action","id":3,"action":{"type":"trump","trump":6,"piles":null}}',
            ActionAnswer(3, DeclareTrump(6)),
        ),
        (
            b'{"type":"action","id":4,"action":{"type":"play","tile":[3,5]}}',
            ActionAnswer(4, Play(Tile(3, 5))),
        ),
    ],
)
def test_valid_messages_decode(line: bytes, expected: object) -> None:
    assert decode_bot_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b'{"type":"ready","name":"\xff"}', id="inside-a-string"),
        pytest.param(b'{"type":"ready","name":"ok\xc3"}', id="truncated-sequence-in-string"),
        pytest.param(b'{"type":"ready","name":"\xed\xa0\x80"}', id="encoded-surrogate"),
        pytest.param(b'{"type":"ready","name":"\xc0\xaf"}', id="overlong-encoding"),
        pytest.param(b'\xff{"type":"ready","name":"x"}', id="outside-before"),
        pytest.param(b'{"type":"ready","name":"x"}\xff', id="outside-after"),
        pytest.param(b'{"type":"ready",\xfe"name":"x"}', id="outside-between"),
        pytest.param(b'{"type":"ready","name":"\xff","extra":1}', id="and-a-bad-message"),
        pytest.param(b'{"type":"action","id":1,"action":{"type":"\xff"}}', id="in-a-tag"),
    ],
)
def test_invalid_utf8_is_reported_as_such(line: bytes) -> None:
    with pytest.raises(InvalidUtf8, match=r"^not valid UTF-8: .* at byte \d+$") as info:
        decode_bot_line(line)
    assert reason_code(info.value) == "invalid_utf8"


def test_invalid_utf8_names_the_offending_byte() -> None:
    with pytest.raises(InvalidUtf8, match=r"invalid start byte at byte 24$"):
        decode_bot_line(b'{"type":"ready","name":"\xff"}')


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"   ", id="blank"),
        pytest.param(b"hello", id="words"),
        pytest.param(b'{"type":"ready","name":"x"', id="unclosed"),
        pytest.param(b"{'type':'ready','name':'x'}", id="single-quotes"),
        pytest.param(b'{"type":"ready","name":"x",}', id="trailing-comma"),
        pytest.param(b'{"type":"ready","name":"x"} x', id="trailing-garbage"),
        pytest.param(b'{"type":"ready","name":"x"}{}', id="two-values"),
        pytest.param(b'{"type":"action","id":1,"action":{"type":"pass"}} 1', id="trailing-number"),
    ],
)
def test_not_json_is_invalid_json(line: bytes) -> None:
    with pytest.raises(InvalidJson) as info:
        decode_bot_line(line)
    assert reason_code(info.value) == "invalid_json"


def test_trailing_garbage_says_so() -> None:
    with pytest.raises(InvalidJson, match="trailing characters"):
        decode_bot_line(b'{"type":"ready","name":"x"} x')


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"[1, 2]", "Expected `object`, got `array`"),
        (b'"ready"', "Expected `object`, got `str`"),
        (b"42", "Expected `object`, got `int`"),
        (b"null", "Expected `object`, got `null`"),
        (b'{"name":"x"}', "missing required field `type`"),
        (b'{"type":"hello","protocol":1}', "Invalid value 'hello' - at `$.type`"),
        (b'{"type":"act","id":1}', "Invalid value 'act' - at `$.type`"),
        (b'{"type":7,"name":"x"}', "Expected `str` - at `$.type`"),
        (b'{"type":"ready"}', "missing required field `name`"),
        (b'{"type":"ready","name":"x","extra":1}', "unknown field `extra`"),
        (b'{"type":"ready","name":5}', "Expected `str`, got `int` - at `$.name`"),
        (b'{"type":"ready","name":""}', "length >= 1 - at `$.name`"),
        (b'{"type":"ready","name":"' + b"n" * 101 + b'"}', "length <= 100 - at `$.name`"),
        (b'{"type":"action","action":{"type":"pass"}}', "missing required field `id`"),
        (b'{"type":"action","id":1}', "missing required field `action`"),
        (
            b'{"type":"action","id":"1","action":{"type":"pass"}}',
            "Expected `int`, got `str` - at `$.id`",
        ),
        (
            b'{"type":"action","id":1.5,"action":{"type":"pass"}}',
            "Expected `int`, got `float` - at `$.id`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"pass"},"why":"x"}',
            "unknown field `why`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"pass","x":1}}',
            "unknown field `x` - at `$.action`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"fold"}}',
            "Invalid value 'fold' - at `$.action.type`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"bid","points":29}}',
            ">= 30 - at `$.action.points`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"bid","points":42}}',
            "<= 41 - at `$.action.points`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"bid","points":"30"}}',
            "Expected `int`, got `str` - at `$.action.points`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"play","tile":[3,9]}}',
            "<= 6 - at `$.action.tile[1]`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"play","tile":[3]}}',
            "at `$.action.tile`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"trump","trump":"sevens"}}',
            "at `$.action.trump`",
        ),
        (
            b'{"type":"action","id":1,"action":{"type":"trump","trump":6,"piles":3}}',
            "at `$.action.piles`",
        ),
    ],
)
def test_wrong_shapes_are_bad_messages_naming_the_field(line: bytes, message: str) -> None:
    with pytest.raises(BadMessage) as info:
        decode_bot_line(line)
    assert message in str(info.value)
    assert reason_code(info.value) == "bad_message"


def test_rejections_are_not_faults() -> None:
    for cls in (InvalidUtf8, InvalidJson, BadMessage):
        assert issubclass(cls, Rejection)
        assert not issubclass(cls, BotFault)


def test_excerpt_cuts_long_lines_and_decodes_leniently() -> None:
    assert excerpt(b"short") == "short"
    assert excerpt(b"bad \xff byte") == "bad \ufffd byte"
    long = excerpt(b"x" * 1000)
    assert long == "x" * 200 + "…"
    assert excerpt(b"x" * 200) == "x" * 200


# -- BotConnection ---------------------------------------------------------------------------

BOUND = 1000


def one_way() -> tuple[trio.testing.MemorySendStream, trio.testing.MemoryReceiveStream]:
    return trio.testing.memory_stream_one_way_pair()


def reading_connection(
    bound: int = BOUND,
) -> tuple[BotConnection, trio.testing.MemorySendStream]:
    """A connection reading what the returned stream (the bot's stdout) sends."""
    bot_out, referee_in = one_way()
    referee_out, _bot_in = one_way()
    return BotConnection("A", referee_out, referee_in, bound), bot_out


async def test_receive_line_returns_lines_in_order() -> None:
    connection, bot_out = reading_connection()
    await bot_out.send_all(b'{"type":"ready",')
    await bot_out.send_all(b'"name":"x"}\r\nsecond\nthi')
    deadline = trio.current_time() + 1
    assert await connection.receive_line(deadline) == b'{"type":"ready","name":"x"}'
    assert await connection.receive_line(deadline) == b"second"
    await bot_out.send_all(b"rd\n")
    assert await connection.receive_line(deadline) == b"third"


async def test_receive_line_waits_for_a_line_sent_later(autojump_clock: trio.abc.Clock) -> None:
    connection, bot_out = reading_connection()

    async def answer_late() -> None:
        await trio.sleep(0.5)
        await bot_out.send_all(b"late\n")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer_late)
        start = trio.current_time()
        assert await connection.receive_line(start + 1) == b"late"
        assert trio.current_time() - start == pytest.approx(0.5)


async def test_receive_line_times_out_at_the_deadline(autojump_clock: trio.abc.Clock) -> None:
    connection, bot_out = reading_connection()
    await bot_out.send_all(b"half a li")
    start = trio.current_time()
    with pytest.raises(BotTimeout) as info:
        await connection.receive_line(start + 3)
    assert trio.current_time() - start == pytest.approx(3)
    assert reason_code(info.value) == "timeout"
    # The half line is kept: the rest of it still makes a line.
    await bot_out.send_all(b"ne\n")
    assert await connection.receive_line(trio.current_time() + 1) == b"half a line"


async def test_receive_line_with_a_past_deadline_still_returns_buffered_lines(
    autojump_clock: trio.abc.Clock,
) -> None:
    connection, bot_out = reading_connection()
    await bot_out.send_all(b"one\ntwo\n")
    assert await connection.receive_line(trio.current_time() + 1) == b"one"
    assert await connection.receive_line(trio.current_time() - 1) == b"two"
    with pytest.raises(BotTimeout):
        await connection.receive_line(trio.current_time() - 1)


async def test_end_of_output_is_a_crash() -> None:
    connection, bot_out = reading_connection()
    await bot_out.send_all(b"last words\nunfinished")
    await bot_out.aclose()
    deadline = trio.current_time() + 1
    assert await connection.receive_line(deadline) == b"last words"
    with pytest.raises(BotCrashed) as info:
        await connection.receive_line(deadline)  # an unfinished line at EOF is not a line
    assert reason_code(info.value) == "crashed"
    with pytest.raises(BotCrashed):
        await connection.receive_line(deadline)  # and it stays crashed


async def test_closed_output_stream_is_a_crash() -> None:
    referee_out, _ = one_way()
    _, referee_in = one_way()
    connection = BotConnection("B", referee_out, referee_in, BOUND)
    await referee_in.aclose()
    with pytest.raises(BotCrashed):
        await connection.receive_line(trio.current_time() + 1)


async def test_too_long_line_is_a_fault_and_the_next_line_is_intact() -> None:
    connection, bot_out = reading_connection(bound=10)
    await bot_out.send_all(b"0123456789\n" + b"x" * 11 + b"\nafter\n")
    deadline = trio.current_time() + 1
    assert await connection.receive_line(deadline) == b"0123456789"
    with pytest.raises(LineTooLong) as info:
        await connection.receive_line(deadline)
    assert reason_code(info.value) == "line_too_long"
    assert isinstance(info.value, BotFault)
    assert await connection.receive_line(deadline) == b"after"


async def test_ten_mib_line_is_refused_before_it_ends(autojump_clock: trio.abc.Clock) -> None:
    # The fault is raised as soon as the bound is passed, without waiting for the newline.
    connection, bot_out = reading_connection(bound=1 << 20)
    chunk = b"x" * 65536

    async def flood() -> None:
        for _ in range(160):  # 10 MiB
            await bot_out.send_all(chunk)
            await trio.sleep(0.001)
        await bot_out.send_all(b"\nnext\n")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(flood)
        start = trio.current_time()
        deadline = start + 10
        with pytest.raises(LineTooLong):
            await connection.receive_line(deadline)
        assert trio.current_time() - start < 0.05  # well before the 160 chunks were sent
        assert await connection.receive_line(deadline) == b"next"


async def test_send_delivers_the_bytes() -> None:
    bot_in_send, bot_in = one_way()
    _, referee_in = one_way()
    connection = BotConnection("C", bot_in_send, referee_in, BOUND)
    await connection.send(b'{"type":"hello"}\n', trio.current_time() + 1)
    assert await bot_in.receive_some() == b'{"type":"hello"}\n'


async def test_send_to_a_closed_input_is_a_crash() -> None:
    referee_out, bot_in = one_way()
    _, referee_in = one_way()
    connection = BotConnection("C", referee_out, referee_in, BOUND)
    await bot_in.aclose()
    with pytest.raises(BotCrashed) as info:
        await connection.send(b"hello\n", trio.current_time() + 1)
    assert reason_code(info.value) == "crashed"


async def test_send_to_a_closed_lockstep_input_is_a_crash() -> None:
    referee_out, bot_in = trio.testing.lockstep_stream_one_way_pair()
    _, referee_in = one_way()
    connection = BotConnection("C", referee_out, referee_in, BOUND)
    await bot_in.aclose()
    with pytest.raises(BotCrashed):
        await connection.send(b"hello\n", trio.current_time() + 1)


async def test_send_to_a_bot_that_never_reads_is_not_reading(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A lockstep stream delivers nothing until the other side reads, like a full pipe.
    referee_out, _bot_in = trio.testing.lockstep_stream_one_way_pair()
    _, referee_in = one_way()
    connection = BotConnection("D", referee_out, referee_in, BOUND)
    start = trio.current_time()
    with pytest.raises(BotNotReading) as info:
        await connection.send(b"act\n", start + 2)
    assert trio.current_time() - start == pytest.approx(2)
    assert reason_code(info.value) == "not_reading"


async def test_send_to_a_slow_reader_succeeds_within_the_deadline(
    autojump_clock: trio.abc.Clock,
) -> None:
    referee_out, bot_in = trio.testing.lockstep_stream_one_way_pair()
    _, referee_in = one_way()
    connection = BotConnection("D", referee_out, referee_in, BOUND)
    received = bytearray()

    async def read_late() -> None:
        await trio.sleep(1.5)
        while len(received) < 4:
            received.extend(await bot_in.receive_some())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_late)
        await connection.send(b"act\n", trio.current_time() + 2)
    assert bytes(received) == b"act\n"


def test_decode_errors_are_msgspec_free() -> None:
    # What decode_bot_line raises is always the referee's own Rejection, never msgspec's.
    for line in (b"", b"{", b"[]", b"\xff", b'{"type":"action"}'):
        with pytest.raises(Rejection) as info:
            decode_bot_line(line)
        assert not isinstance(info.value, msgspec.MsgspecError)
