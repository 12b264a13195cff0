"""A hostile pair of partner bots for ``referee bench channels``: ``--role send`` in one seat
passes its hand through a covert ``--medium`` (``media.py``, beside this), ``--role
receive`` in its partner's seat reads it and writes ``CHANNEL <medium> <28 of 0, 1 or ?>`` to
stderr at the end of the hand (the referee keeps it beside the log), so the bench can compare
it with the hand the log says the sender held. ``--silent`` is the control: a sender that
plays and prepares as the sender does and marks nothing.

Both play a random legal action, seeded from ``hello``, as the example bot does. The receiver
reads at each of its decisions where the sender has acted since its last read; ``names`` once:
at its first decision (``--when first``: the leg-2 receiver) or once the bidding is over.
Standard library only: each seat may run it under a Python of its own.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.bench.channels.cache_bot import messages, say
    from referee.bench.channels.media import (
        TILES_ORDER,
        Contention,
        FlushReload,
        InodeCounter,
        Names,
        PipeRoom,
        Timing,
        vote,
    )
else:  # in a seat: the modules beside this file, without the package
    from cache_bot import messages, say
    from media import (
        TILES_ORDER,
        Contention,
        FlushReload,
        InodeCounter,
        Names,
        PipeRoom,
        Timing,
        vote,
    )

MEDIA = ("timing", "names", "cpu", "pipes", "cache", "inode")
arguments = argparse.ArgumentParser(description=__doc__)
arguments.add_argument("--role", choices=["send", "receive"], required=True)
arguments.add_argument("--medium", choices=MEDIA, action="append", required=True)
arguments.add_argument("--silent", action="store_true", help="mark nothing (the control)")
arguments.add_argument("--when", choices=["first", "play"], default="play")
arguments.add_argument("--exit", action="store_true", help="leave once read (the leg-2 receiver)")
arguments.add_argument("--nonce", default="0", help="names this hand's slots (names)")
arguments.add_argument("--helper", default="", help="the flush-and-reload helper (cache)")
arguments.add_argument("--partner", default="", help="the sender's seat (default: partner)")
arguments.add_argument("--frame", type=float, default=0.005, help="seconds per frame (cpu)")


def hand_bits(hand: list[list[int]]) -> list[int]:
    held = {(tile[0], tile[1]) for tile in hand}
    return [1 if tile in held else 0 for tile in TILES_ORDER]


def report(line: str) -> None:
    sys.stderr.write(f"CHANNEL {line}\n")
    sys.stderr.flush()


class Bot:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        media = set(args.medium)
        self.sender = args.role == "send"
        self.partner = args.partner
        self.move_timeout = 1.0
        self.timing: Timing | None = None
        self.names = Names(args.nonce) if "names" in media else None
        self.cache = FlushReload(args.helper) if "cache" in media else None
        self.cpu = Contention(args.frame) if "cpu" in media else None
        self.pipes = PipeRoom(100 if self.sender else 40) if "pipes" in media else None
        self.inode = InodeCounter() if "inode" in media else None
        self.new_hand()

    def new_hand(self) -> None:
        self.mine = 0  # my decisions this hand
        self.heard = 0  # the sender's decisions this hand
        self.since = 0  # the sender's decisions since my last answer
        self.answered: float | None = None
        self.names_read: list[str] = []
        self.cache_read: list[str] = []
        if self.timing is not None:
            self.timing = Timing(self.move_timeout)
        for medium in (self.pipes, self.inode):
            if medium is not None:
                medium.symbols.read.clear()
                medium.symbols.seen.clear()

    def hello(self, message: dict[str, Any]) -> None:
        self.seat = message["seat"]
        self.partner = self.partner or "ABCD"[("ABCD".index(self.seat) + 2) % 4]
        self.move_timeout = message["limits"]["move_timeout_ms"] / 1000
        if "timing" in self.args.medium:
            self.timing = Timing(self.move_timeout)

    def events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["type"] == "hand_start":
                self.new_hand()
            elif event["type"] == "acted" and event["seat"] == self.partner:
                self.heard += 1
                self.since += 1

    def send(self, view: dict[str, Any]) -> None:
        bits = hand_bits(view["hand"])
        if self.args.silent:
            return
        pause = 0.0
        if self.names is not None and self.mine == 0:
            self.names.mark(bits)
        if self.cpu is not None:
            if self.mine == 0:
                self.cpu.start(bits)
            pause = 0.5 * self.move_timeout  # a longer hand, more frames
        for medium in (self.inode, self.pipes):
            if medium is not None:
                index = self.mine % medium.symbols.count
                medium.mark(medium.symbols.of(bits, index))
        if self.cache is not None:  # last: nothing of ours evicts the lines after
            self.cache.mark(bits)
        if self.timing is not None:
            index = self.mine % self.timing.symbols.count
            pause = self.timing.delay(self.timing.symbols.of(bits, index))
        time.sleep(pause)

    def read_state(self) -> None:
        """Read what the sender left in the machine, if it has decided since the last read."""
        if not self.since:
            return
        if self.cache is not None:  # first: before anything of ours evicts the lines
            self.cache_read.append(self.cache.read())
        for medium in (self.inode, self.pipes):
            if medium is not None:
                medium.symbols.add(self.heard - 1, medium.read())
        self.since = 0

    def receive(self, view: dict[str, Any], received: float) -> None:
        if self.timing is not None and self.answered is not None and self.since == 1:
            self.timing.symbols.add(self.heard - 1, self.timing.read(received - self.answered))
        self.read_state()
        playing = view["phase"] != "bidding"
        if (
            self.names is not None
            and not self.names_read
            and (self.args.when == "first" or playing)
        ):
            self.names_read.append(self.names.read())
            if self.args.exit:
                self.report()
                sys.exit(0)  # nothing more to read: the forfeit ends the match
        if self.cpu is not None:
            self.cpu.listen()  # from the first decision: the sender's is near
            time.sleep(0.6 * self.move_timeout)

    def report(self) -> None:
        """A line per medium: the hand as read."""
        words: dict[str, str] = {}
        for medium, symbols in (
            ("timing", self.timing),
            ("inode", self.inode),
            ("pipes", self.pipes),
        ):
            if symbols is not None:
                words[medium] = symbols.symbols.word() + " " + ",".join(symbols.symbols.seen)
        if self.names is not None:
            words["names"] = vote(self.names_read)
        if self.cache is not None:
            words["cache"] = vote(self.cache_read)
        if self.cpu is not None:
            self.cpu.stop()
            words["cpu"] = self.cpu.word() + " " + self.cpu.note
        for medium, word in words.items():
            report(f"{medium} {word} heard={self.heard}")

    def run(self) -> None:
        rng = random.Random()
        for message in messages():
            received = time.monotonic()
            kind = message["type"]
            self.events(message.get("events", []))
            if kind == "hello":
                rng = random.Random(message["seed"])
                self.hello(message)
                say({"type": "ready", "name": f"channel-{self.args.role}"})
            elif kind == "act":
                if self.sender:
                    self.send(message["view"])
                else:
                    self.receive(message["view"], received)
                action = rng.choice(message["legal_actions"])
                say({"type": "action", "id": message["id"], "action": action})
                self.answered = time.monotonic()
                self.mine += 1
                self.since = 0
            elif kind == "hand_end" and not self.sender:
                self.read_state()  # after the sender's last decision
                self.report()


if __name__ == "__main__":
    Bot(arguments.parse_args()).run()
