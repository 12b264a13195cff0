"""One seat's conversation with its bot: send lines, read bounded lines, judge each answer.

The connection works on any pair of trio streams — a subprocess's pipes in a real match,
in-memory streams in the tests — and knows nothing of the game beyond the message types.
Reading happens only while the referee waits for this bot, so one decision costs one write
and (usually) one read.
"""

from __future__ import annotations

from typing import Final

import msgspec
import trio

from referee.errors import (
    BadMessage,
    BotCrashed,
    BotNotReading,
    BotTimeout,
    InvalidJson,
    InvalidUtf8,
    LineTooLong,
)
from referee.lines import LINE_TOO_LONG, LineBuffer
from referee.messages import BOT_MESSAGE_DECODER, BotMessage
from referee.rules.tiles import Seat

#: How much of a refused line is kept in the log and in ``rejected`` messages.
RAW_EXCERPT_CHARS: Final = 200
_READ_SIZE: Final = 65536


def excerpt(line: bytes) -> str:
    """A refused line, decoded leniently and cut to ``RAW_EXCERPT_CHARS``."""
    text = line[: RAW_EXCERPT_CHARS * 4].decode("utf-8", errors="replace")
    if len(text) > RAW_EXCERPT_CHARS or len(line) > RAW_EXCERPT_CHARS * 4:
        return text[:RAW_EXCERPT_CHARS] + "…"
    return text


def decode_bot_line(line: bytes) -> BotMessage:
    """A bot's line as a message, or the precise ``Rejection`` saying what is wrong with it."""
    try:
        message = BOT_MESSAGE_DECODER.decode(line)
    except msgspec.ValidationError as exc:
        _check_utf8(line)
        raise BadMessage(str(exc)) from None
    except msgspec.DecodeError as exc:
        _check_utf8(line)
        raise InvalidJson(str(exc)) from None
    if not line.isascii():
        _check_utf8(line)  # msgspec does not check UTF-8 inside the strings it accepts
    return message


def _check_utf8(line: bytes) -> None:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidUtf8(f"not valid UTF-8: {exc.reason} at byte {exc.start}") from None


class BotConnection:
    """Lines to and from one bot over a send stream and a receive stream."""

    def __init__(
        self,
        seat: Seat,
        send_stream: trio.abc.SendStream,
        receive_stream: trio.abc.ReceiveStream,
        max_line_bytes: int,
    ) -> None:
        self.seat = seat
        self._send_stream = send_stream
        self._receive_stream = receive_stream
        self._lines = LineBuffer(max_line_bytes)
        self._eof = False

    async def send(self, data: bytes, deadline: float) -> None:
        """Write ``data``; a bot that does not take it by ``deadline`` is not reading."""
        try:
            with trio.fail_at(deadline):
                await self._send_stream.send_all(data)
        except trio.TooSlowError:
            raise BotNotReading("the bot stopped reading its input") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise BotCrashed("the bot's input is closed (it exited)") from None

    async def receive_line(self, deadline: float) -> bytes:
        """The next line, or ``BotTimeout`` at ``deadline``, ``BotCrashed`` at end of output,
        ``LineTooLong`` for a line over the bound."""
        while True:
            line = self._lines.next_line()
            if line is LINE_TOO_LONG:
                raise LineTooLong("a line over the size bound was discarded unread")
            if line is not None:
                assert isinstance(line, bytes)
                return line
            if self._eof:
                raise BotCrashed("the bot closed its output (it exited or crashed)")
            try:
                with trio.fail_at(deadline):
                    data = await self._receive_stream.receive_some(_READ_SIZE)
            except trio.TooSlowError:
                raise BotTimeout("no answer in time") from None
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            if not data:
                self._eof = True
            else:
                self._lines.feed(data)
