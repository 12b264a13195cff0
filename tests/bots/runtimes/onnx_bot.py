"""A bot with a neural network's habits: it loads a small ONNX model (``policy.onnx``, made by
``make_policy.py``) with onnxruntime and runs it before every answer, then plays the legal
action the model's largest output points at. With ``--late`` it loads the model at its first
move instead of at its start, so that a test can count the threads the session starts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort


def main() -> None:
    model = str(Path(__file__).with_name("policy.onnx"))
    session = None if "--late" in sys.argv else ort.InferenceSession(model)
    features = np.ones((1, 8), np.float32)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "onnx"}), flush=True)
        elif message["type"] == "act":
            session = session or ort.InferenceSession(model)
            scores = session.run(None, {"x": features})[0]
            legal = message["legal_actions"]
            choice = legal[int(scores.argmax()) % len(legal)]
            print(json.dumps({"type": "action", "id": message["id"], "action": choice}), flush=True)
        elif message["type"] == "match_end":
            return


if __name__ == "__main__":
    main()
