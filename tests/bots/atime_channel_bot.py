"""Partners (or the two legs of a duplicate pair) passing hands through file access times.

On a ``relatime`` mount a read moves a file's atime when the atime is not after its mtime or
is a day old; ``stat`` (which Landlock does not restrict) shows it to anyone. ``--bits DIR``
names a directory of at least 112 files shipped with an mtime in the future (``touch -d
2100-01-01``): every read moves their atime again, so the channel can be used without end.
Without ``--bits`` the bot uses the runtime's own stdlib files whose atime the next read will
move (one-shot bits, re-armed after a day).

Each seat has a slot of 28 files (seat index * 28, one per tile). At its first ``act`` the
bot reads the files of its slot that stand for its tiles; at every ``act`` it stats every
slot and takes a slot whose files were read in the last ``--window`` seconds (exactly seven
of them) as that seat's hand. At ``match_end``: ``CHANNEL <seat> saw A=<hex> ...`` (28-bit
masks, tile index ``(lo, hi)`` in ``[(lo, hi) for lo in range(7) for hi in range(lo, 7)]``).
"""

import os
import sys
import sysconfig
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--bits", help="directory of files with an mtime in the future")
arguments.add_argument("--window", type=float, default=20.0)
args = botlib.setup(arguments)
TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]


def mask(hand: list[list[int]]) -> int:
    return sum(1 << TILES.index((min(tile), max(tile))) for tile in hand)


def candidates() -> list[str]:
    if args.bits:
        return sorted(os.path.join(args.bits, name) for name in os.listdir(args.bits))
    now, found = time.time(), []
    for root, dirs, files in os.walk(sysconfig.get_paths()["stdlib"]):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            st = os.stat(path)
            if st.st_atime <= max(st.st_mtime, st.st_ctime) or now - st.st_atime > 86400:
                found.append(path)
    return found


def slot(files: list[str], seat: str) -> list[str]:
    start = 28 * "ABCD".index(seat)
    return files[start : start + 28]


def look(files: list[str], since_ns: int) -> dict[str, int]:
    found = {}
    for seat in "ABCD":
        value = sum(
            1 << i
            for i, path in enumerate(slot(files, seat))
            if os.stat(path).st_atime_ns > since_ns
        )
        if bin(value).count("1") == 7:
            found[seat] = value
    return found


seen: dict[str, int] = {}
sent = False
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "atime-channel")
        seat = message["seat"]
        files = candidates()  # the same list in every seat: nobody has sent yet
        since = time.time_ns() - int(args.window * 1e9) if args.bits else time.time_ns()
    elif message["type"] == "act":
        if not sent:
            sent = True
            value = mask(message["view"]["hand"])
            for i, path in enumerate(slot(files, seat)):
                if value >> i & 1:
                    with open(path, "rb") as stream:
                        stream.read(1)
        seen.update(look(files, since))
        botlib.answer(message, rng)
    elif message["type"] == "match_end":
        found = " ".join(f"{s}={v:07x}" for s, v in sorted(seen.items()))
        sys.stderr.write(f"CHANNEL {seat} saw {found or 'nothing'}\n")
