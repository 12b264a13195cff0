#!/usr/bin/env python3
"""A heuristic Texas 42 bot: hand-strength bidding, sensible trump, partner-aware play.

Written with the Python bot kit (``referee.bot``): ``run`` speaks the protocol, and each
decision arrives typed — the seat's ``View``, the legal actions as the engine's action objects
(``Pass()``, ``Bid(31)``, ``DeclareTrump(6)``, ``Play(Tile(3, 5))``) and ``decision.seen``,
what the seat has seen of the hand (every tile played, the suits each seat showed out of).
Run it with the referee's Python (``.venv/bin/python example_bots/heuristic_bot.py``). No
randomness and nothing kept between decisions but what the kit keeps: the same messages always
get the same answers, whatever the ``hello`` seed, and match after match in one process (the
kit says ``"matches": "many"`` and starts each match afresh at its ``hello``). It is meant to
be read and copied:

- **Bidding** (`choose_bid`): for each possible trump it estimates the tricks the hand should
  take (top trumps, long trumps, off-suit doubles and the tiles right under them) and turns
  that into the bid the hand supports (`bid_value`). It bids the lowest legal point bid when
  the hand supports it (never above 34), passes otherwise, never overbids its partner, and
  bids all tricks only with a hand that cannot lose a trick.
- **Trump** (`choose_trump`): the trump with the best value: the suit where it holds the most
  and highest tiles (the double weighs most), doubles or no trump when it holds many doubles.
  ``piles`` is 1 for an all-tricks contract.
- **Play** (`choose_play`): from ``decision.seen`` it knows which tiles are still out and
  which seat has shown out of which suit. As declarer it leads trumps while it holds the best
  one, then its sure winners. It does not overtake a partner who is winning the trick, drops
  its count tiles (5 and 10 pointers) on tricks its partner has safely won, wins tricks as
  cheaply as it can when an opponent is ahead, and otherwise plays its least useful tile,
  keeping count away from opponents.

If the decision logic ever fails, the kit answers the first legal action instead of crashing
(and prints the traceback on stderr, which the referee keeps beside the match log).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import referee.bot  # noqa: F401
except ImportError:  # a clone that is not installed: the package is next to this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.bot import Decision, Seen, run
from referee.rules import Action, AllTricksBid, Bid, DeclareTrump, Pass, Play, View

# -- the double-six set ----------------------------------------------------------------------

#: Tiles are (low, high) tuples here; on the wire they are [low, high] arrays.
ALL_TILES = [(low, high) for low in range(7) for high in range(low, 7)]
#: Hand points of the count tiles; every other tile is worth nothing.
COUNT = {(0, 5): 5, (1, 4): 5, (2, 3): 5, (4, 6): 10, (5, 5): 10}
PARTNER = {"A": "C", "B": "D", "C": "A", "D": "B"}
SIDE = {"A": "AC", "B": "BD", "C": "AC", "D": "BD"}
NEXT_SEAT = {"A": "B", "B": "C", "C": "D", "D": "A"}
#: The suit a trump tile calls; number suits are 0-6.
TRUMP = 7
#: The highest point bid this bot makes, however strong its hand looks.
MAX_BID = 34


def count(tile: tuple[int, int]) -> int:
    return COUNT.get(tile, 0)


def is_double(tile: tuple[int, int]) -> bool:
    return tile[0] == tile[1]


# -- suits and trick-taking, exactly as RULES.md states them ---------------------------------


def is_trump(tile, trump) -> bool:
    """Number trump: every tile showing it; doubles trump: the doubles; no trump: nothing."""
    if trump == "no_trump":
        return False
    if trump == "doubles":
        return is_double(tile)
    return trump in tile


def called_suit(tile, trump) -> int:
    """The suit a led tile calls: trump for a trump tile, otherwise its higher half."""
    return TRUMP if is_trump(tile, trump) else tile[1]


def follows(tile, suit, trump) -> bool:
    if suit == TRUMP:
        return is_trump(tile, trump)
    return not is_trump(tile, trump) and suit in tile


def strength(tile, suit, trump) -> int:
    """How strongly a tile bids for a trick in which ``suit`` was called; -1: it cannot win."""
    if is_trump(tile, trump):
        if trump == "doubles":
            return 100 + tile[0]
        return 100 + (7 if is_double(tile) else tile[0] + tile[1] - trump)
    if suit != TRUMP and suit in tile:
        return 7 if is_double(tile) else tile[0] + tile[1] - suit
    return -1


def suit_members(suit, trump) -> list[tuple[int, int]]:
    """Every tile of a suit, best first."""
    members = [t for t in ALL_TILES if follows(t, suit, trump)]
    return sorted(members, key=lambda t: -strength(t, suit, trump))


def trick_winner(trick, trump):
    """(seat, tile, strength) of the play now winning a trick given as [(seat, tile), ...]."""
    suit = called_suit(trick[0][1], trump)
    best = max(trick, key=lambda play: strength(play[1], suit, trump))
    return best[0], best[1], strength(best[1], suit, trump)


def stronger_in_suit(tile, trump) -> list:
    """The tiles that beat a non-trump ``tile`` when it is led (it calls its higher half)."""
    suit = tile[1]
    return [
        t
        for t in suit_members(suit, trump)
        if strength(t, suit, trump) > strength(tile, suit, trump)
    ]


# -- bidding: how many tricks, and points, a hand should take with a given trump -------------


def estimate_tricks(hand, trump) -> float:
    """A rough count of the tricks this hand takes as declarer with ``trump``.

    Trumps from the top of the suit are sure tricks; further trumps are worth more the longer
    the trump holding is. Off-suit doubles (and the tile right under a held double) are
    winners once trumps are drawn, so they count for more when the hand controls trump.
    """
    trumps = [t for t in hand if is_trump(t, trump)]
    tricks = 0.0
    if trumps:
        top = 0  # trumps held from the very top of the suit down, with no gap
        for tile in suit_members(TRUMP, trump):
            if tile not in hand:
                break
            top += 1
        long_value = {1: 0.1, 2: 0.25, 3: 0.45, 4: 0.65}.get(len(trumps), 0.85)
        tricks += top + (len(trumps) - top) * long_value
        control = 0.9 if top >= 1 and len(trumps) >= 3 else 0.6
    else:
        control = 1.0 if trump == "no_trump" else 0.4  # nobody can trump in no trump
    for tile in hand:
        if is_trump(tile, trump):
            continue
        higher = stronger_in_suit(tile, trump)
        missing = [t for t in higher if t not in hand]
        if not missing:
            tricks += control  # the boss of its suit: a double, or just under a held double
        elif len(missing) == 1 and len(higher) >= 2:
            tricks += 0.25 * control
    return tricks


def bid_value(hand, trump) -> float:
    """The highest point bid this hand supports with ``trump``: 6 points a trick, plus 10.

    A trick is worth its 1 point plus, on average, 5 of the 35 count points; the 10 stand for
    the partner's tricks and the opening lead. The 10 was tuned by playing this bot against
    copies of itself: a hand valued 30-35 makes a 30 bid about 58% of the time, and bidding
    more cautiously (or more boldly) lost more matches than it won.
    """
    return 6.0 * estimate_tricks(hand, trump) + 10.0


def best_trump(hand):
    """The trump with the highest bid value, and that value.

    That is the suit where the hand holds the most and the highest tiles (the double counts
    most), or doubles / no trump with many doubles. Ties go to the trump with more tiles in
    the hand, then to the higher number.
    """
    choices = [0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"]
    estimates = {t: bid_value(hand, t) for t in choices}

    def preference(trump):
        held = sum(is_trump(t, trump) for t in hand)
        return (round(estimates[trump], 6), held, trump if isinstance(trump, int) else -1)

    trump = max(choices, key=preference)
    return trump, estimates[trump]


def all_tricks_trump(hand):
    """A trump with which this hand cannot lose a trick, or None (the usual case)."""
    for trump in [0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"]:
        if cannot_lose_a_trick(hand, trump):
            return trump
    return None


def cannot_lose_a_trick(hand, trump) -> bool:
    """True when leading from the top wins all seven tricks whatever the others hold.

    Every trump held must be from the top of the trump suit and at least as many as the
    trumps still out (so leading them pulls every trump); every other tile must be the best
    of the suit it calls, counting the tiles held above it (led first, they win too).
    """
    trumps = [t for t in hand if is_trump(t, trump)]
    members = suit_members(TRUMP, trump) if trump != "no_trump" else []
    if set(members[: len(trumps)]) != set(trumps):
        return False
    if len(trumps) < len(members) - len(trumps):
        return False
    for tile in hand:
        if is_trump(tile, trump):
            continue
        if any(t not in hand for t in stronger_in_suit(tile, trump)):
            return False
    return True


# -- the bot ---------------------------------------------------------------------------------


def strategy(decision: Decision) -> Action:
    legal = decision.legal_actions
    if len(legal) == 1:
        return legal[0]
    if any(isinstance(a, Play) for a in legal):
        return choose_play(decision.view, decision.seen, legal)
    if any(isinstance(a, DeclareTrump) for a in legal):
        return choose_trump(decision.view, legal)
    return choose_bid(decision.view, legal)


# -- bidding and trump -----------------------------------------------------------------------


def choose_bid(view: View, legal: list[Action]) -> Action:
    hand = [tuple(t) for t in view.hand]
    me = view.seat
    _, points = best_trump(hand)  # the bid the hand supports with its best trump
    pass_action = next(a for a in legal if isinstance(a, Pass))
    # Who holds the bid now? Never bid over the partner.
    high_bidder = None
    for move in view.bids:
        if not isinstance(move.action, Pass):
            high_bidder = move.seat
    if high_bidder == PARTNER[me]:
        return pass_action
    all_tricks = [a for a in legal if isinstance(a, AllTricksBid)]
    if all_tricks and all_tricks_trump(hand) is not None:
        return min(all_tricks, key=lambda a: a.marks)
    # The lowest point bid, if the hand supports it; never above MAX_BID.
    point_bids = [a for a in legal if isinstance(a, Bid)]
    if point_bids:
        lowest = min(point_bids, key=lambda a: a.points)
        if lowest.points <= min(points, MAX_BID):
            return lowest
    return pass_action


def choose_trump(view: View, legal: list[Action]) -> Action:
    hand = [tuple(t) for t in view.hand]
    trump, _ = best_trump(hand)
    declarations = [a for a in legal if isinstance(a, DeclareTrump)]
    if any(a.piles for a in declarations):  # an all-tricks contract: piles=1
        sure = all_tricks_trump(hand)
        trump = trump if sure is None else sure
    wanted = [a for a in declarations if a.trump == trump and a.piles in (None, 1)]
    return wanted[0] if wanted else legal[0]


# -- playing ---------------------------------------------------------------------------------


def choose_play(view: View, seen: Seen, legal: list[Action]) -> Action:
    contract, me = view.contract, view.seat
    assert contract is not None
    tiles = [tuple(a.tile) for a in legal if isinstance(a, Play)]
    trick = [(p.seat, tuple(p.tile)) for p in view.trick]
    play = PlayChoice(
        me=me,
        trump=contract.trump,
        unknown={tuple(t) for t in seen.unseen},  # the tiles in the other three hands
        voids=seen.voids,
        declaring=SIDE[contract.declarer] == SIDE[me],
        all_tricks=isinstance(contract.bid, AllTricksBid),
    )
    tile = play.follow(tiles, trick) if trick else play.lead(tiles)
    return legal[tiles.index(tile)]


class PlayChoice:
    """One play decision: this seat's legal tiles, the tiles still out, the known voids."""

    def __init__(self, me, trump, unknown, voids, declaring, all_tricks) -> None:
        self.me, self.partner, self.trump = me, PARTNER[me], trump
        self.opponents = [s for s in "ABCD" if SIDE[s] != SIDE[me]]
        self.unknown = unknown  # tiles in the other three hands
        self.voids = voids  # seat -> suits it has shown it cannot follow
        self.declaring = declaring  # our side holds the contract
        self.all_tricks = all_tricks  # one trick decides the hand, count does not matter

    # -- what could still happen in a trick --

    def stronger_out(self, tile, suit) -> list:
        """Tiles still out that follow ``suit`` and beat ``tile`` in it."""
        best = strength(tile, suit, self.trump)
        return [
            t
            for t in self.unknown
            if follows(t, suit, self.trump) and strength(t, suit, self.trump) > best
        ]

    def may_beat(self, seat, suit, best) -> bool:
        """Could ``seat`` still play a tile stronger than ``best`` to a trick calling ``suit``?

        Yes if a stronger tile of the suit is still out and the seat has not shown out of the
        suit; or if trump is still out and the seat may be out of the suit (it has shown it,
        or no tile of the suit is left for it to hold) but has not shown out of trump.
        """
        trump, voids = self.trump, self.voids[seat]
        suit_out = [t for t in self.unknown if follows(t, suit, trump)]
        if suit not in voids and any(strength(t, suit, trump) > best for t in suit_out):
            return True
        if suit != TRUMP and TRUMP not in voids and (suit in voids or not suit_out):
            return any(is_trump(t, trump) and strength(t, suit, trump) > best for t in self.unknown)
        return False

    def safe(self, later, suit, best) -> bool:
        """True when no opponent among the ``later`` seats can beat ``best``."""
        return not any(self.may_beat(s, suit, best) for s in later if s in self.opponents)

    def keep_value(self, tile) -> int:
        """How useful a tile is for later tricks (low: a good tile to get rid of)."""
        if is_trump(tile, self.trump):
            return 50 + strength(tile, TRUMP, self.trump)
        if not self.stronger_out(tile, tile[1]):
            return 30 + tile[0] + tile[1]  # the best of its suit: a trick later on
        return tile[0] + tile[1]

    def cheapest(self, tiles):
        """The tile to give up when the trick is lost to us: no count, least useful."""
        if self.all_tricks:
            return min(tiles, key=self.keep_value)
        return min(tiles, key=lambda t: (count(t), self.keep_value(t)))

    # -- leading --

    def lead(self, tiles):
        trump = self.trump
        trumps = [t for t in tiles if is_trump(t, trump)]
        trumps_out = [t for t in self.unknown if is_trump(t, trump)]
        opponents_may_trump = bool(trumps_out) and any(
            TRUMP not in self.voids[s] for s in self.opponents
        )

        def sure_winner(tile) -> bool:
            suit = called_suit(tile, trump)
            return self.safe(self.opponents, suit, strength(tile, suit, trump))

        winners = [t for t in tiles if sure_winner(t)]
        if self.declaring:
            # Pull the opponents' trumps while holding the best trump; with a long trump
            # holding, pull them with a low trump anyway.
            if trumps and opponents_may_trump:
                top = max(trumps, key=lambda t: strength(t, TRUMP, trump))
                if top in winners:
                    return top
                if len(trumps) >= 3:
                    return min(trumps, key=lambda t: (count(t), strength(t, TRUMP, trump)))
            if winners:
                # Cash the other suits' winners first: trumps stay winners, and they win the
                # lead back later.
                return max(
                    winners, key=lambda t: (not is_trump(t, trump), count(t), -self.keep_value(t))
                )
            return self.cheapest(tiles)
        # Defending: cash sure winners, counters first.
        if winners:
            return max(winners, key=lambda t: (count(t), -self.keep_value(t)))
        if self.all_tricks:  # one trick sets the contract: lead the tile least likely to lose
            return max(tiles, key=lambda t: strength(t, called_suit(t, trump), trump))
        # Lead a suit the partner has shown out of, so it can trump in.
        partner_voids = self.voids[self.partner]
        if trumps_out and TRUMP not in partner_voids:
            for tile in sorted(tiles, key=self.keep_value):
                if not is_trump(tile, trump) and tile[1] in partner_voids and not count(tile):
                    return tile
        return self.cheapest(tiles)

    # -- following --

    def follow(self, tiles, trick):
        trump = self.trump
        suit = called_suit(trick[0][1], trump)
        winner, _, best = trick_winner(trick, trump)
        later, seat = [], self.me  # the seats still to play after this one
        for _ in range(3 - len(trick)):
            seat = NEXT_SEAT[seat]
            later.append(seat)
        beating = [t for t in tiles if strength(t, suit, trump) > best]
        safe_beating = [t for t in beating if self.safe(later, suit, strength(t, suit, trump))]
        partner_safe = winner == self.partner and self.safe(later, suit, best)

        if self.all_tricks:
            # Every trick decides the hand and count does not matter: our side must take
            # it (declarers) or just one (defenders).
            if partner_safe or not beating:
                return self.cheapest(tiles)
            if safe_beating:
                return min(safe_beating, key=self.keep_value)
            return max(beating, key=lambda t: strength(t, suit, trump))

        if winner == self.partner:
            if partner_safe:
                # Partner has the trick: never overtake, give it our count.
                return max(
                    tiles, key=lambda t: (count(t), -self.keep_value(t), -strength(t, suit, trump))
                )
            # Partner may still be beaten: make the trick sure if there is count in it.
            on_table = sum(count(t) for _, t in trick)
            if safe_beating and (on_table or any(count(t) for t in safe_beating)):
                return max(safe_beating, key=lambda t: (count(t), -self.keep_value(t)))
            return self.cheapest(tiles)

        # An opponent is winning.
        if safe_beating:
            # Take it as cheaply as possible, bringing our own count home if we can.
            return max(safe_beating, key=lambda t: (count(t), -self.keep_value(t)))
        if beating and self.partner not in later:
            # Partner cannot help any more: our best chance is our strongest tile.
            return max(beating, key=lambda t: (strength(t, suit, trump), -count(t)))
        return self.cheapest(tiles)


if __name__ == "__main__":
    run(strategy, name="heuristic")
