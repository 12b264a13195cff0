"""Removing what a bot left in a directory, whatever it built there.

A bot can nest directories deeper than any recursion (``shutil.rmtree`` raises
``RecursionError`` at ~1,500 levels) or any path (4,096 bytes), and close a directory to its
owner (mode 0300: a walker that cannot list it skips it). So the walk here keeps one open
directory and a list of names, unlinks a directory's files in one pass, goes up through
``..`` (checking it lands where it came from: a tree moved meanwhile stops the walk), opens
every directory to its owner again before reading it, never follows a link, and stops at a
bound. It never raises: it says whether everything went.

Standard library only: the reaper (``reaper_main.py``) loads this file by its path.
"""

from __future__ import annotations

import os
import stat
import time

#: Entries removed at the most, and seconds spent, before the walk gives up.
MOST_ENTRIES = 2_000_000
MOST_SECONDS = 30.0
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open(name: str, parent: int | None) -> int:
    """``name`` opened as a directory (in ``parent``), after giving its owner every right."""
    os.chmod(name, 0o700, dir_fd=parent)
    return os.open(name, _DIRECTORY, dir_fd=parent)


def _clear_files(directory: int) -> tuple[int, str | None]:
    """Unlink every entry of ``directory`` that is not a directory, in one pass; (how many,
    the name of a directory left in it, if any)."""
    removed, folder = 0, None
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folder = folder or entry.name
            else:
                os.unlink(entry.name, dir_fd=directory)
                removed += 1
    return removed, folder


def remove(path: str | os.PathLike[str], keep: bool = False) -> bool:
    """Remove ``path`` and everything beneath it (with ``keep``, only what is beneath).
    True when it all went, or ``path`` was not there."""
    deadline = time.monotonic() + MOST_SECONDS
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            if keep:
                return False
            os.unlink(path)
            return True
        current = _open(os.fspath(path), None)
    except FileNotFoundError:
        return not keep
    except (OSError, ValueError):
        return False
    names: list[str] = []  # the way down from ``path`` to ``current``
    ids: list[tuple[int, int]] = []  # and each directory's (device, inode) on it
    removed = 0
    try:
        while removed < MOST_ENTRIES and time.monotonic() < deadline:
            cleared, folder = _clear_files(current)
            removed += cleared
            if folder is not None:
                here = os.fstat(current)
                child = _open(folder, current)
                os.close(current)
                current = child
                names.append(folder)
                ids.append((here.st_dev, here.st_ino))
                continue
            if not names:
                break
            parent = os.open("..", _DIRECTORY, dir_fd=current)
            os.close(current)
            current = parent
            above = os.fstat(current)
            if (above.st_dev, above.st_ino) != ids.pop():  # moved meanwhile: stop here
                return False
            os.rmdir(names.pop(), dir_fd=current)
            removed += 1
        else:
            return False
    except (OSError, ValueError):
        return False
    finally:
        os.close(current)
    if keep:
        return True
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True
