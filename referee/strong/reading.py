"""What the play says about the hands: a sampled world counts less when a seat's plays so far
would have been unlikely with the tiles the world gives it, as the auction's model already
weighs a world by the bids (``beliefs``).

Two readings, each a likelihood ratio measured in match logs of the bundled bots (the
heuristic bot, the strong bot and its baseline; 299 matches, about 80,000 plays):

- **Count thrown to the opponents.** A seat that plays a count tile (5 or 10) to a trick its
  opponents hold once it has played, when a legal tile of less count was in its hand: the
  strong bots did so in 16% of such choices as the second to play (its partner still to
  come), 2% as the third and 6% as the fourth; the heuristic bot never. A world in which the
  seat had the cheaper tile is weighed ``COUNT_THROWN`` (by its place in the trick).
- **A trick not taken by a seat out of the suit.** A seat that cannot follow, with the
  opponents holding the trick, plays a tile that does not take it while it held one that
  would (a trump, or a higher one): 1-7% of such chances when the trick held count, 10-22%
  when it held none (the heuristic bot 3%). Such a world is weighed ``NOT_TAKEN``.

The weights are softer than the logs' shares, as other bots may play otherwise. Every test is a
handful of integer operations on tile masks, precomputed from the plays once per decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from referee.bot import Seen
from referee.rules.suits import TRUMP_SUIT
from referee.rules.tiles import COUNT, PARTNERSHIP_OF, SEATS, TILES
from referee.solver.search import INDEX, mask, tables

#: A world's weight when the seat threw count while holding a cheaper legal tile, by the
#: number of tiles already in the trick when it played (1: it played second).
COUNT_THROWN: Final = {1: 0.25, 2: 0.1, 3: 0.1}
#: A world's weight when the seat, out of the suit, left the opponents a trick it held a tile
#: to take: the trick with count in it, and without.
NOT_TAKEN: Final = {True: 0.1, False: 0.5}
#: The tiles of less count than a count tile's (5 or 10), as a mask.
CHEAPER: Final = {c: mask(tuple(t for t in TILES if COUNT[t] < c)) for c in (5, 10)}


@dataclass(frozen=True)
class Clue:
    """One play that says something: the seat (``SEATS`` index), the tiles it played from
    then on (its hand then is its hand now plus these), and the world's weight when its hand
    then met ``suspect`` (any tile of it: ``within`` is None; else among ``within`` if it
    held any of those, among all its tiles if not)."""

    seat: int
    later: int
    within: int | None
    suspect: int
    weight: float

    def applies(self, hand_then: int) -> bool:
        if self.within is not None and hand_then & self.within:
            return bool(hand_then & self.within & self.suspect)
        return bool(hand_then & self.suspect)


def clues(seen: Seen) -> list[Clue]:
    """The plays of the other seats that the readings above can weigh a world by."""
    if seen.trump is None:
        return []
    rules = tables(seen.trump)
    plays = seen.plays
    later: dict[int, int] = {}
    found: list[Clue] = []
    for at in range(len(plays) - 1, -1, -1):  # backwards: each seat's later tiles build up
        play = plays[at]
        seat, tile = SEATS.index(play.seat), INDEX[play.tile]
        later[seat] = later.get(seat, 0) | 1 << tile
        place = at % 4
        if place == 0 or play.seat == seen.seat:
            continue
        trick = plays[at - place : at]
        suit = rules.called[INDEX[trick[0].tile]]
        strength = rules.strength[suit]
        before = max(trick, key=lambda p: strength[INDEX[p.tile]])
        best = strength[INDEX[before.tile]]
        taken = strength[tile] > best
        theirs_after = (
            PARTNERSHIP_OF[(before if not taken else play).seat] != PARTNERSHIP_OF[play.seat]
        )
        followers = rules.followers[suit]
        if theirs_after and COUNT[play.tile] > 0:
            found.append(
                Clue(seat, later[seat], followers, CHEAPER[COUNT[play.tile]], COUNT_THROWN[place])
            )
        if suit != TRUMP_SUIT and not followers >> tile & 1 and theirs_after and not taken:
            takers = sum(1 << i for i, bid in enumerate(strength) if bid > best)
            counted = any(COUNT[p.tile] for p in trick)
            found.append(Clue(seat, later[seat], None, takers, NOT_TAKEN[counted]))
    return found


def play_weight(found: list[Clue], hands: tuple[int, int, int, int]) -> float:
    """The weight of a world whose seats hold ``hands`` now (``SEATS`` order, masks)."""
    weight = 1.0
    for clue in found:
        if clue.applies(hands[clue.seat] | clue.later):
            weight *= clue.weight
    return weight
