"""LineBuffer: bounded line splitting, independent of how the bytes are chunked."""

from __future__ import annotations

import time

import pytest

from referee.wire.lines import LINE_TOO_LONG, LineBuffer


def drain(buffer: LineBuffer) -> list[bytes | object]:
    """Every complete line (or LINE_TOO_LONG) the buffer holds now."""
    out: list[bytes | object] = []
    while (item := buffer.next_line()) is not None:
        out.append(item)
    return out


def feed_all(buffer: LineBuffer, chunks: list[bytes]) -> list[bytes | object]:
    out: list[bytes | object] = []
    for chunk in chunks:
        buffer.feed(chunk)
        out.extend(drain(buffer))
    return out


def test_empty_buffer_has_no_line() -> None:
    buffer = LineBuffer(100)
    assert buffer.next_line() is None
    assert buffer.pending == 0


def test_line_split_across_feeds() -> None:
    buffer = LineBuffer(100)
    buffer.feed(b'{"type": ')
    assert buffer.next_line() is None
    buffer.feed(b'"ready"')
    assert buffer.next_line() is None
    assert buffer.pending == len(b'{"type": "ready"')
    buffer.feed(b"}\nnext")
    assert buffer.next_line() == b'{"type": "ready"}'
    assert buffer.next_line() is None
    assert buffer.pending == len(b"next")


def test_several_lines_in_one_feed() -> None:
    buffer = LineBuffer(100)
    buffer.feed(b"one\ntwo\n\nthree\nfour")
    assert drain(buffer) == [b"one", b"two", b"", b"three"]
    buffer.feed(b"\n")
    assert drain(buffer) == [b"four"]
    assert buffer.pending == 0


def test_crlf_line_ends_are_removed() -> None:
    buffer = LineBuffer(100)
    buffer.feed(b"one\r\ntwo\r")
    assert drain(buffer) == [b"one"]
    buffer.feed(b"\nthree\n")
    assert drain(buffer) == [b"two", b"three"]


def test_lone_cr_inside_a_line_is_kept() -> None:
    buffer = LineBuffer(100)
    buffer.feed(b"a\rb\n\r\n")
    assert drain(buffer) == [b"a\rb", b""]


@pytest.mark.parametrize("split", [None, 1, 5, 9, 10])
def test_line_exactly_at_the_bound_is_kept(split: int | None) -> None:
    data = b"0123456789\n"
    buffer = LineBuffer(10)
    chunks = [data] if split is None else [data[:split], data[split:]]
    assert feed_all(buffer, chunks) == [b"0123456789"]
    assert buffer.pending == 0


@pytest.mark.parametrize("split", [None, 5, 10, 11])
def test_crlf_line_exactly_at_the_bound_is_kept(split: int | None) -> None:
    # The bound is on the line's content: "\r\n" is the line end, whatever the chunking.
    # split=11 delivers "0123456789\r" first, then "\n".
    data = b"0123456789\r\n"
    buffer = LineBuffer(10)
    chunks = [data] if split is None else [data[:split], data[split:]]
    assert feed_all(buffer, chunks) == [b"0123456789"]
    assert buffer.pending == 0


@pytest.mark.parametrize("split", [None, 1, 10, 11])
def test_line_one_byte_over_the_bound_is_too_long(split: int | None) -> None:
    data = b"0123456789X\nafter\n"
    buffer = LineBuffer(10)
    chunks = [data] if split is None else [data[:split], data[split:]]
    assert feed_all(buffer, chunks) == [LINE_TOO_LONG, b"after"]
    assert buffer.pending == 0


def test_too_long_line_is_reported_before_its_end_arrives() -> None:
    buffer = LineBuffer(10)
    buffer.feed(b"0123456789X")
    assert buffer.next_line() is LINE_TOO_LONG
    assert buffer.pending == 0
    assert buffer.next_line() is None  # reported once, not again while its rest is dropped
    buffer.feed(b"more of it")
    assert buffer.next_line() is None
    assert buffer.pending == 0
    buffer.feed(b"end\nok\n")
    assert drain(buffer) == [b"ok"]


def test_ten_mib_line_in_chunks_is_reported_once_and_never_buffered() -> None:
    bound = 1 << 20
    chunk = 65536
    buffer = LineBuffer(bound)
    results: list[bytes | object] = []
    max_pending = 0
    total = 10 << 20
    for _ in range(total // chunk):
        buffer.feed(b"x" * chunk)
        results.extend(drain(buffer))
        max_pending = max(max_pending, buffer.pending)
    assert results == [LINE_TOO_LONG]
    assert max_pending <= bound
    buffer.feed(b'xxxx\n{"type": "ready", "name": "after"}\n')
    assert drain(buffer) == [b'{"type": "ready", "name": "after"}']
    assert buffer.pending == 0


def test_line_after_a_too_long_line_is_intact_in_the_same_feed() -> None:
    buffer = LineBuffer(8)
    buffer.feed(b"a" * 50 + b"\nshort\r\nnext")
    assert drain(buffer) == [LINE_TOO_LONG, b"short"]
    buffer.feed(b"\n")
    assert drain(buffer) == [b"next"]


def test_line_after_a_too_long_line_is_intact_across_feeds() -> None:
    buffer = LineBuffer(8)
    buffer.feed(b"a" * 20)
    assert drain(buffer) == [LINE_TOO_LONG]
    buffer.feed(b"a" * 20)
    buffer.feed(b"aa\nsho")
    assert drain(buffer) == []
    buffer.feed(b"rt\n")
    assert drain(buffer) == [b"short"]


def test_two_too_long_lines_are_reported_twice() -> None:
    buffer = LineBuffer(4)
    buffer.feed(b"123456\n")
    buffer.feed(b"abcdefgh")
    buffer.feed(b"ij\nok\n")
    assert drain(buffer) == [LINE_TOO_LONG, LINE_TOO_LONG, b"ok"]


def test_byte_at_a_time_is_linear() -> None:
    # 100 KB fed one byte at a time with a lookup after each: a buffer that rescanned its
    # bytes would do ~5e9 comparisons here; this one does ~1e5.
    size = 100_000
    data = b"y" * size + b"\n"
    buffer = LineBuffer(1 << 20)
    started = time.perf_counter()
    lines = []
    for i in range(len(data)):
        buffer.feed(data[i : i + 1])
        item = buffer.next_line()
        if item is not None:
            lines.append(item)
    elapsed = time.perf_counter() - started
    assert lines == [b"y" * size]
    assert elapsed < 1.0


def test_every_chunking_gives_the_same_lines() -> None:
    data = b'{"a":1}\r\n\n' + b"z" * 30 + b'\n{"b":2}\nxyz\r\n'
    expected = [b'{"a":1}', b"", LINE_TOO_LONG, b'{"b":2}', b"xyz"]
    for size in range(1, len(data) + 1):
        buffer = LineBuffer(16)
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert feed_all(buffer, chunks) == expected, f"chunk size {size}"
