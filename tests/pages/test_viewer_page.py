"""The viewer page as a file (``referee replay LOG --html``): one self-contained HTML file, its
data safe inside its script element whatever the bots sent, refused when the log does not
verify, and for one seat holding nothing but that seat's view."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio
from support.viewer_logs import (
    HOSTILE_LINE,
    HOSTILE_NAME,
    forfeit_match,
    hostile_match,
    log_of,
    never_ready_match,
)
from typer.testing import CliRunner

from referee.cli import app
from referee.errors import VerificationError
from referee.pages.match_page import match_page
from referee.pages.page import embedded_json
from referee.pages.steps import code
from referee.record import render
from referee.record.log import parse_log
from referee.record.records import DealRecord, LogRecord, MatchEndRecord, MoveRecord
from referee.rules import Play

DATA = re.compile(r'<script type="application/json" id="match-data">(.*?)</script>', re.S)


def data_of(page: str) -> dict[str, Any]:
    found = DATA.findall(page)
    assert len(found) == 1, "exactly one data element, ended by our own </script>"
    data: dict[str, Any] = json.loads(found[0])
    return data


def test_embedded_json_cannot_end_its_script_element() -> None:
    value = {"name": "</script><script>x()</script> & <!-- \u2028"}
    text = str(embedded_json(value))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


async def test_hostile_names_and_lines_stay_data(autojump_clock: trio.abc.Clock) -> None:
    run = await hostile_match()
    page = match_page(log_of(run))
    # The only script elements are our two; nothing the bot sent opens or closes one.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<img" not in page and "<b>" not in page
    assert HOSTILE_NAME not in page
    data = data_of(page)
    assert data["names"]["B"] == HOSTILE_NAME  # the name arrives intact, as data
    raws = [n.get("raw") for s in data["steps"] for n in s.get("notes", {}).get("all", [])]
    assert HOSTILE_LINE.decode().rstrip("\n") in raws
    # The title, written by the template, is escaped.
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    assert title is not None and "<" not in title.group(1)


async def test_a_seats_page_holds_no_other_seats_dealt_tile_until_played(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await hostile_match()
    log = log_of(run)
    deals = {r.hand: r.hands for r in run.records if isinstance(r, DealRecord)}
    for seat in ("A", "B", "C", "D"):
        data = data_of(match_page(log, [seat]))
        assert data["perspectives"] == [seat]
        # How long another seat took would tell how many tiles it could play: its own only.
        assert set(data["times"]) == {seat}
        assert all(step.get("ms") is None for step in data["steps"] if step.get("seat") != seat)
        assert any(step.get("ms") is not None for step in data["steps"] if step.get("seat") == seat)
        for step in data["steps"]:
            assert set(step["hands"]) == {seat}
            others = {
                code(t) for s, tiles in deals[step["hand"]].items() if s != seat for t in tiles
            }
            shown = set(step["hands"][seat][seat]) | {c for _, c in step.get("trick", [])}
            played = {c for _, c in step.get("trick", [])}
            assert not (shown - played) & others
            for note in step.get("notes", {}).get(seat, []):
                assert note["seat"] == seat or ("raw" not in note and "detail" not in note)


async def test_a_seats_page_never_names_a_tile_another_seat_never_played(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await hostile_match()
    played = {
        (hand, str(move.action.tile))
        for hand, move in _moves_by_hand(run.records)
        if isinstance(move.action, Play)
    }
    deals = {r.hand: r.hands for r in run.records if isinstance(r, DealRecord)}
    for seat in ("A", "B", "C", "D", "public"):
        page = match_page(log_of(run), [seat])
        data = data_of(page)
        for hand, dealt in deals.items():
            kept = {
                t for s, tiles in dealt.items() if s != seat for t in tiles
                if (hand, str(t)) not in played
            }  # fmt: skip
            codes = {code(t) for t in kept}
            for step in (s for s in data["steps"] if s["hand"] == hand):
                seen = {c for tiles in step["hands"][seat].values() for c in tiles}
                assert not seen & codes and not {c for _, c in step.get("trick", [])} & codes
            for pile in data["piles"].get(str(hand), []):
                assert not set(pile["tiles"]) & codes


def _moves_by_hand(records: list[LogRecord]) -> list[tuple[int, MoveRecord]]:
    hand, out = 0, []
    for record in records:
        if isinstance(record, DealRecord):
            hand = record.hand
        elif isinstance(record, MoveRecord):
            out.append((hand, record))
    return out


async def test_a_log_that_does_not_verify_gets_no_page(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    run = await hostile_match()
    lines = run.log.split(b"\n")
    edited = b"\n".join([*lines[:4], lines[4].replace(b'"fake-D"', b'"fake-X"'), *lines[5:]])
    assert edited != run.log
    with pytest.raises(VerificationError):
        match_page(parse_log(edited))
    path = tmp_path / "edited.jsonl"
    path.write_bytes(edited)
    result = CliRunner().invoke(app, ["replay", str(path), "--html"])
    assert result.exit_code == 1
    assert "no page was written" in result.output
    assert not (tmp_path / "edited.html").exists()


async def hostile_log(folder: Path) -> tuple[bytes, Path]:
    """The hostile match's log, and where it was written: ``folder/m.jsonl``."""
    log = (await hostile_match()).log
    path = folder / "m.jsonl"
    path.write_bytes(log)
    return log, path


