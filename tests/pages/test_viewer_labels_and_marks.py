"""The viewer's tile labels, the hand a match stopped in, and the plot of marks over the match,
in headless Chromium: each read back from the page and held against the log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from support.browser import open_at, open_browser, press, settle, url, wait_ready
from support.viewer_logs import forfeit_match, random_match

from referee.pages.match_page import match_page
from referee.record.log import parse_log
from referee.record.records import DealRecord, HandEndRecord, MatchEndRecord

#: Every visible tile's name from its pips' drawing, and its label: [name, label, shown].
LABELS = """return [...document.querySelectorAll('.tile')].map((t) => {
  const label = t.querySelector('.tile-label');
  const box = label.getBoundingClientRect(), pips = t.querySelector('svg').getBoundingClientRect();
  const shown = getComputedStyle(label).display !== 'none' && box.height > 0
    && box.top >= pips.bottom - 1;
  return [t.querySelector('svg').dataset.tile, label.textContent, shown];
});"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from open_browser()


def _page(path: Path, log: bytes) -> Path:
    path.write_text(match_page(parse_log(log)), encoding="utf-8")
    return path


async def test_tile_labels_name_each_tile_and_the_toggle_is_remembered(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    run = await random_match(4)
    page = _page(tmp_path / "m.html", run.log)
    open_at(browser, page, 30, "all")
    browser.execute_script("localStorage.clear()")
    browser.refresh()
    wait_ready(browser)
    labels = browser.execute_script(LABELS)
    assert len(labels) >= 20  # every hand open, the trick, the piles
    assert all(name == label and shown for name, label, shown in labels), labels
    # The key L turns them off; the page remembers it when opened again.
    press(browser, "l")
    settle(browser, "return document.body.classList.contains('labelled')", False, "labels off")
    assert not any(shown for _, _, shown in browser.execute_script(LABELS))
    assert browser.find_element(By.ID, "labels").is_selected() is False
    browser.refresh()
    wait_ready(browser)
    assert not any(shown for _, _, shown in browser.execute_script(LABELS))
    # The checkbox, reached with the keyboard, turns them on again; space ticks the box
    # and does not start the autoplay.
    box = browser.find_element(By.ID, "labels")
    browser.execute_script("arguments[0].focus()", box)
    press(browser, " ")
    settle(browser, "return document.body.classList.contains('labelled')", True, "labels on")
    assert browser.execute_script("return document.getElementById('play').ariaPressed") != "true"
    assert all(shown for _, _, shown in browser.execute_script(LABELS))
    # A seat's view labels only the tiles it may see (a hidden tile has no label).
    open_at(browser, page, 30, "B")
    hidden = browser.find_elements(By.CSS_SELECTOR, '[data-tile="hidden"]')
    assert hidden and all(
        h.find_element(By.XPATH, "..").get_attribute("class") == "tiles" for h in hidden
    )
    browser.execute_script("localStorage.clear()")


async def test_the_hand_a_forfeit_stopped_is_listed_and_can_be_stepped_through(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    run = await forfeit_match()
    deals = [r.hand for r in run.records if isinstance(r, DealRecord)]
    ended = [r for r in run.records if isinstance(r, HandEndRecord)]
    end = next(r for r in run.records if isinstance(r, MatchEndRecord))
    assert end.end == "forfeit" and len(deals) == len(ended) + 1  # the fixture's premise
    page = _page(tmp_path / "f.html", run.log)
    browser.get(url(page))
    wait_ready(browser)
    items = browser.find_elements(By.CSS_SELECTOR, "#hands li")
    assert [int(i.get_attribute("data-hand")) for i in items] == deals
    last = items[-1]
    assert last.get_attribute("data-unfinished") == "true"
    assert "unfinished" in last.text and "forfeit" in last.text
    assert all(i.get_attribute("data-unfinished") is None for i in items[:-1])
    # Its link opens the stopped hand's deal; from there the arrows reach where it stopped.
    last.find_element(By.TAG_NAME, "a").click()
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('match-data').textContent).steps"
    )
    deal = next(i for i, s in enumerate(data) if s["kind"] == "deal" and s["hand"] == deals[-1])
    settle(browser, "return Number(document.body.dataset.step)", deal + 1, "the stopped deal")
    for _ in range(len(data) - deal - 1):
        press(browser, Keys.ARROW_RIGHT)
    settle(browser, "return Number(document.body.dataset.step)", len(data), "the end")
    caption = browser.find_element(By.ID, "caption").text
    assert "forfeits" in caption and "too_many_rejections" in caption
    assert browser.find_element(By.ID, "contract").text.startswith(f"Hand {deals[-1]}")
    # The plot of marks says where the match stopped, over no other label.
    labels = browser.execute_script(
        """return [...document.querySelectorAll('.marks-plot text')].map((t) => {
          const b = t.getBoundingClientRect();
          return [b.left, b.top, b.right, b.bottom, t.textContent]; });"""
    )
    assert f"stopped in hand {deals[-1]}" in {text for *_, text in labels}
    for i, (left, top, right, bottom, text) in enumerate(labels):
        for o_left, o_top, o_right, o_bottom, other in labels[i + 1 :]:
            apart = right <= o_left or o_right <= left or bottom <= o_top or o_bottom <= top
            assert apart, f"{text!r} overlaps {other!r}"


