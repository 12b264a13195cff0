"""A root of its own per seat (``--sandbox-private-root``): the seat sees only what it may
read, in directories of its own, so that a failed lookup of a name (a negative dentry, which a
partner could time) is cached where no other seat looks. Real bots, started as a match starts
them; the referee's own view of the machine is the control."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.sandboxed import in_seat, seat_jail
from support.unprivileged import ROOT, SYSTEM_PYTHON, nobodys_folder, referee_as_nobody, why_not

from referee.errors import SandboxRefused
from referee.match.runner import run_match
from referee.record.log import read_log
from referee.record.sandbox import Layer
from referee.record.verify import verify
from referee.rules.tiles import SEATS
from referee.sandbox import policy, root_tree
from referee.sandbox.layers import available
from referee.sandbox.policy import plan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchLimits, MatchSettings, SandboxSettings

PRIVATE = SandboxSettings(private_root=True)
#: What a seat's program reports of its root (the paths it is asked about in ``LOOK_AT``:
#: a path on its command line would be allowed to it as one of its program's files).
LOOKING = r"""
import json, os
def tried(action):
    try:
        return action()
    except OSError as exc:
        return type(exc).__name__
def written(path):
    with open(path, "w") as stream:
        stream.write("x")
    return "written"
def read(path):
    with open(path, "rb") as stream:
        return len(stream.read())
scratch = os.environ["TMPDIR"]
found = {
    "root": sorted(os.listdir("/")),
    "cwd": os.getcwd(),
    "dev": sorted(os.listdir("/dev")),
    "read": {path: tried(lambda: read(path)) for path in os.environ["LOOK_AT"].split(":")},
    "scratch": tried(lambda: written(os.path.join(scratch, "note"))),
    "beside scratch": tried(lambda: written(os.path.join(os.path.dirname(scratch), "note"))),
    "usr": tried(lambda: written("/usr/lib/note")),
    "loadavg": tried(lambda: read("/proc/loadavg")),
    "own pid": os.getpid(),
    "directory": [os.stat(path).st_dev for path in ("/", "/usr/lib/python3.11")],
    "file": list(os.stat("/usr/lib/python3.11/os.py")[1:3]),
}
print(json.dumps(found))
"""
needs_it = pytest.mark.skipif(
    available()[Layer.PRIVATE_ROOT] is not None or available()[Layer.LANDLOCK] is not None,
    reason=f"no root of its own here: {available()[Layer.PRIVATE_ROOT]}",
)
pytestmark = pytest.mark.skipif(
    not Path(SYSTEM_PYTHON).exists(), reason="no /usr/bin/python3 that a seat's uid can run"
)


def _looked(tmp_path: Path, *paths: str) -> dict[str, Any]:
    os.environ["LOOK_AT"] = ":".join(paths)
    try:
        settings = SandboxSettings(private_root=True, env=("LOOK_AT",))
        run = in_seat([SYSTEM_PYTHON, "-c", LOOKING], tmp_path, settings=settings)
    finally:
        del os.environ["LOOK_AT"]
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    found: dict[str, Any] = json.loads(run.stdout)
    return found


@needs_it
def test_a_seat_sees_reads_and_writes_only_what_it_may(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("a deal")
    found = _looked(tmp_path, "/etc/passwd", "/etc/hostname", "/etc/shadow", str(secret))
    # Its root holds the directories above what it may read, its devices, /proc, its scratch
    # and the mount points of its view of the machine: nothing else of the machine's.
    assert set(found["root"]) <= {"bin", "dev", "etc", "lib", "lib64", "proc", "sys", "tmp", "usr",
                                  *Path(ROOT).parts[1:2]}, found["root"]  # fmt: skip
    assert {"dev", "etc", "proc", "tmp", "usr"} <= set(found["root"])
    assert found["cwd"] == os.getcwd()  # the directory it was started in, inside its root
    assert set(found["dev"]) >= {"null", "urandom", "stdout"} and "sda" not in found["dev"]
    read = found["read"]
    assert read["/etc/passwd"] == Path("/etc/passwd").stat().st_size  # allowed: bound in
    # Not allowed, or the referee's: not there at all (Landlock alone would say EACCES).
    assert read["/etc/hostname"] == read["/etc/shadow"] == "FileNotFoundError", read
    assert read[str(secret)] == "FileNotFoundError"
    assert found["scratch"] == "written"
    # A read-only root (and Landlock's rules, where the mount does not answer first).
    assert {found["beside scratch"], found["usr"]} <= {"OSError", "PermissionError"}
    # /proc is the seat's own (its pid is small) and Landlock still refuses what it holds.
    assert found["own pid"] < 10 and found["loadavg"] == "PermissionError"


@needs_it
def test_the_seats_directories_are_its_own_and_its_files_the_machines(tmp_path: Path) -> None:
    # A failed lookup leaves a negative dentry under the directory it was made in: a seat's
    # directories are on a filesystem of its own (another device), so no lookup made
    # elsewhere reaches the same dentry (two seats at once: below). Its files are the
    # machine's (the same inode), bound in. (Timing the channel is the channel bench's.)
    found = _looked(tmp_path)
    skeleton, directory = found["directory"]
    assert skeleton == directory != os.stat("/usr/lib/python3.11").st_dev
    real = os.stat("/usr/lib/python3.11/os.py")
    assert found["file"] == [real.st_ino, real.st_dev]


@pytest.fixture
def two_seats(tmp_path: Path) -> Iterator[tuple[list[subprocess.Popen[bytes]], Any]]:
    """Seats A and C of one match, each a bot that waits for a line on stdin."""
    waiting = [SYSTEM_PYTHON, "-c", "import sys; sys.stdin.readline()"]
    sandbox = plan(PRIVATE, MatchLimits(), dict.fromkeys(SEATS, shlex.join(waiting)), [tmp_path])
    jails = MatchJails(sandbox)
    started = []
    try:
        for seat in "AC":
            jail = jails.jail(seat)
            assert jail is not None
            bot = subprocess.Popen(waiting, stdin=subprocess.PIPE, preexec_fn=jail.enter,
                                   env=jail.environment(), start_new_session=True)  # fmt: skip
            jail.started(bot.pid)
            started.append((bot, jail))
        yield [bot for bot, _ in started], jails
    finally:
        for bot, jail in started:
            jail.kill()
            bot.wait()
            jails.release(jail)
        jails.close()


@needs_it
def test_two_seats_at_once_look_names_up_in_different_directories(two_seats: Any) -> None:
    bots, _ = two_seats
    # The referee looks through each bot's root (/proc/PID/root): the same path is a
    # different directory in each, and neither is the machine's — the view of the machine
    # (the CPUs' directory) included, whose folder every seat of the referee shares.
    host = os.stat("/").st_dev
    for folder in ("/usr/lib/python3.11", "/sys/devices/system/cpu"):
        devices = []
        for bot in bots:
            seen = f"/proc/{bot.pid}/root{folder}"
            for _ in range(500):  # the bot's root is there once it has pivoted
                info = os.stat(seen)
                if info.st_dev != host:
                    break
                time.sleep(0.01)
            devices.append(info.st_dev)
            assert not os.path.exists(f"{seen}/xyz123-not-there")
        machines = {host, os.stat(folder).st_dev}
        assert len(set(devices)) == 2 and not machines & set(devices), (folder, devices)


@needs_it
def test_a_kept_bots_scratch_is_emptied_between_matches(tmp_path: Path) -> None:
    keeper = r"""
