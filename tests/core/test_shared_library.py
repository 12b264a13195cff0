"""The core builds alone as a shared library that another language loads (here through
ctypes, as any FFI would), and its own check passes the published deal vectors."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.rules import TILES, first_dealer, shuffled_tiles

CORE = Path(__file__).resolve().parents[2] / "referee" / "core"

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("cc") is None, reason="no make or C compiler"
)


def test_make_check_deals_the_published_vectors(tmp_path: Path) -> None:
    shown = subprocess.run(
        ["make", "-s", "-C", str(CORE), f"OUT={tmp_path}", "check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.count("the published deal") == 4 and "WRONG" not in shown
    assert "hands/s" in shown


def test_the_shared_library_loads_and_deals(tmp_path: Path) -> None:
    subprocess.run(["make", "-s", "-C", str(CORE), f"OUT={tmp_path}"], check=True)
    library = ctypes.CDLL(str(tmp_path / "libtexas42.so"))
    library.t42_first_dealer.argtypes = [ctypes.c_uint64]
    library.t42_shuffled.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_char_p]
    for seed in (0, 12345, 2**64 - 1):
        assert "ABCD"[library.t42_first_dealer(seed)] == first_dealer(seed)
        tiles = ctypes.create_string_buffer(28)
        library.t42_shuffled(seed, 3, tiles)
        assert [TILES[i] for i in tiles.raw] == shuffled_tiles(seed, 3)
