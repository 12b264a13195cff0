"""Plays many matches in one process (``ready.matches: "many"``), answering at once with
``legal[id % len(legal)]``, and tells on stderr — which goes to each match's own file — what
each match showed it: which process it is (its pid and a random word: in a PID namespace of
its own every bot is pid 2), the hello's seat, what it found in its scratch directory
(``TMPDIR``, where it leaves a file each match), and every view's seat and hand.

``--exit-after N`` exits after the N-th ``match_end``; ``--mute-after N`` stops answering
after it (no ``ready`` to the next ``hello``): the two ways to misbehave between matches.
``--nest N`` leaves N nested directories in the scratch directory each match. ``--burn S``
spends S seconds of CPU before each ``ready``, ``--think S`` sleeps S seconds
before each answer; ``--late-answer`` writes an answer after each ``match_end``.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time

from botlib import parser, send, setup

PROCESS = f"{os.getpid()}-{secrets.token_hex(8)}"


def nest(path: str, depth: int) -> None:
    """``depth`` directories, each in the last (deeper than a recursive walk can go)."""
    if depth:
        os.mkdir(path)
        current = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        for _ in range(depth - 1):
            os.mkdir("d", dir_fd=current)
            deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=current)
            os.close(current)
            current = deeper
        os.close(current)


def main() -> None:
    arguments = parser(__doc__)
    arguments.add_argument("--exit-after", type=int, default=0)
    arguments.add_argument("--mute-after", type=int, default=0)
    arguments.add_argument("--think", type=float, default=0.0, help="seconds per act")
    arguments.add_argument("--late-answer", action="store_true", help="answer after match_end")
    arguments.add_argument("--burn", type=float, default=0.0, help="CPU seconds per hello")
    arguments.add_argument("--marker", default="")
    arguments.add_argument("--nest", type=int, default=0, help="nested directories per match")
    args = setup(arguments)
    ended = 0
    hellos = 0

    def tell(**fields: object) -> None:
        sys.stderr.write(json.dumps(fields) + "\n")
        sys.stderr.flush()

    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message["type"]
        if args.mute_after and ended >= args.mute_after:
            continue
        if kind == "hello":
            hellos += 1
            spent = time.process_time() + args.burn
            while time.process_time() < spent:
                pass
            scratch = os.environ.get("TMPDIR")
            left = None
            if scratch:  # what the last match left there, then something for the next to find
                left = sorted(os.listdir(scratch))
                with open(os.path.join(scratch, f"left-by-match-{hellos}"), "w") as file:
                    file.write("a secret\n")
                nest(os.path.join(scratch, f"nest-{hellos}"), args.nest)
            tell(
                process=PROCESS,
                hello=hellos,
                seat=message["seat"],
                seed=message["seed"],
                scratch=scratch,
                left=left,
            )
            send({"type": "ready", "name": "many", "matches": "many"})
        elif kind == "act":
            view = message["view"]
            tell(view=view["seat"], hand_number=view["hand_number"], hand=view["hand"])
            time.sleep(args.think)
            legal = message["legal_actions"]
            send(
                {"type": "action", "id": message["id"], "action": legal[message["id"] % len(legal)]}
            )
        elif kind == "match_end":
            ended += 1
            if args.late_answer:  # as if it were still thinking about the last decision
                send({"type": "action", "id": 1, "action": {"type": "pass"}})
            if args.exit_after and ended >= args.exit_after:
                return


if __name__ == "__main__":
    main()
