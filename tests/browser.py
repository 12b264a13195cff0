"""Headless Chromium for the page tests: Debian's ``chromium`` driven through its own
``chromedriver`` (the same build, so they always agree; nothing is downloaded). ``.ci/run``
installs both when they are missing; where they cannot be had, the tests skip and say so."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

SKIP = (
    "no headless Chromium here: install Debian's chromium and chromium-driver"
    " (sh tests/install_browser.sh does, as root) and selenium (the test extras)"
)


def chromium() -> tuple[str, str] | None:
    """The browser and its driver, when both are installed."""
    browser = next(
        (found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))),
        None,
    )
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def open_browser(width: int = 1280, height: int = 1000) -> Iterator[object]:
    """A headless Chromium session (a WebDriver), closed afterwards; skips without one."""
    found = chromium()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        found = None
    if found is None:
        pytest.skip(SKIP)
    browser, driver = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespace for Chromium's own
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    session = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    try:
        yield session
    finally:
        session.quit()


def url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
