"""A referee installed in a venv whose Python other users cannot run (pyenv's, under a closed
``/root``): every command says so in one short line, ``referee sandbox`` gives the commands
that mend it for this install, and the log keeps the full reasons.

The venv is made as a user makes one on such a machine: the system's Python copied into a
prefix of its own in a folder closed to other users (0700), as pyenv installs one, and a venv
made from it, with this checkout and its packages on its path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from referee.sandbox.layers import available
from referee.sandbox.venv import SHARED_VENV

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or available()["uid"] is not None or not SYSTEM_PYTHON.exists(),
    reason="a uid per seat needs root, the uid layer, and a system Python to copy",
)


@pytest.fixture(scope="module")
def closed_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """As pyenv leaves it: a Python installed in a prefix of its own inside a folder only root
    may enter, and a venv made from it there; this checkout and its packages on its path."""
    folder = tmp_path_factory.mktemp("closed")
    folder.chmod(0o700)
    real = Path(os.path.realpath(SYSTEM_PYTHON))  # /usr/bin/python3.11
    prefix = folder / "prefix"
    (prefix / "bin").mkdir(parents=True)
    shutil.copy2(real, prefix / "bin" / real.name)
    stdlib = Path("/usr/lib") / real.name
    if sys.version_info[:2] != (3, 11) or real.name != "python3.11" or not stdlib.is_dir():
        pytest.skip("the system Python is not this checkout's version: its packages would not load")
    shutil.copytree(
        stdlib,
        prefix / "lib" / real.name,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__"),
    )
    venv = folder / "venv"
    made = subprocess.run(
        [str(prefix / "bin" / real.name), "-m", "venv", "--without-pip", str(venv)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python3"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "checkout.pth").write_text(f"{ROOT}\n{sysconfig.get_paths()['purelib']}\n")
    return python


def run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "referee", *args],
        capture_output=True, text=True, cwd=cwd, check=False, timeout=120,
    )  # fmt: skip


def test_a_match_says_what_is_off_in_one_short_line(closed_venv: Path, tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    played = run(
        closed_venv, "match", "bundled:random", "bundled:random", "--max-hands", "1",
        "--log", str(log), "--json", cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    outcome = json.loads(played.stdout)
    assert outcome["forfeit"] is None and not any(outcome["faults"].values()), outcome
    line = played.stderr.splitlines()[0]
    assert line.startswith("sandbox auto: off: ") and "uid" in line.split("off:")[1]
    assert "referee sandbox" in line and len(line) <= 160, line
    closed = str(closed_venv.parents[2] / "prefix" / "bin")  # the Python nobody else can run
    assert closed not in line  # the why is for 'referee sandbox' and the log
    header = json.loads(log.read_text().splitlines()[0])
    assert header["bots"]["A"].startswith(str(closed_venv) + " ")  # the resolved command
    reasons = header["sandbox"]["off"]
    assert all(closed in reasons[f"uid {seat}"] for seat in "ABCD"), reasons


def test_strict_refuses_and_points_at_the_fix(closed_venv: Path, tmp_path: Path) -> None:
    refused = run(closed_venv, "match", "bundled:random", "bundled:random", "--sandbox",
                  "strict", cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "would stay root" in refused.stderr
    assert "'referee sandbox'" in refused.stderr


def test_referee_sandbox_names_the_commands_that_mend_this_install(
    closed_venv: Path, tmp_path: Path
) -> None:
    probed = run(closed_venv, "sandbox", "--json", cwd=tmp_path)
    assert probed.returncode == 1, probed.stderr
    said = json.loads(probed.stdout)
    mend = said["venv_fix"]
    assert not said["strict_ready"] and mend is not None
    assert str(closed_venv.parents[2] / "prefix" / "bin") in mend["problem"]
    # The venv cannot stay where it is (its folder is closed too): a shared one, from a
    # Python every user can run, with this checkout installed.
    assert mend["venv"] == str(SHARED_VENV)
    assert mend["python"] is not None and os.stat(mend["python"]).st_mode & 0o001
    assert mend["commands"] == [
        f"{mend['python']} -m venv {SHARED_VENV}" if not SHARED_VENV.exists() else
        f"{mend['python']} -m venv --clear {SHARED_VENV}"
        "  # --clear empties it: add '.[test]' again to run tests",
        f"{SHARED_VENV}/bin/pip install -q -e {ROOT}",
        f"{SHARED_VENV}/bin/referee sandbox",
    ]  # fmt: skip
    table = run(closed_venv, "sandbox", cwd=tmp_path)
    assert table.returncode == 1
    lines = table.stdout.splitlines()
    assert lines[0].startswith("This install: other users cannot use ")
    assert f"  {SHARED_VENV}/bin/pip install -q -e {ROOT}" in lines
    assert lines[-1].startswith("--sandbox strict would refuse the bundled bots")


def test_this_checkouts_own_python_is_judged_the_same_way(tmp_path: Path) -> None:
    """Whatever this checkout's venv is made from, ``referee sandbox`` and a match agree:
    a fix exactly when the line says uid is off for the bundled bots."""
    probed = subprocess.run(
        [sys.executable, "-m", "referee", "sandbox", "--json"],
        capture_output=True, text=True, cwd=tmp_path, check=False, timeout=120,
    )  # fmt: skip
    mend = json.loads(probed.stdout)["venv_fix"]
    played = subprocess.run(
        [sys.executable, "-m", "referee", "match", "bundled:random", "bundled:random",
         "--max-hands", "1", "--log", str(tmp_path / "m.jsonl")],
        capture_output=True, text=True, cwd=tmp_path, check=False, timeout=120,
    )  # fmt: skip
    line = played.stderr.splitlines()[0]
    uid_off = "off:" in line and "uid" in line.split("off:")[1]
    assert (mend is not None) == uid_off, (mend, line)


def test_check_bot_says_the_same_short_line(closed_venv: Path, tmp_path: Path) -> None:
    # Random opponents: this venv finds the checkout through a .pth file, which a seat's
    # sandbox does not open to the kit's bots (an installed referee's package it does).
    checked = run(
        closed_venv, "check-bot", "bundled:random", "--opponent", "bundled:random",
        "--matches", "2", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    line = json.loads(checked.stdout)["sandbox"]
    assert line.startswith("sandbox auto: off: ") and "'referee sandbox'" in line, line
    assert str(closed_venv.parents[2] / "prefix" / "bin") not in line
