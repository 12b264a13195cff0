"""A bot that plays a trained policy network: at each decision, the legal action it scores
highest.

    .venv/bin/python example_bots/learned/learned_bot.py                  # policy.npz beside it
    .venv/bin/python example_bots/learned/learned_bot.py --model my.npz   # or another file

The network (``network.py``, trained by ``train.py``) reads the seat's tensors exactly as
the environments and ``referee dataset`` make them; ``referee.env.decisions`` computes them
from what the seat was sent — the information state from ``decision.seen`` (the dealer, the
marks, the tiles dealt, every action of the hand), the observation from ``decision.view`` —
so the bot sees at the table what the network saw in training. The model file is named by
the command (``--model``) or ``LEARNED_MODEL``, else ``policy.npz`` in this folder: a
sandboxed bot may read the files its command names and its own folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

# One decision is one small matrix product: a BLAS that spreads it over threads only waits on
# them (tens of ms a decision on a busy machine, against well under one on one thread).
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from network import Network  # noqa: E402

from referee.bot import Decision, run  # noqa: E402
from referee.bot.loop import Strategy  # noqa: E402
from referee.env.actions import INDEX  # noqa: E402
from referee.env.decisions import information_state_of, mask_of, observation_of  # noqa: E402
from referee.rules.actions import Action  # noqa: E402

#: The model this bot plays unless told another.
MODEL = Path(__file__).resolve().parent / "policy.npz"


def strategy_of(network: Network) -> Strategy:
    """The kit strategy that plays ``network``'s highest legal action."""
    makers = {"information_state": information_state_of, "observation": observation_of}

    def strategy(decision: Decision) -> Action:
        tensors = {name: makers[name](decision) for name in network.inputs}
        index = network.act(tensors, mask_of(decision))
        return next(a for a in decision.legal_actions if INDEX[a] == index)

    return strategy


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model",
        type=Path,
        default=Path(os.environ.get("LEARNED_MODEL", MODEL)),
        help="the network's .npz (default: LEARNED_MODEL, else policy.npz beside this file)",
    )
    parser.add_argument("--name", default="learned", help="the name the bot gives")
    args = parser.parse_args(argv)
    try:
        network = Network.load(args.model)
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"learned bot: cannot load {args.model}: {error} (train.py writes one)")
    layers = " -> ".join(str(w.shape[1]) for w in network.weights)
    print(
        f"learned bot: {args.model.name}, {'+'.join(network.inputs)} -> {layers}", file=sys.stderr
    )
    run(strategy_of(network), name=args.name)


if __name__ == "__main__":
    main()
