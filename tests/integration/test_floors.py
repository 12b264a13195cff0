"""ARCHITECTURE.md's floors are the code's: every import in ``referee/`` goes to a room on its
own row or a row below, the rooms make no circle, and every package and module of
``referee/`` has its row. The block is read from the document, so the two cannot drift."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "referee"
#: A room's name at the start of a row: a folder (``match/``) or a module (``errors.py``).
ROOM = re.compile(r"^[a-z_]+(/|\.py)$")
#: Not rooms: the package's face, its entry point, and links to the top-level folders.
NOT_ROOMS = {"__init__.py", "__main__.py", "example_bots/", "protocol/"}


def floors() -> dict[str, int]:
    """Each room of ARCHITECTURE.md's block and its row, 0 at the top."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    block = text.split("## The floors", 1)[1].split("```", 2)[1]
    rows: dict[str, int] = {}
    for line in block.splitlines():
        if not line or line[0].isspace():
            continue  # a row's words, carried on
        number = len(set(rows.values()))
        for word in re.split(r"\s{2,}", line.strip()):
            if not ROOM.match(word):
                break
            rows[word] = number
    return rows


def room_of(path: Path) -> str:
    """The room a file of ``referee/`` is in: its top folder, or itself."""
    parts = path.relative_to(PACKAGE).parts
    return f"{parts[0]}/" if len(parts) > 1 else parts[0]


def imported_rooms(path: Path) -> Iterator[tuple[int, str]]:
    """The rooms of ``referee`` that ``path`` imports, with the line of each import."""
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "referee":
                names = [f"referee.{alias.name}" for alias in node.names]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != "referee" or len(parts) < 2:
                continue
            target = PACKAGE / parts[1]
            yield node.lineno, f"{parts[1]}/" if target.is_dir() else f"{parts[1]}.py"


def sources() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if room_of(path) not in NOT_ROOMS and not path.is_symlink()
        and not any(part in ("example_bots", "protocol") for part in path.parts)
    )  # fmt: skip


def test_the_block_names_every_room_of_the_package() -> None:
    rows = floors()
    rooms = {room_of(path) for path in sources()}
    assert rooms - rows.keys() == set()  # a room the document does not place
    assert rows.keys() - rooms == set()  # a room the document places that is not there


def test_no_import_runs_back_up() -> None:
    rows = floors()
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {target} (row {rows[target]}, above"
        f" {room_of(path)}'s row {rows[room_of(path)]})"
        for path in sources()
        for line, target in imported_rooms(path)
        if target in rows and room_of(path) in rows and rows[target] < rows[room_of(path)]
    ]
    assert upward == []


def test_the_rooms_make_no_circle() -> None:
    edges: dict[str, set[str]] = {}
    for path in sources():
        for _, target in imported_rooms(path):
            if target != room_of(path):
                edges.setdefault(room_of(path), set()).add(target)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in edges.get(start, ()):
            if step == goal or (step not in seen and reaches(step, goal, seen | {step})):
                return True
        return False

    circles = sorted(room for room in edges if reaches(room, room, {room}))
    assert circles == []


def test_the_reading_finds_what_it_checks() -> None:
    rows = floors()
    assert rows["cli/"] == 0 and rows["rules/"] > rows["record/"] > rows["match/"]
    assert rows["running/"] > rows["tournament/"] and rows["league/"] < rows["running/"]
    match_imports = {
        target for path in sources() if room_of(path) == "match/"
        for _, target in imported_rooms(path)
    }  # fmt: skip
    assert {"rules/", "record/", "sandbox/"} <= match_imports
