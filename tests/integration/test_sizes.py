"""The house stays readable: no source file over 450 lines, no class over 250, no test file
over 500 (issue 18's limits). The benchmarks are measured like any module; nothing generated
is Python."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for p in (ROOT / "referee").rglob("*.py") if "example_bots" not in p.parts)
TESTS = sorted((ROOT / "tests").rglob("*.py"))


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_the_limits_see_every_module() -> None:
    assert len(SOURCES) > 100 and len(TESTS) > 100


@pytest.mark.parametrize(("files", "limit"), [(SOURCES, 450), (TESTS, 500)], ids=["src", "tests"])
def test_no_file_is_too_long(files: list[Path], limit: int) -> None:
    long = {str(p.relative_to(ROOT)): _lines(p) for p in files if _lines(p) > limit}
    assert long == {}


def test_no_class_is_too_long() -> None:
    long = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > 250:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = size
    assert long == {}
