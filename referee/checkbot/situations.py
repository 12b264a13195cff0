"""The situations check-bot's matches put a bot in, and how often a match's log shows it
facing each one.

A bot that passes four matches may still never have met the hand that breaks it: a trump led
whose number is the low half of a tile it holds ([2|6] with twos trump: a trump, not a six),
an all-tricks contract, a suit it cannot follow. So check-bot plays chosen seeds that between
them produce each of these (``seeds``), counts from the real matches' logs how many times the
checked seat faced each, and says which never came up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

import msgspec

from referee.record.records import ActRecord, RejectedRecord
from referee.record.walk import LogWalk
from referee.rules import DOUBLES, NO_TRUMP, TRUMPS, Hand, Pass, Seat, Trump
from referee.rules.suits import TRUMP_SUIT, called_suit, follows, is_trump
from referee.rules.tiles import SUIT_NAMES


class Situation(msgspec.Struct, frozen=True):
    """A situation: its name (the JSON key) and what the bot faced, in words."""

    name: str
    title: str


def trump_situation(trump: Trump) -> str:
    """The situation of a hand played under ``trump``: ``trump_sixes``, ``trump_doubles``,
    ``no_trump``."""
    if trump == NO_TRUMP:
        return "no_trump"
    return f"trump_{SUIT_NAMES[trump] if isinstance(trump, int) else trump}"


def _trump_title(trump: Trump) -> str:
    if trump == NO_TRUMP:
        return "a hand played with no trump (follow me: doubles high in their suits)"
    if trump == DOUBLES:
        return "a hand played with doubles trump"
    return f"a hand played with {SUIT_NAMES[trump]} trump"


#: Every situation, in the order the report lists them.
SITUATIONS: Final[tuple[Situation, ...]] = (
    *(Situation(trump_situation(trump), _trump_title(trump)) for trump in TRUMPS),
    Situation(
        "trump_led_low_half",
        "a trump led while it held a trump whose low half is the trump number ([2|6] with"
        " twos trump: a trump, not a six)",
    ),
    Situation("follow", "a trick it had to follow: it held a tile of the suit led"),
    Situation("void", "a trick it could not follow: any tile was legal"),
    Situation("lead", "a trick to lead"),
    Situation("bid_to_beat", "a bid standing when it bid: beat it or pass"),
    Situation("declare", "naming trump as declarer"),
    Situation("all_tricks", "a hand played under an all-tricks contract (every trick needed)"),
    Situation(
        "refusal",
        "an answer refused (rejected), then a fresh act: the rejected check provokes one",
    ),
)
#: The situations a match can be chosen for: a refusal comes of the bot's own answers (and of
#: the rejected check's script), never of a deal.
DEALT: Final = tuple(situation.name for situation in SITUATIONS if situation.name != "refusal")


def _play_situations(hand: Hand, seat: Seat) -> list[str]:
    """The situations of a play decision of ``seat`` in ``hand``."""
    contract = hand.contract
    assert contract is not None
    trump = contract.trump
    held = hand.hands[seat]
    if not hand.trick:
        return ["lead"]
    suit = called_suit(trump, hand.trick[0].tile)
    found = ["follow" if any(follows(trump, suit, tile) for tile in held) else "void"]
    if (
        suit == TRUMP_SUIT
        and isinstance(trump, int)
        and any(tile.low == trump != tile.high for tile in held if is_trump(trump, tile))
    ):
        found.append("trump_led_low_half")
    return found


def faced(records: Iterable[object], seat: Seat) -> Counter[str]:
    """How many times ``seat`` faced each situation in a match's log records: each decision
    once (a fresh act after a refusal is the same decision), each hand's trump and contract
    once, each refused answer."""
    records = list(records)
    counts: Counter[str] = Counter()
    if not records:
        return counts
    decisions: set[tuple[int, int]] = set()
    hands: set[int] = set()
    for moment in LogWalk(records):  # type: ignore[arg-type]
        record = moment.record
        if type(record) is RejectedRecord and record.seat == seat:
            counts["refusal"] += 1
        if type(record) is not ActRecord or record.seat != seat:
            continue
        hand = moment.hand
        decision = (hand.hand_number, len(hand.moves))
        if decision in decisions:
            continue
        decisions.add(decision)
        if hand.phase == "bidding":
            if hand.bids and any(type(bid.action) is not Pass for bid in hand.bids):
                counts["bid_to_beat"] += 1
        elif hand.phase == "declaring":
            counts["declare"] += 1
        elif hand.phase == "playing":
            contract = hand.contract
            assert contract is not None
            if hand.hand_number not in hands:
                hands.add(hand.hand_number)
                counts[trump_situation(contract.trump)] += 1
                if contract.is_all_tricks:
                    counts["all_tricks"] += 1
            counts.update(_play_situations(hand, seat))
    return counts
