"""A league's standings show failures: a version whose bot crashes in some of its matches has
its faults and forfeits counted (table, ``--json``, the report) from what the results
recorded; the rating column shows the interval whose low end orders the table; and a league
recorded before the fault columns existed gets them filled in by its first writer."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support.processes import referee
from support.tournaments import RANDOM

from referee.running.results import MatchResult

#: The random bot, except that it crashes at its first decision of a match whose deal seed
#: is odd: about half its pairs end in its forfeit, after a fault (``crashed``).
CRASHING = """
import json, random, sys
rng = random.Random()
crash = False
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        rng.seed(message["seed"])
        crash = message["seed"] % 2 == 1
        print(json.dumps({"type": "ready", "name": "crashing", "matches": "many"}), flush=True)
    elif message.get("type") == "act":
        if crash:
            print("Traceback: boom", file=sys.stderr, flush=True)
            sys.exit(3)
        action = rng.choice(message["legal_actions"])
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
"""


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league of the random bot and a crashing one, twelve matches."""
    tmp = tmp_path_factory.mktemp("failing")
    bot = tmp / "crashing_bot.py"
    bot.write_text(CRASHING)
    db = tmp / "league.db"
    for args in (
        ("init", str(db), "--seed", "3", "--max-hands", "3"),
        ("add", str(db), "random", RANDOM),
        ("add", str(db), "crashing", f"{sys.executable} {bot}"),
        ("run", str(db), "--matches", "12", "--sandbox", "off", "--jobs", "2"),
    ):
        done = referee("league", *args, cwd=tmp)
        assert done.returncode == 0, (args, done.stderr)
    return db


def _recorded(db: Path) -> dict[str, tuple[int, int, int]]:
    """Each entrant's (played, faults, forfeits), counted from the results recorded."""
    counts: dict[str, list[int]] = {"random": [0, 0, 0], "crashing": [0, 0, 0]}
    with sqlite3.connect(db) as connection:
        blobs = [row[0] for row in connection.execute("SELECT result FROM matches")]
    for result in (msgspec.json.decode(blob, type=MatchResult) for blob in blobs):
        for seat, reasons in result.faults.items():
            name = result.seats[seat].split("@")[0]
            counts[name][1] += sum(reasons.values())  # neither bot has an answer refused
        for name in ("random", "crashing"):
            counts[name][0] += not result.void
        if result.forfeit is not None:
            counts[result.seats[result.forfeit.seat].split("@")[0]][2] += 1
    return {name: (a, b, c) for name, (a, b, c) in counts.items()}


def _standings(db: Path) -> dict[str, dict[str, Any]]:
    done = referee("league", "standings", str(db), "--json", cwd=db.parent)
    assert done.returncode == 0, done.stderr
    return {row["name"]: row for row in json.loads(done.stdout)["standings"]}


def test_standings_count_a_crashing_versions_faults_and_forfeits(league: Path) -> None:
    recorded = _recorded(league)
    crashing_forfeits = recorded["crashing"][2]
    assert 0 < crashing_forfeits < 12, recorded  # some of its matches, not all
    rows = _standings(league)
    for name, (played, faults, forfeits) in recorded.items():
        row = rows[name]
        assert (row["played"], row["faults"], row["forfeits"]) == (played, faults, forfeits)
        assert row["matches"] == row["played"] and row["void"] == 0
    assert rows["crashing"]["faults"] >= crashing_forfeits
    assert rows["random"]["faults"] == rows["random"]["forfeits"] == 0
    # The interval shown is the one that orders: mu ± 3 sigma, ordered by its low end.
    ordered = [row["rating_ordinal"] for row in rows.values()]
    assert ordered == sorted(ordered, reverse=True)
    for row in rows.values():
        assert row["rating_low"] == pytest.approx(row["rating_ordinal"])
        assert row["rating_low"] == pytest.approx(row["rating"] - 3 * row["rating_sigma"])
        assert row["rating_high"] == pytest.approx(row["rating"] + 3 * row["rating_sigma"])
    # The table says the same, with the rating as mu ± 3 sigma and marks a match.
    text = referee("league", "standings", str(league), cwd=league.parent).stdout
    header = next(line for line in text.splitlines() if "entrant" in line)
    for column in ("rating μ ± 3σ", "played", "marks/match", "faults", "forfeits", "void"):
        assert column in header, header
    line = next(line for line in text.splitlines() if "crashing" in line and "v1" in line)
    cells = [cell.strip() for cell in line.strip("│ ").split("│")]
    crashing = rows["crashing"]
    assert cells[2] == f"{crashing['rating']:.1f} ± {3 * crashing['rating_sigma']:.1f}"
    assert cells[7:10] == [str(crashing["faults"]), str(crashing["forfeits"]), "0"]


def test_the_league_report_shows_faults_and_forfeits(league: Path) -> None:
    out = league.parent / "league.html"
    done = referee("league", "report", str(league), str(out), cwd=league.parent)
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    header = page[page.index('<section id="standings">') : page.index("</thead>")]
    assert "<th>faults</th><th>forfeits</th><th>void</th>" in header
    row = page[page.index('<tr data-name="crashing@v1">') :].split("</tr>")[0]
    forfeits = _standings(league)["crashing"]["forfeits"]
    assert f'<td class="fault">{forfeits}</td>' in row


def test_a_league_from_before_the_fault_columns_gets_them_from_its_first_writer(
    league: Path, tmp_path: Path
) -> None:
    before = _standings(league)
    old = tmp_path / "old.db"
    shutil.copy(league, old)
    with sqlite3.connect(old) as connection:  # the schema as it was: version 1
        connection.execute("DROP INDEX matches_standings")
        connection.execute("DROP INDEX matches_stderr")
        for column in ("first_faults", "second_faults", "forfeit", "stderr"):
            connection.execute(f"ALTER TABLE matches DROP COLUMN {column}")
        connection.execute("PRAGMA user_version = 1")
    refused = referee("league", "standings", str(old), cwd=tmp_path)
    assert refused.returncode == 2 and "older schema" in refused.stderr
    writer = referee("league", "retire", str(old), "random", cwd=tmp_path)
    assert writer.returncode == 0, writer.stderr
    after = _standings(old)
    for name in ("random", "crashing"):
        for key in ("played", "faults", "forfeits", "void"):
            assert after[name][key] == before[name][key], (name, key)
