"""Whether the sandbox made a check fail, and which part of it.

A bot that reads an environment variable, a file beside it or makes a system call the
sandbox refuses usually just crashes ("exit status 101"): nothing in its fault says the
sandbox did it. So the first failed check is run again — with the sandbox off; if it then
passes, with one kind of refusal lifted at a time (every variable passed, and the files
their values name allowed: ``--sandbox-env`` passes a path, not the file; Landlock's file
allow-list off, seccomp off, every limit raised, then each other layer) — and the first run
that passes names the cause. A variable, a file or a limit is then pinned down: a file the
referee knows it left out (a library the program loads from elsewhere, ``refusals``) and
the names the bot's stderr mentions first, then (variables) halves of the rest, each
confirmed by a run that passes with only it allowed; a limit by raising each alone, then the
least of its doublings that lets the bot through. The fix is the option that allows exactly
that.

Running a bot without its sandbox trusts it: ``check-bot --no-diagnose`` leaves this out,
for a bot you did not write.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Final

import msgspec

from referee.errors import SandboxRefused
from referee.match.stderr import StderrTail
from referee.record.sandbox import Layer
from referee.rules import SEATS
from referee.sandbox import hints
from referee.sandbox.hints import denied, named_variables, refused_call, refused_paths
from referee.sandbox.jail import BOT_ENVIRONMENT
from referee.sandbox.layers import LAYERS, held_by
from referee.sandbox.policy import MAY_READ, SandboxPlan, plan
from referee.sandbox.refusals import refusals_of
from referee.settings import MatchLimits, bounds, field_types, limit_option

from .results import Cause, Diagnosis
from .session import Findings
from .steps import Context, Verdict

#: Runs of the check a diagnosis may take in all.
MAX_RUNS: Final = 16
#: The layers lifted together as one kind of refusal: Landlock's file allow-list (one
#: ruleset holds its TCP and scoping rules too), and seccomp's system calls.
FILES: Final = (*held_by(Layer.LANDLOCK), Layer.PRIVATE_ROOT)
SYSTEM_CALLS: Final = held_by(Layer.SECCOMP)
#: The limits a diagnosis raises: the field of ``MatchLimits`` and its unit (the option that
#: sets it in a match, tournament or league is ``limit_option``'s). CPU time and file sizes
#: do not stop a start.
LIMITS: Final = (
    ("memory_mb", "MiB of memory"),
    ("max_processes", "processes"),
    ("scratch_mb", "MiB of scratch space"),
)
#: The most a limit is raised by (times its bound), in doublings.
RAISED: Final = 16
#: Runs the failed check again in another context: its verdict.
Rerun = Callable[[Context], Awaitable[Verdict]]


class _Runs:
    """The reruns of one diagnosis, counted against ``MAX_RUNS``."""

    def __init__(self, context: Context, rerun: Rerun) -> None:
        self.context = context
        self.rerun = rerun
        self.count = 0

    def planned(self, limits: MatchLimits | None = None, **changes: object) -> SandboxPlan:
        """The check's sandbox planned again with other settings (``mode``, ``env``,
        ``allow``) or ``limits``; ``SandboxRefused`` when that would show the bot the
        referee's files."""
        sandbox = self.context.sandbox
        settings = msgspec.structs.replace(sandbox.settings, **changes)
        commands = dict.fromkeys(SEATS, self.context.command)
        return plan(settings, limits or sandbox.limits, commands, sandbox.secrets)

    def files_of(self, names: Iterable[str]) -> list[Path]:
        """The files and folders the values of ``names`` here name that the bot may not read
        (``--sandbox-env`` passes a path, never the file)."""
        readable = self.context.sandbox.readable.get("A", [])
        found = [path for name in names for path in hints.variable_paths(name)]
        return list(dict.fromkeys(hints.unreadable(found, readable)))

    def passing(self, names: Iterable[str], files: Iterable[Path] = ()) -> SandboxPlan:
        """The check's sandbox with the variables ``names`` passed too, and ``files``
        allowed (without them when allowing them would show the bot the referee's files)."""
        settings = self.context.sandbox.settings
        env = (*settings.env, *names)
        try:
            return self.planned(env=env, allow=(*settings.allow, *map(str, files)))
        except SandboxRefused:
            return self.planned(env=env)

    def raised(self, factor: int, *names: str) -> tuple[SandboxPlan, MatchLimits]:
        """The check's sandbox with the limits ``names`` ``factor`` times their bound (each
        kept within what ``MatchLimits`` allows)."""
        limits = self.context.sandbox.limits
        changed = {field: min(getattr(limits, field) * factor, _ceiling(field)) for field in names}
        raised = msgspec.structs.replace(limits, **changed)
        return self.planned(limits=raised), raised

    @property
    def left(self) -> int:
        return MAX_RUNS - self.count

    async def passes(self, sandbox: SandboxPlan, label: str) -> bool:
        """Does the check pass with the bot under ``sandbox``?"""
        self.count += 1
        kept = None
        if self.context.kept is not None:
            kept = self.context.kept / "diagnosis" / f"{self.count}-{label}"
            kept.mkdir(parents=True, exist_ok=True)
        trace = self.context.trace
        if trace is not None:
            trace.heading(f"diagnosis, run {self.count}: {label}")
        # the same check (its matches' opponents included), in another sandbox
        variant = replace(self.context, sandbox=sandbox, findings=Findings(), kept=kept)
        return (await self.rerun(variant)).status == "passed"


