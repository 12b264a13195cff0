"""On a Dask cluster the bot commands are checked on the workers before the first match: a
worker started in another directory, where a relative bot path names nothing, is a usage
mistake (exit 2) naming the worker, the entrant, the command and the worker's directory —
not a tournament of void matches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cluster import dask, scheduler_address, stop
from support.processes import referee

from referee.running import cluster as cluster_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    """A real scheduler and one worker, the worker started in a directory of its own."""
    distributed = pytest.importorskip("distributed")
    home = tmp_path / "worker-home"
    home.mkdir()
    file = tmp_path / "scheduler.json"
    started = [
        dask(
            "scheduler",
            "--scheduler-file",
            str(file),
            "--port",
            "0",
            "--no-dashboard",
            cwd=tmp_path,
            log=tmp_path / "scheduler.log",
        )
    ]
    try:
        address = scheduler_address(file, tmp_path / "scheduler.log")
        started.append(
            dask(
                "worker",
                address,
                "--nthreads",
                "1",
                "--no-dashboard",
                cwd=home,
                log=tmp_path / "worker.log",
            )
        )
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        stop(started)


def test_a_relative_bot_path_missing_on_a_worker_is_a_usage_mistake(
    tmp_path: Path, cluster: str
) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "mine.py").write_text((ROOT / "example_bots" / "random_bot.py").read_text())
    results = tmp_path / "out" / "results.jsonl"
    run = referee(
        "tournament",
        *("--bot", "mine=python3 bots/mine.py", "--bot", f"abs=python3 {bots / 'mine.py'}"),
        *("--seeds", "1", "--dask", cluster, "--results", str(results)),
        cwd=tmp_path,
    )
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()[-1:]
    assert "Dask worker tcp://" in line and f"working directory {tmp_path / 'worker-home'}" in line
    assert "cannot start entrant mine: bots/mine.py: no such file" in line
    assert not results.exists()  # refused before anything was written


def test_commands_that_every_worker_can_start_are_played(tmp_path: Path, cluster: str) -> None:
    bot = ROOT / "example_bots" / "random_bot.py"
    results = tmp_path / "out" / "results.jsonl"
    run = referee(
        "tournament",
        *("--bot", f"a=python3 {bot}", "--bot", f"b=python3 {bot}", "--seeds", "1"),
        *("--dask", cluster, "--sandbox", "off", "--results", str(results), "--json"),
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["played"] == 2


def test_an_unreachable_scheduler_is_a_usage_mistake(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1)
    with pytest.raises(cluster_module.ClusterError) as raised:
        cluster_module.check_workers("tcp://127.0.0.1:9", {"a": "python3 x.py"})
    assert str(raised.value).startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    assert str(raised.value).endswith(
        "start it with 'dask scheduler' and give the address it prints"
    )


def test_a_worker_that_cannot_run_the_check_is_a_usage_mistake(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    distributed = pytest.importorskip("distributed")

    def broken(commands: dict[str, str]) -> None:
        raise ModuleNotFoundError("No module named 'referee'")

    monkeypatch.setattr(cluster_module, "commands_here", broken)
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as local,
        pytest.raises(cluster_module.ClusterError) as raised,
    ):
        cluster_module.check_workers(local.scheduler_address, {"a": "python3 x.py"})
    assert "could not check the bot commands (ModuleNotFoundError" in str(raised.value)
    assert str(raised.value).endswith("is this referee installed there, in the same version?")
