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
    ├── SeedError                   a seed outside 0 .. 2**64-1
    ├── LogError                    a file that cannot be read as a replay log
    ├── VerificationError           a replay log that disagrees with the rules or itself
    ├── SandboxRefused              a protection is missing (strict), or a seat could read a log
    └── BotError                    a bot broke the protocol (always recorded with its seat)
        ├── Rejection               an answer refused; the bot may try again
        │   ├── InvalidUtf8
        │   ├── InvalidJson
        │   ├── BadMessage          wrong shape, unknown or mistyped fields, unexpected type
        │   └── IllegalActionAnswer not one of the legal actions (``rule`` says which rule)
        └── BotFault                the fault policy applies (forfeit, or a random action)
            ├── BotStartFailed      the command could not be started
            ├── BotTimeout          no answer in time (hello or act)
            ├── BotCrashed          the bot exited or closed its stdout
            │   └── Resigned        the person playing the seat left (``referee play``)
            ├── BotNotReading       the bot stopped reading its stdin
            ├── LineTooLong         a line over the size bound, discarded unread
            ├── TooManyRejections   ``max_rejections`` refused answers for one decision
            └── ResourceLimit       the bot went over a sandbox bound and was stopped
                ├── MemoryLimit
                ├── CpuLimit
                ├── FileSizeLimit
                └── ProcessLimit

The class name of an illegal action or a bot error is also its *reason code*: ``reason_code`` turns
``MustFollowSuit`` into ``"must_follow_suit"``, the string written to logs and sent to bots;
``reasons(Rejection)`` is every rejection's code, so a list of them is never kept by hand.
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


class LogError(RefereeError):
    """The file cannot be read as a replay log (empty, binary, another format or version)."""


class VerificationError(RefereeError):
    """A replay log disagrees with a re-simulation of the match, or its chain is broken.

    ``line`` is the 1-based line of the first record that disagrees.
    """

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class SandboxRefused(RefereeError):
    """``--sandbox strict`` and a protection a competition needs is missing, or a seat could
    read the referee's own files; says which, and how to mend it."""


class BotError(RefereeError):
    """A bot broke the protocol."""


class Rejection(BotError):
    """An answer the referee refused; nothing changed and the bot may answer again."""

    #: The refused line, decoded leniently and cut short, for the log.
    raw: str = ""


class InvalidUtf8(Rejection):
    """The line is not valid UTF-8."""


class InvalidJson(Rejection):
    """The line is not one JSON value."""


class BadMessage(Rejection):
    """Valid JSON, but not the message expected: wrong shape, fields, types or ``type``."""


class IllegalActionAnswer(Rejection):
    """The action is not one of ``legal_actions``; ``rule`` names the rule it breaks."""

    code = "illegal_action"

    def __init__(self, detail: str, rule: str) -> None:
        super().__init__(detail)
        self.rule = rule


class BotFault(BotError):
    """A fault: the fault policy applies (forfeit, or a seeded random action and a strike)."""

    #: The lines the bot wrote on stdout in the exchange the fault ended (refused, or read
    #: and not yet judged; each cut short), oldest first: a runtime's dying words may be
    #: there (``referee.sandbox.overruns``).
    said: tuple[str, ...] = ()


class BotStartFailed(BotFault):
    """The bot's command could not be started."""

    code = "start_failed"


class BotTimeout(BotFault):
    """The bot did not answer within its time."""

    code = "timeout"


class BotCrashed(BotFault):
    """The bot exited or closed its stdout."""

    code = "crashed"


class Resigned(BotCrashed):
    """The person playing the seat left the match (``referee play``: ``q``, or the end of
    their input): the seat forfeits."""

    code = "resigned"


class BotNotReading(BotFault):
    """The bot stopped reading its stdin, so a message to it could not be delivered in time."""

    code = "not_reading"


class LineTooLong(BotFault):
    """The bot sent a line over the size bound; it was discarded unread."""


class TooManyRejections(BotFault):
    """The bot's answers to one decision were refused ``max_rejections`` times."""


class ResourceLimit(BotFault):
    """The bot went over one of its sandbox bounds and was stopped."""


class MemoryLimit(ResourceLimit):
    """The bot's processes reached the memory bound."""


class CpuLimit(ResourceLimit):
    """A process of the bot used up its CPU seconds."""


class FileSizeLimit(ResourceLimit):
    """The bot wrote a file over the size bound."""


class ProcessLimit(ResourceLimit):
    """The bot's tree reached its bound on processes and threads."""


def reason_code(error: type[BaseException] | BaseException) -> str:
    """``MustFollowSuit`` -> ``"must_follow_suit"``; a class's own ``code`` wins
    (``BotTimeout`` -> ``"timeout"``)."""
    cls = error if isinstance(error, type) else type(error)
    code = cls.__dict__.get("code")
    if isinstance(code, str):
        return code
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def reasons(base: type[BaseException]) -> frozenset[str]:
    """The reason codes of every kind under ``base`` (``Rejection``: ``invalid_utf8``,
    ``invalid_json``, ``bad_message``, ``illegal_action``), at any depth."""
    kinds = base.__subclasses__()
    return frozenset(map(reason_code, kinds)).union(*map(reasons, kinds))


class LeagueError(RefereeError, ValueError):
    """A league's database cannot be used as asked; the message says why and what to do."""


class DatasetError(RefereeError, ValueError):
    """A path or a log a dataset cannot be made from; the message names it and says why."""
