"""The sandbox on the command line: the line before a match, ``referee sandbox``, refusals
under ``strict`` and mistakes in the options — each one line, exit 2, no traceback."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from support.processes import referee

from referee.sandbox.layers import available

ROOT = Path(__file__).resolve().parents[2]


def test_a_match_says_what_its_bots_run_under(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "m.jsonl"
    run = referee(
        "match",
        RANDOM_BOT,
        RANDOM_BOT,
        "--log",
        str(log),
        "--max-hands",
        "1",
        "--json",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    first = run.stderr.splitlines()[0]
    outcome = json.loads(run.stdout)
    assert first.startswith("sandbox auto: ")
    if outcome["sandbox"]["off"]:  # one short line: what is off, and where to read why
        said = first.split("off: ", 1)[1]
        for layer in outcome["sandbox"]["off"]:
            assert layer.split(" ")[0] in said, (layer, first)
        assert "'referee sandbox'" in first
    else:  # every layer on: the layers and the bounds
        for layer in outcome["sandbox"]["seats"]["A"]:
            assert layer in first
    header = json.loads(log.read_text().splitlines()[0])
    assert header["sandbox"] == outcome["sandbox"]  # the reasons, in full


def test_off_says_so(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    run = referee(
        "match",
        RANDOM_BOT,
        RANDOM_BOT,
        "--log",
        str(log),
        "--max-hands",
        "1",
        "--sandbox",
        "off",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("sandbox off: bots run as your user")


@pytest.mark.skipif(os.geteuid() != 0, reason="as root, strict needs a uid per seat")
def test_strict_refuses_a_seat_that_would_stay_root(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    bot = private / "bot.py"
    bot.write_text((ROOT / "example_bots" / "random_bot.py").read_text())
    command = shlex.join(
        ["/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable, str(bot)]
    )
    log = tmp_path / "logs" / "m.jsonl"
    run = referee(
        "match", command, RANDOM_BOT, "--log", str(log), "--sandbox", "strict", cwd=tmp_path
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith("referee: --sandbox strict: seat ")
    assert "would stay root" in run.stderr and str(private) in run.stderr
    assert not log.exists()


def test_a_missing_allowed_path_is_a_usage_error(tmp_path: Path) -> None:
    run = referee("match", "--sandbox-allow", str(tmp_path / "nothing"), cwd=tmp_path)
    assert run.returncode == 2
    assert (
        run.stderr.strip()
        == f"referee: --sandbox-allow {tmp_path / 'nothing'}: no such file or directory"
    )


@pytest.mark.skipif(available()["landlock"] is not None, reason="no Landlock here")
def test_referee_sandbox_probes_every_layer(tmp_path: Path) -> None:
    run = referee("sandbox", "--json", cwd=tmp_path)
    probe = json.loads(run.stdout)
    rows = {row["layer"]: row for row in probe["layers"]}
    assert set(rows) >= {"rlimits", "landlock", "landlock-net", "landlock-scope", "seccomp"}
    for layer in ("landlock", "landlock-net", "landlock-scope", "seccomp"):
        assert rows[layer]["works"] and "blocked" in rows[layer]["detail"], rows[layer]
    if available()["namespaces"] is None:  # the child could not name the referee at all
        assert rows["namespaces"]["works"], rows["namespaces"]
        assert "No such process" in rows["namespaces"]["detail"]
    if available()["private-root"] is None:  # a file outside the allow-list is not there
        assert rows["private-root"]["works"], rows["private-root"]
        assert "No such file or directory" in rows["private-root"]["detail"]
    for row in rows.values():
        assert row["protects"] and row["detail"]
        if not row["works"]:
            assert available().get(row["layer"]) == row["detail"]
    assert run.returncode == (0 if probe["strict_ready"] else 1)
    table = referee("sandbox", cwd=tmp_path)
    assert "landlock-scope" in table.stdout and "protects" in table.stdout
    assert table.returncode == run.returncode


@pytest.mark.skipif(available()["landlock"] is not None, reason="no Landlock here")
@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_a_bot_that_names_the_folder_of_the_logs_does_not_start(tmp_path: Path, mode: str) -> None:
    # "python3 bot.py ." run where ./matches/ lands: the seat could read the log being
    # written, every hand. Refused before any bot starts, in one line that says the fix.
    (tmp_path / "bot.py").write_text((ROOT / "example_bots" / "random_bot.py").read_text())
    bot = shlex.join([sys.executable, "bot.py", "."])
    run = referee("match", bot, RANDOM_BOT, "--max-hands", "1", "--sandbox", mode, cwd=tmp_path)
    first = run.stderr.splitlines()[0]
    if run.returncode == 0 and "uid" not in first.partition("off:")[2]:
        pytest.skip("the seats got their own uid: permissions close the logs to them")
    assert run.returncode == 2, run.stderr
    line = run.stderr.strip()
    assert "\n" not in line and line.startswith("referee: ")
    assert f"could read {tmp_path / 'matches'}" in line and "--log" in line, line
    assert not (tmp_path / "matches").exists() or not any((tmp_path / "matches").iterdir())
