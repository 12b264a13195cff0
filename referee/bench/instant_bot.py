"""The referee benchmark's opponent: answers at once, with a legal action picked by the act id;
it plays match after match in one process (``ready.matches: "many"``) until its input ends.
An argument is a start-up delay in seconds (a bot that loads a model before ``ready``)."""

import json
import sys
import time


def main() -> None:
    if len(sys.argv) > 1:
        time.sleep(float(sys.argv[1]))
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            legal = message["legal_actions"]
            answer = {
                "type": "action",
                "id": message["id"],
                "action": legal[message["id"] % len(legal)],
            }
            write(json.dumps(answer) + "\n")
            flush()
        elif kind == "hello":
            write('{"type": "ready", "name": "instant", "matches": "many"}\n')
            flush()


if __name__ == "__main__":
    main()
