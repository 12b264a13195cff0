"""What to fix, by the reason a match gave for a bot's fault or refused answer.

A check that plays whole matches fails for as many reasons as a match has: a crash in hand 4,
a null ``action``, a play that does not follow suit. Its advice is the advice of each reason
its failed seats were charged with (for ``too_many_rejections``, of each refused answer's
reason, and of the rule an illegal action broke), one line each. The table is keyed by every
reason code ``referee.errors`` can give (``reasons``), so a new fault without advice fails a
test rather than a bot author.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from referee.errors import BotError, IllegalAction, reasons

_P: Final = "PROTOCOL.md"
_R: Final = "RULES.md"
_LEGAL: Final = f'answer one element of the act\'s legal_actions, copied verbatim ({_P}: "act")'

#: What to fix, by reason code: every bot error's, and every rule an illegal action breaks.
ADVICE: Final[dict[str, str]] = {
    # refused answers
    "rejection": f"An answer was refused: {_LEGAL}.",
    "invalid_utf8": f'Write UTF-8 only, one JSON object per line ({_P}: "Transport").',
    "invalid_json": "Write one JSON object per line, nothing else on stdout: logs and debug"
    f' output go to stderr ({_P}: "Transport").',
    "bad_message": 'Answer act with {"type": "action", "id": <its id>, "action": <an element'
    ' of legal_actions>}: never a null or missing "action", never another type or extra'
    f' fields of the wrong type ({_P}: "act").',
    "illegal_action": f"The action was not one of legal_actions: {_LEGAL}.",
    # the rules an illegal action breaks
    "not_your_turn": f'Answer only the act you were sent, with its id ({_P}: "act").',
    "wrong_phase": "Answer with an action of the act's phase: a bid or pass in the bidding, a"
    f' trump when declaring, a tile in play ({_P}: "Tiles, actions, trump").',
    "not_an_action": f'Send one of the action types: bid, pass, trump, play ({_P}: "act").',
    "invalid_bid": "Bid above the standing bid, from 30 to 41, or all tricks for 1 or 2 marks"
    f' then exactly one mark more ({_R}: "Bidding").',
    "invalid_declaration": "Name one of the nine trumps, with piles (1 or 2) after an"
    f' all-tricks bid and without after a point bid ({_R}: "Declaring trump").',
    "tile_not_in_hand": "Play a tile you still hold: drop each tile you played from your hand"
    f' ({_R}: "Suits: what a lead calls, following, ranking").',
    "must_follow_suit": "Follow the suit the lead called when you can: a trump tile belongs to"
    " the trump suit only ([2|6] with twos trump is a trump, not a six), a trump led calls"
    " trump, any other lead its higher half; or play from legal_actions, which follows"
    f' for you ({_R}: "Suits: what a lead calls, following, ranking").',
    # faults
    "bot_fault": "The bot was at fault: read the fault in the match's log ('referee replay').",
    "start_failed": "The command did not start: run it by hand from the same folder, and name"
    " its interpreter and files as the bot's command does.",
    "timeout": "Answer each act within its time_ms (and hello within the start-up limit):"
    f' bound your search by the time left, do slow set-up before ready ({_P}: "Time").',
    "crashed": "The bot exited or closed its stdout in the middle of the match: its stderr"
    " (under the table) says why; catch the error, or fix it, and keep reading until"
    f' match_end ({_P}: "match_end").',
    "resigned": "The person playing the seat left the match.",
    "not_reading": "Keep reading stdin while you think (a thread that reads, or read before"
    f' each answer): the referee\'s messages filled the pipe ({_P}: "Transport").',
    "line_too_long": "Keep each line within the size bound hello's limits give"
    f' (max_line_bytes) ({_P}: "Transport").',
    "too_many_rejections": "Every answer to one decision was refused: after rejected, answer"
    f' the fresh act with one of its legal_actions ({_P}: "rejected").',
    "resource_limit": "The bot went over a sandbox bound: make it need less, or raise the bound"
    " where it plays.",
    "memory_limit": "The bot went over the memory limit: make it use less (a smaller table,"
    " a runtime's heap option), or play with a higher --memory-limit.",
    "cpu_limit": "A process of the bot used up its CPU seconds: think less per decision, or"
    " play with a higher --cpu-limit.",
    "file_size_limit": "The bot wrote a file over the size bound: write less, or play with a"
    " higher --file-size-limit.",
    "process_limit": "The bot started more processes or threads than the limit: use fewer"
    " (a runtime's thread-pool option), or play with a higher --max-processes.",
}

#: Every reason code a fault or a refusal can carry: what ``ADVICE`` must cover.
REASONS: Final = reasons(BotError) | reasons(IllegalAction)
_RULES: Final = reasons(IllegalAction)


def advice(faults: Iterable[str], refused: Iterable[str] = ()) -> list[str]:
    """The lines of advice for a seat's faults and, for ``too_many_rejections``, its refused
    answers' reasons and rules; one line each, in that order, without repeats."""
    codes: list[str] = []
    for fault in faults:
        if fault == "too_many_rejections":
            codes += [code for code in refused if code in ADVICE] or [fault]
        else:
            codes.append(fault)
    if any(code in _RULES for code in codes):  # the broken rule says more than "illegal"
        codes = [code for code in codes if code != "illegal_action"]
    return [ADVICE.get(code, ADVICE["bot_fault"]) for code in dict.fromkeys(codes)]
