"""The documentation's site builds with ``mkdocs build --strict``: every relative link and
anchor resolves, every page of ``docs/`` is in the nav, every included file exists
(``mkdocs.yml`` turns each of these into a warning, and ``--strict`` fails on any)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    # From the root: the snippets (README.md's quick start, ARCHITECTURE.md) are found from there.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice, not a warning of ours
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    home = (tmp_path / "index.html").read_text()
    assert "The first installs the referee and plays a match" in home  # README's quick start
    assert (tmp_path / "protocol" / "PROTOCOL" / "index.html").is_file()
    assert (tmp_path / "development" / "architecture" / "index.html").is_file()
