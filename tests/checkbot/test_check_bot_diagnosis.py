"""check-bot says why a bot failed: the end of its stderr and the copy's path for each failed
check, and — when the bot ran sandboxed — whether the sandbox was the cause, which kind of
refusal (a variable, a file, a system call) and the option that fixes it."""

from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path

import msgspec
import pytest
from support.bot_commands import RANDOM_BOT, python
from support.native import RUNTIMES, build, library
from support.processes import BOTS, referee

from referee.checkbot import CheckReport, check_bot, report_lines
from referee.settings import MatchLimits, SandboxSettings

NEEDY = BOTS / "needy_bot.py"
SYSTEM_PYTHON = "/usr/bin/python3"
VARIABLE = "TEXAS42_TEST_MODEL_DIR"


def checked(command: str, **options: object) -> CheckReport:
    return check_bot(command, match=False, **options)  # type: ignore[arg-type]


def startup_of(report: CheckReport) -> str:
    return next(check.status for check in report.checks if check.name == "startup")


def test_a_variable_the_bot_names_is_found_and_passed_by_its_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIABLE, "/models")
    report = checked(python(NEEDY, "--env", VARIABLE))
    assert startup_of(report) == "failed"
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.check == "startup"
    assert diagnosis.cause == "environment" and diagnosis.fix == f"--sandbox-env {VARIABLE}"
    assert diagnosis.runs == 3  # without the sandbox, with every variable, with it alone
    fixed = checked(python(NEEDY, "--env", VARIABLE), sandbox=SandboxSettings(env=(VARIABLE,)))
    assert startup_of(fixed) == "passed"


def test_a_variable_the_bot_does_not_name_is_found_by_halves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIABLE, "/models")
    report = checked(python(NEEDY, "--env", VARIABLE, "--quiet"))
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.fix == f"--sandbox-env {VARIABLE}", diagnosis


@pytest.mark.parametrize("private_root", [None, True], ids=["landlock", "private-root"])
def test_a_file_outside_the_allow_list_is_found_and_allowed_by_its_option(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, private_root: bool | None
) -> None:
    # a data file under the working directory, as authors keep it, in a folder any uid may
    # read (pytest's tmp_path is root's alone): only the sandbox keeps the seat out of it
    folder = Path(tempfile.mkdtemp(prefix="texas42-book-"))
    folder.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
    monkeypatch.chdir(folder)
    book = folder / "book.txt"  # backwards, no word of the command names it: not allowed
    book.write_text("openings")
    book.chmod(0o644)
    # on the system's Python, whose files are few enough for a root of the seat's own
    command = shlex.join([SYSTEM_PYTHON, str(NEEDY), "--file", str(book)[::-1]])
    report = checked(command, sandbox=SandboxSettings(private_root=private_root))
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "files"
    assert diagnosis.fix == f"--sandbox-allow {book}"
    allowed = SandboxSettings(allow=(str(book),), private_root=private_root)
    assert startup_of(checked(command, sandbox=allowed)) == "passed"


def test_a_refused_system_call_is_named_with_no_option_to_pass_it() -> None:
    report = checked(python(NEEDY, "--socket"))
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "system_call", diagnosis
    assert "no option allows it" in diagnosis.fix


def test_a_crash_of_the_bots_own_is_not_blamed_on_the_sandbox() -> None:
    report = checked(python(NEEDY, "--crash-at", "1", "--lines", "25"))
    bidding = next(check for check in report.checks if check.name == "bidding")
    assert bidding.status == "failed"
    assert bidding.stderr is not None and len(bidding.stderr.lines) == 20
    assert bidding.stderr.total == 27
    assert bidding.stderr.path is not None and Path(bidding.stderr.path).is_file()
    assert report.kept is not None and Path(report.kept, "bidding.stderr").is_file()
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "not_sandbox" and diagnosis.runs == 1
    text = "\n".join(report_lines(report))
    assert "│ thread 'main' panicked at src/main.rs:12:5:" in text
    assert "was it the sandbox? it fails without the sandbox too" in text
    assert f"kept: {report.kept}" in text


def test_a_wrong_answer_is_not_looked_into_no_sandbox_makes_one() -> None:
    report = checked(python(BOTS / "illegal_bot.py"))
    assert not report.ok and report.diagnosis is None


