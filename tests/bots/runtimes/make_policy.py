"""Writes ``policy.onnx`` beside this file: one 8x8 matrix product, the smallest model that
still makes onnxruntime start its thread pools (``pip install onnx numpy`` to run it)."""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main() -> None:
    weights = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(8, 8) / 64, "W")
    node = helper.make_node("MatMul", ["x", "W"], ["y"])
    graph = helper.make_graph(
        [node],
        "policy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [weights],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # read by every onnxruntime since 1.10
    onnx.save(model, str(Path(__file__).with_name("policy.onnx")))


if __name__ == "__main__":
    main()
