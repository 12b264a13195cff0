"""Golden logs: matches recorded before the referee was restructured must come out the same.

``tests/golden/record.py`` recorded them (bundled bots, a forfeit, the random fault policy, an
all-tricks hand, kept bots across a tournament's matches). The same seeds must give the same
logs but for timings, and every stored log must still verify and render byte for byte as it
did (text, one seat, public, the game record, and the three HTML pages).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _recorder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("golden_record", GOLDEN / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


record = _recorder()
MANIFEST = json.loads((GOLDEN / "manifest.json").read_text())
RENDERINGS = json.loads((GOLDEN / "renderings.json").read_text())
LOGS = sorted((GOLDEN / "logs").glob("*.jsonl"))


def test_every_case_and_log_is_kept() -> None:
    assert sorted(MANIFEST["cases"]) == sorted(record.CASES)
    kept = sorted(name for names in MANIFEST["cases"].values() for name in names)
    assert kept == [log.name for log in LOGS]
    assert sorted(RENDERINGS) == kept


@pytest.mark.parametrize("case", record.CASES)
def test_the_same_seeds_give_the_same_logs_but_for_timings(case: str, tmp_path: Path) -> None:
    played = record.play(case, tmp_path)
    stored = [GOLDEN / "logs" / name for name in MANIFEST["cases"][case]]
    assert len(played) == len(stored)
    for new, old in zip(played, stored, strict=True):
        assert record.normal(new) == record.normal(old), f"{new.name} differs from {old.name}"


@pytest.mark.parametrize("log", LOGS, ids=[log.stem for log in LOGS])
def test_a_stored_log_verifies_and_renders_as_it_did(log: Path, tmp_path: Path) -> None:
    shown = record.render(log, tmp_path)
    assert shown.keys() == RENDERINGS[log.name].keys()
    for name, text in shown.items():
        assert text == RENDERINGS[log.name][name], f"{log.name}: {name} rendering changed"
