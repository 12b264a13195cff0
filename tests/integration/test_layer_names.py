"""A sandbox layer is named through ``Layer``, so that a misspelt name cannot pass unseen.

``Layer.SECOMP`` is a mypy error (``test_lint`` runs mypy on the package) and an
``AttributeError`` where it runs; a bare string is neither, so none may name a layer in the
package — neither a layer's exact name (write ``Layer.SECCOMP``) nor one a letter or two
away from it (a misspelling).
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import pytest

from referee.record.sandbox import Layer

PACKAGE = Path(__file__).resolve().parents[2] / "referee"
NAMES = [layer.value for layer in Layer]
#: Strings that spell a layer's name and mean something else: the label of seccomp's own
#: system call in an ``OSError`` (``seccomp.py``).
NOT_LAYERS = {("sandbox/seccomp.py", "seccomp")}
#: Where a layer is named by its string: ``Layer`` itself.
DEFINITION = "record/sandbox.py"


#: What holds layers, by the words of the code that reads it: a seat's ``layers``, a
#: report's ``seats`` and ``off``, ``available()``'s status.
HOLDERS = re.compile(r"layer|seats|\boff\b|status|available")


def _near(node: ast.expr) -> str | None:
    """The layer a string constant spells or nearly spells, if it is one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        close = difflib.get_close_matches(node.value, NAMES, n=1, cutoff=0.75)
        return close[0] if close else None
    return None


def _held(node: ast.expr) -> bool:
    return HOLDERS.search(ast.unparse(node)) is not None


def _reads_layers(function: ast.expr) -> bool:
    """A method of what holds layers (``off.get``), or a plan's ``lifted``."""
    if not isinstance(function, ast.Attribute):
        return False
    return function.attr == "lifted" or _held(function.value)


def bare_names(source: str) -> list[tuple[int, str, str]]:
    """Each string constant in ``source`` that is a layer's name, or that nearly is and is
    looked for among layers (compared with them, a key of a report's or a seat's):
    (line, the string, the layer it spells or misspells)."""
    found: dict[tuple[int, str], str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value in NAMES:
            found[node.lineno, node.value] = node.value
        candidates: list[ast.expr] = []
        if isinstance(node, ast.Compare) and any(map(_held, [node.left, *node.comparators])):
            candidates = [node.left, *node.comparators]
        elif isinstance(node, ast.Subscript) and _held(node.value):
            candidates = [node.slice]
        elif isinstance(node, ast.Call) and _reads_layers(node.func):
            candidates = [*node.args]
            candidates += [e for a in node.args if isinstance(a, ast.Tuple) for e in a.elts]
        for candidate in candidates:
            layer = _near(candidate)
            if layer is not None:
                found[candidate.lineno, str(getattr(candidate, "value", ""))] = layer
    return [(line, text, layer) for (line, text), layer in sorted(found.items())]


def test_no_bare_string_names_a_layer() -> None:
    bare = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where == DEFINITION:
            continue
        for line, text, layer in bare_names(path.read_text()):
            if (where, text) not in NOT_LAYERS:
                bare.append(f"{where}:{line}: {text!r} (write Layer.{Layer(layer).name})")
    assert not bare, "layers named by bare strings:\n" + "\n".join(bare)


def test_a_misspelt_layer_is_caught() -> None:
    assert bare_names('if "namespces" in self.layers: pass') == [(1, "namespces", "namespaces")]
    assert bare_names('why = report.off.get("uidd")') == [(1, "uidd", "uid")]
    assert bare_names('plan.lifted(("page-cach",))') == [(1, "page-cach", "page-cache")]
    assert bare_names('lifted(("page-cache",))') == [(1, "page-cache", "page-cache")]
    assert bare_names("if Layer.NAMESPACES in layers: pass") == []
    assert bare_names('if "limits" in context.name: pass') == []
    with pytest.raises(AttributeError):
        _ = Layer.NAMESPCES  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        Layer("namespces")
