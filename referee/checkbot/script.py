"""The scripted game states check-bot asks about, all real engine states.

Each ``Script`` is one hand from a chosen deal, driven by ``referee.rules.Hand``: the actions
before the bot's decision are applied by the script (its own earlier bids included), and the
bot's seat gets exactly what a table would send it — the public events since its last
message, its view, the legal actions — so every ``act`` is one the referee could send.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec

from referee.errors import IllegalAction, reason_code
from referee.match.startup import bot_seed
from referee.rules import (
    PARTNERSHIP_OF,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Hand,
    HandEnded,
    HandStarted,
    Partnership,
    Pass,
    Seat,
    Tile,
    tile,
)
from referee.settings import MatchSettings
from referee.wire.messages import PROTOCOL_VERSION, Act, HandEnd, Hello, MatchEnd, PublicEvent

#: The seat the checked bot plays in every scripted conversation.
SEAT: Final[Seat] = "A"


def _tiles(text: str) -> list[Tile]:
    return [tile(word) for word in text.split()]


#: One deal for every scripted hand. A holds two sixes, but not as its first tile: when B
#: leads the double six in a sixes contract, A must follow suit and ``hand[0]`` is illegal.
DEAL: Final[dict[Seat, list[Tile]]] = {
    "A": _tiles("[0|0] [1|6] [0|1] [2|6] [0|2] [1|1] [0|3]"),
    "B": _tiles("[6|6] [5|6] [4|6] [3|6] [5|5] [4|5] [3|5]"),
    "C": _tiles("[0|6] [4|4] [3|4] [2|4] [1|4] [0|4] [3|3]"),
    "D": _tiles("[2|2] [2|3] [1|3] [1|2] [0|5] [1|5] [2|5]"),
}
#: The second hand of a conversation (the same tiles, dealt on by one seat).
DEAL_2: Final[dict[Seat, list[Tile]]] = {
    "A": DEAL["D"],
    "B": DEAL["A"],
    "C": DEAL["B"],
    "D": DEAL["C"],
}


def first_legal(hand: Hand) -> Action:
    return hand.legal_actions()[0]


class Script:
    """One hand as the bot's seat lives it: the engine's state and what the seat was not
    told yet (public events, a finished hand's ``hand_end``)."""

    def __init__(
        self,
        dealer: Seat,
        deal: dict[Seat, list[Tile]],
        prefix: list[Action],
        *,
        hand_number: int = 1,
        marks: dict[Partnership, int] | None = None,
    ) -> None:
        self.hand = Hand(dealer, deal, hand_number=hand_number, marks=marks)
        self.pending: list[PublicEvent] = [HandStarted(hand_number=hand_number, dealer=dealer)]
        #: The ``hand_end`` message once the hand is over (it goes with the next message).
        self.hand_end: HandEnd | None = None
        for action in prefix:
            assert self.hand.turn is not None
            self.apply(self.hand.turn, action)

    @property
    def marks_after(self) -> dict[Partnership, int]:
        marks = dict(self.hand.marks)
        result = self.hand.result
        if result is not None and result.winner is not None:
            marks[result.winner] += result.marks
        return marks

    def apply(self, seat: Seat, action: Action) -> None:
        for event in self.hand.apply(seat, action):
            if type(event) is HandEnded:
                self.hand_end = HandEnd(
                    events=self.take_events(), review=event.review, marks=self.marks_after
                )
            else:
                assert isinstance(event, PublicEvent)
                self.pending.append(event)

    def take_events(self) -> list[PublicEvent]:
        events, self.pending = self.pending, []
        return events

    def advance(self, policy: Callable[[Hand], Action] = first_legal) -> bool:
        """Play the other seats until the bot's seat is to act; False when the hand ended."""
        while not self.hand.is_over and self.hand.turn != SEAT:
            assert self.hand.turn is not None
            self.apply(self.hand.turn, policy(self.hand))
        return not self.hand.is_over

    def act(self, act_id: int, time_ms: int) -> Act:
        """The ``act`` the bot's seat gets now (it must be its turn)."""
        assert self.hand.turn == SEAT
        return Act(
            id=act_id,
            events=self.take_events(),
            view=self.hand.view(SEAT),
            legal_actions=self.hand.legal_actions(),
            time_ms=time_ms,
        )

    def why_illegal(self, action: Action) -> str:
        """The rule ``action`` breaks now, in the engine's words."""
        try:
            self.hand.clone().apply(SEAT, action)
        except IllegalAction as exc:
            return f"{reason_code(exc)}: {exc}"
        return "not among legal_actions"


# -- the states ------------------------------------------------------------------------------
# Dealer A: B bids first, then C, D and A (bidding goes clockwise from the dealer's left).


def bidding() -> Script:
    """A to bid over B's 30 and D's 31: pass, 32-41 or all tricks for 1 or 2 marks."""
    script = Script("A", DEAL, [Bid(30), Pass(), Bid(31)])
    return script


def declaring() -> Script:
    """A won the bidding with 30: it names one of nine trumps (no ``piles``)."""
    return Script("A", DEAL, [Pass(), Pass(), Pass(), Bid(30)])


def all_tricks() -> Script:
    """A bid all tricks for 2 marks over D's 1: it names trump *and* 1 or 2 face-up piles."""
    return Script("A", DEAL, [Pass(), Pass(), AllTricksBid(1), AllTricksBid(2)])


def playing() -> Script:
    """B's sixes contract; B leads the double six, C follows, D cannot: A must play a six."""
    script = Script("A", DEAL, [Bid(30), Pass(), Pass(), Pass(), DeclareTrump(6)])
    script.advance()
    return script


def last_play(marks: dict[Partnership, int] | None = None) -> Script:
    """The ``playing`` hand played on (first legal tiles) to A's decision that ends it."""
    script = Script(
        "A", DEAL, [Bid(30), Pass(), Pass(), Pass(), DeclareTrump(6)], hand_number=12, marks=marks
    )
    while script.advance():
        hand = script.hand
        ends = True
        for action in hand.legal_actions():
            trial = hand.clone()
            ends = ends and any(type(e) is HandEnded for e in trial.apply(SEAT, action))
        if ends:
            return script
        script.apply(SEAT, first_legal(hand))
    raise AssertionError("the scripted hand has no decision of A that ends it")  # pragma: no cover


def second_hand(marks: dict[Partnership, int]) -> Script:
    """Hand 2 (dealer B: C and D pass, then A bids)."""
    return Script("B", DEAL_2, [Pass(), Pass()], hand_number=2, marks=marks)


# -- messages --------------------------------------------------------------------------------


def hello(settings: MatchSettings) -> Hello:
    seed = bot_seed(settings.seed, SEAT)
    return Hello(
        protocol=PROTOCOL_VERSION,
        seat=SEAT,
        partnership=PARTNERSHIP_OF[SEAT],
        seed=seed,
        limits=settings.limits(),
        seed_text=str(seed),
    )


def match_end(script: Script) -> MatchEnd:
    """The end of a match decided by the script's (finished) hand."""
    marks = script.marks_after
    winner: Partnership = "AC" if marks["AC"] > marks["BD"] else "BD"
    return MatchEnd(
        events=script.take_events(),
        winner=winner,
        marks=marks,
        reason="marks",
        detail=f"{winner[0]}+{winner[1]} reached {marks[winner]} marks",
    )


def extended(message: msgspec.Struct, extra: Callable[[dict[str, Any]], None]) -> bytes:
    """``message`` as a protocol line, with ``extra`` adding fields to its plain form."""
    plain = msgspec.to_builtins(message)
    assert isinstance(plain, dict)
    extra(plain)
    return msgspec.json.encode(plain) + b"\n"


#: Fields no version of the protocol will define (a field is never reused).
FUTURE: Final = "x_check_bot_future"


def future_fields(plain: dict[str, Any]) -> None:
    """Unknown fields at every level of a referee message a bot reads — never inside an
    action (``legal_actions`` are answered verbatim, and in ``events`` an action is the
    bot's to parse like ``legal_actions``)."""
    plain[FUTURE] = {"nested": [1, "two", None, {"deep": True}], "number": 1.5}
    plain[FUTURE + "_text"] = "a field added by a later protocol"
    for event in plain.get("events", []):
        event[FUTURE] = 7
    limits = plain.get("limits")
    if isinstance(limits, dict):
        limits[FUTURE] = 0
    view = plain.get("view")
    if isinstance(view, dict):
        view[FUTURE] = [None]
        for key in ("bids", "trick", "piles"):
            for item in view[key]:
                item[FUTURE] = "x"
        if isinstance(view.get("contract"), dict):
            view["contract"][FUTURE] = {}
    review = plain.get("review")
    if isinstance(review, dict):
        review[FUTURE] = 1
        review["result"][FUTURE] = 1
        for move in review["moves"]:
            move[FUTURE] = 1


def unknown_event(plain: dict[str, Any]) -> None:
    """A public event of a type no version defines, first in ``events``."""
    plain["events"].insert(0, {"type": FUTURE + "_event", "seat": "B", "what": "ignore me"})


#: Messages of types no version of the protocol defines.
UNKNOWN_MESSAGES: Final = (
    msgspec.json.encode({"type": FUTURE, "note": "a message type added later: ignore it"})
    + b"\n"
    + msgspec.json.encode(
        {
            "type": FUTURE + "_update",
            "id": 999,
            "events": [{"type": "acted", "seat": "B", "action": {"type": "pass"}}],
            "legal_actions": [{"type": "pass"}],
        }
    )
    + b"\n"
)
