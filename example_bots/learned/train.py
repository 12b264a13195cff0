"""Train the policy network by imitation: from a dataset of a bot's decisions (``referee
dataset``), learn to choose what that bot chose, and write the network as ``.npz``.

    .venv/bin/python example_bots/learned/train.py data/strong.parquet --bot strong \\
        --out example_bots/learned/policy.npz

Each row is one decision of the named bot: the input is the seat's tensors (by default its
information state and its observation side by side), the target the action the bot took.
The network (``network.py``) scores the 73 actions; the illegal ones are masked out of the
softmax, so the loss is the cross-entropy among the legal actions only. Minibatches, Adam,
plain numpy on the CPU. A share of the matches (``--validation``) is held out, whole, and the
weights of the epoch that chose as the bot did most often on them are the ones written.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from network import SIZES, Array, Mask, Network

#: A masked action's logit: far below any real one, finite so that no NaN can come of it.
MASKED = -1e9
PHASES = ("bidding", "declaring", "playing")


@dataclass
class Data:
    """The rows to learn from: inputs (float16, to halve the memory; their values are exact
    in it but for 1/7ths), legal-action masks, the actions taken, each row's phase."""

    x: npt.NDArray[np.float16]
    masks: Mask
    actions: npt.NDArray[np.int64]
    phases: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return len(self.actions)

    def take(self, rows: npt.NDArray[np.int64]) -> Data:
        return Data(self.x[rows], self.masks[rows], self.actions[rows], self.phases[rows])


def load(path: Path, bot: str, inputs: Sequence[str]) -> tuple[Data, npt.NDArray[np.str_]]:
    """The rows of ``bot`` that it chose itself (not drawn for it after a fault), and each
    row's match."""
    from referee.dataset.columns import read

    rows = read(path, filters=[("bot", "==", bot), ("forced", "==", False)])
    if not len(rows.actions):
        raise SystemExit(f"{path}: no decisions of a bot named {bot!r}")
    tensors = {"information_state": rows.information_states, "observation": rows.observations}
    x = np.concatenate([tensors[name].astype(np.float16) for name in inputs], axis=1)
    phases = np.array([PHASES.index(p) for p in rows.table["phase"].to_pylist()], np.int8)
    data = Data(x, rows.masks.astype(bool), rows.actions.astype(np.int64), phases)
    return data, np.array(rows.table["match"].to_pylist())


def split(matches: npt.NDArray[np.str_], share: float, rng: np.random.Generator) -> Mask:
    """Which rows are held out: those of a random ``share`` of the matches."""
    names = np.unique(matches)
    held = rng.choice(names, size=round(len(names) * share), replace=False)
    return np.isin(matches, held)


def forward(network: Network, x: Array, mask: Mask) -> tuple[list[Array], Array]:
    """Each layer's input and the softmax over the legal actions."""
    layers = [x]
    for w, b in zip(network.weights[:-1], network.biases[:-1], strict=True):
        layers.append(np.maximum(layers[-1] @ w + b, 0))
    logits = layers[-1] @ network.weights[-1] + network.biases[-1]
    logits = np.where(mask, logits, MASKED)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return layers, p


def gradients(network: Network, batch: Data) -> tuple[float, list[Array], list[Array]]:
    """The mean cross-entropy of the batch and its gradients, layer by layer."""
    n = len(batch)
    layers, p = forward(network, batch.x.astype(np.float32), batch.masks)
    rows = np.arange(n)
    loss = float(-np.log(p[rows, batch.actions] + 1e-12).mean())
    delta = p
    delta[rows, batch.actions] -= 1
    delta /= n
    grad_w: list[Array] = []
    grad_b: list[Array] = []
    for i in reversed(range(len(network.weights))):
        grad_w.insert(0, layers[i].T @ delta)
        grad_b.insert(0, delta.sum(axis=0))
        if i:
            delta = (delta @ network.weights[i].T) * (layers[i] > 0)
    return loss, grad_w, grad_b


