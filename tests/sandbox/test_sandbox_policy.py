"""What a bot may read, which layers each seat gets, and the line that says so — decided
before any bot starts (no processes here)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import msgspec
import pytest

from referee.errors import SandboxRefused
from referee.record.sandbox import SandboxReport
from referee.sandbox import paths
from referee.sandbox.layers import available
from referee.sandbox.policy import plan
from referee.settings import MatchLimits, SandboxSettings

LIMITS = MatchLimits()


def test_no_rule_grants_the_root_or_tmp_whole(tmp_path: Path) -> None:
    script = Path(tempfile.gettempdir()) / f"bot-{os.getpid()}.sh"
    script.write_text("#!/bin/sh\nexec /usr/bin/env true\n")
    script.chmod(0o755)
    try:
        for argv in (
            ["/bin/sh", "-c", "true"],
            [str(script)],
            ["java", "-cp", tempfile.gettempdir(), "Bot"],
            ["node", str(Path.home() / "bot.js")],
        ):
            files = paths.program_files(argv)
            granted = [*files.runtime, *files.own]
            assert not [p for p in granted if p.is_dir() and paths.closed(p)], (argv, granted)
        runtime = paths.program_files([str(script)]).runtime
        assert script in runtime  # a program in /tmp is allowed alone
        assert Path(os.path.realpath("/bin/sh")) in runtime  # and its interpreter (#!/bin/sh)
        assert Path("/usr") in runtime  # a shell script may run any program of the system
        script.write_text("#!/usr/bin/python3\nprint()\n")
        runtime = paths.program_files([str(script)]).runtime
        assert Path("/usr/bin/python3") in runtime
        assert Path("/usr") not in runtime  # not the interpreter's whole prefix
    finally:
        script.unlink()


def test_a_venv_brings_itself_and_its_base_interpreter() -> None:
    files = paths.program_files([sys.executable, __file__])
    prefix = Path(sys.executable).parent.parent
    assert Path(os.path.abspath(prefix)) in files.runtime
    assert Path(os.path.realpath(sys.executable)).parent.parent in files.runtime
    assert files.own == [Path(__file__).resolve().parent]


def test_words_naming_files_and_class_paths_are_the_bots_own(tmp_path: Path) -> None:
    jar = tmp_path / "lib" / "bot.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"")
    own = paths.program_files(["java", f"-Dx={tmp_path}", "-cp", f"{jar}:{tmp_path}", "B"]).own
    assert own == [tmp_path, jar.parent]


def test_off_says_what_it_leaves_open() -> None:
    sandbox = plan(SandboxSettings(mode="off"), LIMITS, dict.fromkeys("ABCD", "bot"))  # type: ignore[arg-type]
    assert sandbox.report.seats == {seat: [] for seat in "ABCD"}
    assert sandbox.report.summary().startswith("sandbox off: bots run as your user")


def test_summary_names_every_layer_off_and_why() -> None:
    report = SandboxReport(
        mode="auto",
        seats={
            "A": ["rlimits", "uid"],
            "B": ["rlimits"],
            "C": ["rlimits", "uid"],
            "D": ["rlimits"],
        },
        off={"cgroup": "needs root", "uid B": "x is closed", "uid D": "x is closed"},
        memory_mb=64,
        cpu_seconds=2,
        max_processes=8,
        file_size_mb=1,
    )
    line = report.summary()
    assert line.startswith("sandbox auto: rlimits; uid for A, C")
    assert "cgroup (needs root)" in line and "uid for B, D (x is closed)" in line
    assert "64 MiB, 2 s CPU, 8 processes" in line
    # What every command prints: only what is off, for which seats, and where to read why.
    assert report.brief() == (
        "sandbox auto: off: cgroup; uid for B, D — 'referee sandbox' says why and how to fix it"
        " (the log keeps the details)"
    )
    whole = msgspec.structs.replace(report, off={})
    assert whole.brief() == whole.summary()  # nothing off: the layers and bounds, as before


needs_landlock = pytest.mark.skipif(available()["landlock"] is not None, reason="no Landlock")


@needs_landlock
@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_a_bot_whose_directory_holds_the_logs_is_refused(tmp_path: Path, mode: str) -> None:
    (tmp_path / "bot.py").write_text("")
    command = f"{sys.executable} {tmp_path / 'bot.py'}"
    commands = dict.fromkeys("ABCD", command)
    if available()["uid"] is None and paths.unreadable_by_others([sys.executable]) is None:
        pytest.skip("the seats would get their own uid: permissions close the logs to them")
    with pytest.raises(SandboxRefused, match=f"seat A could read {tmp_path / 'logs'}: it is"):
        plan(SandboxSettings(mode=mode), LIMITS, commands, [tmp_path / "logs"])  # type: ignore[arg-type]
    off = plan(SandboxSettings(mode="off"), LIMITS, commands, [tmp_path / "logs"])  # type: ignore[arg-type]
    assert off.off  # with the sandbox off the bots run as the operator, and are told so


@needs_landlock
def test_strict_names_a_missing_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.sandbox import policy

    missing = {**available(), "seccomp": "this kernel has no seccomp"}
    monkeypatch.setattr(policy, "available", lambda: missing)
    with pytest.raises(SandboxRefused, match="seccomp is not available: this kernel has no"):
        plan(SandboxSettings(mode="strict"), LIMITS, dict.fromkeys("ABCD", "/bin/true"))  # type: ignore[arg-type]
    sandbox = plan(SandboxSettings(), LIMITS, dict.fromkeys("ABCD", "/bin/true"))  # type: ignore[arg-type]
    assert "seccomp" not in sandbox.report.seats["A"]
    assert "seccomp (this kernel has no seccomp)" in sandbox.report.summary()


def test_a_link_in_a_command_is_followed_before_it_is_judged(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "data").symlink_to("/")
    (tmp_path / "bot" / "logs").symlink_to(tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    own = paths.program_files(["/usr/bin/python3", str(tmp_path / "bot" / "data")]).own
    assert own == []  # "/" behind the link: never allowed
    own = paths.program_files(["/usr/bin/python3", str(tmp_path / "bot" / "logs")]).own
    assert own == [tmp_path / "logs"]  # the real directory, which the secrets check sees


def test_a_shell_scripts_words_are_the_bots_own_too(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "bot.py"
    bot.parent.mkdir()
    bot.write_text("")
    files = paths.program_files(["sh", "-c", f"exec /usr/bin/python3 {bot} | cat"])
    assert files.own == [bot.parent]  # not /usr/bin, for the word /usr/bin/python3
    assert Path(os.path.realpath("/usr/bin/python3")) in files.runtime