async def test_the_command_writes_beside_the_log_or_where_told(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    _, path = await hostile_log(tmp_path)
    runner = CliRunner()
    for arguments, written in (
        (["--html"], tmp_path / "m.html"),
        (["--html", "--seat", "C"], tmp_path / "m.C.html"),
        (["--html", "--public"], tmp_path / "m.public.html"),
        (["--html", str(tmp_path / "out.html")], tmp_path / "out.html"),
    ):
        result = runner.invoke(app, ["replay", str(path), *arguments])
        assert result.exit_code == 0, result.output
        assert str(written) in result.output
        text = written.read_text()
        assert text.startswith("<!doctype html>")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text
    assert data_of((tmp_path / "m.C.html").read_text())["perspectives"] == ["C"]
    assert data_of((tmp_path / "m.public.html").read_text())["perspectives"] == ["public"]


@pytest.mark.parametrize(
    "arguments",
    [
        ["--html", "--verify"],
        ["--html", "--json"],
        ["--seat", "A", "--public", "--html"],
        ["x.html"],
    ],
)
async def test_usage_mistakes_exit_2_with_one_line(
    arguments: list[str], tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    _, path = await hostile_log(tmp_path)
    result = CliRunner().invoke(app, ["replay", str(path), *arguments])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.html"))


async def test_only_the_everything_page_holds_the_seed_and_how_a_forfeit_came(
    autojump_clock: trio.abc.Clock,
) -> None:
    seed = 2**63 + 1234567
    run = await forfeit_match(seed)
    end = run.records[-1]
    assert isinstance(end, MatchEndRecord) and end.forfeit is not None
    assert "holds" in end.detail  # the detail names tiles B held: for "all" alone
    log = log_of(run)
    everything = match_page(log)
    assert str(seed) in everything and end.detail in data_of(everything)["end"]
    # As text: the page's JSON.parse would round a number past 2**53 (…4000 for …3071).
    assert data_of(everything)["seed"] == str(seed)
    for only in ("A", "B", "C", "D", "public"):
        page = match_page(log, [only])
        assert str(seed) not in page, only  # the seed deals every hand
        assert data_of(page)["seed"] is None and "holds" not in data_of(page)["end"]
        assert end.game_digest not in page  # it hashes the deals
        if only != "B":  # B reads its own refused answers, which say what it holds
            assert "holds" not in page, only
    # The text renderings of a seat's view and of the public record keep them out too.
    for text in (*(render.seat_lines(log, s) for s in ("A", "C", "D")), render.public_lines(log)):
        shown = "\n".join(text)
        assert str(seed) not in shown and "holds" not in shown and end.game_digest not in shown


async def test_a_match_that_ended_before_any_deal_shows_no_hand(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await never_ready_match()
    assert not any(isinstance(r, DealRecord) for r in run.records)
    data = data_of(match_page(log_of(run)))
    assert [s["kind"] for s in data["steps"]] == ["end"]
    assert data["steps"][0]["hands"]["all"] == {}
    assert set(data["steps"][0]["sizes"].values()) == {0}


async def test_a_page_never_replaces_its_log_nor_follows_a_link(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    written, log = await hostile_log(tmp_path)
    result = CliRunner().invoke(app, ["replay", str(log), "--html", str(log)])
    assert result.exit_code == 2 and "which the page is drawn from" in result.output
    assert log.read_bytes() == written
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "link.html").symlink_to(victim)
    result = CliRunner().invoke(app, ["replay", str(log), "--html", str(tmp_path / "link.html")])
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "keep me"
    page = tmp_path / "link.html"
    assert not page.is_symlink() and page.read_text().startswith("<!doctype html>")
    assert page.stat().st_mode & 0o777 == 0o600  # it may hold every hand