@pytest.mark.parametrize("seed", [4, 5])  # 5: the sides end at 6 and 7, on the target
async def test_the_marks_plot_follows_the_log(
    autojump_clock: trio.abc.Clock, browser: Any, tmp_path: Path, seed: int
) -> None:
    from selenium.webdriver.common.by import By

    run = await random_match(seed)
    ended = [r for r in run.records if isinstance(r, HandEndRecord)]
    page = _page(tmp_path / "m.html", run.log)
    browser.get(url(page))
    wait_ready(browser)
    for side in ("AC", "BD"):
        dots = browser.find_elements(By.CSS_SELECTOR, f".marks-plot g[data-side={side}] circle")
        assert [int(d.get_attribute("data-marks")) for d in dots] == [r.marks[side] for r in ended]
        assert [int(d.get_attribute("data-hand")) for d in dots] == [r.hand for r in ended]
    # Higher marks are drawn higher, and the target's line sits at the tick of 7.
    geometry = browser.execute_script(
        """const plot = document.querySelector('.marks-plot');
        const y = (e) => { const b = e.getBoundingClientRect(); return b.top + b.height / 2; };
        const tick = [...plot.querySelectorAll('.tick')].find((t) => t.textContent === '7');
        const dots = [...plot.querySelectorAll('circle')]
          .map((c) => [Number(c.dataset.marks), y(c)]);
        const labels = [...plot.querySelectorAll('.end-label, .target-label')].map((l) => {
          const b = l.getBoundingClientRect();
          return [b.left, b.top, b.right, b.bottom, l.textContent]; });
        return {target: y(plot.querySelector('.target')), seven: y(tick), dots, labels};"""
    )
    assert abs(geometry["target"] - geometry["seven"]) < 3
    for marks, y in geometry["dots"]:
        for other, other_y in geometry["dots"]:
            if marks > other:
                assert y < other_y
    labels = geometry["labels"]
    for i, (left, top, right, bottom, text) in enumerate(labels):
        for o_left, o_top, o_right, o_bottom, other in labels[i + 1 :]:
            apart = right <= o_left or o_right <= left or bottom <= o_top or o_bottom <= top
            assert apart, f"{text!r} overlaps {other!r}"
    final = ended[-1].marks
    texts = {text for *_, text in labels}
    assert texts == {f"A+C {final['AC']}", f"B+D {final['BD']}", "7 to win"}
    # A point opens the step that ended its hand; the band follows the hand shown.
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('match-data').textContent).steps"
    )
    second = browser.find_elements(By.CSS_SELECTOR, ".marks-plot g[data-side=BD] circle")[1]
    second.click()
    step = next(i for i, s in enumerate(data) if s.get("result") and s["hand"] == ended[1].hand)
    settle(browser, "return Number(document.body.dataset.step)", step + 1, "the second hand's end")
    band = browser.execute_script(
        "const b = document.querySelector('.marks-plot .now').getBoundingClientRect();"
        "return [b.left, b.right]"
    )
    first, second_x = (
        d.rect["x"] + d.rect["width"] / 2
        for d in browser.find_elements(By.CSS_SELECTOR, ".marks-plot g[data-side=BD] circle")[:2]
    )
    assert abs(band[0] - first) < 2 and abs(band[1] - second_x) < 2
    open_at(browser, page, 2, "all")
    assert browser.execute_script(
        "return document.querySelector('.marks-plot .now').getBoundingClientRect().right"
    ) == pytest.approx(first, abs=2)
