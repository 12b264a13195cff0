"""Reading a failed bot's stderr for what the sandbox withheld: variables it names that bots
do not get, files it names that were refused, refused system calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.sandbox.hints import (
    denied,
    hints,
    named_paths,
    named_variables,
    refused_call,
    withheld,
)


def test_withheld_variables_are_the_environments_but_the_passed_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEXAS42_SECRET_TOKEN", "x")
    monkeypatch.setenv("LC_TIME", "C")
    names = withheld()
    assert "TEXAS42_SECRET_TOKEN" in names
    assert "PATH" not in names and "LC_TIME" not in names
    assert "TEXAS42_SECRET_TOKEN" not in withheld(["TEXAS42_SECRET_TOKEN"])


def test_a_variable_is_named_only_as_a_whole_word() -> None:
    lines = ["KeyError: 'MODEL_DIR'", "thread 'main' panicked: MODEL_DIRS not set"]
    assert named_variables(lines, ["MODEL_DIR", "MODEL", "DIR"]) == ["MODEL_DIR"]


@pytest.mark.parametrize(
    "line",
    [
        "PermissionError: [Errno 13] Permission denied: '{path}'",
        'Error: EACCES: permission denied, open "{path}"',
        "thread 'main' panicked: Os {{ code: 13, kind: PermissionDenied }} reading {path}",
        "open {path}: permission denied (os error 13)",
    ],
)
def test_a_refused_file_is_found_in_the_words_of_each_runtime(tmp_path: Path, line: str) -> None:
    book = tmp_path / "book.txt"
    book.write_text("openings")
    text = line.format(path=book)
    assert denied(text)
    assert named_paths([text]) == [book]
    assert hints([text]) == [f"its stderr says {book} was refused to it: --sandbox-allow {book}"]


def test_paths_already_allowed_or_missing_are_not_named(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("x")
    line = f"Permission denied: '{book}' and '{tmp_path / 'missing.txt'}'"
    assert named_paths([line], [tmp_path]) == []
    assert named_paths([line]) == [book]


def test_a_relative_path_is_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "weights.bin").write_bytes(b"0")
    assert named_paths(["cannot open weights.bin: Permission denied"]) == [tmp_path / "weights.bin"]


def test_refused_system_calls() -> None:
    assert refused_call("PermissionError: [Errno 1] Operation not permitted")
    assert refused_call("Bad system call (core dumped)")
    assert not refused_call("KeyError: 'X'")


def test_a_bot_cannot_make_the_referee_look_at_endless_paths(tmp_path: Path) -> None:
    lines = [" ".join(f"/x/{n}.txt" for n in range(1000))] * 10
    assert named_paths(lines) == []  # nothing exists, and at most a few were looked at
