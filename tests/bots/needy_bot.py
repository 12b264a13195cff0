"""Needs something before it answers ``hello``: an environment variable (``--env NAME``),
a file (``--file HTAP``, its path backwards) or a TCP socket (``--socket``), saying nothing
of it with ``--quiet``; memory (``--memory MIB``, touched) or threads (``--threads N``,
alive); or, with ``--crash-at N``, writes ``--lines`` lines of stderr and
exits with status 101 at its N-th act (0: before ``ready``), as a Rust bot's panic does.
Otherwise it plays its first legal action."""

import os
import socket
import sys
import threading

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--env")
arguments.add_argument(
    "--file",
    help="a path written backwards: no word of the command names the file, so the"
    " sandbox does not let the bot read it",
)
arguments.add_argument("--socket", action="store_true")
arguments.add_argument("--quiet", action="store_true", help="exit 1 saying nothing")
arguments.add_argument("--memory", type=int, default=0, help="MiB to hold before ready")
arguments.add_argument("--threads", type=int, default=0, help="threads to keep before ready")
arguments.add_argument("--crash-at", type=int, default=-1)
arguments.add_argument("--lines", type=int, default=0)
args = botlib.setup(arguments)


def panic() -> None:
    for number in range(args.lines):
        print(f"trace line {number}", file=sys.stderr)
    print("thread 'main' panicked at src/main.rs:12:5:", file=sys.stderr)
    print("note: run with `RUST_BACKTRACE=1` to display a backtrace", file=sys.stderr, flush=True)
    os._exit(101)


if args.env and args.quiet and args.env not in os.environ:
    sys.exit(1)
if args.env:
    print(f"model directory: {os.environ[args.env]}", file=sys.stderr)
if args.file:
    with open(args.file[::-1]) as book:
        book.read()
if args.socket:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
held = bytearray(args.memory << 20)
for page in range(0, len(held), 4096):
    held[page] = 1
waiting = threading.Event()
for _ in range(args.threads):
    threading.Thread(target=waiting.wait, daemon=True).start()
acts = 0
for message in botlib.messages():
    if message["type"] == "hello":
        if args.crash_at == 0:
            panic()
        botlib.send({"type": "ready", "name": "needy", "matches": "many"})
    elif message["type"] == "act":
        acts += 1
        if acts == args.crash_at:
            panic()
        botlib.send({"type": "action", "id": message["id"], "action": message["legal_actions"][0]})
