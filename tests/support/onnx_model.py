"""The smallest ONNX policy worth loading, written as protobuf bytes: one 8x8 matrix product
(``y = x · W``, ``x`` of shape 1x8), as a trained policy's last layer would be.

No ``onnx`` package is needed: an ONNX model is a ``ModelProto`` message, and the few fields
a graph of one node uses are written here by their numbers in ``onnx.proto`` (varints and
length-delimited fields), which onnxruntime reads as it reads any model.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Final

#: The size of the input and output vectors.
WIDTH: Final = 8
#: ``TensorProto.FLOAT``.
_FLOAT: Final = 1
#: Read by every onnxruntime since 1.10.
_IR_VERSION: Final = 8
_OPSET: Final = 13


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _number(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _tensor_type(name: str, *dims: int) -> bytes:
    """A ``ValueInfoProto``: a float tensor of shape ``dims``."""
    shape = b"".join(_bytes(1, _number(1, dim)) for dim in dims)  # TensorShapeProto.dim
    tensor = _number(1, _FLOAT) + _bytes(2, shape)  # TypeProto.Tensor: elem_type, shape
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor))  # name, type (tensor_type)


def policy_bytes() -> bytes:
    """The model: ``y = x · W``, W's entries 0, 1/64, …, 63/64 (row by row)."""
    weights = struct.pack(f"<{WIDTH * WIDTH}f", *(n / 64 for n in range(WIDTH * WIDTH)))
    initializer = (
        _number(1, WIDTH) + _number(1, WIDTH) + _number(2, _FLOAT) + _bytes(8, "W")
    ) + _bytes(9, weights)  # dims, data_type, name, raw_data
    node = _bytes(1, "x") + _bytes(1, "W") + _bytes(2, "y") + _bytes(4, "MatMul")
    graph = (
        _bytes(1, node)
        + _bytes(2, "policy")
        + _bytes(5, initializer)
        + _bytes(11, _tensor_type("x", 1, WIDTH))
        + _bytes(12, _tensor_type("y", 1, WIDTH))
    )
    opset = _bytes(1, "") + _number(2, _OPSET)  # OperatorSetIdProto: domain, version
    return _number(1, _IR_VERSION) + _bytes(7, graph) + _bytes(8, opset)


def write_policy(path: Path) -> Path:
    """The model written at ``path`` (readable by every user, as a shared model file is)."""
    path.write_bytes(policy_bytes())
    path.chmod(0o644)
    return path
