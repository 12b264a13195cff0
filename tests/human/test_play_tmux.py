"""``referee play`` in a real terminal, used as a person uses it: a tmux pane 120 by 50 runs
the command, the test reads the screen (``capture-pane``) and types (``send-keys``) — each
decision answered by its number or by its name as the screen shows them — until the match
ends; then the screen's result must be the log's, and the log must verify."""

from __future__ import annotations

import random
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from support.processes import with_marker
from support.tmux import Pane, prompts, require_tmux

from referee.human.screen import CONFIRM, PROMPT
from referee.record.log import read_log
from referee.record.records import ActRecord, MatchEndRecord
from referee.record.verify import verify


@pytest.fixture(autouse=True)
def _tmux() -> None:
    require_tmux()


ASKED = PROMPT.format(seat="A")
END = "See it again in the viewer"
#: A numbered choice: its number, two spaces, its label (words one space apart).
CHOICE = re.compile(r"(?<!\S)(\d{1,2})  (\S+(?: \S+)*)")


@pytest.fixture
def play(tmp_path: Path) -> Iterator[tuple[Pane, Path]] | None:
    panes: list[Pane] = []

    def start(*args: str, bot: str = RANDOM_BOT) -> tuple[Pane, Path]:
        log = tmp_path / "logs" / f"m{len(panes)}.jsonl"
        command = [sys.executable, "-m", "referee", "play", bot, "--log", str(log), *args]
        pane = Pane(command, tmp_path, tmp_path / "tmux.conf")
        panes.append(pane)
        return pane, log

    yield start  # type: ignore[misc]
    for pane in panes:
        pane.close()


def _choices(screen: str) -> dict[int, str]:
    """The numbered choices of the last decision on the screen."""
    block = screen[screen.rindex("Your turn") :]
    block = block[block.index("\n") : block.rindex(ASKED)]
    return {int(number): text for number, text in CHOICE.findall(block)}


def _bots(marker: str) -> list[int]:
    """The bots of a match, by the marker given them as an argument of their own (the
    referee's and tmux's command lines hold it inside the bot's command)."""
    bots = []
    for pid in with_marker(marker):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in argv:
            bots.append(pid)
    return bots


def _decision(pane: Pane, answered: int) -> str:
    return pane.wait(lambda s: prompts(s, ASKED) > answered or END in s, "a decision or the end")


def test_a_person_plays_a_whole_match_in_a_terminal(play) -> None:  # type: ignore[no-untyped-def]
    pane, log = play("--seed", "3")  # the default sandbox
    rng = random.Random(3)
    answered = 0
    while END not in (screen := _decision(pane, answered)):
        choices = _choices(screen)
        assert sorted(choices) == list(range(1, len(choices) + 1)), choices
        number = rng.choice(sorted(choices))
        pane.type(str(number) if answered % 2 else choices[number])
        answered += 1
    assert pane.wait_exit() == 0
    replayed = read_log(log)
    end = replayed.records[-1]
    assert isinstance(end, MatchEndRecord) and end.end == "marks"
    verify(replayed)
    assert replayed.header.people == ["A"]
    asked = [r for r in replayed.records if isinstance(r, ActRecord) and r.seat == "A"]
    assert len(asked) == answered  # each decision asked once and answered at once
    screen = pane.screen()
    verdict = "won" if end.winner == "AC" else "lost"
    marks = f"{end.marks['AC']} marks to {end.marks['BD']}"
    assert f"You {verdict}, A+C: {marks}." in screen
    assert f"replay {log} --html" in screen
    assert "Traceback" not in screen


def test_q_asks_and_then_the_person_forfeits(play) -> None:  # type: ignore[no-untyped-def]
    pane, log = play("--seed", "4", "--sandbox", "off")
    _decision(pane, 0)
    pane.type("q")
    pane.wait(lambda s: CONFIRM.rstrip() in s, "the question")
    pane.type("n")  # plays on
    pane.wait(lambda s: prompts(s, ASKED) == 2, "the decision again")
    pane.keys("C-d")  # the end of input asks too
    pane.wait(lambda s: s.count(CONFIRM.rstrip()) == 2, "the question again")
    pane.type("y")
    assert pane.wait_exit() == 0
    screen = pane.screen()
    assert "You left the match: A+C forfeits" in screen and END in screen
    replayed = read_log(log)
    verify(replayed)
    end = replayed.records[-1]
    assert isinstance(end, MatchEndRecord) and end.forfeit is not None
    assert (end.end, end.forfeit.seat, end.forfeit.reason) == ("forfeit", "A", "resigned")


def test_ctrl_c_ends_the_match_interrupted(play) -> None:  # type: ignore[no-untyped-def]
    marker = f"play-test-{uuid.uuid4().hex}"  # the random bot ignores its arguments
    pane, log = play("--seed", "5", "--sandbox", "off", bot=f"{RANDOM_BOT} {marker}")
    _decision(pane, 0)
    assert len(_bots(marker)) == 3  # the bots are up
    pane.keys("C-c")
    assert pane.wait_exit() == 130
    assert not _bots(marker)  # and closed before the referee exited
    assert "referee: interrupted; the log ends there" in pane.screen()
    replayed = read_log(log)
    end = replayed.records[-1]
    assert isinstance(end, MatchEndRecord) and end.end == "interrupted"
    verify(replayed)
