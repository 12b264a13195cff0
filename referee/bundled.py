"""Where the files that travel with the referee are: the bundled bots and the protocol's files
(its JSON Schemas and example transcript)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

_REPOSITORY: Final = Path(__file__).resolve().parent.parent

#: The bundled example bots (``referee match`` with no bot plays them).
BOTS: Final = _REPOSITORY / "example_bots"
#: The protocol's generated files: JSON Schemas and the example transcript.
PROTOCOL: Final = _REPOSITORY / "protocol"
