"""Files that are not replay logs: ``read_log`` refuses each with one clear ``LogError``
line, and leaves nothing open.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio
from support.log_edits import NOT_LOGS, not_a_log
from support.tables import random_match

from referee.errors import LogError
from referee.record.log import read_log

# -- 3. files that are not logs ---------------------------------------------------------------


@pytest.mark.parametrize("case", NOT_LOGS)
async def test_a_file_that_is_not_a_log_is_one_clear_log_error(
    case: str, tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    path = not_a_log(case, tmp_path, (await random_match(1)).log)
    open_before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(LogError) as caught:
        read_log(path)
    # Nothing is left open (a directory's descriptor once was, and a hostile bot test found it).
    assert set(os.listdir("/proc/self/fd")) <= open_before
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    if case == "log_version 2":
        assert "version 2" in message
