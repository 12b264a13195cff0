"""Starts a grandchild that ignores SIGTERM, records its pid, then behaves, hangs or exits."""

import subprocess
import sys
import time

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--then", choices=["behave", "hang", "exit"], default="behave")
arguments.add_argument("--marker", default="", help="extra argument for the grandchild's argv")
args = botlib.setup(arguments)
GRANDCHILD = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
grandchild = subprocess.Popen([sys.executable, "-c", GRANDCHILD, args.marker])
botlib.record_pid(args.pid_dir, grandchild.pid, "grandchild")
for message in botlib.messages():
    if message["type"] == "hello":
        rng = botlib.ready(message, "grandchild")
        if args.then == "exit":
            sys.exit(0)
    elif message["type"] == "act":
        if args.then == "hang":
            time.sleep(600)
        botlib.answer(message, rng)
