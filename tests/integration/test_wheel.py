"""Installed from its wheel, the referee works from any directory: the bundled bots and the
protocol's files travel in the package (``referee/bundled.py``).

The wheel is built from a copy of the sources (a stale ``build/`` in the clone cannot slip
files in) and installed without the network into a new venv. Its dependencies are the test
venv's own distributions, linked (or copied) into the new venv's site-packages as pip would
have installed them: a ``.pth`` line pointing at the test venv would work for the referee but
not for the sandboxed bots, which may read their own venv and not another (``sandbox.paths``),
so the kit's ``import msgspec`` would fail where a real ``pip install`` never does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
#: What the wheel is built from (pyproject.toml names README.md as the long description).
SOURCES = ("pyproject.toml", "README.md", "referee", "example_bots", "protocol")


class Installed:
    """A venv holding the referee's wheel, and a directory outside the clone to work in."""

    def __init__(self, venv: Path, work: Path) -> None:
        self.venv, self.work = venv, work
        self.python = venv / "bin" / "python"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        done = subprocess.run(
            [str(self.venv / "bin" / "referee"), *args],
            cwd=self.work, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if check:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def where(self, expression: str) -> Path:
        """A path the installed package computes (``referee.__file__``, a bundled bot)."""
        code = f"import referee, referee.bundled, msgspec; print({expression})"
        done = subprocess.run(
            [str(self.python), "-c", code], cwd=self.work, capture_output=True, text=True,
            check=True, env={"PATH": os.environ["PATH"]},
        )  # fmt: skip
        return Path(done.stdout.strip())


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    # Not pytest's tmp_path: its folders are 0700, and a sandboxed bot runs under a uid of
    # its own, which must be able to reach the venv's interpreter and the bundled bots.
    top = Path(tempfile.mkdtemp(prefix="texas42-wheel-"))
    try:
        top.chmod(0o755)
        source = top / "source"
        source.mkdir()
        for name in SOURCES:
            copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
            copy(ROOT / name, source / name, **_tree_options(ROOT / name))
        pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
        subprocess.run(
            [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index",
             "-w", str(top / "dist"), str(source)],
            check=True, cwd=top, capture_output=True,
        )  # fmt: skip
        (wheel,) = (top / "dist").glob("texas42_referee-*.whl")
        venv = top / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        subprocess.run(
            [*pip, "--python", str(venv / "bin" / "python"), "install", "--no-deps",
             "--no-index", str(wheel)],
            check=True, capture_output=True,
        )  # fmt: skip
        site = next((venv / "lib").glob("python3*/site-packages"))
        for distribution in _dependencies("texas42-referee"):
            _link_into(distribution, site)
        work = top / "elsewhere"
        work.mkdir()
        yield Installed(venv, work)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _tree_options(path: Path) -> dict[str, object]:
    if not path.is_dir():
        return {}
    return {"symlinks": True, "ignore": shutil.ignore_patterns("__pycache__")}


def _dependencies(name: str) -> list[metadata.Distribution]:
    """The distributions ``name`` needs to run (no extras), as this venv has them."""
    found: dict[str, metadata.Distribution] = {}
    pending = [Requirement(requirement) for requirement in metadata.requires(name) or []]
    while pending:
        requirement = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        key = requirement.name.lower().replace("_", "-")
        if key in found:
            continue
        found[key] = distribution = metadata.distribution(requirement.name)
        pending += [Requirement(text) for text in distribution.requires or []]
    return list(found.values())


def _link_into(distribution: metadata.Distribution, site: Path) -> None:
    """The distribution's files in ``site`` (hard links where the file system allows)."""
    for file in distribution.files or []:
        if ".." in file.parts:  # its console scripts, in the test venv's bin/
            continue
        source, target = Path(str(file.locate())), site / file
        if not source.is_file() or target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)


def test_every_subpackage_and_file_the_commands_use_is_in_the_wheel(
    installed: Installed,
) -> None:
    package = installed.where("referee.__file__").parent
    assert installed.venv in package.parents  # the wheel's, not the editable checkout
    assert installed.venv in installed.where("msgspec.__file__").parents
    shipped = {path.relative_to(package) for path in package.rglob("*") if path.is_file()}
    sources = ROOT / "referee"
    for module in sources.rglob("*.py"):
        if "example_bots" not in module.parts and "protocol" not in module.parts:
            assert module.relative_to(sources) in shipped, module
    for bot in ("heuristic_bot.py", "kit_random_bot.py", "random_bot.py", "strong_bot.py"):
        assert Path("example_bots", bot) in shipped
    assert {Path("example_bots/random_bot.js"), Path("example_bots/tournament.toml")} <= shipped
    for name in ("schema.json", "log.schema.json", "examples/transcript-seat-A.txt"):
        assert Path("protocol", name) in shipped
    assert installed.where("referee.bundled.BOTS") == package / "example_bots"
    assert installed.where("referee.bundled.CLONE_PROTOCOL") == Path("None")


def test_a_match_of_the_bundled_bots_sandboxed_then_its_replays(installed: Installed) -> None:
    installed.run("match", "--seed", "7", "--max-hands", "2", "--log", "m.jsonl")
    log = installed.work / "m.jsonl"
    header = json.loads(log.read_text().splitlines()[0])
    assert header["sandbox"]["mode"] != "off", header["sandbox"]
    bots = installed.where("referee.bundled.BOTS")
    assert all(f" {bots}/" in command for command in header["bots"].values()), header["bots"]
    assert installed.run("replay", "m.jsonl", "--verify").stdout.startswith("verified: ")
    assert installed.run("replay", "m.jsonl", "--html").stdout.startswith("verified; wrote ")
    (page,) = installed.work.glob("m*.html")
    assert "<html" in page.read_text().lower()


def test_check_bot_of_a_bundled_bot(installed: Installed) -> None:
    bot = installed.where("referee.bundled.BOTS / 'kit_random_bot.py'")
    installed.run("check-bot", f"{installed.python} {bot}")


def test_schema_checks_the_shipped_copies_and_writes_only_where_told(
    installed: Installed,
) -> None:
    installed.run("schema", "--check")
    refused = installed.run("schema", check=False)
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and "--out DIR" in refused.stderr
    installed.run("schema", "--out", "protocol")
    written = installed.work / "protocol"
    assert (written / "schema.json").read_text() == (ROOT / "protocol/schema.json").read_text()
    assert (written / "examples" / "transcript-seat-A.txt").is_file()
    installed.run("schema", "--check", "--out", "protocol")


def test_bench_cache_runs_its_channel_bots_from_the_wheel(installed: Installed) -> None:
    """The channel's bots are the package's (``referee/bench/channels/cache_bot.py``, the
    bundled random bot), not the clone's ``tests/``."""
    package = installed.where("referee.__file__").parent
    module = "__import__('referee.bench.channels.cache', fromlist=['BOT'])"
    for bot in (installed.where(f"{module}.BOT"), installed.where(f"{module}.RANDOM_BOT")):
        assert package in bot.parents and bot.is_file(), bot
    done = installed.run(
        "bench", "cache", "--trials", "1", "--variant", "off", "--variant", "narrow",
        "--scenario", "legs", "--seed", "1",
    )  # fmt: skip
    rows = {tuple(line.split()[:2]): line.split() for line in done.stdout.splitlines()}
    assert int(rows["off", "legs"][5]) < 28, done.stdout  # the receiver read and decoded
    assert ("narrow", "legs") in rows
    assert done.stdout.splitlines()[-1].startswith("cache channel (pages), narrow: legs ")