async def diagnose(
    context: Context,
    check: str,
    rerun: Rerun,
    tail: StderrTail | None,
    say: Callable[[str], None] | None = None,
) -> Diagnosis:
    """Why ``check`` failed under ``context``'s sandbox; ``tail`` is the end of the bot's
    stderr in the failed run (where a variable or a file may be named). ``say`` is told
    before the bot is run without its sandbox."""
    runs = _Runs(context, rerun)
    if say is not None:
        say(
            f"check-bot: the {check} check failed sandboxed: running the bot again without the"
            " sandbox (as you, with your environment) to find out whether it was the cause"
            " (--no-diagnose not to)"
        )
    sandbox = context.sandbox
    lines = tail.lines if tail is not None else []

    def found(cause: Cause, detail: str, fix: str) -> Diagnosis:
        return Diagnosis(check=check, cause=cause, detail=detail, fix=fix, runs=runs.count)

    if not await runs.passes(runs.planned(mode="off"), "off"):
        return found(
            "not_sandbox",
            "it fails without the sandbox too: the sandbox is not the cause",
            "",
        )
    withheld = hints.withheld(sandbox.settings.env)
    # The files only the variables its stderr names point at: a value such as PWD's would
    # let through a bot that reads a file of the working directory, and blame PWD.
    files = runs.files_of(named_variables(lines, withheld))
    if withheld and (
        await runs.passes(runs.passing(withheld), "environment")
        or (files and await runs.passes(runs.passing(withheld, files), "environment"))
    ):
        return await _which_variable(runs, withheld, lines, found)
    if await runs.passes(sandbox.lifted(FILES), "files"):
        return await _which_file(runs, sandbox, lines, found)
    if await runs.passes(sandbox.lifted(SYSTEM_CALLS), "system-calls"):
        said = next((line for line in lines if refused_call(line)), None)
        said = said or next((line for line in lines if denied(line)), None)
        quoted = f' (its stderr: "{said}")' if said else ""
        return found(
            "system_call",
            "it passes without the sandbox and with seccomp alone lifted: it makes a system"
            f" call the sandbox refuses to every bot{quoted}",
            "no option allows it: the sandbox refuses that call to every bot (README: the"
            " sandbox's layers, seccomp); the bot must do without it",
        )
    every = tuple(field for field, _ in LIMITS)
    if await runs.passes(runs.raised(RAISED, *every)[0], "limits"):
        return await _which_limit(runs, found)
    for layer in _layers(sandbox):
        if layer in (*FILES, *SYSTEM_CALLS) or runs.left <= 0:
            continue
        if await runs.passes(sandbox.lifted((layer,)), layer):
            facts = LAYERS[layer]
            return found(
                "layer",
                f"it passes with the {layer} layer alone lifted ({facts.protects})",
                facts.fix or "it cannot run under this layer; the bot must do without",
            )
    return found(
        "sandbox",
        "it passes without the sandbox, but with no one kind of refusal lifted: more than one"
        " part of the sandbox stops it (a network connection, say, which several refuse)",
        "a bot must work within the sandbox: no network, no file outside its own, no"
        " variable but those passed",
    )


