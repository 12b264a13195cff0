"""The viewer and the report in a real browser (headless Chromium): step through a whole match
with the keyboard and check the table against the log, switch perspectives and find no other
seat's unplayed tile, see hostile text render as text, open at a linked position, autoplay,
and take screenshots at phone and desktop widths that are not blank.

The page counts steps from 1, in its text, its address (``#step=N``) and ``body[data-step]``;
``expected[i]`` is step ``i + 1``. A test waits on the page's state (``open_at``, ``settle``),
never on time: opening the same page at another ``#step=`` changes only its address, so the
old render is still there until the page has read the new one."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
from support.browser import open_at, open_browser, press, settle, shows, url, wait_ready
from support.viewer_logs import HOSTILE_LINE, HOSTILE_NAME, hostile_match, random_match

from referee.pages.match_page import match_page
from referee.record.log import parse_log
from referee.record.records import (
    DealRecord,
    HandEndRecord,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
    TrickRecord,
)
from referee.rules import Play
from referee.rules.tiles import SEATS


@dataclass
class Position:
    """What the table shows after a step, worked out from the log alone."""

    hand: int
    held: dict[str, list[str]]
    trick: list[tuple[str, str]] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=lambda: {"AC": 0, "BD": 0})
    played: set[str] = field(default_factory=set)
    #: Tricks captured so far in this hand.
    piles: int = 0


def positions(records: list[LogRecord]) -> list[Position]:
    """One position per viewer step: each deal, each move (with the trick and hand it
    completed), and the end."""
    out: list[Position] = []
    marks = {"AC": 0, "BD": 0}
    for record in records:
        if isinstance(record, DealRecord):
            held = {s: [str(t) for t in record.hands[s]] for s in SEATS}
            out.append(Position(record.hand, held, marks=dict(marks)))
        elif isinstance(record, MoveRecord):
            last = out[-1]
            trick = [] if len(last.trick) == 4 else list(last.trick)
            held = {s: list(tiles) for s, tiles in last.held.items()}
            played = set(last.played)
            piles = last.piles
            if isinstance(record.action, Play):
                tile = str(record.action.tile)
                held[record.seat].remove(tile)
                trick.append((record.seat, tile))
                played.add(tile)
                piles += len(trick) == 4
            out.append(Position(last.hand, held, trick, dict(marks), played, piles))
        elif isinstance(record, HandEndRecord):
            marks = dict(record.marks)
            out[-1].marks = dict(marks)
        elif isinstance(record, MatchEndRecord):
            last = out[-1]
            out.append(
                Position(
                    last.hand, last.held, last.trick, dict(record.marks), last.played, last.piles
                )
            )
        elif isinstance(record, TrickRecord):
            pass  # the winner is checked by the steps' own test; here the table's contents
    return out


READ_TABLE = """
const seats = {};
for (const box of document.querySelectorAll('.seat')) {
  seats[box.dataset.seat] = box.querySelectorAll('.tiles svg').length;
}
return {
  step: Number(document.body.dataset.step),
  view: document.body.dataset.view,
  trick: [...document.querySelectorAll('#trick .played')].map(
    (p) => [p.dataset.seat, p.querySelector('svg').dataset.tile]),
  counts: seats,
  marks: {AC: Number(document.querySelector('[data-marks=AC]').textContent),
          BD: Number(document.querySelector('[data-marks=BD]').textContent)},
  tiles: [...document.querySelectorAll('[data-tile]')].map((t) => t.dataset.tile),
  piles: [...document.querySelectorAll('#piles .pile')].map((p) => Number(p.dataset.trick)),
  text: [...document.body.children].filter((e) => e.tagName !== 'SCRIPT')
    .map((e) => e.textContent).join(' '),
};
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from open_browser()


def write_page(path: Path, log: bytes, perspectives: Any = None) -> Path:
    parsed = parse_log(log)
    text = match_page(parsed) if perspectives is None else match_page(parsed, perspectives)
    path.write_text(text, encoding="utf-8")
    return path


