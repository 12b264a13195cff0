"""The raw-pipe reference: reads a JSON line, parses it as a bot must, answers one short line.

It does what the instant bot does minus choosing an action, so the referee benchmark can
say how close a real match comes to the pipes' own request/response rate.
"""

import json
import sys


def main() -> None:
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        message = json.loads(line)
        write(json.dumps({"type": "action", "id": message["id"], "action": {"type": "pass"}}))
        write("\n")
        flush()


if __name__ == "__main__":
    main()
