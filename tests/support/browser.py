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
