"""Every exception the referee raises, in one tree.

    RefereeError                    anything this package raises on purpose
    ├── RulesError                  the rules engine refused something
    │   ├── IllegalAction           an action the rules do not allow now; nothing changed
    │   │   ├── NotYourTurn
    │   │   ├── WrongPhase          e.g. a play during the bidding
    │   │   ├── NotAnAction         not one of the action types
    │   │   ├── InvalidBid          out of range, too low, or not the next all-tricks bid
    │   │   ├── InvalidDeclaration  unknown trump, or a pile choice that does not fit
    │   │   ├── TileNotInHand
    │   │   └── MustFollowSuit
    │   └── GameOver                the hand or match has already ended
    └── SeedError                   a seed outside 0 .. 2**64-1

The class name of an illegal action is also its *reason code*: ``reason_code`` turns
``MustFollowSuit`` into ``"must_follow_suit"``, the string written to logs and sent to bots.
"""

from __future__ import annotations

import re


class RefereeError(Exception):
    """Base class of every error this package raises on purpose."""


class RulesError(RefereeError):
    """The rules engine refused a request; its state is unchanged."""


class IllegalAction(RulesError):
    """An action the rules do not allow at this moment; the state is unchanged."""


class NotYourTurn(IllegalAction):
    """Another seat is to act."""


class WrongPhase(IllegalAction):
    """The kind of action does not belong to this phase of the hand."""


class NotAnAction(IllegalAction):
    """The object is not one of the action types."""


class InvalidBid(IllegalAction):
    """A bid that is out of range, does not beat the standing bid, or is not the next step."""


class InvalidDeclaration(IllegalAction):
    """An unknown trump, or a pile choice that does not fit the contract."""


class TileNotInHand(IllegalAction):
    """The seat does not hold that tile."""


class MustFollowSuit(IllegalAction):
    """The seat holds a tile of the called suit and must play one."""


class GameOver(RulesError):
    """The hand or the match has already ended; no action is legal."""


class SeedError(RefereeError, ValueError):
    """A match seed must be an integer from 0 to 2**64 - 1."""


def reason_code(error: type[BaseException] | BaseException) -> str:
    """``MustFollowSuit`` -> ``"must_follow_suit"``: the stable name written to logs."""
    cls = error if isinstance(error, type) else type(error)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
