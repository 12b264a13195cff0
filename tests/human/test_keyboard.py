"""The person's lines from a real terminal (a pseudo-terminal here): whole lines at Enter,
the end of input at Ctrl-D, and no blocking of the match's other work while waiting."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest
import trio
from support.people import console

from referee.human.keyboard import Keyboard


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal in its ordinary (canonical) mode: (the typing end, the program's)."""
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


async def test_a_line_at_enter_and_the_end_of_input_at_ctrl_d(terminal: tuple[int, int]) -> None:
    master, slave = terminal
    screen = console()
    keyboard = Keyboard(screen, fd=slave)
    os.write(master, b"31\n")
    assert await keyboard("you (A)> ") == "31"
    os.write(master, b"\x04")  # Ctrl-D at the start of a line: the end of input
    assert await keyboard("you (A)> ") is None
    os.write(master, b"6-4\x04")  # Ctrl-D after some text sends the text
    assert await keyboard("you (A)> ") == "6-4"
    os.write(master, b"pass\n")  # the terminal's input goes on after an end of input
    assert await keyboard("you (A)> ") == "pass"
    assert isinstance(screen.file, io.StringIO)
    assert screen.file.getvalue().count("you (A)> ") == 4


async def test_waiting_for_a_line_leaves_the_match_running(terminal: tuple[int, int]) -> None:
    master, slave = terminal
    keyboard = Keyboard(console(), fd=slave)
    typed: list[str | None] = []
    ticks = 0

    async def ask() -> None:
        typed.append(await keyboard("> "))

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await trio.sleep(0.001)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            nursery.start_soon(tick)
            while ticks < 20:  # the other task runs on while the person has typed nothing
                await trio.sleep(0.001)
            assert typed == []
            os.write(master, b"1\n")
            while not typed:
                await trio.sleep(0.001)
            nursery.cancel_scope.cancel()
    assert typed == ["1"]


async def test_a_wait_is_cancelled_cleanly(terminal: tuple[int, int]) -> None:
    _, slave = terminal
    keyboard = Keyboard(console(), fd=slave)
    with trio.move_on_after(0.05) as scope:
        await keyboard("> ")
    assert scope.cancelled_caught  # Ctrl-C in a match cancels the wait; no thread is left
