"""Native programs wherever they live: the loader and every library a program, and the ELF
files beside it, load are found as the loader finds them and allowed; a library or loader the
program chose by a path of its own outside the system's libraries and the bot's directories
is refused, and a bot that cannot start for it is told which file and the option that allows
it (no processes here but the compiler; ``test_runtime_matrix.py`` plays them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.native import RUNTIMES, build, caller, library

from referee.sandbox import elf, paths
from referee.sandbox.refusals import explained, loader_names, refusals


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


@pytest.mark.skipif(shutil.which("ldconfig") is None, reason="no ldconfig to compare with")
def test_the_loaders_cache_is_read_as_ldconfig_lists_it() -> None:
    listed = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True)
    entries = [
        (line.split()[0], line.rsplit("=> ", 1)[1].strip())
        for line in listed.stdout.splitlines()[1:]
        if "=> " in line
    ]
    assert entries, listed.stdout[:200]
    cached = elf.cached()
    for name, path in entries:
        assert path in cached.get(name, ()), (name, path)


def test_a_program_anywhere_brings_its_loader_and_libraries(tmp_path: Path) -> None:
    program = build(RUNTIMES / "first_legal.c", tmp_path / "unpacked" / "first_legal")
    files = paths.program_files([str(program)])
    dynamic = elf.read(str(program))
    assert dynamic is not None and dynamic.interpreter
    assert _real(dynamic.interpreter) in files.runtime  # the loader, by its real path
    assert any(path.name.startswith("libc.so") for path in files.runtime), files.runtime
    assert tmp_path / "unpacked" in files.runtime  # the program's own folder
    assert files.refused == []


def test_an_elf_file_beside_a_script_brings_its_libraries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The library lies where the operator's LD_LIBRARY_PATH says: the machine's choice.
    shared = library(tmp_path / "shared")
    helper = caller(tmp_path / "bot" / "helper", shared.parent, "/nowhere")
    (tmp_path / "bot" / "bot.py").write_text("")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(shared.parent))
    files = paths.program_files(["/usr/bin/python3", str(tmp_path / "bot" / "bot.py")])
    assert files.own == [helper.parent]
    assert _real(shared) in files.runtime  # found only by reading the helper beside the script


def test_a_library_the_program_finds_in_its_own_folder_needs_no_rule(tmp_path: Path) -> None:
    mine = library(tmp_path / "bot" / "lib")
    program = caller(tmp_path / "bot" / "bot", mine.parent, "$ORIGIN/lib")
    found = elf.closure([str(program)]).found[str(_real(mine))]
    assert (found.source, found.needed_by, found.chosen) == ("runpath", str(program), True)
    files = paths.program_files([str(program)])
    assert files.refused == [] and _real(mine) not in files.runtime  # inside its folder


def test_a_library_chosen_outside_the_bots_files_is_refused_and_named(tmp_path: Path) -> None:
    # Another entrant's folder, named by the program's RUNPATH: never opened to the bot.
    theirs = library(tmp_path / "bob")
    program = caller(tmp_path / "alice" / "bot", theirs.parent, str(theirs.parent))
    files = paths.program_files([str(program)])
    assert [found.path for found in files.refused] == [str(_real(theirs))]
    assert _real(theirs) not in files.runtime
    readable = [*files.runtime, *files.own]
    [refusal] = refusals([str(program)], readable)
    assert refusal.path == _real(theirs) and refusal.name == "libdemo.so"
    assert f"which {program} loads by its RUNPATH" in str(refusal)
    assert refusal.fix == f"if the bot needs it, --sandbox-allow {_real(theirs)}"
    assert refusals([str(program)], [*readable, theirs]) == []  # --sandbox-allow: allowed
    # The loader's own line is what a bot that could not start leaves on its stderr.
    said = f"{program}: error while loading shared libraries: libdemo.so: cannot open shared"
    assert explained([said + " object file: No such file or directory"], str(program), readable)
    assert explained(["a line that names no library"], str(program), readable) == []


def test_a_loader_chosen_outside_the_bots_files_is_refused_and_named(tmp_path: Path) -> None:
    loader = elf.read(os.path.realpath("/bin/sh"))
    assert loader is not None and loader.interpreter
    copy = tmp_path / "bob" / "ld.so"
    copy.parent.mkdir()
    shutil.copy(loader.interpreter, copy)
    program = build(
        RUNTIMES / "first_legal.c", tmp_path / "carol" / "bot", f"-Wl,--dynamic-linker={copy}"
    )
    files = paths.program_files([str(program)])
    [refusal] = refusals([str(program)], [*files.runtime, *files.own])
    assert refusal.path == copy and refusal.name is None
    assert f"which {program} names as its loader (PT_INTERP)" in str(refusal)


def test_hwcaps_variants_of_a_library_are_all_allowed(tmp_path: Path) -> None:
    plain = library(tmp_path / "libs")
    variant = library(tmp_path / "libs" / "glibc-hwcaps" / "x86-64-v3")
    program = caller(tmp_path / "bot" / "bot", plain.parent, str(plain.parent))
    found = elf.closure([str(program)]).found
    assert str(_real(plain)) in found and str(_real(variant)) in found


def test_the_loaders_lines_are_read_for_the_library_it_could_not_map() -> None:
    lines = [
        "./bot: error while loading shared libraries: libfoo.so.1: cannot open shared object"
        " file: Permission denied",
        "Error loading shared library libbar.so: Permission denied (needed by ./bot)",  # musl
        "error while loading shared libraries: libfoo.so.1: cannot open shared object file",
    ]
    assert loader_names(lines) == ["libfoo.so.1", "libbar.so"]


def test_a_missing_library_is_said_missing(tmp_path: Path) -> None:
    gone = library(tmp_path / "gone")
    program = caller(tmp_path / "bot" / "bot", gone.parent, str(gone.parent))
    gone.unlink()
    closure = elf.closure([str(program)])
    assert ("libdemo.so", str(program)) in closure.missing
