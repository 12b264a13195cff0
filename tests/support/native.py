"""Native programs for the tests: small C libraries and programs built with the machine's
compiler, laid out as bot authors and organisers lay them out."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

RUNTIMES = Path(__file__).resolve().parents[1] / "bots" / "runtimes"
#: A library with one function, for programs that load a library of their own.
LIBRARY = "int demo(void) { return 0; }\n"
#: A program that calls it and exits.
CALLER = "int demo(void);\nint main(void) { return demo(); }\n"


def compiler(name: str = "gcc") -> str:
    """The path of ``name`` (gcc, g++), or skip the test."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"no {name} on this machine")
    return found


def build(source: str | Path, out: Path, *flags: str, cc: str = "gcc") -> Path:
    """``out`` compiled from ``source`` (C text, or a file) with ``flags``; world-readable, as an
    organiser unpacks a submission."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, str):
        written = out.parent / f".{out.name}.c"
        written.write_text(source)
        source = written
    subprocess.run([compiler(cc), "-O1", "-o", str(out), str(source), *flags], check=True)
    out.chmod(0o755)
    return out


def library(folder: Path, name: str = "libdemo.so") -> Path:
    """A shared library ``folder/name`` with one function, ``demo``."""
    return build(LIBRARY, folder / name, "-shared", "-fPIC")


def caller(out: Path, library_folder: Path, runpath: str) -> Path:
    """A program that needs ``libdemo.so`` (linked from ``library_folder``) and looks for it
    along ``runpath`` (``$ORIGIN`` allowed)."""
    return build(
        CALLER,
        out,
        f"-L{library_folder}",
        "-ldemo",
        f"-Wl,--enable-new-dtags,-rpath,{runpath}",
    )
