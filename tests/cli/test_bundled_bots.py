"""Bundled bots by name: ``referee bots`` lists them with the command each stands for here,
and every option that takes a bot command takes ``bundled:NAME``, recording the command that
really ran (a log replays without the name)."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from support.processes import referee

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "example_bots"
#: What the names stand for when the referee runs with this interpreter.
RANDOM = shlex.join([sys.executable, str(BOTS / "random_bot.py")])
HEURISTIC = shlex.join([sys.executable, str(BOTS / "heuristic_bot.py")])
NODE = shutil.which("node")


def one_line(stream: str) -> str:
    assert stream.count("\n") == 1 and "Traceback" not in stream, stream
    return stream.strip()


def header(log: Path) -> dict[str, Any]:
    first: dict[str, Any] = json.loads(log.read_text().splitlines()[0])
    assert first["type"] == "header"
    return first


def test_bots_lists_every_bundled_bot_with_the_command_that_runs_it(tmp_path: Path) -> None:
    listed = referee("bots", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    bots = {bot["name"]: bot for bot in json.loads(listed.stdout)}
    # Every program in example_bots/ is listed once, by a name, and no name is of nothing.
    programs = {p.name for p in BOTS.iterdir() if p.suffix in (".py", ".js")}
    assert {Path(bot["argv"][-1]).name for bot in bots.values()} == programs
    assert {"random", "random-js", "heuristic", "strong"} <= set(bots)
    for bot in bots.values():
        assert bot["bot"] == f"bundled:{bot['name']}" and bot["about"] and bot["language"]
        assert shlex.split(bot["command"]) == bot["argv"]
        assert Path(bot["argv"][-1]).is_file()
    assert bots["heuristic"]["command"] == HEURISTIC  # the kit bots need the referee's Python
    assert bots["random-js"]["argv"][0] == (NODE or "node")
    table = referee("bots", cwd=tmp_path)
    assert (
        table.returncode == 0
        and "bundled:strong" in table.stdout
        and "random_bot.js" in (table.stdout)
    )


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_match_of_bundled_names_logs_the_commands_they_stand_for(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    run = referee(
        "match", "bundled:random", "bundled:random-js", "--seed", "5", "--max-hands", "2",
        "--sandbox", "off", "--log", str(log), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    js = shlex.join([NODE or "node", str(BOTS / "random_bot.js")])
    assert header(log)["bots"] == {"A": RANDOM, "B": js, "C": RANDOM, "D": js}
    assert "bundled:" not in log.read_text()
    assert str(BOTS / "random_bot.js") in run.stdout  # the table's command column too
    # The log is self-contained: a re-run plays the same game from what it records.
    rerun = referee("replay", str(log), "--rerun", "--sandbox", "off", cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert "rerun: same game" in rerun.stdout + rerun.stderr


def test_a_bundled_name_takes_the_bots_own_options(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    run = referee(
        "match", "bundled:strong --nodes 2000", "bundled:heuristic", "--seed", "2",
        "--max-hands", "1", "--sandbox", "off", "--log", str(log), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    strong = shlex.join([sys.executable, str(BOTS / "strong_bot.py"), "--nodes", "2000"])
    assert header(log)["bots"] == {"A": strong, "B": HEURISTIC, "C": strong, "D": HEURISTIC}


def test_a_tournament_file_names_bundled_bots(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(
        'seeds = 1\nseed = 3\nsandbox = "off"\nresults = "t/results.jsonl"\n'
        "[match]\nmax_hands = 2\n"
        '[[bot]]\nname = "heuristic"\ncommand = "bundled:heuristic"\n'
        '[[bot]]\nname = "random"\ncommand = "bundled:random"\n'
    )
    run = referee("tournament", "t.toml", "--jobs", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "t" / "results.jsonl").read_text().splitlines()
    entrants = json.loads(lines[0])["settings"]["entrants"]
    assert entrants == [
        {"name": "heuristic", "command": HEURISTIC},
        {"name": "random", "command": RANDOM},
    ]
    logs = sorted((tmp_path / "t" / "logs").glob("*.jsonl"))
    assert len(logs) == 2
    for log in logs:
        assert set(header(log)["bots"].values()) == {HEURISTIC, RANDOM}


def test_a_league_entrant_added_by_name_keeps_and_plays_its_command(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    for args in (
        ("init", str(db), "--seed", "1", "--max-hands", "2"),
        ("add", str(db), "heuristic", "bundled:heuristic"),
        ("add", str(db), "random", "bundled:random"),
        ("run", str(db), "--matches", "2", "--sandbox", "off"),
    ):
        done = referee("league", *args, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)
    with sqlite3.connect(db) as league:
        kept = dict(league.execute("SELECT name, command FROM entrants").fetchall())
    assert kept == {"heuristic": HEURISTIC, "random": RANDOM}
    logs = list(tmp_path.rglob("*.jsonl"))
    assert logs and all(set(header(log)["bots"].values()) == {HEURISTIC, RANDOM} for log in logs)


@pytest.mark.parametrize(
    "args",
    [
        ("match", "bundled:heuristc", "bundled:random"),
        ("play", "bundled:heuristc"),
        ("tournament", "--bot", "h=bundled:heuristc", "--bot", "r=bundled:random", "--seeds", "1"),
        ("league", "add", "league.db", "h", "bundled:heuristc"),
        ("check-bot", "bundled:heuristc"),
    ],
    ids=["match", "play", "tournament", "league-add", "check-bot"],
)
def test_an_unknown_bundled_name_is_one_line_naming_the_known_ones(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    if args[0] == "league":
        assert referee("league", "init", "league.db", cwd=tmp_path).returncode == 0
    run = referee(*args, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    said = one_line(run.stderr)
    assert "bundled:heuristc: no such bundled bot" in said
    assert "bundled:heuristic" in said and "bundled:random-js" in said and "referee bots" in said
    assert not list(tmp_path.rglob("*.jsonl"))  # nothing was played
