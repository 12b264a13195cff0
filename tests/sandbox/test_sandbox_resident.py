"""What a bot may read stays small (its runtime's own files, not all of ``/usr``), and every
page of it is made resident and pinned before a match (``referee.sandbox.resident``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.sandbox import elf, paths, resident


def test_names_of_a_programs_own_directories() -> None:
    assert paths._named_after("python3.11", "python")
    assert paths._named_after("python3", "python")
    assert paths._named_after("node_modules", "node")
    assert paths._named_after("nodejs", "node")
    assert not paths._named_after("shared-mime-info", "sh")
    assert not paths._named_after("pythonista", "python")
    assert not paths._named_after("x", "")


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3")
def test_the_system_python_brings_its_own_files_not_the_whole_prefix() -> None:
    runtime = paths.program_files(["/usr/bin/python3", "bot.py"]).runtime
    real = Path(os.path.realpath("/usr/bin/python3"))
    version = real.name  # python3.11
    assert real in runtime
    assert Path("/usr/lib") / version in runtime  # the standard library
    for whole in ("/usr", "/usr/lib", "/usr/share", "/usr/bin", f"/usr/lib/{elf.MULTIARCH}"):
        assert Path(whole) not in runtime
    libc = [path for path in runtime if path.name.startswith("libc.so")]
    assert libc, runtime  # and the shared libraries it loads


@pytest.mark.skipif(shutil.which("ldd") is None, reason="no ldd")
@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3")
def test_the_libraries_are_those_the_loader_finds() -> None:
    program = os.path.realpath("/usr/bin/python3")
    listed = subprocess.run(["ldd", program], capture_output=True, text=True, check=True).stdout
    loaded = {
        os.path.realpath(words[2])
        for words in (line.split() for line in listed.splitlines())
        if len(words) >= 3 and words[1] == "=>" and words[2].startswith("/")
    }
    assert loaded and loaded <= elf.libraries([program])


def test_a_library_missing_from_the_loaders_paths_is_passed_over(tmp_path: Path) -> None:
    assert elf.libraries([str(tmp_path / "missing")]) == set()
    (tmp_path / "text").write_text("not an ELF file")
    assert elf.libraries([str(tmp_path / "text")]) == set()


def test_warm_pins_once_and_finds_new_files(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"a" * 10_000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"b" * 5_000)
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "link").symlink_to("/etc/hostname")  # a link inside a tree is not followed
    try:
        first = resident.warm([tmp_path])
        assert (first.files, first.bytes) == (3, 15_000)
        pinned = first.pinned_files == 2
        if pinned:
            assert first.bytes_read == 15_000  # read once, to leave every page referenced
        else:  # no right to lock memory here: read until every page is active
            assert first.bytes_read == resident.PASSES * 15_000
        again = resident.warm([tmp_path])
        assert again.bytes_read == (0 if pinned else resident.PASSES * 15_000)
        (tmp_path / "sub" / "c").write_bytes(b"c" * 3_000)  # the directory's time changes
        later = resident.warm([tmp_path, tmp_path / "a"])  # a file named twice counts once
        assert later.files == 4
        assert later.bytes_read == (3_000 if pinned else resident.PASSES * 18_000)
    finally:
        resident.release()


def test_forgetting_lookups_needs_root() -> None:
    took = resident.forget_lookups()
    assert (took is None) == (os.geteuid() != 0)
