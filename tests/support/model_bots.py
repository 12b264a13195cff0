"""A model bot as an author ships it: ``tests/bots/model_bot.py`` with its ``policy.onnx``
beside it, on a venv of the system's Python that holds onnxruntime and numpy — a runtime every
user may run, so that a seat gets a uid of its own as root and a referee run as ``nobody``
can start it.

The venv takes the two packages from this checkout's venv (the test extra installs them), as
hard links where the filesystem allows: no download, about a second.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
from pathlib import Path

from referee.bench.nobody import SYSTEM_PYTHON
from support.onnx_model import write_policy
from support.processes import BOTS

#: What ``import onnxruntime`` needs of its requirements (flatbuffers, packaging and protobuf
#: serve other parts of it).
PACKAGES = ("onnxruntime", "numpy", "numpy.libs")


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def model_venv(folder: Path) -> Path:
    """A venv of the system's Python at ``folder`` with onnxruntime and numpy; its python."""
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True)
    version = subprocess.run(
        [str(folder / "bin" / "python"), "-c", "import sys; print(sys.version_info[1])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    packages = folder / "lib" / f"python3.{version}" / "site-packages"
    ours = Path(next(path for path in site.getsitepackages() if Path(path, "numpy").is_dir()))
    for name in PACKAGES:
        if (ours / name).is_dir():
            shutil.copytree(ours / name, packages / name, copy_function=_link_or_copy)
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    return folder / "bin" / "python"


def placed_model_bot(folder: Path) -> Path:
    """The model bot and its model in ``folder`` (every user may read them); the script."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    script = folder / "model_bot.py"
    shutil.copy2(BOTS / "model_bot.py", script)
    script.chmod(0o644)
    write_policy(folder / "policy.onnx")
    return script