async def test_stepping_through_a_whole_match_with_the_keyboard_shows_the_log(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    run = await random_match(4)
    page = write_page(tmp_path / "m.html", run.log)
    expected = positions(run.records)
    browser.get(url(page))
    wait_ready(browser)
    for index, position in enumerate(expected):
        shows(browser, index + 1, "all")
        shown = browser.execute_script(READ_TABLE)
        assert shown["step"] == index + 1
        assert shown["trick"] == [list(p) for p in position.trick], f"step {index}"
        # Everything's piles face up: only the tricks this hand has taken so far.
        assert shown["piles"] == list(range(1, position.piles + 1)), f"step {index}"
        assert shown["counts"] == {s: len(position.held[s]) for s in SEATS}, f"step {index}"
        assert shown["marks"] == position.marks, f"step {index}"
        if index + 1 < len(expected):
            press(browser, Keys.ARROW_RIGHT)
    press(browser, Keys.ARROW_RIGHT)  # past the end: it stays at the end
    shows(browser, len(expected), "all")
    # The address counts as the page does: "step N of M" is #step=N.
    settle(browser, "return location.hash", f"#step={len(expected)}&view=all", "address")
    position = browser.execute_script("return document.getElementById('position').textContent")
    assert position.startswith(f"step {len(expected)} of {len(expected)} ")
    # During the bidding each seat shows what it bid, and no pile is shown yet.
    first = next(r for r in run.records if isinstance(r, MoveRecord))
    open_at(browser, page, 2, "all")
    assert browser.execute_script(READ_TABLE)["piles"] == []
    chip = browser.execute_script(
        f"return document.querySelector('.seat[data-seat={first.seat}] .chip.bid').textContent"
    )
    assert chip == str(first.action)
    press(browser, Keys.END)
    shows(browser, len(expected), "all")
    assert browser.execute_script(READ_TABLE)["step"] == len(expected)
    press(browser, Keys.HOME)
    shows(browser, 1, "all")
    press(browser, Keys.ARROW_DOWN)  # the first complete trick
    first_trick = next(i for i, p in enumerate(expected) if len(p.trick) == 4)
    shows(browser, first_trick + 1, "all")
    assert browser.execute_script(READ_TABLE)["piles"] == [1]
    press(browser, Keys.PAGE_DOWN)  # the second hand's deal
    second = next(i for i, p in enumerate(expected) if p.hand == 2)
    shows(browser, second + 1, "all")
    assert browser.execute_script(READ_TABLE)["piles"] == []
    press(browser, Keys.PAGE_UP)
    shows(browser, 1, "all")
    assert browser.execute_script(READ_TABLE)["step"] == 1


async def test_a_seats_perspective_never_shows_another_seats_unplayed_tile(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    run = await hostile_match()
    expected = positions(run.records)
    everything = write_page(tmp_path / "all.html", run.log)
    only_a = write_page(tmp_path / "a.html", run.log, ["A"])
    for page, choose in ((everything, True), (only_a, False)):
        for index in range(0, len(expected), 7):
            step = index + 1
            open_at(browser, page, step, "A", None if choose else f"step={step}")
            shown = browser.execute_script(READ_TABLE)
            assert shown["view"] == "A" and shown["step"] == step
            position = expected[index]
            hidden = {t for s in SEATS if s != "A" for t in position.held[s]}
            visible = [t for t in shown["tiles"] if t != "hidden"]
            assert not set(visible) & hidden, f"{page.name} step {index}"
            assert not any(t in shown["text"] for t in hidden), f"{page.name} step {index}"
            assert set(position.held["A"]) <= set(visible)
            assert shown["counts"] == {s: len(position.held[s]) for s in SEATS}
            assert set(shown["piles"]) <= set(range(1, position.piles + 1))
    # Switching perspective with its button, in the middle of a hand, shows only A's tiles.
    from selenium.webdriver.common.by import By

    index = next(i for i, p in enumerate(expected) if len(p.played) >= 3)
    open_at(browser, everything, index + 1, "all")
    assert len(browser.execute_script(READ_TABLE)["tiles"]) > 7  # every hand open
    browser.find_element(By.CSS_SELECTOR, 'button[data-view="A"]').click()
    shows(browser, index + 1, "A")
    shown = browser.execute_script(READ_TABLE)
    hidden = {t for s in SEATS if s != "A" for t in expected[index].held[s]}
    assert shown["view"] == "A" and shown["step"] == index + 1
    assert not {t for t in shown["tiles"] if t != "hidden"} & hidden
    assert not any(t in shown["text"] for t in hidden)
    # In the everything page, the everything perspective shows every hand.
    open_at(browser, everything, 2, "all")
    shown = browser.execute_script(READ_TABLE)
    assert {t for s in SEATS for t in expected[1].held[s]} <= set(shown["tiles"])


async def test_hostile_names_and_refused_lines_render_as_text(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    run = await hostile_match()
    page = write_page(tmp_path / "h.html", run.log)
    browser.get(url(page))
    wait_ready(browser)
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('match-data').textContent)"
    )
    noted = next(i for i, s in enumerate(data["steps"]) if s.get("notes"))
    open_at(browser, page, noted + 1, "all")
    found = browser.execute_script(
        """return {title: document.title, images: document.querySelectorAll('img').length,
                   bold: document.querySelectorAll('#notes b, .seat b').length,
                   raws: [...document.querySelectorAll('#notes pre.raw')]
                     .map((p) => p.textContent),
                   names: [...document.querySelectorAll('.seat .name')]
                     .map((n) => n.textContent)}"""
    )
    assert "pwned" not in found["title"]
    assert found["images"] == 0 and found["bold"] == 0
    assert HOSTILE_LINE.decode().rstrip("\n") in found["raws"]
    assert HOSTILE_NAME in found["names"]
    # A name's text direction stays inside it (a right-to-left override cannot turn the
    # referee's own words around it).
    isolated = browser.execute_script(
        "return [...document.querySelectorAll('.seat .name, #facts .name, #notes pre.raw')]"
        ".map((e) => getComputedStyle(e).unicodeBidi)"
    )
    assert isolated and set(isolated) == {"isolate"}
    # The list of every refused answer links each to its step.
    noted_steps = [
        i for i, s in enumerate(data["steps"]) for _ in s.get("notes", {}).get("all", [])
    ]
    links = browser.execute_script(
        "return [...document.querySelectorAll('#all-notes a')].map((a) => a.getAttribute('href'))"
    )
    assert links == [f"#step={i + 1}&view=all" for i in noted_steps]


async def test_the_address_keeps_the_position_and_autoplay_moves_on(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    run = await random_match(4)
    page = write_page(tmp_path / "m.html", run.log)
    middle = len(positions(run.records)) // 2
    browser.get(url(page, f"step={middle}&view=B"))
    shows(browser, middle, "B")
    assert browser.execute_script(READ_TABLE)["step"] == middle
    press(browser, Keys.ARROW_RIGHT)
    press(browser, Keys.ARROW_RIGHT)  # two quick steps: the address catches up within 200 ms
    settle(browser, "return location.hash", f"#step={middle + 2}&view=B", "the address")
    # A link that names only a perspective keeps the position.
    browser.execute_script("location.hash = '#view=C'")
    shows(browser, middle + 2, "C")
    assert browser.execute_script(READ_TABLE)["step"] == middle + 2
    # Choosing a speed gives the keys back to the match.
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "speed")).select_by_value("0.25")
    assert browser.execute_script("return document.activeElement.id") != "speed"
    press(browser, Keys.SPACE)
    settle(
        browser,
        f"return Number(document.body.dataset.step) >= {middle + 6}",
        True,
        "autoplay moving on",
    )
    press(browser, Keys.SPACE)
    settle(browser, "return document.getElementById('play').ariaPressed", "false", "pause")
    stopped = browser.execute_script(READ_TABLE)["step"]
    time.sleep(0.5)
    assert browser.execute_script(READ_TABLE)["step"] == stopped