class Adam:
    """Adam, with decoupled weight decay on the weights (not the biases)."""

    def __init__(self, params: list[Array], rate: float, decay: float) -> None:
        self.params = params
        self.rate, self.decay = rate, decay
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.steps = 0

    def step(self, grads: list[Array], decayed: list[bool], rate: float) -> None:
        self.steps += 1
        b1, b2 = 0.9, 0.999
        fix1, fix2 = 1 - b1**self.steps, 1 - b2**self.steps
        for p, g, m, v, wd in zip(self.params, grads, self.m, self.v, decayed, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            if wd:
                p -= rate * self.decay * p
            p -= rate * (m / fix1) / (np.sqrt(v / fix2) + 1e-8)


def accuracy(network: Network, data: Data, batch: int = 4096) -> dict[str, float]:
    """How often the network's legal arg-max is the bot's action: overall and by phase."""
    right = np.zeros(len(data), bool)
    for start in range(0, len(data), batch):
        part = data.take(np.arange(start, min(start + batch, len(data))))
        scores = np.where(part.masks, network.logits(part.x.astype(np.float32)), -np.inf)
        right[start : start + len(part)] = scores.argmax(axis=1) == part.actions
    shares = {"all": float(right.mean()) if len(right) else 0.0}
    for i, phase in enumerate(PHASES):
        chosen = right[data.phases == i]
        shares[phase] = float(chosen.mean()) if len(chosen) else 0.0
    return shares


def train(args: argparse.Namespace) -> Network:
    rng = np.random.default_rng(args.seed)
    inputs = args.inputs.split(",")
    data, matches = load(args.dataset, args.bot, inputs)
    held = split(matches, args.validation, rng) if args.validation else np.zeros(len(data), bool)
    learn, check = data.take(np.flatnonzero(~held)), data.take(np.flatnonzero(held))
    print(
        f"{len(data)} decisions of {args.bot} from {len(np.unique(matches))} matches:"
        f" {len(learn)} to learn from, {len(check)} held out",
        flush=True,
    )
    hidden = [int(n) for n in args.hidden.split(",") if n]
    network = Network.initial(inputs, hidden, rng)
    adam = Adam([*network.weights, *network.biases], args.rate, args.decay)
    decayed = [True] * len(network.weights) + [False] * len(network.biases)
    per_epoch = max(1, -(-len(learn) // args.batch))
    total = min(args.epochs * per_epoch, args.steps or args.epochs * per_epoch)
    best, best_score, started = network, -1.0, time.monotonic()
    for epoch in range(1, -(-total // per_epoch) + 1):
        order = rng.permutation(len(learn))
        losses = []
        for start in range(0, len(learn), args.batch):
            if adam.steps >= total:
                break
            loss, gw, gb = gradients(network, learn.take(order[start : start + args.batch]))
            rate = args.rate * 0.5 * (1 + np.cos(np.pi * adam.steps / total))  # cosine decay
            adam.step([*gw, *gb], decayed, float(rate))
            losses.append(loss)
        held_out = accuracy(network, check) if len(check) else accuracy(network, learn)
        phases = ", ".join(f"{p} {held_out[p]:.1%}" for p in PHASES)
        print(
            f"epoch {epoch}: loss {np.mean(losses):.3f}, held out {held_out['all']:.1%}"
            f" ({phases}), {time.monotonic() - started:.0f} s",
            flush=True,
        )
        if held_out["all"] > best_score:
            best_score = held_out["all"]
            best = Network(
                [w.copy() for w in network.weights],
                [b.copy() for b in network.biases],
                network.inputs,
            )
    return best


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a Parquet file from referee dataset")
    parser.add_argument("--bot", default="strong", help="the bot to imitate (its rows' name)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "policy.npz")
    parser.add_argument(
        "--inputs",
        default="information_state,observation",
        help=f"the tensors the network reads, in order, among {', '.join(SIZES)}",
    )
    parser.add_argument("--hidden", default="192,192", help="hidden layer sizes")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many (0: none)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--decay", type=float, default=0.05, help="weight decay (decoupled)")
    parser.add_argument("--validation", type=float, default=0.1, help="share of matches held out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float32", action="store_true", help="write float32, not float16")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    network = train(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    network.save(args.out, half=not args.float32)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
