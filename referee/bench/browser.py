"""Headless Chromium through selenium, for ``bench viewer`` and the page tests: Debian's
``chromium`` with its own ``chromedriver`` (the same build, so they always agree; nothing is
downloaded)."""

from __future__ import annotations

import shutil
from typing import Any


class NoBrowser(RuntimeError):
    """Chromium, its driver or selenium is missing; the message says what to install."""


def chromium() -> tuple[str, str]:
    """The browser and its driver; ``NoBrowser`` when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        raise NoBrowser("Chromium is missing: apt-get install chromium chromium-driver")
    return browser, driver


def start_session(width: int = 1280, height: int = 1000) -> Any:
    """A headless Chromium session (a selenium WebDriver); the caller quits it."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise NoBrowser("selenium is missing: pip install -e '.[test]'") from None
    browser, driver = chromium()
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
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)
