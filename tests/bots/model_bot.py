"""A bot as a model's author enters it: it loads an ONNX policy with onnxruntime at its start
and runs it before every answer, playing the legal action the model's largest output points
at.

The model's path is the value of the environment variable ``--model-from`` names (the way a
training setup hands it over, ``MODEL=/srv/models/policy.onnx``), else ``policy.onnx``
beside this file. With ``--sizes``, the bot first writes on stderr, as one JSON line, what
it sees of its machine: CPUs, memory, the thread-count variables it was given, how long its
session took to make.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

#: The variables that set a numeric runtime's thread count.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "ORT_INTRA_OP_NUM_THREADS",
)


def _memory_total() -> int | None:
    """``MemTotal`` of ``/proc/meminfo`` in bytes, None when it cannot be read."""
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    kilobytes = next(line.split()[1] for line in text.splitlines() if line.startswith("MemTotal"))
    return int(kilobytes) * 1024


def _sizes(seconds: float) -> dict[str, object]:
    return {
        "cpus": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)),
        "memory": os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"),
        "meminfo": _memory_total(),
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
        "session_ms": round(seconds * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-from", help="the variable that names the model's path")
    parser.add_argument("--sizes", action="store_true")
    options = parser.parse_args()
    if options.model_from:
        model = os.environ[options.model_from]
    else:
        model = str(Path(__file__).resolve().with_name("policy.onnx"))
    started = time.perf_counter()
    session = ort.InferenceSession(model)
    if options.sizes:
        print(json.dumps(_sizes(time.perf_counter() - started)), file=sys.stderr, flush=True)
    features = np.ones((1, 8), np.float32)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "model"}), flush=True)
        elif message["type"] == "act":
            scores = session.run(None, {"x": features})[0]
            legal = message["legal_actions"]
            choice = legal[int(scores.argmax()) % len(legal)]
            print(json.dumps({"type": "action", "id": message["id"], "action": choice}), flush=True)
        elif message["type"] == "match_end":
            return


if __name__ == "__main__":
    main()