def test_what_is_run_without_the_sandbox_is_said_before_it_is_run() -> None:
    said: list[str] = []
    report = check_bot(python(NEEDY, "--crash-at", "1"), match=False, say=said.append)
    assert report.diagnosis is not None and report.diagnosis.ran_unsandboxed
    assert len(said) == 1 and "running the bot again without the sandbox" in said[0]
    assert "--no-diagnose" in said[0]


def test_no_diagnosis_when_asked_not_to_or_when_the_sandbox_is_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VARIABLE, "/models")
    command = python(NEEDY, "--env", VARIABLE)
    assert checked(command, diagnose=False).diagnosis is None
    off = checked(python(NEEDY, "--crash-at", "1"), sandbox=SandboxSettings(mode="off"))
    assert off.diagnosis is None and not off.ok


def test_a_bot_that_passes_leaves_nothing_behind() -> None:
    report = checked(RANDOM_BOT)
    assert report.ok and report.kept is None and report.diagnosis is None


def test_the_command_line_says_which_option_fixes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, "/models")
    run = referee("check-bot", python(NEEDY, "--env", VARIABLE), "--no-match", cwd=tmp_path)
    assert run.returncode == 1
    assert f"KeyError: '{VARIABLE}'" in run.stdout
    assert f"fix: --sandbox-env {VARIABLE}" in run.stdout
    quiet = referee(
        "check-bot", python(NEEDY, "--env", VARIABLE), "--no-match", "--no-diagnose", cwd=tmp_path
    )
    assert quiet.returncode == 1 and "was it the sandbox?" not in quiet.stdout
    assert "without the sandbox" in run.stderr and "without the sandbox" not in quiet.stderr


@pytest.mark.parametrize(
    ("need", "limits", "option", "raised"),
    [
        (("--memory", "80"), MatchLimits(memory_mb=64), "--memory-limit", 128),
        (("--threads", "150"), MatchLimits(max_processes=100), "--max-processes", 200),
    ],
)
def test_a_limit_too_low_is_named_with_the_least_that_lets_the_bot_start(
    need: tuple[str, ...], limits: MatchLimits, option: str, raised: int
) -> None:
    report = checked(python(NEEDY, *need), limits=limits)
    assert startup_of(report) == "failed"
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "limit", diagnosis
    # the least doubling that lets it start; one more on a loaded machine, where what the
    # kernel charges the seat's group besides the bot's own memory (page cache) varies
    assert diagnosis.fix.startswith((f"{option} {raised} ", f"{option} {raised * 2} ")), (
        diagnosis.fix
    )
    advised = int(diagnosis.fix.split()[1])
    field = "memory_mb" if option == "--memory-limit" else "max_processes"
    fixed = checked(
        python(NEEDY, *need), limits=msgspec.structs.replace(limits, **{field: advised})
    )
    assert startup_of(fixed) == "passed"  # the advice works


def test_a_library_left_out_is_named_by_its_file_with_and_without_a_diagnosis(
    tmp_path: Path,
) -> None:
    # Another entrant's folder holds the library the program's RUNPATH names: left out.
    theirs = library(tmp_path / "bob")
    program = build(
        RUNTIMES / "first_legal.c",
        tmp_path / "alice" / "bot",
        f"-L{theirs.parent}",
        "-Wl,--no-as-needed",
        "-ldemo",
        f"-Wl,--enable-new-dtags,-rpath,{theirs.parent}",
    )
    real = theirs.resolve()
    quick = checked(str(program), diagnose=False)
    startup = next(check for check in quick.checks if check.name == "startup")
    assert startup.status == "failed" and quick.diagnosis is None
    assert [hint for hint in startup.hints if f"--sandbox-allow {real}" in hint], startup.hints
    assert f"--sandbox-allow {real}" in "\n".join(report_lines(quick))
    report = checked(str(program))
    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.cause == "files", diagnosis
    assert diagnosis.fix == f"--sandbox-allow {real}"
    assert f"which {program} loads by its RUNPATH" in diagnosis.detail
    fixed = checked(str(program), sandbox=SandboxSettings(allow=(str(real),)))
    assert startup_of(fixed) == "passed"
