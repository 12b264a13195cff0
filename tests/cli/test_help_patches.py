"""The patches of typer's private API (``referee/cli/help.py``) still land: typer has each
attribute patched and calls it by that name. A typer release that renames one would
otherwise leave the help quietly unmended (``<int range>``, the source's line breaks)."""

from __future__ import annotations

import json
import subprocess
import sys

from referee.cli.help import PATCHED

# In a fresh interpreter: typer as released, before referee's patches replace anything.
PROBE = """
import importlib, inspect, json, sys
found = {}
for module_name, owner, attribute in json.loads(sys.argv[1]):
    module = importlib.import_module(module_name)
    holder = getattr(module, owner) if owner else module
    present = callable(getattr(holder, attribute, None))
    source = inspect.getsource(module)
    called = f"{attribute}(" in source.replace(f"def {attribute}(", "")
    found[".".join(filter(None, (module_name, owner, attribute)))] = [present, called]
print(json.dumps(found))
"""


def test_typer_still_has_and_calls_every_patched_attribute() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(PATCHED)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(run.stdout)
    assert len(found) == len(PATCHED) == 5
    missing = [name for name, (present, _) in found.items() if not present]
    assert not missing, f"typer no longer has {missing}: mend referee/cli/help.py"
    uncalled = [name for name, (_, called) in found.items() if not called]
    assert not uncalled, f"typer no longer calls {uncalled}: mend referee/cli/help.py"


def test_the_patches_are_in_place_once_the_command_line_is_imported() -> None:
    import typer.core
    import typer.rich_utils

    import referee.cli  # noqa: F401  (applies them)

    assert typer.core.TyperOption.display_type_rich.__qualname__.endswith("value_name")
    assert typer.core.TyperArgument.display_type_rich(None, None) is None  # type: ignore[arg-type]
    assert typer.rich_utils._fix_linebreaks(["a\nb", "\bc\nd"], "rich") == "a b\n\n\bc\nd"


def test_a_commands_summary_is_one_paragraph_without_the_sources_line_breaks() -> None:
    from typer.testing import CliRunner

    from referee.cli import app

    listing = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    line = next(text for text in listing.splitlines() if " report " in text)
    assert "head to head, win rates" in line  # one line at 200 columns: no break of the source's
