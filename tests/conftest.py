"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.running.worker import close_pools


@pytest.fixture(autouse=True)
def _no_kept_bots_between_tests() -> Iterator[None]:
    """A test that plays tournament matches in this process leaves their bots in the warm
    pool; they are closed after it, so no test sees another's processes."""
    yield
    close_pools()
