"""Adversarial bot lines through ``decode_bot_line``: what it accepts, refuses, and how fast.

Every line a bot can send must come back as a ``BotMessage`` or a ``Rejection``: anything
else escaping the decoder would end the match in "error" with no fault charged, so a losing
bot could never lose. The generators here make lines meant to break it — random bytes,
mutated answers, deep nesting, huge numbers, odd Unicode — and ``tests/wire/test_decode_fuzz.py``
drives the same generators from hypothesis. ``run`` counts the outcomes per reason code and
raises ``Escaped`` at the first line that gets anything else out.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from referee.errors import Rejection, reason_code
from referee.wire.decode import decode_bot_line

Generator = Callable[[random.Random], bytes]

#: Lines are generated this many at a time, then decoded under the clock on their own.
_BATCH: Final = 10_000


@dataclass(frozen=True)
class DecodeFuzz:
    """What ``run`` saw: outcomes per reason code, and the time the decoding alone took."""

    lines: int
    #: Total size of the lines, in bytes.
    bytes: int
    accepted: int
    #: Refused lines per reason code (``invalid_json``, ``bad_message``, ...).
    rejected: dict[str, int] = field(default_factory=dict)
    #: Seconds spent in ``decode_bot_line`` (generating the lines not counted).
    seconds: float = 0.0
    #: Seconds for the whole run, generating included.
    total_seconds: float = 0.0

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.seconds if self.seconds else 0.0

    @property
    def microseconds_per_line(self) -> float:
        return self.seconds / self.lines * 1e6 if self.lines else 0.0


class Escaped(Exception):
    """``decode_bot_line`` let something other than a ``Rejection`` out for ``line``."""

    def __init__(self, line: bytes, error: BaseException) -> None:
        shown = line[:200] + (b"..." if len(line) > 200 else b"")
        super().__init__(
            f"decode_bot_line let {type(error).__name__} ({error}) escape for a"
            f" {len(line)}-byte line: {shown!r}"
        )
        self.line = line
        self.error = error


def run(lines: int, seed: int) -> DecodeFuzz:
    """Decode ``lines`` adversarial lines from ``random.Random(seed)``; ``Escaped`` on a leak."""
    rng = random.Random(seed)
    accepted = size = 0
    rejected: Counter[str] = Counter()
    decoding = 0.0
    start = time.perf_counter()
    done = 0
    while done < lines:
        batch = [adversarial_line(rng) for _ in range(min(_BATCH, lines - done))]
        done += len(batch)
        size += sum(map(len, batch))
        began = time.perf_counter()
        for line in batch:
            try:
                decode_bot_line(line)
            except Rejection as exc:
                rejected[reason_code(exc)] += 1
            except Exception as exc:  # the one thing this benchmark exists to catch
                raise Escaped(line, exc) from exc
            else:
                accepted += 1
        decoding += time.perf_counter() - began
    return DecodeFuzz(
        lines=done,
        bytes=size,
        accepted=accepted,
        rejected=dict(sorted(rejected.items())),
        seconds=decoding,
        total_seconds=time.perf_counter() - start,
    )


# -- the generators: each makes one line (no line end) from its random generator --------------

_ACTIONS: Final = (
    b'{"type":"pass"}',
    b'{"type":"bid","points":30}',
    b'{"type":"bid","points":41}',
    b'{"type":"all_tricks","marks":1}',
    b'{"type":"all_tricks","marks":2}',
    b'{"type":"trump","trump":5}',
    b'{"type":"trump","trump":"doubles"}',
    b'{"type":"trump","trump":"no_trump","piles":2}',
    b'{"type":"trump","trump":0,"piles":null}',
    b'{"type":"play","tile":[3,5]}',
    b'{"type":"play","tile":[6,6]}',
)
_NAMES: Final = (b"bot", b"x", b"caf\xc3\xa9", b"\\u00e9t\\u00e9", b"\xf0\x9f\x98\x80", b"a" * 100)
#: Bytes that matter to a JSON parser, to bias random bytes towards almost-JSON.
_JSON_BYTES: Final = b'{}[]":,0123456789-+.eE \t\r\\/ntrufalsebu"\x00\x7f\x80\xc3\xed\xf0\xff'
_SCALARS: Final = (
    b"0",
    b"1",
    b"-1",
    b"true",
    b"false",
    b"null",
    b'""',
    b'"action"',
    b'"ready"',
    b"[]",
    b"{}",
    b"1.5",
)


def valid_line(rng: random.Random) -> bytes:
    """A well-formed ``ready`` or ``action`` answer, keys in either order, spacing varied."""
    if rng.random() < 0.2:
        name = rng.choice(_NAMES)
        fields = [b'"type":"ready"', b'"name":"' + name + b'"']
    else:
        act_id = str(rng.choice((0, 1, 7, rng.randrange(1 << 20), (1 << 64) - 1))).encode()
        fields = [b'"type":"action"', b'"id":' + act_id, b'"action":' + rng.choice(_ACTIONS)]
    rng.shuffle(fields)
    space = rng.choice((b"", b" ", b"\t", b"  \r "))
    return space + b"{" + (b"," + space).join(fields) + b"}" + space


def random_bytes(rng: random.Random) -> bytes:
    """Noise: uniform bytes, or bytes drawn from the characters JSON is made of."""
    size = rng.choice((0, 1, 2, rng.randrange(64), rng.randrange(512)))
    if rng.random() < 0.5:
        return rng.randbytes(size)
    return bytes(rng.choice(_JSON_BYTES) for _ in range(size))


def mutated_line(rng: random.Random) -> bytes:
    """A valid answer with a few bytes flipped, inserted, deleted, duplicated or cut off."""
    data = bytearray(valid_line(rng))
    for _ in range(rng.choice((1, 1, 2, 3, 8))):
        at = rng.randrange(len(data) + 1)
        kind = rng.randrange(8)
        if kind == 0 and at < len(data):
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data[at:at] = bytes([rng.choice(_JSON_BYTES)])
        elif kind == 2:
            del data[at : at + rng.randrange(1, 8)]
        elif kind == 3:
            data[at:at] = data[at : at + rng.randrange(1, 16)] * rng.randrange(1, 4)
        elif kind == 4:
            del data[at:]
        elif kind == 5:
            data[at:at] = rng.choice(_SCALARS)
        elif kind == 6:
            data[at:at] = rng.choice((big_number, odd_unicode))(rng)[:64]
        else:  # deep brackets or objects in the middle of an answer
            data[at:at] = rng.choice((b"[", b'{"":')) * rng.randrange(2000)
    return bytes(data)


def _nest(rng: random.Random, depth: int, inner: bytes) -> bytes:
    """``inner`` inside ``depth`` arrays or objects (or a mix), sometimes left unclosed."""
    style = rng.randrange(3)
    if style == 0:
        opened, closed = b"[" * depth, b"]" * depth
    elif style == 1:
        opened, closed = b'{"a":' * depth, b"}" * depth
    else:  # a random mix of eight levels, repeated (building each level would be slow)
        pairs = [(b"[", b"]") if rng.random() < 0.5 else (b'{"":', b"}") for _ in range(8)]
        repeats, extra = divmod(depth, 8)
        opened = b"".join(o for o, _ in pairs) * repeats + b"[" * extra
        closed = b"]" * extra + b"".join(c for _, c in reversed(pairs)) * repeats
    if rng.random() < 0.15:
        closed = closed[: rng.randrange(len(closed) + 1)]
    return opened + inner + closed


def deep_nesting(rng: random.Random) -> bytes:
    """Arrays and objects nested from a few to 200,000 deep, wherever a value may go.

    The depths cluster around the recursion limit (1000), where a decoder gives up.
    """
    if rng.random() < 0.01:
        depth = 200_000  # 0.2-1 MB: as deep as a line of the default bound allows
    else:
        depth = rng.choice(
            (
                rng.randrange(1, 64),
                rng.randrange(900, 1100),
                rng.randrange(1000, 5000),
                rng.randrange(5000, 20_000),
            )
        )
    value = _nest(rng, depth, rng.choice(_SCALARS))
    place = rng.randrange(7)
    if place == 0:  # the reported line: a deep unknown field before "type"
        return b'{"x":' + value + b',"type":"action"}'
    if place == 1:
        return b'{"type":"action","id":1,"action":{"x":' + value + b',"type":"pass"}}'
    if place == 2:
        return b'{"type":"action","id":' + value + b',"action":{"type":"pass"}}'
    if place == 3:
        return b'{"type":"action","id":1,"action":{"type":"play","tile":' + value + b"}}"
    if place == 4:
        return b'{"name":' + value + b',"type":"ready"}'
    if place == 5:
        return b'{"type":"action","x":' + value + b"}"
    return value


def _huge_number(rng: random.Random) -> bytes:
    digits = rng.choice((1, 18, 19, 20, 21, 309, 310, 4299, 4300, 4301, 5000, 100_000))
    sign = rng.choice((b"", b"", b"-"))
    first = str(rng.randrange(1, 10)).encode()
    body = first + bytes(rng.choice(b"0123456789") for _ in range(min(digits, 64)) if digits > 1)
    if digits > 65:
        body += b"9" * (digits - len(body))
    form = rng.randrange(6)
    if form == 0:
        return sign + body
    if form == 1:
        return sign + body + b"." + body
    if form == 2:
        return sign + b"1e" + rng.choice((b"", b"+", b"-")) + body
    if form == 3:
        return sign + b"0." + b"0" * rng.randrange(400) + body
    if form == 4:
        return sign + body + b"E" + str(rng.randrange(-400, 400)).encode()
    return rng.choice(
        (
            b"NaN",
            b"-NaN",
            b"Infinity",
            b"-Infinity",
            b"inf",
            b"1e309",
            b"-1e309",
            b"4.9e-324",
            b"2.2250738585072014e-308",
            b"1.7976931348623157e308",
            b"-0",
            b"-0.0",
            b"0e99999999999999999999",
            b"00",
            b"01",
            b"1.",
            b".5",
            b"+1",
            b"0x1F",
            b"1e",
            b"1e+",
            b"-",
            b"18446744073709551615",
            b"18446744073709551616",
            b"-9223372036854775808",
            b"-9223372036854775809",
        )
    )


def big_number(rng: random.Random) -> bytes:
    """A huge, tiny, long, non-finite or malformed number wherever the protocol has one."""
    number = _huge_number(rng)
    place = rng.randrange(7)
    if place == 0:
        return b'{"type":"action","id":' + number + b',"action":{"type":"pass"}}'
    if place == 1:
        return b'{"type":"action","id":1,"action":{"type":"bid","points":' + number + b"}}"
    if place == 2:
        return b'{"type":"action","id":1,"action":{"type":"all_tricks","marks":' + number + b"}}"
    if place == 3:
        tile = b"[" + number + b"," + rng.choice((b"1", number)) + b"]"
        return b'{"type":"action","id":1,"action":{"type":"play","tile":' + tile + b"}}"
    if place == 4:
        return b'{"type":"action","id":1,"action":{"type":"trump","trump":' + number + b"}}"
    if place == 5:
        return b'{"x":' + number + b',"type":"action","id":1,"action":{"type":"pass"}}'
    return number


#: Strings a JSON text may or may not contain: escapes, surrogates, bad UTF-8, controls.
_ODD_STRINGS: Final = (
    b"\\ud800",  # a lone high surrogate, escaped
    b"\\udfff",  # a lone low surrogate, escaped
    b"\\udc00\\ud800",  # a pair the wrong way round
    b"\\ud83d\\ude00",  # a valid pair (an emoji)
    b"\\ud83d",
    b"\\ud83dx",
    b"\\ud83d\\u0041",
    b"\xed\xa0\x80",  # a surrogate encoded in UTF-8 (CESU-8): not valid UTF-8
    b"\xed\xbf\xbf",
    b"\xc0\xaf",  # overlong "/"
    b"\xe0\x80\xaf",
    b"\xf0\x80\x80\xaf",
    b"\xf4\x90\x80\x80",  # above U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xff",
    b"\xfe",
    b"\x80",  # a lone continuation byte
    b"\xc3",  # a sequence cut short
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xef\xbb\xbf",  # a byte order mark
    b"\xef\xbf\xbe",  # U+FFFE, a non-character (valid UTF-8)
    b"\xef\xbf\xbf",
    b"\xe2\x80\xa8",  # LINE SEPARATOR
    b"\xc2\x85",  # NEXT LINE, a C1 control
    b"\xc2\x9b",  # CSI, a C1 control
    b"\xe2\x80\xae",  # RIGHT-TO-LEFT OVERRIDE
    b"\x00",
    b"\x1b[31m",
    b"\\u0000",
    b"\\u001b",
    b"\\u007f",
    b"\\uZZZZ",
    b"\\u12",
    b"\\x41",
    b"\\U0001F600",
    b"\\",
    b'\\"',
    b"\t",
    b"\r",
)


def _odd_string(rng: random.Random) -> bytes:
    parts = [rng.choice(_ODD_STRINGS) for _ in range(rng.choice((1, 1, 2, 5)))]
    if rng.random() < 0.3:
        parts.insert(rng.randrange(len(parts) + 1), b"ok")
    return b"".join(parts)


def odd_unicode(rng: random.Random) -> bytes:
    """Surrogates, bad or odd UTF-8, controls and bad escapes in names, keys, tags and values.

    Also duplicate keys and a byte order mark before the object.
    """
    odd = _odd_string(rng)
    place = rng.randrange(9)
    if place == 0:
        return b'{"type":"ready","name":"' + odd + b'"}'
    if place == 1:
        return b'{"' + odd + b'":1,"type":"ready","name":"a"}'
    if place == 2:
        return b'{"type":"' + odd + b'","name":"a"}'
    if place == 3:
        return b'{"type":"action","id":1,"action":{"type":"trump","trump":"' + odd + b'"}}'
    if place == 4:
        return b'{"type":"action","id":1,"action":{"type":"pass"},"x":"' + odd + b'"}'
    if place == 5:
        return b'{"type":"ready","name":"a"' + odd + b"}"
    if place == 6:
        return odd + valid_line(rng)
    if place == 7:  # duplicate keys: which one wins?
        return rng.choice(
            (
                b'{"type":"ready","name":"a","name":"' + odd + b'"}',
                b'{"type":"ready","type":"action","id":1,"action":{"type":"pass"}}',
                b'{"type":"action","id":1,"id":2,"action":{"type":"pass"}}',
                b'{"type":"action","id":1,"action":{"type":"pass"},"action":{"type":"bid"}}',
                b'{"type":"action","id":1,"action":{"type":"play","type":"pass","tile":[1,1]}}',
            )
        )
    return b'{"type":"ready","name":"' + b"a" * rng.randrange(90, 110) + odd + b'"}'


#: Every generator, by name; ``adversarial_line`` picks among them with these weights.
GENERATORS: Final[dict[str, Generator]] = {
    "valid": valid_line,
    "random_bytes": random_bytes,
    "mutated": mutated_line,
    "deep_nesting": deep_nesting,
    "big_number": big_number,
    "odd_unicode": odd_unicode,
}
_WEIGHTS: Final = (1, 2, 4, 1, 2, 2)
_CHOICES: Final = tuple(
    generator
    for generator, weight in zip(GENERATORS.values(), _WEIGHTS, strict=True)
    for _ in range(weight)
)


def adversarial_line(rng: random.Random) -> bytes:
    """One line from a generator picked at random (mutated answers the most often)."""
    return rng.choice(_CHOICES)(rng)


def lines(count: int, seed: int) -> Iterator[str]:
    """Run the fuzz (``Escaped`` if an exception escapes); its lines, the figure last."""
    result = run(count, seed)
    reasons = ", ".join(f"{code} {n:,}" for code, n in sorted(result.rejected.items()))
    yield f"accepted {result.accepted:,}; rejected: {reasons}"
    yield f"{result.microseconds_per_line:.1f} µs per line, {result.bytes:,} bytes in all"
    rate = f"{result.lines_per_second:,.0f} lines/s"
    yield f"decode: {result.lines:,} lines, nothing escaped ({rate})"
