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
from referee.settings import SandboxSettings


def test_withheld_variables_are_the_environments_but_the_passed_and_secret_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEXAS42_MODEL_DIR", "x")
    monkeypatch.setenv("TEXAS42_SECRET_TOKEN", "x")
    monkeypatch.setenv("LC_TIME", "C")
    names = withheld()
    assert "TEXAS42_MODEL_DIR" in names
    assert "PATH" not in names and "LC_TIME" not in names
    assert "TEXAS42_SECRET_TOKEN" not in names  # never offered to a bot
    assert "TEXAS42_MODEL_DIR" not in withheld(["TEXAS42_MODEL_DIR"])


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
def test_a_refused_file_is_found_in_the_words_of_each_runtime(
    tmp_path: Path, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the working directory: where a hint may point
    (tmp_path / "data").mkdir()
    book = tmp_path / "data" / "book.txt"
    book.write_text("openings")
    text = line.format(path=book)
    assert denied(text)
    assert named_paths([text]) == [book]
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bot.py").write_text("")  # its own folder it may read already
    command = f"python3 {tmp_path / 'bots' / 'bot.py'}"
    assert hints([text], command, SandboxSettings()) == [
        f"its stderr claims {book} was refused to it; if it needs it: --sandbox-allow {book}"
    ]


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


def test_a_variable_already_passed_or_that_looks_like_a_secret_is_never_suggested(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("TEXAS42_MODEL_DIR", "TEXAS42_API_TOKEN", "AWS_PROFILE", "MY_PASSWORD"):
        monkeypatch.setenv(name, "x")
    lines = ["KeyError: 'TEXAS42_MODEL_DIR' TEXAS42_API_TOKEN AWS_PROFILE MY_PASSWORD"]
    said = hints(lines, "python3 bot.py", SandboxSettings())
    assert said == [
        "its stderr names TEXAS42_MODEL_DIR, a variable sandboxed bots do not get; if it needs"
        " it: --sandbox-env TEXAS42_MODEL_DIR"
    ]
    assert hints(lines, "python3 bot.py", SandboxSettings(env=("TEXAS42_MODEL_DIR",))) == []


def test_a_hostile_bot_cannot_get_the_referee_to_advise_opening_the_machine(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot.py").write_text("")
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_text("")
    (tmp_path / "notes").mkdir()
    claims = [
        f"Permission denied: '{path}'"
        for path in ("/etc/shadow", "/root", "/", str(Path.home()), str(tmp_path / ".ssh/id_rsa"))
    ]
    assert hints(claims, f"python3 {tmp_path / 'bot.py'}", SandboxSettings()) == []
    allowed = SandboxSettings(allow=(str(tmp_path / "notes"),))
    assert (
        hints(
            [f"Permission denied: '{tmp_path / 'notes'}'"],
            f"python3 {tmp_path / 'bot.py'}",
            allowed,
        )
        == []
    )


def _model(tmp_path: Path) -> tuple[Path, str]:
    """A model file in a folder of its own, and the command of a bot in another folder."""
    (tmp_path / "models").mkdir()
    model = tmp_path / "models" / "policy.onnx"
    model.write_bytes(b"onnx")
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.py").write_text("")
    return model, f"python3 {tmp_path / 'bot' / 'bot.py'}"


def test_a_withheld_variable_that_names_a_refused_file_is_given_both_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, command = _model(tmp_path)
    monkeypatch.setenv("TEXAS42_MODEL", str(model))
    said = hints(["KeyError: 'TEXAS42_MODEL'"], command, SandboxSettings())
    assert said == [
        f"its stderr names TEXAS42_MODEL, a variable sandboxed bots do not get, and here"
        f" TEXAS42_MODEL names the file {model}, which sandboxed bots may not read"
        " (--sandbox-env passes the name and its value, not the file); if it needs it:"
        f" --sandbox-env TEXAS42_MODEL --sandbox-allow {model}"
    ]
    allowed = SandboxSettings(allow=(str(model.parent),))  # the file readable: the name alone
    assert hints(["KeyError: 'TEXAS42_MODEL'"], command, allowed) == [
        "its stderr names TEXAS42_MODEL, a variable sandboxed bots do not get; if it needs it:"
        " --sandbox-env TEXAS42_MODEL"
    ]


def test_a_passed_variable_that_names_a_refused_file_is_given_its_allow_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, command = _model(tmp_path)
    monkeypatch.setenv("TEXAS42_MODEL", str(model))
    line = f"Load model from {model} failed:system error number 13"
    assert denied(line)  # onnxruntime's words for EACCES
    said = hints([line], command, SandboxSettings(env=("TEXAS42_MODEL",)))
    assert said == [
        f"TEXAS42_MODEL, passed with --sandbox-env, names the file {model} here, which sandboxed"
        " bots may not read (--sandbox-env passes the name and its value, not the file); if"
        f" the bot reads it: --sandbox-allow {model}"
    ]
    # whatever the bot says: the value is the operator's, and no option lets the bot read it
    assert hints([], command, SandboxSettings(env=("TEXAS42_MODEL",))) == said
    both = SandboxSettings(env=("TEXAS42_MODEL",), allow=(str(model),))
    assert hints([line], command, both) == []


def test_a_variables_value_never_sends_a_bot_into_the_system_or_a_dotfile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, command = _model(tmp_path)
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_text("")
    for value in ("/etc/passwd", str(tmp_path / ".ssh" / "id_rsa"), "/tmp", str(Path.home())):
        monkeypatch.setenv("TEXAS42_MODEL", value)
        said = hints(["KeyError: 'TEXAS42_MODEL'"], command, SandboxSettings())
        assert said == [
            "its stderr names TEXAS42_MODEL, a variable sandboxed bots do not get; if it needs"
            " it: --sandbox-env TEXAS42_MODEL"
        ], value
        assert hints([], command, SandboxSettings(env=("TEXAS42_MODEL",))) == [], value
