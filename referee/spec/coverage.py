"""Which rule of ``protocol/RULES.md`` a position exercises: one test per rule, so that the
conformance vectors are chosen to cover them all and a reader can tell which vector covers which.

Every vector also lists moves its position must refuse (``refusals``); the last rule names
the first whose refusals include a tile held that does not follow. A rule's test looks at one
``Step``: the position after an action (or a match's first
position), the action, the hand it was played in and the events it caused. The vector
generator plays seeded matches and keeps, for each rule, the first position whose step passes
its test; ``protocol/CONFORMANCE.md`` lists the rules in this order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from referee.rules.actions import NO_TRUMP, Action, AllTricksBid, Bid, Trump
from referee.rules.contract import Contract, HandResult
from referee.rules.events import Event, HandEnded, HandStarted, MatchEnded, TrickTaken
from referee.rules.hand import Hand
from referee.rules.match import Match
from referee.rules.suits import CALLED, FOLLOWERS, TRUMP_SUIT, is_trump
from referee.rules.tiles import COUNT, PARTNER_OF, TOTAL_POINTS, TRICKS_PER_HAND, Tile
from referee.rules.views import Move, PlayedTile


@dataclass(frozen=True)
class Step:
    """A position and how it was reached: ``action`` by ``seat`` in ``played_in`` (that hand
    after the action; None for a match's first position), with its ``events``; ``trick`` holds
    the plays of the trick the action joined (all four when it completed it)."""

    match: Match
    played_in: Hand | None
    seat: str | None
    action: Action | None
    events: list[Event]
    trick: list[PlayedTile]

    @property
    def result(self) -> HandResult | None:
        """The result of the hand this step ended, if it ended one."""
        return next((e.result for e in self.events if type(e) is HandEnded), None)

    @property
    def taken(self) -> TrickTaken | None:
        """The trick this step completed, if it completed one."""
        return next((e for e in self.events if type(e) is TrickTaken), None)

    @property
    def ended(self) -> MatchEnded | None:
        return next((e for e in self.events if type(e) is MatchEnded), None)


@dataclass(frozen=True)
class Rule:
    """A rule a vector must exercise: its id, the section of RULES.md, and its test."""

    id: str
    section: str
    text: str
    holds: Callable[[Step], bool]


# -- what the tests ask ------------------------------------------------------------------------


def _standing(bids: list[Move]) -> tuple[int, int, str | None]:
    """The standing point bid, all-tricks marks and high bidder of a list of bids."""
    points, marks, bidder = 0, 0, None
    for move in bids:
        if type(move.action) is Bid:
            points, bidder = move.action.points, move.seat
        elif type(move.action) is AllTricksBid:
            marks, bidder = move.action.marks, move.seat
    return points, marks, bidder


def _bidding(step: Step) -> tuple[int, int] | None:
    hand = step.match.hand
    if hand.phase != "bidding":
        return None
    points, marks, _ = _standing(hand.bids)
    return points, marks


def _declaring(step: Step, all_tricks: bool) -> bool:
    hand = step.match.hand
    return hand.phase == "declaring" and bool(_standing(hand.bids)[1]) == all_tricks


def _outbid(step: Step, *, partner: bool, over_points: bool = False) -> bool:
    if step.played_in is None or type(step.action) not in (Bid, AllTricksBid):
        return False
    points, marks, bidder = _standing(step.played_in.bids[:-1])
    if over_points:
        return type(step.action) is AllTricksBid and points > 0 and not marks
    return partner and bidder is not None and PARTNER_OF[bidder] == step.seat  # type: ignore[index]


def _contract(step: Step) -> Contract | None:
    return step.played_in.contract if step.played_in is not None else None


def _deciding(step: Step) -> tuple[Contract, HandResult] | None:
    contract, result = _contract(step), step.result
    return (contract, result) if contract is not None and result is not None else None


def _completed(step: Step) -> tuple[Trump, list[Tile], Tile] | None:
    """A completed trick: the trump, its tiles in play order, the winning tile."""
    contract, taken = _contract(step), step.taken
    if contract is None or taken is None:
        return None
    tiles = [p.tile for p in step.trick]
    winning = next(p.tile for p in step.trick if p.seat == taken.winner)
    return contract.trump, tiles, winning


def _trick_under(trump: Trump) -> Callable[[Step], bool]:
    def holds(step: Step) -> bool:
        done = _completed(step)
        return done is not None and done[0] == trump and any(is_trump(trump, t) for t in done[1])

    return holds


def _to_follow(step: Step) -> tuple[Trump, int, list[Tile], set[Tile]] | None:
    """Mid-trick: the trump, the called suit, the hand to act and its legal tiles."""
    hand = step.match.hand
    if hand.phase != "playing" or not hand.trick or hand.contract is None:
        return None
    assert hand.turn is not None
    trump = hand.contract.trump
    legal = {action.tile for action in hand.legal_actions()}  # type: ignore[union-attr]
    return trump, CALLED[trump][hand.trick[0].tile], hand.hands[hand.turn], legal


def _restricted(step: Step, lead: Callable[[Trump, Tile], bool]) -> bool:
    """The lead was just played, it passes ``lead``, and the next seat must follow it."""
    facing = _to_follow(step)
    if facing is None or len(step.match.hand.trick) != 1:
        return False
    trump, _, held, legal = facing
    return lead(trump, step.match.hand.trick[0].tile) and 0 < len(legal) < len(held)


def _lower_half_refused(trump: Trump, led: Tile, held: list[Tile], legal: set[Tile]) -> bool:
    return any(
        not is_trump(trump, t) and led.low in t and led.high not in t and t not in legal
        for t in held
    )


def _higher_half(step: Step) -> bool:
    facing = _to_follow(step)
    if facing is None or len(step.match.hand.trick) != 1:
        return False
    trump, suit, held, legal = facing
    led = step.match.hand.trick[0].tile
    plain = suit != TRUMP_SUIT and not led.is_double and len(legal) < len(held)
    return plain and _lower_half_refused(trump, led, held, legal)


def _either_half(step: Step) -> bool:
    facing = _to_follow(step)
    if facing is None or facing[1] == TRUMP_SUIT:
        return False
    _, suit, held, legal = facing
    return len(legal) < len(held) and any(t.low == suit != t.high for t in legal)


def _trump_showing(step: Step, *, doubles: bool, free: bool) -> bool:
    """The seat to act holds a trump showing the called number: refused (another tile
    follows), or — ``free`` — its hand is all legal (the trump was its only tile showing it)."""
    facing = _to_follow(step)
    if facing is None or facing[1] == TRUMP_SUIT or facing[0] == NO_TRUMP:
        return False
    trump, suit, held, legal = facing
    if (trump == "doubles") != doubles:
        return False
    showing = [t for t in held if suit in t and is_trump(trump, t)]
    if not showing:
        return False
    return len(legal) == len(held) if free else len(legal) < len(held)


def _no_duty_to_trump(step: Step) -> bool:
    facing = _to_follow(step)
    if facing is None or facing[1] == TRUMP_SUIT:
        return False
    trump, _, held, legal = facing
    return len(legal) == len(held) > 1 and any(is_trump(trump, t) for t in held)


def _won_by_trump(step: Step, *, at_least: int) -> bool:
    done = _completed(step)
    if done is None:
        return False
    trump, tiles, winning = done
    trumps = sum(is_trump(trump, t) for t in tiles)
    return not is_trump(trump, tiles[0]) and is_trump(trump, winning) and trumps >= at_least


def _off_suit_loses(step: Step) -> bool:
    done = _completed(step)
    if done is None:
        return False
    trump, tiles, winning = done
    suit = CALLED[trump][tiles[0]]
    if any(is_trump(trump, t) for t in tiles):
        return False
    off = [t for t in tiles if t not in FOLLOWERS[trump][suit]]
    return any(t.is_double or t.high > winning.high for t in off)


def _double_beats_lead(step: Step) -> bool:
    done = _completed(step)
    if done is None:
        return False
    trump, tiles, winning = done
    return not is_trump(trump, winning) and winning.is_double and winning != tiles[0]


def _doubles_rank(step: Step) -> bool:
    done = _completed(step)
    return done is not None and done[0] == "doubles" and sum(t.is_double for t in done[1]) >= 2


def _winner_leads(step: Step) -> bool:
    taken = step.taken
    return taken is not None and step.result is None and taken.winner != step.trick[0].seat


def _count_tiles(step: Step) -> bool:
    return step.taken is not None and sum(COUNT[p.tile] > 0 for p in step.trick) >= 2


def _point_end(outcome: str, *, early: bool = False, exact: bool = False) -> Callable[[Step], bool]:
    def holds(step: Step) -> bool:
        decided = _deciding(step)
        if decided is None or decided[0].is_all_tricks or decided[1].outcome != outcome:
            return False
        contract, result = decided
        if exact:
            return result.points[contract.declarers] == contract.bid.points  # type: ignore[union-attr]
        return (result.tricks < TRICKS_PER_HAND) if early else result.tricks == TRICKS_PER_HAND

    return holds


def _open_at_limit(step: Step) -> bool:
    contract = _contract(step)
    if contract is None or contract.is_all_tricks or step.taken is None or step.result:
        return False
    assert step.played_in is not None and type(contract.bid) is Bid
    return step.played_in.points[contract.defenders] == TOTAL_POINTS - contract.bid.points


def _all_tricks_end(outcome: str) -> Callable[[Step], bool]:
    def holds(step: Step) -> bool:
        decided = _deciding(step)
        return decided is not None and decided[0].is_all_tricks and decided[1].outcome == outcome

    return holds


def _partner_keeps_going(step: Step) -> bool:
    contract, taken = _contract(step), step.taken
    if contract is None or taken is None or not contract.is_all_tricks or step.result:
        return False
    return taken.winner == PARTNER_OF[contract.declarer]


def _marks(step: Step, *, all_tricks: bool) -> bool:
    decided = _deciding(step)
    if decided is None or decided[0].is_all_tricks != all_tricks:
        return False
    contract, result = decided
    if all_tricks:
        return result.marks >= 2
    return contract.bid.points >= 35 and result.marks == 1  # type: ignore[union-attr]


def _piles(step: Step, piles: int | None, captured: int) -> bool:
    hand = step.match.hand
    contract = hand.contract
    return (
        contract is not None
        and contract.piles == piles
        and hand.phase == "playing"
        and len(hand.piles) >= captured
    )


def _all_42(step: Step) -> bool:
    result = step.result
    return (
        result is not None
        and result.tricks == TRICKS_PER_HAND
        and sum(result.points.values()) == TOTAL_POINTS
    )


def _match_won(step: Step, *, over: int) -> bool:
    ended = step.ended
    return ended is not None and max(ended.marks.values()) > over


def _after_scored_hand(step: Step) -> bool:
    result = step.result
    started = any(type(e) is HandStarted for e in step.events)
    return started and result is not None and result.winner is not None


_TRUMP_WORDS: Final = ("blanks", "ones", "twos", "threes", "fours", "fives", "sixes")

RULES: Final[tuple[Rule, ...]] = (
    Rule("deal.seed", "dealing", "the first dealer and the deal come from the seed",
         lambda s: s.action is None),
    Rule("deal.rotation", "dealing", "after a scored hand the next seat deals hand 2, 3, ...",
         _after_scored_hand),
    Rule("bid.opening", "bidding", "first bid: pass, 30-41, all tricks for 1 or 2",
         lambda s: _bidding(s) == (0, 0)),
    Rule("bid.over-point", "bidding", "over a point bid p < 41: pass, p+1..41, all tricks 1 or 2",
         lambda s: (b := _bidding(s)) is not None and 30 <= b[0] <= 40 and not b[1]),
    Rule("bid.over-41", "bidding", "over 41: pass, all tricks for 1 or 2",
         lambda s: _bidding(s) == (41, 0)),
    Rule("bid.over-all-tricks", "bidding", "over all tricks for m: pass, all tricks for m+1",
         lambda s: (b := _bidding(s)) is not None and b[1] > 0),
    Rule("bid.all-tricks-over-point", "bidding", "an all-tricks bid beats a point bid",
         lambda s: _outbid(s, partner=False, over_points=True)),
    Rule("bid.all-tricks-5", "bidding", "all-tricks bids climb to 5 marks",
         lambda s: s.action == AllTricksBid(5)),
    Rule("bid.partner", "bidding", "a seat may outbid its partner",
         lambda s: _outbid(s, partner=True)),
    Rule("bid.all-pass", "bidding", "four passes: no score, the next seat deals",
         lambda s: (r := s.result) is not None and r.outcome == "passed"),
    Rule("bid.highest-declares", "bidding", "the highest bidder, not the last, declares",
         lambda s: s.match.hand.phase == "declaring" and s.match.hand.turn != s.seat),
    Rule("declare.point", "declaring-trump", "after a point bid: the nine trumps, no piles",
         lambda s: _declaring(s, all_tricks=False)),
    Rule("declare.all-tricks", "declaring-trump", "after all tricks: nine trumps x 1 or 2 piles",
         lambda s: _declaring(s, all_tricks=True)),
    *(
        Rule(f"trump.{word}", "suits-what-a-lead-calls-following-ranking",
             f"a trick with {word} trump and a trump in it", _trick_under(number))
        for number, word in enumerate(_TRUMP_WORDS)
    ),
    Rule("trump.doubles", "suits-what-a-lead-calls-following-ranking",
         "a trick with doubles trump and a double in it", _trick_under("doubles")),
    Rule("trump.no-trump", "suits-what-a-lead-calls-following-ranking",
         "a trick with no trump", lambda s: (d := _completed(s)) is not None and d[0] == NO_TRUMP),
    Rule("lead.trump", "suits-what-a-lead-calls-following-ranking",
         "a trump led calls trump: the next seat must play a trump",
         lambda s: _restricted(s, is_trump)),
    Rule("lead.double", "suits-what-a-lead-calls-following-ranking",
         "a double that is not trump calls its number",
         lambda s: _restricted(s, lambda trump, t: t.is_double and not is_trump(trump, t))),
    Rule("lead.higher-half", "suits-what-a-lead-calls-following-ranking",
         "any other lead calls its higher half: a tile showing only the lower half is refused",
         _higher_half),
    Rule("follow.either-half", "suits-what-a-lead-calls-following-ranking",
         "a tile follows by either half: one showing the called number low is legal",
         _either_half),
    Rule("follow.trump-not-number", "suits-what-a-lead-calls-following-ranking",
         "a trump showing the called number does not follow it",
         lambda s: _trump_showing(s, doubles=False, free=False)),
    Rule("follow.trump-frees", "suits-what-a-lead-calls-following-ranking",
         "a seat whose only tiles showing the number are trumps may play anything",
         lambda s: _trump_showing(s, doubles=False, free=True)),
    Rule("follow.doubles-trump", "suits-what-a-lead-calls-following-ranking",
         "with doubles trump, the double of the called number does not follow it",
         lambda s: _trump_showing(s, doubles=True, free=False)
         or _trump_showing(s, doubles=True, free=True)),
    Rule("follow.no-duty-to-trump", "suits-what-a-lead-calls-following-ranking",
         "a seat that cannot follow may play any tile, trump or not", _no_duty_to_trump),
    Rule("win.trump", "who-wins-a-trick", "a trump wins a trick led in a number suit",
         lambda s: _won_by_trump(s, at_least=1)),
    Rule("win.overtrump", "who-wins-a-trick", "of two trumps, the higher wins",
         lambda s: _won_by_trump(s, at_least=2)),
    Rule("win.off-suit-loses", "who-wins-a-trick",
         "a tile that neither follows nor trumps never wins, however high", _off_suit_loses),
    Rule("win.double-high", "who-wins-a-trick", "the double is the highest of its suit",
         _double_beats_lead),
    Rule("win.doubles-rank", "who-wins-a-trick", "with doubles trump, doubles rank by number",
         _doubles_rank),
    Rule("win.winner-leads", "who-wins-a-trick", "the trick's winner leads the next one",
         _winner_leads),
    Rule("points.count", "points-in-a-hand", "1 point a trick, plus its count tiles",
         _count_tiles),
    Rule("points.all-42", "points-in-a-hand", "a hand played out has 42 points",
         _all_42),
    Rule("end.point-made-early", "the-contract-marks-and-the-early-end",
         "a point contract is made as soon as the declarers hold the bid",
         _point_end("made", early=True)),
    Rule("end.point-made-exact", "the-contract-marks-and-the-early-end",
         "made with exactly the bid", _point_end("made", exact=True)),
    Rule("end.point-set-early", "the-contract-marks-and-the-early-end",
         "set as soon as the defenders hold more than 42 - bid", _point_end("set", early=True)),
    Rule("end.point-open-at-limit", "the-contract-marks-and-the-early-end",
         "defenders at exactly 42 - bid: the hand goes on", _open_at_limit),
    Rule("end.point-seventh", "the-contract-marks-and-the-early-end",
         "a point contract decided by the seventh trick",
         lambda s: _point_end("made")(s) or _point_end("set")(s)),
    Rule("end.all-tricks-set", "the-contract-marks-and-the-early-end",
         "all tricks set at the defenders' first trick", _all_tricks_end("set")),
    Rule("end.all-tricks-partner", "the-contract-marks-and-the-early-end",
         "a trick won by the declarer's partner keeps all tricks alive", _partner_keeps_going),
    Rule("end.all-tricks-made", "the-contract-marks-and-the-early-end",
         "all tricks made after the seventh trick", _all_tricks_end("made")),
    Rule("marks.point", "the-contract-marks-and-the-early-end",
         "a point contract (here 35 or more) is worth 1 mark",
         lambda s: _marks(s, all_tricks=False)),
    Rule("marks.all-tricks", "the-contract-marks-and-the-early-end",
         "all tricks for m is worth m marks to the side that wins it",
         lambda s: _marks(s, all_tricks=True)),
    Rule("view.piles-point", "what-each-seat-sees", "a point contract shows every pile",
         lambda s: _piles(s, None, 2)),
    Rule("view.piles-1", "what-each-seat-sees", "all tricks with 1 pile shows the last only",
         lambda s: _piles(s, 1, 2)),
    Rule("view.piles-2", "what-each-seat-sees", "all tricks with 2 piles shows the last two",
         lambda s: _piles(s, 2, 3)),
    Rule("match.win", "the-match", "the first side to 7 marks wins the match",
         lambda s: _match_won(s, over=6)),
    Rule("match.overshoot", "the-match", "a side may pass 7: 8 marks or more wins the same",
         lambda s: _match_won(s, over=7)),
    Rule("digital.refused", "digital-play",
         "an illegal action (here a tile that does not follow) is refused, changing nothing",
         lambda s: (f := _to_follow(s)) is not None and len(f[3]) < len(f[2])),
)  # fmt: skip
