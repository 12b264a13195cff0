"""Decoding one line a bot sent: the message it holds, or exactly why it is refused.

No I/O: the live match, verify, check-bot and the benchmarks all judge a line here.
"""

from __future__ import annotations

import codecs
from typing import Final

import msgspec

from referee.errors import BadMessage, InvalidJson, InvalidUtf8
from referee.terminal.escapes import shown
from referee.wire.messages import BOT_MESSAGE_DECODER, BotMessage

#: How much of a refused line is kept in the log and in ``rejected`` messages.
RAW_EXCERPT_CHARS: Final = 200
#: How much of a line that is not JSON its refusal quotes: enough to recognise a debug print.
QUOTED_CHARS: Final = 60


def excerpt(line: bytes, chars: int = RAW_EXCERPT_CHARS) -> str:
    """A refused line, decoded leniently and cut to ``chars`` characters."""
    text = line[: chars * 4].decode("utf-8", errors="replace")
    if len(text) > chars or len(line) > chars * 4:
        return text[:chars] + "…"
    return text


def decode_bot_line(line: bytes) -> BotMessage:
    """A bot's line as a message, or the precise ``Rejection`` saying what is wrong with it.

    Nothing else escapes, whatever the bytes: an exception from here would end the match in
    "error" with no fault charged, so a losing bot could never lose.
    """
    try:
        message = BOT_MESSAGE_DECODER.decode(line)
    except msgspec.ValidationError as exc:
        _check_utf8(line)
        raise BadMessage(_detail(exc)) from None
    except msgspec.DecodeError as exc:
        _check_utf8(line)
        raise InvalidJson(_not_json(exc, line)) from None
    except RecursionError:
        # msgspec recurses once per level of nesting, even through a field it will refuse, so
        # ~1000 brackets (2 KB) before "type" exhaust the stack: a malformed answer like another.
        _check_utf8(line)
        raise BadMessage("nested too deep") from None
    except MemoryError:
        # Only a huge line can do this (msgspec copies an unknown key into its error message).
        _check_utf8(line)
        raise BadMessage("too large to decode") from None
    if not line.isascii():
        _check_utf8(line)  # msgspec does not check UTF-8 inside the strings it accepts
    return message


#: A refusal's detail is cut to this many characters: msgspec's message quotes an unknown key
#: whole, and the detail is both sent back to the bot and written to the log.
_MAX_DETAIL_CHARS: Final = 300
#: Long lines are checked for UTF-8 a chunk at a time: decoding one whole would allocate up to
#: four times its size (one emoji makes the whole str four bytes a character).
_UTF8_CHUNK: Final = 65536


def _detail(exc: Exception) -> str:
    text = str(exc)
    if len(text) <= _MAX_DETAIL_CHARS:
        return text
    tail = _MAX_DETAIL_CHARS // 3  # keep the end too: msgspec's " - at `$.path`" is there
    return text[: _MAX_DETAIL_CHARS - tail - 1] + "…" + text[-tail:]


def _not_json(exc: Exception, line: bytes) -> str:
    """Why a line is not JSON, quoting it (cut, escaped for a terminal): most often it is a
    debug print that belongs on stderr."""
    quoted = shown(excerpt(line.rstrip(b"\r\n"), QUOTED_CHARS))
    return f'{_detail(exc)} in "{quoted}"; debug output goes to stderr'


def _check_utf8(line: bytes) -> None:
    start = 0
    try:
        if len(line) <= _UTF8_CHUNK:
            line.decode("utf-8")
            return
        view = memoryview(line)
        while start < len(line):
            end = start + _UTF8_CHUNK
            # Not final: a character split by the chunk's end is left for the next chunk.
            _, used = codecs.utf_8_decode(view[start:end], "strict", end >= len(line))
            start += used
    except UnicodeDecodeError as exc:
        raise InvalidUtf8(f"not valid UTF-8: {exc.reason} at byte {start + exc.start}") from None
