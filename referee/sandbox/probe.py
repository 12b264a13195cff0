"""``referee sandbox``: each layer on this machine — available or not and exactly why — and
a real sandboxed child that tries what each layer forbids, so a layer that is "on" has been
seen to work here, before the event, not assumed to.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import msgspec

from referee.record.sandbox import Layer
from referee.rules.tiles import SEATS
from referee.sandbox import cgroups
from referee.sandbox.layers import LAYERS, available, held_by, is_root
from referee.sandbox.paths import unreadable_by_others
from referee.settings import MatchLimits, SandboxSettings

#: The child: each check prints whether the forbidden thing happened.
_CHILD = r"""
import ctypes, json, os, socket, sys
found = {}
def attempt(name, action):
    try:
        action()
        found[name] = "open"
    except OSError as exc:
        found[name] = "blocked: " + (exc.strerror or str(exc))
attempt("landlock", lambda: open(os.environ["PROBE_SECRET"]).read())
attempt("private-root", lambda: os.stat(os.environ["PROBE_SECRET"]))  # stat: not Landlock's
port = int(os.environ["PROBE_PORT"])
attempt("landlock-net", lambda: socket.create_connection(("127.0.0.1", port), 1).close())
attempt("landlock-scope", lambda: os.kill(os.getppid(), 0))
referee = int(os.environ["PROBE_REFEREE"])  # in a PID namespace of its own it has no name
attempt("namespaces", lambda: os.getpriority(os.PRIO_PROCESS, referee))
def escape():
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.setsid()
            os.write(write, b"open")
        except OSError as exc:
            os.write(write, b"blocked: " + exc.strerror.encode())
        os._exit(0)
    said = os.read(read, 100).decode()
    os.waitpid(child, 0)
    if said != "open":
        raise OSError(1, said.split(": ", 1)[1])
attempt("seccomp", escape)
libc = ctypes.CDLL(None)
found["no-caps"] = "capabilities: " + ("none" if libc.prctl(23, 0, 0, 0, 0) == 0 else "kept")
found["uid"] = f"uid {os.getuid()}"
import resource
data = resource.getrlimit(resource.RLIMIT_DATA)[0] >> 20
cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
found["rlimits"] = f"data segment {data} MiB, {cpu} s CPU per process"
print(json.dumps(found))
"""


class LayerCheck(msgspec.Struct, frozen=True):
    """One row of the table."""

    layer: Layer
    works: bool
    detail: str
    protects: str


def _interpreter() -> str:
    """An interpreter for the child that other users can run, if there is one (so the per-seat
    uid can be seen at work), else this one."""
    for candidate in ("/usr/bin/python3", sys.executable):
        if os.path.exists(candidate) and unreadable_by_others([candidate]) is None:
            return candidate
    return sys.executable


def _observe(limits: MatchLimits, private_root: bool = False) -> dict[str, str]:
    """Run the child under every available layer (and a root of its own, when asked: then
    nothing outside its allow-list exists for it, and the other checks would see that
    instead of their layer); what it managed, per layer."""
    from referee.sandbox.policy import plan
    from referee.sandbox.seats import MatchJails

    secret_dir = Path(tempfile.mkdtemp(prefix="texas42-probe-"))
    secret = secret_dir / "secret"
    secret.write_text("a deal")
    secret_dir.chmod(0o755)
    secret.chmod(0o644)  # only the sandbox, not file permissions, may keep it out
    python = _interpreter()
    command = f"{python} -I -S -c pass"
    settings = SandboxSettings(private_root=private_root or None)
    sandbox = plan(settings, limits, dict.fromkeys(SEATS, command))
    jails = MatchJails(sandbox)
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            jail = jails.jail("A")
            assert jail is not None
            env = {**jail.environment(), "PROBE_SECRET": str(secret)}
            env["PROBE_REFEREE"] = str(os.getpid())
            env["PROBE_PORT"] = str(server.getsockname()[1])
            run = subprocess.run(
                [python, "-I", "-S", "-c", _CHILD],
                preexec_fn=jail.enter,
                env=env,
                capture_output=True,
                timeout=20,
                start_new_session=True,
                check=False,
            )
            jail.kill()
            jail.close()
        if run.returncode != 0:
            reason = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            return {"all": f"the sandboxed child failed: {reason[0]}"}
        observed: dict[str, str] = json.loads(run.stdout)
        observed["layers"] = ",".join(sandbox.report.seats["A"])
        return observed
    finally:
        jails.close()
        shutil.rmtree(secret_dir, ignore_errors=True)


def doctor(limits: MatchLimits | None = None) -> list[LayerCheck]:
    """Every layer: whether it works here, the exact reason or what was seen, and what it
    protects."""
    limits = limits or MatchLimits()
    machine = available()
    seen = _observe(limits)
    if machine[Layer.PRIVATE_ROOT] is None:
        rooted = _observe(limits, private_root=True)
        seen[Layer.PRIVATE_ROOT] = rooted.get(Layer.PRIVATE_ROOT, rooted.get("all", "open"))
    applied = seen.get("layers", "").split(",")
    rows = []
    for layer in Layer:
        protects, why = LAYERS[layer].protects, machine[layer]
        if layer == Layer.NO_CAPS and is_root():
            why = None
        if why is not None:
            rows.append(LayerCheck(layer, False, why, protects))
            continue
        if "all" in seen:
            rows.append(LayerCheck(layer, False, seen["all"], protects))
            continue
        result = seen.get(layer, "")
        works = not result.startswith("open") and result != "capabilities: kept"
        detail = result or "applied"
        if layer == Layer.UID and layer not in applied:
            works, detail = True, "available; a seat gets one when other users can run its runtime"
        elif layer == Layer.UID:
            detail = f"the child ran as {result}, not {os.getuid()}"
            works = result != f"uid {os.getuid()}"
        elif layer == Layer.NO_CAPS and layer not in applied:
            works = True
            detail = "not needed where a seat has its own uid; applied to seats left as root"
        elif layer == Layer.TMPFS:
            detail = f"{limits.scratch_mb} MiB of scratch per seat, in memory"
        elif layer == Layer.PAGE_CACHE:
            how = "locked in memory" if is_root() else "read three times (locking needs root)"
            detail = f"every page a bot may read {how} before its first match"
        elif layer == Layer.REAPER:
            detail = "a reaper process and the parent-death signal end every bot"
        elif layer == Layer.CGROUP:
            detail = f"{limits.memory_mb} MiB and {limits.max_processes} processes per seat's tree"
            if cgroups.find().cpu is None:
                detail += "; no CPU share per seat (no cpu controller here)"
            else:
                detail += ", an equal CPU share"
        elif layer == Layer.PRIVATE_ROOT:  # asked for with --sandbox-private-root
            works = result.startswith("blocked: No such file")
            detail = (
                f"a file outside the seat's allow-list does not exist for it ({result})"
                if works
                else f"NOT ENFORCED: stat of a file outside the allow-list: {result}"
            )
        elif layer == Layer.NAMESPACES and works:
            detail = f"the referee's pid names nothing in the seat ({result})"
        elif layer in (*held_by(Layer.LANDLOCK), Layer.SECCOMP, Layer.NAMESPACES):
            detail = ("forbidden and " + result) if works else f"NOT ENFORCED: {result}"
        rows.append(LayerCheck(layer, works, detail, protects))
    return rows