import os, sys
scratch = os.environ["TMPDIR"]
for line in sys.stdin:
    if line.strip() == "fill":
        os.makedirs(os.path.join(scratch, "a", "b"))
        open(os.path.join(scratch, "a", "note"), "w").write("kept?")
    print(sorted(os.listdir(scratch)), flush=True)
"""
    argv = [SYSTEM_PYTHON, "-c", keeper]
    with seat_jail(argv, tmp_path, PRIVATE) as jail:
        assert jail is not None
        bot = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               preexec_fn=jail.enter, env=jail.environment(),
                               start_new_session=True)  # fmt: skip
        jail.started(bot.pid)
        assert bot.stdin is not None and bot.stdout is not None
        try:
            said = []
            for asked in ("fill", "next match", "list"):
                bot.stdin.write(f"{asked}\n".encode())
                bot.stdin.flush()
                said.append(bot.stdout.readline().decode().strip())
                if asked == "next match":
                    assert jail.next_match(bot.pid) is None  # the init mounted a fresh tmpfs
            assert said == ["['a']", "['a']", "[]"]
        finally:
            bot.stdin.close()
            bot.wait(timeout=10)


def _random_bots() -> dict[str, str]:
    bot = shlex.join([SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
    return dict.fromkeys(SEATS, bot)


@needs_it
async def test_a_match_of_the_bundled_bots_plays_in_roots_of_their_own(tmp_path: Path) -> None:
    settings = MatchSettings(seed=3, max_hands=2, move_timeout=5.0)
    log = tmp_path / "logs" / "match.jsonl"
    commands = _random_bots()
    sandbox = plan(PRIVATE, settings, commands, [log.parent])
    outcome = await run_match(settings, commands, log, sandbox)
    assert outcome.forfeit is None and outcome.end == "max_hands", outcome
    header = read_log(log).header
    assert all(Layer.PRIVATE_ROOT in layers for layers in header.sandbox.seats.values())
    verify(read_log(log))


@needs_it
@pytest.mark.skipif(why_not() is not None, reason=str(why_not()))
def test_a_match_plays_in_roots_of_their_own_without_root() -> None:
    with nobodys_folder() as workdir:
        log = workdir / "logs" / "match.jsonl"
        run = referee_as_nobody(
            workdir, "match", *_random_bots().values(), "--log", str(log), "--max-hands", "1",
            "--json", "--sandbox-private-root", "--move-timeout", "5",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        outcome = json.loads(run.stdout)
    assert outcome["end"] == "max_hands"
    assert all(Layer.PRIVATE_ROOT in layers for layers in outcome["sandbox"]["seats"].values())
    assert "uid" not in outcome["sandbox"]["seats"]["A"]  # the seats share nobody's uid


def _without_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    status = dict(available())
    status[Layer.NAMESPACES] = "off for the test"
    status[Layer.PRIVATE_ROOT] = f"it needs the {Layer.NAMESPACES} layer, which is off here"
    monkeypatch.setattr(policy, "available", lambda: status)


def test_not_asked_it_is_nowhere_in_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    for unavailable in (False, True):
        if unavailable:
            _without_namespaces(monkeypatch)
        report = plan(SandboxSettings(), MatchLimits(), _random_bots()).report
        assert all(Layer.PRIVATE_ROOT not in layers for layers in report.seats.values())
        assert not any(key.startswith(Layer.PRIVATE_ROOT) for key in report.off)
        assert Layer.PRIVATE_ROOT not in report.summary()


def test_asked_where_it_cannot_be_strict_refuses_and_auto_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without_namespaces(monkeypatch)
    report = plan(PRIVATE, MatchLimits(), _random_bots()).report
    assert Layer.PRIVATE_ROOT not in report.seats["A"]
    assert f"{Layer.PRIVATE_ROOT} (it needs the namespaces layer" in report.summary()
    if os.geteuid() != 0 or available()[Layer.UID] is not None:
        return  # strict refuses for the missing uid first
    with pytest.raises(SandboxRefused) as refused:
        plan(SandboxSettings(mode="strict", private_root=True), MatchLimits(), _random_bots())
    said = str(refused.value)
    assert "--sandbox-private-root" in said and "user namespaces" in said and "\n" not in said


def test_a_root_holds_the_loaders_path_the_links_to_its_files_and_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = tmp_path / "bot"
    (own / "data").mkdir(parents=True)
    (own / "bot.py").write_text("pass")
    (own / "link").symlink_to("bot.py")
    (own / "data" / "secret.jsonl").write_text("{}")
    python = os.path.realpath(SYSTEM_PYTHON)
    interpreter = _interpreter(python)
    allowed = [python, own, *([os.path.realpath(interpreter)] if interpreter else [])]
    tree = root_tree.tree(allowed, excluded=[own / "data"])
    files, links = set(tree.files), dict(tree.links)
    assert python.encode() in files and f"{own}/bot.py".encode() in files
    assert links[f"{own}/link".encode()] == b"bot.py"  # a link again, its target unchanged
    assert not any(b"secret" in path for path in files) and f"{own}/data".encode() not in files
    if interpreter is not None:
        # The kernel opens the loader by the path the program names (/lib64/ld-linux…).
        assert _reaches(interpreter, set(tree.directories), links)
    # The listing is remembered, and made again when a directory in it changes (looked at
    # once a second at the most: a match's seats, planned and started, look once).
    assert root_tree.tree(allowed, excluded=[own / "data"]) is tree
    monkeypatch.setattr(root_tree, "TRUSTED", 0.0)
    (own / "more.py").write_text("pass")
    again = root_tree.tree(allowed, excluded=[own / "data"])
    assert f"{own}/more.py".encode() in again.files


def _interpreter(program: str) -> str | None:
    from referee.sandbox import elf

    found = elf.read(program)
    return None if found is None else found.interpreter


def _reaches(path: str, directories: set[bytes], links: dict[bytes, bytes]) -> bool:
    """Does ``path`` resolve inside a tree of ``directories`` and ``links`` (to its end)?"""
    parts, current, hops = path.strip("/").split("/"), "", 0
    while parts and hops < 40:
        current = f"{current}/{parts.pop(0)}"
        target = links.get(current.encode())
        if target is not None:
            hops += 1
            base = "" if target.startswith(b"/") else os.path.dirname(current)
            parts = [*os.path.normpath(f"{base}/{target.decode()}").strip("/").split("/"), *parts]
            current = ""
        elif parts and current.encode() not in directories:
            return False
    return True


def test_a_root_past_its_bound_is_refused_for_that_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for index in range(30):
        (many / str(index)).write_text("")
    monkeypatch.setattr(root_tree, "MOST_ENTRIES", 20)
    assert root_tree.tree([many], ()).too_large
    said = root_tree.fits([many], ())
    assert said is not None and "20" in said and "/usr/bin/python3" in said