def distinct_colours(png: bytes) -> int:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return len(image.resize((160, 160)).getcolors(160 * 160) or [])


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1440, 1000)])
async def test_screenshots_at_phone_and_desktop_widths_are_not_blank(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path, width: int, height: int
) -> None:
    run = await hostile_match()
    page = write_page(tmp_path / "m.html", run.log)
    # Chromium's headless window is at least 500 pixels wide: a phone is emulated.
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    try:
        open_at(browser, page, 21, "all")
        png = browser.get_screenshot_as_png()
        (tmp_path / f"shot-{width}.png").write_bytes(png)
        assert distinct_colours(png) > 30
        # Nothing runs off the side: the page fits the width it was given.
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 1
        shown = browser.execute_script(READ_TABLE)
        assert len(shown["trick"]) <= 4 and sum(shown["counts"].values()) > 0
        assert browser.execute_script("return window.innerWidth") == width
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_report_opens_and_its_links_open_each_matchs_viewer(
    browser: Any, tmp_path: Path
) -> None:
    import shlex
    import subprocess
    import sys

    from selenium.webdriver.common.by import By

    instant = shlex.join(
        [
            sys.executable,
            str(Path(__file__).resolve().parents[2] / "referee" / "bench" / "instant_bot.py"),
        ]
    )
    results = tmp_path / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "--bot", f"a={instant}",
         "--bot", f"b={instant}", "--seeds", "2", "--seed", "1", "--results", str(results),
         "--sprt", "0,100", "--report"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    browser.get(url(tmp_path / "report.html"))
    plots = browser.find_elements(By.CSS_SELECTOR, "svg.plot")
    # Win rates, the rating, the decision times, the SPRT, and the make rates by bid.
    assert len(plots) == 5 and all(p.size["width"] > 100 for p in plots)
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    assert sorted(r.get_attribute("data-name") for r in rows) == ["a", "b"]
    links = browser.find_elements(By.LINK_TEXT, "watch")
    assert len(links) == 4
    links[-1].click()
    wait_ready(browser)
    assert browser.execute_script("return document.getElementById('match-data') !== null")
    assert browser.current_url.split("#")[0].endswith("a~b~s1~2.html")
