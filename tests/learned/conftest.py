"""The worked example's own modules (``example_bots/learned``: scripts, not a package) are
imported by their names, as its scripts import each other."""

from __future__ import annotations

import sys

from support.docs import ROOT

LEARNED = ROOT / "example_bots" / "learned"
if str(LEARNED) not in sys.path:
    sys.path.insert(0, str(LEARNED))
