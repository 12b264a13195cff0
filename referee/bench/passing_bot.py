"""The viewer benchmark's bot: passes every hand but each ``every``-th (argument, default 16)
while both sides have under 6 marks, and then bids 30 when it may and plays its first legal
tile. Four of them play the longest match a log can hold: ``--max-hands`` hands, nearly all
passed, a dozen played. With ``every`` 1 it bids in every hand, so the match is played to
its end on marks. It plays one match per process."""

import json
import sys


def main() -> None:
    every = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            view, legal = message["view"], message["legal_actions"]
            action = legal[0]  # a pass in the bidding, else the first legal tile or trump
            playing = view["hand_number"] % every == 0 and (
                every == 1 or max(view["marks"].values()) < 6
            )
            if playing and {"type": "bid", "points": 30} in legal:
                action = {"type": "bid", "points": 30}
            write(json.dumps({"type": "action", "id": message["id"], "action": action}) + "\n")
            flush()
        elif kind == "hello":
            write('{"type": "ready", "name": "passing"}\n')
            flush()
        elif kind == "match_end":
            return


if __name__ == "__main__":
    main()
