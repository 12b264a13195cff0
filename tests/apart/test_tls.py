"""Seats apart over a cluster that speaks TLS only (``require-encryption``): the lines go
through Dask's own comm, so they are encrypted and authenticated as the cluster is; a
referee without the cluster's certificates is refused in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from support.cluster import dask, scheduler_address, stop
from support.processes import referee

distributed = pytest.importorskip("distributed")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _certificates(home: Path) -> Path:
    """A CA and one certificate it signed (every node may use it), and Dask's configuration
    for them; the folder to give as ``DASK_CONFIG``."""
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=texas42-test-ca",
        cwd=home,
    )
    _openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "node.key",
        "-out",
        "node.csr",
        "-subj",
        "/CN=node",
        cwd=home,
    )
    _openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "node.pem", "-days", "2", cwd=home)  # fmt: skip
    pair = f"{{cert: {home / 'node.pem'}, key: {home / 'node.key'}}}"
    config = home / "config"
    config.mkdir()
    (config / "dask.yaml").write_text(
        "distributed:\n  comm:\n    require-encryption: true\n    tls:\n"
        f"      ca-file: {home / 'ca.pem'}\n      scheduler: {pair}\n      worker: {pair}\n"
        f"      client: {pair}\n"
    )
    return config


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed: no certificates to test TLS with")
    home = tmp_path_factory.mktemp("tls")
    config = _certificates(home)
    env = {**os.environ, "DASK_CONFIG": str(config)}
    file = home / "scheduler.json"
    started = [
        dask("scheduler", "--protocol", "tls", "--port", "0", "--scheduler-file", str(file),
             "--no-dashboard", cwd=home, log=home / "scheduler.log", env=env)
    ]  # fmt: skip
    try:
        address = scheduler_address(file, home / "scheduler.log")
        assert address.startswith("tls://")
        started.append(
            dask("worker", address, "--nworkers", "4", "--nthreads", "1", "--no-dashboard",
                 cwd=home, log=home / "workers.log", env=env)
        )  # fmt: skip
        security = distributed.security.Security(
            tls_ca_file=str(home / "ca.pem"), tls_client_cert=str(home / "node.pem"),
            tls_client_key=str(home / "node.key"), require_encryption=True,
        )  # fmt: skip
        with distributed.Client(address, timeout=30, security=security) as client:
            client.wait_for_workers(4, timeout=90)
        yield address, config
    finally:
        stop(started)


def test_a_match_apart_over_tls(tls_cluster: tuple[str, Path], tmp_path: Path) -> None:
    address, config = tls_cluster
    log = tmp_path / "tls.jsonl"
    done = referee(
        "match", RANDOM_BOT, RANDOM_BOT, "--log", str(log), "--dask", address,
        "--seats-apart=workers", cwd=tmp_path, env={"DASK_CONFIG": str(config)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header = json.loads(log.read_text().splitlines()[0])
    assert all(
        place["worker"].startswith("tls://") for place in header["placement"]["seats"].values()
    )
    assert referee("replay", "--verify", str(log), cwd=tmp_path).returncode == 0


def test_a_referee_without_the_certificates_is_refused(
    tls_cluster: tuple[str, Path], tmp_path: Path
) -> None:
    address, _ = tls_cluster
    log = tmp_path / "refused.jsonl"
    done = referee(
        "match", "--log", str(log), "--dask", address, "--seats-apart=workers", cwd=tmp_path,
        env={"DASK_CONFIG": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "TLS configuration" in done.stderr
    assert not log.exists()
