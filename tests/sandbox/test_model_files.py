"""A model's author enters a bot that finds its model by an environment variable
(``TEXAS42_TEST_MODEL=/…/policy.onnx``), with the model outside the bot's folder: the referee
names every option the bot still lacks, and says why — ``--sandbox-env`` passes the path, never
the file, so ``--sandbox-allow`` is needed as well.

Each test plays a real match (``referee match``) with onnxruntime bots in A and C, as root.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from support.onnx_model import write_policy
from support.processes import BOTS, referee

from referee.record.sandbox import Layer
from referee.sandbox.layers import available

VARIABLE = "TEXAS42_TEST_MODEL"
BOT = shlex.join([sys.executable, str(BOTS / "model_bot.py"), "--model-from", VARIABLE])

pytestmark = pytest.mark.skipif(
    available()[Layer.LANDLOCK] is not None,
    reason=f"without Landlock a bot may read the model anyway: {available()[Layer.LANDLOCK]}",
)


@pytest.fixture
def model() -> Iterator[Path]:
    """The model, in a folder of its own that every user may read (pytest's are root's)."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-models-"))
    folder.chmod(0o755)
    try:
        yield write_policy(folder / "policy.onnx")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _match(tmp_path: Path, model: Path, *options: str) -> str:
    """What ``referee match`` printed for the model bot in A and C, with the variable set."""
    commands = (BOT, RANDOM_BOT, BOT, RANDOM_BOT)
    run = referee(
        "match", *commands, "--seed", "3", "--max-hands", "2", *options,
        cwd=tmp_path, env={VARIABLE: str(model)},
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr  # a forfeit is still a match played
    return run.stdout


def _said(text: str) -> str:
    """The output with the console's line breaks undone."""
    return " ".join(text.split())


def test_a_variable_not_passed_is_named_with_the_file_it_names(tmp_path: Path, model: Path) -> None:
    said = _said(_match(tmp_path, model))
    assert f"KeyError: '{VARIABLE}'" in said
    assert (
        f"here {VARIABLE} names the file {model}, which sandboxed bots may not read"
        " (--sandbox-env passes the name and its value, not the file); if it needs it:"
        f" --sandbox-env {VARIABLE} --sandbox-allow {model}"
    ) in said


def test_a_variable_passed_whose_file_is_refused_is_named_with_the_allow_option(
    tmp_path: Path, model: Path
) -> None:
    said = _said(_match(tmp_path, model, "--sandbox-env", VARIABLE))
    assert f"Load model from {model} failed" in said  # onnxruntime was refused the file
    assert (
        f"{VARIABLE}, passed with --sandbox-env, names the file {model} here, which sandboxed"
        " bots may not read (--sandbox-env passes the name and its value, not the file); if"
        f" the bot reads it: --sandbox-allow {model}"
    ) in said


def test_with_both_options_the_model_bot_plays(tmp_path: Path, model: Path) -> None:
    options = ("--sandbox-env", VARIABLE, "--sandbox-allow", str(model), "--json")
    outcome = json.loads(_match(tmp_path, model, *options))
    assert outcome["forfeit"] is None and outcome["failures"] == {}, outcome
    assert outcome["hands"] == 2 or outcome["end"] == "marks", outcome
