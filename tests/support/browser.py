"""Headless Chromium for the page tests: Debian's ``chromium`` driven through its own
``chromedriver`` (the same build, so they always agree; nothing is downloaded).
``tests/install_tools.sh`` (part of the README's test command, so of ``.ci/run``) installs
both when they are missing. Where they cannot be had, it says why in
``tests/.browser-unavailable`` and the tests skip with that reason; under CI a browser missing
for no recorded reason fails them instead."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.bench.browser import NoBrowser, start_session

SKIP = (
    "no headless Chromium here: install Debian's chromium and chromium-driver"
    " (sh tests/install_tools.sh does, as root) and selenium (the test extras)"
)


def open_browser(width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium session, quit afterwards; skips (or fails, see above) without one."""
    try:
        session = start_session(width, height)
    except NoBrowser as exc:
        why = Path(__file__).resolve().parents[1] / ".browser-unavailable"
        if why.is_file():
            pytest.skip(f"{SKIP}: {why.read_text().strip()}")
        if os.environ.get("CI"):
            pytest.fail(f"{exc}; under CI tests/install_tools.sh should have installed it")
        pytest.skip(f"{SKIP} ({exc})")
    try:
        yield session
    finally:
        session.quit()


def url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")


def press(browser: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def settle(browser: Any, script: str, wanted: Any, what: str, seconds: float = 20) -> None:
    """Wait until ``script`` returns ``wanted``: a condition on the page, however slow the
    machine (the deadline only ends a test whose page never gets there)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        WebDriverWait(browser, seconds, poll_frequency=0.02).until(
            lambda b: b.execute_script(script) == wanted
        )
    except TimeoutException:
        raise AssertionError(f"{what}: still {browser.execute_script(script)!r}") from None


#: The page's position once its script has rendered it, else null.
POSITION = """const body = document.body;
return body.dataset.ready === 'true' ? [Number(body.dataset.step), body.dataset.view] : null;"""


def wait_ready(browser: Any) -> None:
    settle(browser, "return document.body.dataset.ready === 'true'", True, "first render")


def shows(browser: Any, step: int, view: str) -> None:
    """Wait until the page shows ``step`` (counted from 1) from ``view``."""
    settle(browser, POSITION, [step, view], f"step {step}, view {view}")


def open_at(browser: Any, page: Path, step: int, view: str, fragment: str | None = None) -> None:
    """Open ``page`` at ``#step=STEP&view=VIEW`` (or ``fragment``) and wait until it shows
    that position: when only the address's fragment changed, the page keeps its old render
    until it reads the new one."""
    address = url(page, fragment if fragment is not None else f"step={step}&view={view}")
    browser.get(address)
    try:
        settle(browser, POSITION, [step, view], f"step {step}, view {view}", seconds=10)
    except AssertionError:
        # A loaded machine's browser can miss a change of the fragment alone, and a render
        # still pending from the last click may write its own position back over the new
        # one (a refresh then reloads that): load the page afresh at the address instead.
        browser.get("about:blank")
        browser.get(address)
        shows(browser, step, view)
