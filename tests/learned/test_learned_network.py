"""The example's network and its training step: the gradients are the loss's (against finite
differences), an illegal action is never chosen however it scores, a few steps of Adam learn
a batch, and the ``.npz`` reads back as it was written (float16: the same choices)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from network import SIZES, Network
from train import Adam, Data, gradients


def _batch(rng: np.random.Generator, n: int, size: int) -> Data:
    masks = rng.random((n, 73)) < 0.3
    masks[np.arange(n), rng.integers(0, 73, n)] = True
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    x = (rng.random((n, size)) < 0.1).astype(np.float16)
    return Data(x, masks, actions, np.zeros(n, np.int8))


def _loss(network: Network, batch: Data) -> float:
    return gradients(network, batch)[0]


def test_the_gradients_are_the_losss() -> None:
    rng = np.random.default_rng(1)
    network = Network.initial(["observation"], [8, 6], rng)
    network.weights = [w.astype(np.float64) for w in network.weights]
    network.biases = [b.astype(np.float64) + 0.1 for b in network.biases]  # type: ignore[misc]
    batch = _batch(rng, 12, SIZES["observation"])
    batch.x = batch.x.astype(np.float64)
    _, grad_w, grad_b = gradients(network, batch)
    for params, grads in ((network.weights, grad_w), (network.biases, grad_b)):
        for p, g in zip(params, grads, strict=True):
            for at in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(6)]:
                was = p[at]
                p[at] = was + 1e-6
                up = _loss(network, batch)
                p[at] = was - 1e-6
                down = _loss(network, batch)
                p[at] = was
                assert g[at] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7)


def test_an_illegal_action_is_never_chosen() -> None:
    rng = np.random.default_rng(2)
    network = Network.initial(["observation"], [4], rng)
    network.biases[-1][:] = 0
    network.biases[-1][7] = 1e6  # action 7 scores far above every other
    tensors = {"observation": np.zeros(SIZES["observation"], np.float32)}
    mask = np.zeros(73, bool)
    assert network.act(tensors, ~mask) == 7
    mask[[3, 50]] = True
    assert network.act(tensors, mask) in (3, 50)


def test_a_few_steps_of_adam_learn_a_batch() -> None:
    rng = np.random.default_rng(3)
    network = Network.initial(["information_state"], [32], rng)
    batch = _batch(rng, 64, SIZES["information_state"])
    adam = Adam([*network.weights, *network.biases], 1e-2, 0.0)
    decayed = [True] * len(network.weights) + [False] * len(network.biases)
    first = _loss(network, batch)
    for _ in range(60):
        _, gw, gb = gradients(network, batch)
        adam.step([*gw, *gb], decayed, 1e-2)
    assert _loss(network, batch) < first / 4


@pytest.mark.parametrize("half", [True, False])
def test_the_file_reads_back(tmp_path: Path, half: bool) -> None:
    rng = np.random.default_rng(4)
    network = Network.initial(["information_state", "observation"], [16, 8], rng)
    network.save(tmp_path / "n.npz", half=half)
    again = Network.load(tmp_path / "n.npz")
    assert again.inputs == ("information_state", "observation")
    x = (rng.random((50, 2575 + 502)) < 0.05).astype(np.float32)
    if half:
        mask = np.ones(73, bool)
        for row in x:
            scores = network.logits(row)
            top2 = np.sort(scores)[-2:]
            if top2[1] - top2[0] > 0.05:  # float16 keeps any choice not a near tie
                split = {"information_state": row[:2575], "observation": row[2575:]}
                assert again.act(split, mask) == int(scores.argmax())
    else:
        np.testing.assert_array_equal(again.logits(x), network.logits(x))


def test_a_file_whose_layers_do_not_fit_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    network = Network.initial(["observation"], [8], rng)
    network.inputs = ("information_state",)
    network.save(tmp_path / "n.npz")
    with pytest.raises(ValueError, match="does not take 2575 inputs"):
        Network.load(tmp_path / "n.npz")