async def _which_variable(
    runs: _Runs,
    withheld: tuple[str, ...],
    lines: list[str],
    found: Callable[[Cause, str, str], Diagnosis],
) -> Diagnosis:
    """The one variable that lets the bot through: those its stderr names first (each
    alone, then with the files its value names), then halves of the rest, each tried with
    only it passed."""
    named = named_variables(lines, withheld)
    for name in named:
        if runs.left <= 0:
            break
        if await runs.passes(runs.passing([name]), "environment"):
            return _variable(found, name, [])
        files = runs.files_of([name])
        if files and runs.left > 0 and await runs.passes(runs.passing([name], files), "files"):
            return _variable(found, name, files)
    candidates = [name for name in withheld if name not in named]
    while len(candidates) > 1 and runs.left > 0:
        half = candidates[: len(candidates) // 2]
        if await runs.passes(runs.passing(half), "environment"):
            candidates = half
        else:
            candidates = candidates[len(candidates) // 2 :]
    if (
        len(candidates) == 1
        and runs.left > 0
        and await runs.passes(runs.passing(candidates), "environment")
    ):
        return _variable(found, candidates[0], [])
    passed = ", ".join(sorted(BOT_ENVIRONMENT))
    return found(
        "environment",
        "it passes with every variable of this environment passed: it needs one the sandbox"
        f" does not pass (it passes only {passed}, LC_* and --sandbox-env NAME), and no single"
        " one was found",
        "pass each variable the bot reads with --sandbox-env NAME",
    )


def _variable(
    found: Callable[[Cause, str, str], Diagnosis], name: str, files: list[Path]
) -> Diagnosis:
    """The diagnosis of a bot that needs ``name``, and the ``files`` its value names here."""
    if not files:
        return found(
            "environment",
            f"it passes with the environment variable {name} passed, which the sandbox does not"
            " pass by default",
            f"--sandbox-env {name}",
        )
    listed = ", ".join(map(str, files))
    return found(
        "environment",
        f"it passes with the environment variable {name} passed (the sandbox does not pass it"
        f" by default) and what its value names here, {listed}, allowed: --sandbox-env passes"
        " the name and its value, not the file",
        " ".join([f"--sandbox-env {name}", *(f"--sandbox-allow {path}" for path in files)]),
    )


async def _which_file(
    runs: _Runs,
    sandbox: SandboxPlan,
    lines: list[str],
    found: Callable[[Cause, str, str], Diagnosis],
) -> Diagnosis:
    """The file outside the allow-list that lets the bot through, tried with
    ``--sandbox-allow``: first each file a variable passed with ``--sandbox-env`` names,
    then each file its program needs that the referee left out (a library or loader it
    chose outside the system's and its own folders: ``refusals``), then each path its
    stderr names that exists here, the sandbox does not allow and advice may
    name (``hints``: beside the bot or under the working directory)."""
    command = runs.context.command
    left_out = {
        refusal.path: refusal for refusal in refusals_of(command, sandbox.readable.get("A", []))
    }
    passed = {path: name for name in sandbox.settings.env for path in runs.files_of([name])}
    named = refused_paths(lines, command, sandbox.settings)
    for path in dict.fromkeys([*passed, *left_out, *named]):
        if runs.left <= 0:
            break
        try:
            widened = runs.planned(allow=(*sandbox.settings.allow, str(path)))
        except SandboxRefused:
            continue  # allowing it would show the bot the referee's files
        if await runs.passes(widened, "files"):
            refusal = left_out.get(path)
            why = f", {refusal.what}" if refusal else ", which is outside its allow-list"
            if path in passed:
                why = (
                    f", which {passed[path]} names (--sandbox-env passes the name and its value,"
                    " not the file)"
                )
            return found(
                "files", f"it passes when it may read {path}{why}", f"--sandbox-allow {path}"
            )
    said = next((line for line in lines if denied(line)), None)
    quoted = f' (its stderr: "{said}")' if said else ""
    return found(
        "files",
        "it passes without Landlock's allow-list: it opens a file outside it (a sandboxed"
        f" bot {MAY_READ}){quoted}",
        "--sandbox-allow PATH for each file or folder it reads (name a data file in its"
        " command, or give its absolute path)",
    )


async def _which_limit(runs: _Runs, found: Callable[[Cause, str, str], Diagnosis]) -> Diagnosis:
    """The limit that stops the bot, once it passes with every one raised: each raised
    alone, then the least doubling of it that lets the bot through."""
    limits = runs.context.sandbox.limits
    for field, unit in LIMITS:
        if runs.left <= 0:
            break
        sandbox, most = runs.raised(RAISED, field)
        if not await runs.passes(sandbox, field):
            continue
        bound, needed = getattr(limits, field), getattr(most, field)
        factor = 2
        while factor < RAISED and runs.left > 0:
            sandbox, raised = runs.raised(factor, field)
            if await runs.passes(sandbox, field):
                needed = getattr(raised, field)
                break
            factor *= 2
        return found(
            "limit",
            f"it passes with {needed} {unit} and not with the {bound} it was given: the"
            f" {field} limit stops it",
            f"{limit_option(field)} {needed} where it plays (match, tournament, league), or"
            f" make the bot need less than {bound} {unit}",
        )
    return found(
        "limit",
        "it passes with every limit raised together, and with no one of them alone",
        f"raise {', '.join(limit_option(field) for field, _ in LIMITS[:-1])} and"
        f" {limit_option(LIMITS[-1][0])} where it plays, or make the bot need less",
    )


def _ceiling(field: str) -> int:
    """The most ``MatchLimits`` allows for ``field``."""
    highest: int = bounds(field_types(MatchLimits)[field][0])[1]
    return highest


def _layers(sandbox: SandboxPlan) -> list[Layer]:
    return [Layer(name) for name in sandbox.report.seats.get("A", [])]
