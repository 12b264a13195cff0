"""The policy network, in numpy: a small MLP from a seat's tensors to one score per action
index, the illegal actions masked out, and its ``.npz`` file.

The input is the seat's tensors side by side, in the order ``inputs`` names them
(``information_state``, 2575 floats, then ``observation``, 502: ``docs/env.md``), the same
whether they come from a dataset's rows (``train.py``) or from a live decision
(``learned_bot.py``, through ``referee.env.decisions``). Hidden layers are ReLU; the last
layer's 73 outputs are the logits over the action index, and the action played is the legal
one with the highest. The file holds each layer's weights and biases (``w0``, ``b0``, ``w1``,
...; float16 by default, computed in float32) and ``inputs``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

#: The tensors a network may read, and their sizes (``referee.env.layout``).
SIZES: Final = {"information_state": 2575, "observation": 502}
#: The number of actions: the action index 0-72.
ACTIONS: Final = 73


@dataclass
class Network:
    """The layers' weights (``weights[i]``: inputs by outputs) and biases, and the tensors the
    first layer reads, in order."""

    weights: list[Array]
    biases: list[Array]
    inputs: tuple[str, ...]

    @classmethod
    def initial(
        cls, inputs: Sequence[str], hidden: Sequence[int], rng: np.random.Generator
    ) -> Network:
        """Fresh weights (He initialisation for ReLU), zero biases."""
        sizes = [sum(SIZES[name] for name in inputs), *hidden, ACTIONS]
        weights = [
            (rng.standard_normal((m, n)) * np.sqrt(2.0 / m)).astype(np.float32)
            for m, n in itertools.pairwise(sizes)
        ]
        biases = [np.zeros(n, np.float32) for n in sizes[1:]]
        return cls(weights, biases, tuple(inputs))

    def features(self, tensors: Mapping[str, Array]) -> Array:
        """The first layer's input: the named tensors side by side (one row or a batch)."""
        return np.concatenate([tensors[name] for name in self.inputs], axis=-1)

    def logits(self, x: Array) -> Array:
        """The scores over the 73 actions, for one input or a batch (legal or not)."""
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = np.maximum(x @ w + b, 0)
        return x @ self.weights[-1] + self.biases[-1]

    def act(self, tensors: Mapping[str, Array], mask: Mask) -> int:
        """The legal action index with the highest score."""
        scores = self.logits(self.features(tensors))
        return int(np.where(mask, scores, -np.inf).argmax())

    def save(self, path: Path | str, half: bool = True) -> None:
        """Write the ``.npz``: float16 weights when ``half`` (half the size, the same play)."""
        kind = np.float16 if half else np.float32
        arrays: dict[str, npt.NDArray[np.generic]] = {"inputs": np.array(self.inputs)}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(kind), b.astype(kind)
        with open(path, "wb") as file:
            np.savez_compressed(file, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path | str) -> Network:
        """Read a ``.npz`` written by ``save``."""
        with np.load(path, allow_pickle=False) as data:
            layers = sum(1 for key in data.files if key.startswith("w"))
            weights = [data[f"w{i}"].astype(np.float32) for i in range(layers)]
            biases = [data[f"b{i}"].astype(np.float32) for i in range(layers)]
            inputs = tuple(str(name) for name in data["inputs"])
        network = cls(weights, biases, inputs)
        network.check()
        return network

    def check(self) -> None:
        """Raise ``ValueError`` unless the layers fit together and the inputs are known."""
        unknown = [name for name in self.inputs if name not in SIZES]
        if unknown or not self.inputs:
            raise ValueError(f"inputs must be among {', '.join(SIZES)}, not {unknown}")
        size = sum(SIZES[name] for name in self.inputs)
        for w, b in zip(self.weights, self.biases, strict=True):
            if w.ndim != 2 or w.shape[0] != size or b.shape != (w.shape[1],):
                raise ValueError(f"a layer of shape {w.shape} does not take {size} inputs")
            size = w.shape[1]
        if size != ACTIONS:
            raise ValueError(f"the last layer gives {size} scores, not {ACTIONS}")
