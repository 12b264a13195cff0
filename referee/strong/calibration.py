"""From the simulated chance of making a contract to how often the bot's own play makes it.

The bidding simulation (``auction``) solves each sampled deal double dummy — every hand known
to both sides — which makes contracts more often than real play, where the declarer does
not see its partner's tiles nor the defenders'. This map corrects it: the real chance is
``sigmoid(intercept + slope * logit(simulated) + model * logit(modelled) + per_point *
(level - 30))``, where ``modelled`` is the fitted feature model's chance (``bidding``): the
two together predict the bot's own results better than either alone (the simulation sees
the other tiles' lie, the model what a hand makes of itself when its partner's tiles are
unknown). ``all_tricks`` is added for an all-tricks contract; while the logs hold too few
of them to fit it, it is None and all tricks is bid only with a hand that cannot lose a
trick.

A pass that lets an opponent's contract stand is priced by the chance the opponents make it
against the bot: ``sigmoid(defence_intercept + defence_slope * logit(simulated))`` from the
share of deals in which the simulation finds it made (the opponent's hand drawn as its bid
makes likely, its trump the one it most likely names), or ``opponents_make``, the share of
all the opponents' contracts made against the bot, where no deal was solved.

It is fitted (``python -m referee.strong.calibrate LOGS``) to the contracts the bot declared
in match logs, each one's simulated chance recomputed from the log's deal and auction, and
shipped as ``calibration.json`` beside ``bidding.json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

CALIBRATION: Final = Path(__file__).with_name("calibration.json")
#: Simulated chances are kept this far from 0 and 1 (a handful of worlds can all agree).
EDGE: Final = 0.02


def logit(p: float) -> float:
    p = min(1 - EDGE, max(EDGE, p))
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Calibration:
    intercept: float = 0.0
    slope: float = 1.0
    model: float = 0.0
    per_point: float = 0.0
    all_tricks: float | None = None
    opponents_make: float = 0.5
    defence_intercept: float | None = None
    defence_slope: float | None = None

    def chance(self, simulated: float, modelled: float, level: int | None) -> float:
        """The real chance of making a contract at ``level`` points (None: all tricks) that
        the simulation makes in ``simulated`` of its worlds and the feature model gives
        ``modelled``."""
        z = self.intercept + self.slope * logit(simulated) + self.model * logit(modelled)
        if level is not None:
            z += self.per_point * (level - 30)
        elif self.all_tricks is not None:
            z += self.all_tricks
        else:
            return 0.0  # never estimated: all tricks only for a hand that cannot lose a trick
        return 1 / (1 + math.exp(-z))

    def opponents(self, simulated: float | None) -> float:
        """The chance the opponents make a standing contract that the simulation makes in
        ``simulated`` of its deals (None: no deal solved)."""
        if simulated is None or self.defence_intercept is None or self.defence_slope is None:
            return self.opponents_make
        z = self.defence_intercept + self.defence_slope * logit(simulated)
        return 1 / (1 + math.exp(-z))

    @classmethod
    def load(cls, path: Path = CALIBRATION) -> Calibration:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "slope" not in data:
            raise ValueError(f"{path} holds no calibration: no slope")
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})

    def to_dict(self) -> dict[str, float | None]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@lru_cache(maxsize=1)
def shipped() -> Calibration:
    """The calibration in ``calibration.json`` (none, the identity, if it is missing)."""
    if not CALIBRATION.exists():
        return Calibration()
    return Calibration.load()
