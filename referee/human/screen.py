"""What the person at the table sees: their own view, what the others did, the choices.

The screen scrolls like a conversation: the events since the person's last turn are told as
they arrive (``narration``), each hand opens with a rule and closes with its result, and at
each of the person's decisions a block shows the state of the hand from the seat's own view —
the same ``View`` a bot gets, so no other seat's tile can be drawn — followed by the legal
actions, numbered. Tiles are written ``[low|high]``; doubles are bold and trump tiles
coloured; a hand is sorted by suit, trump first once trump is known.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee.human.choices import label, summary
from referee.human.narration import Narrator, NewHand
from referee.human.sorting import hand_groups, in_order
from referee.record.render import marks_text, result_text
from referee.rules.actions import (
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Pass,
    Trump,
    counted,
)
from referee.rules.contract import Contract, side_name
from referee.rules.suits import CALLED, TRUMP_SUIT, is_trump, suit_name
from referee.rules.tiles import (
    MARKS_TO_WIN,
    PARTNER_OF,
    PARTNERSHIP_OF,
    PARTNERSHIPS,
    Partnership,
    Seat,
    Tile,
)
from referee.rules.views import Review, View
from referee.terminal.escapes import markup
from referee.wire.messages import MatchEnd, PublicEvent

TRUMP_STYLE = "bold magenta"
DOUBLE_STYLE = "bold"
#: The prompt of a decision; the tests under tmux wait for it.
PROMPT = "you ({seat})> "
CONFIRM = "Leave the match? Your side forfeits. y to leave, Enter to play on> "

#: What can be typed, shown at the start and by ``?``.
KEYS = (
    "Answer with the number of a choice, or type it:",
    "  pass · 31 (a bid) · all 2 (all tricks for 2 marks)",
    "  sixes, 6s, doubles, no trump (trump; for all tricks add the piles face up: sixes 2)",
    "  6-4, [6|4] or 64 (a tile)",
    "  ? this help · q leave the match (your side forfeits; Ctrl-D too) · Ctrl-C stop it",
)


def tile_text(tile: Tile, trump: Trump | None) -> Text:
    style = [DOUBLE_STYLE] if tile.is_double else []
    if trump is not None and is_trump(trump, tile):
        style.append(TRUMP_STYLE)
    return Text(str(tile), style=" ".join(style))


def hand_text(tiles: list[Tile], trump: Trump | None) -> Text:
    text = Text()
    for number, (name, ranked) in enumerate(hand_groups(tiles, trump)):
        if number:
            text.append("  │ ", style="dim")
        text.append(f"{name} ", style="dim")
        text.append(Text(" ").join(tile_text(tile, trump) for tile in ranked))
    return text or Text("—")


def points_taken(view: View) -> dict[Partnership, tuple[int, int]]:
    """Per side, the tricks and hand points captured so far this hand (one point a trick)."""
    taken = {side: (0, 0) for side in PARTNERSHIPS}
    for pile in view.piles:
        tricks, points = taken[pile.side]
        taken[pile.side] = (tricks + 1, points + 1 + sum(tile.points for tile in pile.tiles))
    return taken


def contract_text(contract: Contract) -> str:
    side = side_name(contract.declarers)
    bid = contract.bid
    aim = f"{side} need {bid.points} points" if isinstance(bid, Bid) else f"{side} need every trick"
    return f"{contract} — {aim}"


class Screen:
    """The person's screen: one console, one seat."""

    def __init__(self, console: Console, seat: Seat) -> None:
        self.console = console
        self.seat = seat
        self.narrator = Narrator(seat)

    def _who(self, seat: Seat) -> str:
        if seat == self.seat:
            return f"{seat} (you)"
        return f"{seat} (partner)" if seat == PARTNER_OF[self.seat] else seat

    def welcome(self, seating: Mapping[Seat, str]) -> None:
        """Who sits where (the bots' commands, escaped), and the keys."""
        side = side_name(PARTNERSHIP_OF[self.seat])
        self.console.print(
            Text(f"Texas 42 — you play seat {self.seat} ({side}), first to {MARKS_TO_WIN} marks")
        )
        for seat, command in seating.items():
            if seat != self.seat:
                self.console.print(f"  {self._who(seat)}: {markup(command)}")
        for line in KEYS:
            self.console.print(Text(line, style="dim"))

    def events(self, events: list[PublicEvent]) -> None:
        for event in events:
            told = self.narrator.tell(event)
            if isinstance(told, NewHand):
                self.console.rule(f"Hand {told.number} · dealer {self._who(told.dealer)}")
            elif told is not None:
                self.console.print(Text(f"  {told}"))

    def decision(self, view: View, legal: list[Action]) -> None:
        """The seat's view and its choices, numbered."""
        trump = view.contract.trump if view.contract else None
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold")
        grid.add_column()
        side = side_name(PARTNERSHIP_OF[self.seat])
        grid.add_row("Marks", f"{marks_text(view.marks)}  (you are {self.seat}, {side})")
        bids = [f"{self.narrator.who(m.seat)} {m.action}" for m in view.bids]
        grid.add_row("Auction", " · ".join(bids) or "you open")
        if view.contract is not None:
            grid.add_row("Contract", contract_text(view.contract))
        if view.phase == "playing":
            taken = points_taken(view)
            grid.add_row(
                "This hand",
                " · ".join(
                    f"{side_name(s)} {counted(tricks, 'trick')}, {counted(points, 'point')}"
                    for s, (tricks, points) in taken.items()
                ),
            )
            trick = Text(f"trick {len(view.piles) + 1}: ")
            for number, played in enumerate(view.trick):
                trick.append(" · " if number else "")
                trick.append(f"{self.narrator.who(played.seat)} ")
                trick.append(tile_text(played.tile, trump))
            grid.add_row("Table", trick if view.trick else Text("you lead"))
        grid.add_row("Your tiles", hand_text(view.hand, trump))
        self.console.print(grid)
        self.console.print(Text(f"Your turn — {_what(view, legal)}:", style="bold"))
        numbered = in_order(legal, view)
        width = max(len(label(action)) for action in numbered) + 5
        self.console.print(
            Columns(
                [Text(f"{n:>2}  {label(action)}") for n, action in enumerate(numbered, 1)],
                width=width,
                padding=(0, 1),
            )
        )

    def hint(self, text: str) -> None:
        self.console.print(Text(f"  ✗ {text}", style="yellow"))

    def help(self, legal: list[Action]) -> None:
        for line in KEYS:
            self.console.print(Text(line))
        self.console.print(Text(f"Now: {summary(legal)}."))

    def hand_end(self, review: Review, marks: Mapping[Partnership, int]) -> None:
        result = review.result
        self.console.print(
            Text(f"Hand {review.hand_number} over — {result_text(result)}", style="bold")
        )
        auction = [
            f"{self.narrator.who(m.seat)} {m.action}"
            for m in review.moves
            if isinstance(m.action, Pass | Bid | AllTricksBid)
        ]
        self.console.print(Text(f"  bids: {' · '.join(auction)}"))
        if result.contract is not None:
            points = " · ".join(f"{side_name(s)} {result.points[s]}" for s in PARTNERSHIPS)
            self.console.print(
                Text(
                    f"  contract: {result.contract}; points {points}"
                    f" after {counted(result.tricks, 'trick')}"
                )
            )
        self.console.print(Text(f"  marks: {marks_text(marks)}", style="bold"))

    def match_end(self, end: MatchEnd) -> None:
        winner = side_name(end.winner) if end.winner else "nobody"
        self.console.rule("Match over")
        self.console.print(f"{winner} wins ({end.reason}: {markup(end.detail)})", style="bold")
        self.console.print(Text(f"marks: {marks_text(end.marks)}"))


def _what(view: View, legal: list[Action]) -> str:
    if view.phase == "bidding":
        return "bid or pass"
    if view.phase == "declaring":
        piles = isinstance(legal[0], DeclareTrump) and legal[0].piles
        return "name trump" + (", and the piles face up" if piles else "")
    if not view.trick:
        return "lead a tile"
    led = CALLED[view.contract.trump][view.trick[0].tile] if view.contract else TRUMP_SUIT
    return f"play a tile ({suit_name(led)} led)"
