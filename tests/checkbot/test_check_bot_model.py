"""check-bot finds what a model bot lacks when its model's path comes in an environment
variable and the model lies outside the bot's folder: the variable and the file, or the file
alone when the variable is passed — and its runs with them allowed prove the advice."""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.onnx_model import write_policy
from support.processes import BOTS

from referee.checkbot import CheckReport, check_bot
from referee.record.sandbox import Layer
from referee.sandbox.layers import available
from referee.settings import SandboxSettings

VARIABLE = "TEXAS42_TEST_MODEL"
BOT = shlex.join([sys.executable, str(BOTS / "model_bot.py"), "--model-from", VARIABLE])

pytestmark = pytest.mark.skipif(
    available()[Layer.LANDLOCK] is not None,
    reason=f"without Landlock a bot may read the model anyway: {available()[Layer.LANDLOCK]}",
)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The model in a folder of its own, named by the variable in this environment."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-models-"))
    folder.chmod(0o755)
    try:
        path = write_policy(folder / "policy.onnx")
        monkeypatch.setenv(VARIABLE, str(path))
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _startup(report: CheckReport) -> str:
    return next(check.status for check in report.checks if check.name == "startup")


def test_the_variable_and_the_file_it_names_are_found_together(model: Path) -> None:
    report = check_bot(BOT, match=False)
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "environment", diagnosis
    assert diagnosis.fix == f"--sandbox-env {VARIABLE} --sandbox-allow {model}"
    assert "--sandbox-env passes the name and its value, not the file" in diagnosis.detail
    fixed = SandboxSettings(env=(VARIABLE,), allow=(str(model),))
    assert _startup(check_bot(BOT, match=False, sandbox=fixed)) == "passed"


def test_a_passed_variables_file_is_found_first(model: Path) -> None:
    report = check_bot(BOT, match=False, sandbox=SandboxSettings(env=(VARIABLE,)))
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "files", diagnosis
    assert diagnosis.fix == f"--sandbox-allow {model}"
    assert f"which {VARIABLE} names" in diagnosis.detail
    # without the sandbox, with every variable, without its allow-list, with the file alone
    assert diagnosis.runs == 4
