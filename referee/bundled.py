"""Where the files that travel with the referee are: the bundled bots and the protocol's files
(its JSON Schemas and example transcript).

They live at the top of the repository (``example_bots/``, ``protocol/``), where a bot's author
looks for them, and ``referee/example_bots`` and ``referee/protocol`` are links to them. So the
package finds them as its own files however it was installed: in a clone (``pip install -e .``)
through the links, in a wheel (``pip install .``, ``pipx install .``) as the copies that
setuptools made of what the links lead to (``package-data`` in ``pyproject.toml``).

The paths are resolved: in a clone they name the repository's folders, as before the links
(the commands a match's log records, and what the sandbox lets a bundled bot read, stay the
same); in a wheel they name the installed copies. The package is read as a folder on disk, not
through ``importlib.resources``: the bots are programs another process runs by path, which a
package inside a zip could not give.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

_PACKAGE: Final = Path(__file__).resolve().parent

#: The bundled example bots (``referee match`` with no bot plays them).
BOTS: Final = (_PACKAGE / "example_bots").resolve()
#: The protocol's generated files: JSON Schemas and the example transcript.
PROTOCOL: Final = (_PACKAGE / "protocol").resolve()
#: The clone's ``protocol/`` folder, where ``referee schema`` writes the files it makes, or None
#: in an installed package: its copies are pip's, made again only by installing anew.
CLONE_PROTOCOL: Final = PROTOCOL if (_PACKAGE / "protocol").is_symlink() else None
