"""Record the golden logs and their renderings (run once, before a change to the referee).

    python tests/golden/record.py
    python tests/golden/record.py --renderings

The second renders the stored logs again without replaying any match: for an intended change
of a rendering (a viewer fix changes the pages' digests), then ``git diff`` shows which changed.

Each case is a real match of bundled or test bots with the sandbox off (so the log does not
depend on the machine's kernel). ``tests/record/test_golden_logs.py`` plays the same cases again
and compares the logs with everything but timings, and renders the stored logs again and
compares every rendering byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PYTHON = sys.executable
BOTS = REPO / "example_bots"
TEST_BOTS = REPO / "tests" / "bots"


def bot(path: Path, *args: str) -> str:
    return " ".join([PYTHON, str(path), *args])


#: name -> arguments of ``referee match`` (bots, seed, limits); the sandbox is always off.
MATCHES: dict[str, list[str]] = {
    # the bundled bots; hand 7 is an all-tricks contract
    "bundled": ["--seed", "7", bot(BOTS / "heuristic_bot.py"), bot(BOTS / "random_bot.py")],
    "kit": ["--seed", "11", bot(BOTS / "kit_random_bot.py"), bot(BOTS / "heuristic_bot.py")],
    # seat A answers illegally until its rejections are a fault: a forfeit
    "forfeit": ["--seed", "3", bot(TEST_BOTS / "illegal_bot.py"), bot(BOTS / "random_bot.py")],
    # the random fault policy: eight faults, each a forced random action and a strike
    "random_policy": [
        "--seed",
        "5",
        "--on-fault",
        "random",
        "--max-rejections",
        "1",
        "--max-strikes",
        "20",
        bot(TEST_BOTS / "illegal_bot.py", "--times", "8"),
        bot(BOTS / "random_bot.py"),
    ],
}

#: A two-entrant tournament with two deal seeds at one job: its later matches reuse the
#: kept bots of the first.
TOURNAMENT = [
    "--seed",
    "42",
    "--seeds",
    "2",
    "--jobs",
    "1",
    "--bot",
    f"heuristic={bot(BOTS / 'heuristic_bot.py')}",
    "--bot",
    f"random={bot(BOTS / 'random_bot.py')}",
]

#: name -> arguments of ``referee replay`` after the log's path; the output is kept.
RENDERINGS: dict[str, list[str]] = {
    "text": [],
    "seat-A": ["--seat", "A"],
    "seat-C": ["--seat", "C"],
    "public": ["--public"],
    "json": ["--json"],
    "verify": ["--verify"],
}


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def play(name: str, out: Path) -> list[Path]:
    """Play case ``name`` into ``out``; the logs it wrote, in order."""
    if name == "kept":
        done = referee(
            "tournament",
            *TOURNAMENT,
            "--sandbox",
            "off",
            "--results",
            str(out / "r.jsonl"),
            "--logs",
            str(out / "logs"),
            cwd=out,
        )
        if done.returncode:
            raise SystemExit(f"tournament failed: {done.stdout}{done.stderr}")
        return sorted((out / "logs").glob("*.jsonl"))
    log = out / f"{name}.jsonl"
    done = referee("match", *MATCHES[name], "--sandbox", "off", "--log", str(log), cwd=out)
    if done.returncode:
        raise SystemExit(f"match {name} failed: {done.stdout}{done.stderr}")
    return [log]


CASES = [*MATCHES, "kept"]


def render(log: Path, cwd: Path) -> dict[str, str]:
    """Every rendering of ``log`` (in this process, through the command line): the text
    outputs with their exit status, and the HTML pages' digests."""
    from typer.testing import CliRunner

    from referee.cli import app

    shown: dict[str, str] = {}
    for name, args in RENDERINGS.items():
        done = CliRunner().invoke(app, ["replay", str(log), *args])
        shown[name] = f"exit {done.exit_code}\n{done.stdout}"
    pages = {"html": [], "html-seat-B": ["--seat", "B"], "html-public": ["--public"]}
    for name, args in pages.items():
        page = cwd / f"{log.stem}.{name}.html"
        done = CliRunner().invoke(app, ["replay", str(log), "--html", str(page), *args])
        digest = hashlib.sha256(page.read_bytes()).hexdigest() if page.exists() else "-"
        shown[name] = f"exit {done.exit_code}\n{digest}\n"
    return shown


def normal(log: Path) -> list[dict[str, object]]:
    """A log's records without what the clock decides (timings, and the chain that hashes
    them) and with the interpreter's and the clone's paths as placeholders."""
    manifest = json.loads((HERE / "manifest.json").read_text())
    records = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        record.pop("timing", None)
        record.pop("chain", None)
        if record["type"] == "timing":
            continue
        if record["type"] == "header":
            record["bots"] = {
                seat: command.replace(PYTHON, "{python}")
                .replace(manifest["python"], "{python}")
                .replace(str(REPO), "{repo}")
                .replace(manifest["repo"], "{repo}")
                for seat, command in record["bots"].items()
            }
        records.append(record)
    return records


def write_renderings(logs_dir: Path, tmp: Path) -> None:
    """Render every stored log into ``renderings.json``."""
    renderings = {log.name: render(log, tmp) for log in sorted(logs_dir.glob("*.jsonl"))}
    (HERE / "renderings.json").write_text(json.dumps(renderings, indent=1, sort_keys=True) + "\n")


def main() -> None:
    logs_dir = HERE / "logs"
    if sys.argv[1:] == ["--renderings"]:
        with tempfile.TemporaryDirectory() as tmp:
            write_renderings(logs_dir, Path(tmp))
        return
    if sys.argv[1:]:
        raise SystemExit("usage: python tests/golden/record.py [--renderings]")
    shutil.rmtree(logs_dir, ignore_errors=True)
    logs_dir.mkdir()
    manifest: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            out = Path(tmp) / case
            out.mkdir()
            names = []
            for i, log in enumerate(play(case, out)):
                kept = logs_dir / f"{case}-{i}.jsonl"
                shutil.copyfile(log, kept)
                names.append(kept.name)
            manifest[case] = names
        write_renderings(logs_dir, Path(tmp))
    (HERE / "manifest.json").write_text(
        json.dumps({"python": PYTHON, "repo": str(REPO), "cases": manifest}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
