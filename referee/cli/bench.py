"""``referee bench``: the benchmarks, each printing its figure as the last line (the
measuring and the wording are the ``referee.bench`` modules')."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any

import typer

from referee.cli.app import bench_app
from referee.cli.exits import FAILED
from referee.cli.groups import CLUSTER, Cluster
from referee.cli.options import fail


class CacheMedium(StrEnum):
    """``referee.bench.channels.cache.MEDIA`` (a test holds them equal: that module is too
    heavy to import for ``--help``; so for the two below)."""

    pages = "pages"
    names = "names"


class CacheVariant(StrEnum):
    """``referee.bench.channels.cache.VARIANTS``."""

    off = "off"
    before = "before"
    narrow = "narrow"
    resident = "resident"
    forget = "forget"


class CacheScenario(StrEnum):
    """``referee.bench.channels.cache.SCENARIOS``."""

    partners = "partners"
    legs = "legs"


def _echo(lines: Iterable[str]) -> None:
    for line in lines:
        typer.echo(line)


@bench_app.command("engine")
def bench_engine(
    hands: Annotated[int, typer.Option(min=1, help="How many hands to play.")] = 50_000,
    seed: Annotated[int, typer.Option(min=0, help="First match seed (and the chooser's).")] = 1,
    views: Annotated[
        bool, typer.Option("--views", help="Also build the seat's view for each decision.")
    ] = False,
) -> None:
    """Play random legal actions through the rules engine's public API; report hands/s."""
    from referee.bench import engine

    _echo(engine.lines(hands, seed, views=views))


@bench_app.command("core")
def bench_core(
    hands: Annotated[int, typer.Option(min=1, help="Hands the core plays (each way).")] = 1_000_000,
    seed: Annotated[int, typer.Option(min=0, help="First match seed (and the chooser's).")] = 1,
    batch: Annotated[int, typer.Option(min=1, help="Matches stepped at once.")] = 1024,
) -> None:
    """The compiled rules core against the Python engine: random legal play with the exact
    seeded deals, one match at a time and batched, the deal's share apart; the ratio last."""
    from referee.bench import core
    from referee.core import CORE

    if CORE != "c":
        raise fail("bench core needs the compiled core: reinstall with a C compiler (cc)")
    _echo(core.lines(hands, seed, batch))


@bench_app.command("batch")
def bench_batch(
    batch: Annotated[int, typer.Option(min=1, help="Matches stepped at once.")] = 1024,
    steps: Annotated[int, typer.Option(min=1, help="Steps of every match a round.")] = 400,
    seed: Annotated[int, typer.Option(min=0, help="First match seed.")] = 1,
) -> None:
    """The compiled core's batched environment: steps/s with every seat's information state
    and the masks written each step, against the same batch without the states, in
    alternating rounds; the figure and its goal last. Needs the ai extra and the core."""
    from referee.core import CORE

    if CORE != "c":
        raise fail("bench batch needs the compiled core: reinstall with a C compiler (cc)")
    try:
        from referee.bench import batch as batched
    except ImportError as exc:
        raise fail(
            f"bench batch needs the ai extra ({exc.name} is missing): pip install '.[ai]'"
        ) from None

    _echo(batched.lines(batch, steps, seed))


@bench_app.command("env")
def bench_env(
    steps: Annotated[int, typer.Option(min=1, help="Random legal steps per round.")] = 20_000,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds of engine, then environment.")] = 3,
    seed: Annotated[int, typer.Option(min=0, help="First match seed (and the chooser's).")] = 1,
) -> None:
    """Steps/s of the PettingZoo environment (observing each step) against the bare engine's
    in the same run, in alternating rounds; the figure the medians. Needs the ai extra."""
    try:
        from referee.bench import env
    except ImportError as exc:
        raise fail(
            f"bench env needs the ai extra ({exc.name} is missing): pip install '.[ai]'"
        ) from None

    _echo(env.lines(steps, rounds, seed))


def _seconds(what: str) -> Any:
    return typer.Option(min=0.1, max=3600, metavar="S", help=f"Seconds to measure ({what}).")


@bench_app.command("referee")
def bench_referee(
    seconds: Annotated[
        float, _seconds("the matches' play; bot start-ups and the echoes come on top")
    ] = 3.0,
    seed: Annotated[int, typer.Option(min=0, help="First match seed.")] = 1,
) -> None:
    """Matches between instant bots through the real referee, against the raw pipe rate: in
    alternating rounds (a match, then as many round trips through an echo process), the
    figure the median of the rounds' ratios."""
    from referee.bench import referee

    _echo(referee.lines(seconds, seed))


@bench_app.command("apart")
def bench_apart(
    *,
    rounds: Annotated[int, typer.Option(min=1, help="Matches here and apart, in pairs.")] = 5,
    seed: Annotated[int, typer.Option(min=0, help="First match seed.")] = 1,
    cluster: Annotated[Cluster, CLUSTER],
) -> None:
    """What seats apart add to a decision: the same match between instant bots here and with
    its seats on Dask workers (--dask, default a local cluster; --seats-apart, default
    workers), in alternating rounds; the figure the median relay time a decision, against
    the goal of 2 ms."""
    from referee.apart.placement import Apart, misuse
    from referee.bench import apart as bench
    from referee.running.cluster import ClusterError, connected

    dask = cluster.dask or "local"
    apart: Apart = "workers" if cluster.seats_apart is None else cluster.seats_apart.value
    if (misused := misuse(dask, apart)) is not None:
        raise fail(misused)
    try:
        with connected(dask, 4) as client:
            _echo(bench.lines(client, apart, rounds, seed))
    except ClusterError as exc:
        raise fail(str(exc)) from None


@bench_app.command("tournament")
def bench_tournament(
    seconds: Annotated[float, _seconds("all the rounds, warm-up excluded")] = 15.0,
) -> None:
    """Matches per second through the tournament runner: fresh bots and warm pools, at 1 and
    2 jobs, against the rate the pipes allow: in alternating rounds (a batch of each, then
    the pipes' rate), each figure the median of the rounds' ratios."""
    from referee.bench import tournament

    _echo(tournament.lines(seconds))


@bench_app.command("stats")
def bench_stats(
    seeds: Annotated[
        int, typer.Option(min=1, help="Deal seeds of the tournament counted (two matches each).")
    ] = 600,
) -> None:
    """Matches per second through 'referee stats' on a tournament it plays first, against
    the rate at which the same logs can merely be read."""
    from referee.bench import stats

    _echo(stats.lines(seeds))


@bench_app.command("startup")
def bench_startup(
    delay: Annotated[
        float, typer.Option(min=0, metavar="S", help="Seconds each bot sleeps before ready.")
    ] = 1.0,
    matches: Annotated[int, typer.Option(min=2, help="Matches to play (one job).")] = 20,
) -> None:
    """Wall time of a tournament between bots that are slow to start, fresh and warm."""
    from referee.bench import tournament

    _echo(tournament.startup_lines(delay, matches))


@bench_app.command("solver")
def bench_solver(
    deals: Annotated[int, typer.Option(min=1, help="Seeded deals to solve trick by trick.")] = 40,
    seed: Annotated[int, typer.Option(min=0, help="First deal seed.")] = 1,
) -> None:
    """The strong bot's exact solver: positions/s, and the make-or-set time at each trick."""
    from referee.bench import solver

    _echo(solver.lines(deals, seed))


@bench_app.command("viewer")
def bench_viewer(
    seed: Annotated[int, typer.Option(min=0, help="The matches' seed.")] = 1,
) -> None:
    """The viewer page of the longest log (200 hands) and of a full match: its size, the
    time to build it, to its first render in headless Chromium, and per step."""
    from referee.bench import viewer
    from referee.bench.browser import NoBrowser

    try:
        _echo(viewer.lines(seed))
    except NoBrowser as exc:
        raise fail(f"bench viewer needs a browser: {exc}") from None


@bench_app.command("sandbox")
def bench_sandbox(
    rounds: Annotated[int, typer.Option(min=1, help="Rounds of four bot starts each.")] = 30,
) -> None:
    """Extra milliseconds per bot start for each sandbox layer, against a bare start."""
    from referee.bench import sandbox

    _echo(sandbox.lines(rounds))


@bench_app.command("cache")
def bench_cache(
    trials: Annotated[int, typer.Option(min=1, help="Hands per variant and scenario.")] = 6,
    medium: Annotated[
        CacheMedium,
        typer.Option(help="pages: timed reads of pages; names: timed lookups of missing names."),
    ] = CacheMedium.pages,
    variant: Annotated[
        list[CacheVariant] | None,
        typer.Option(
            metavar="VARIANT",
            help="Measure only this variant (again for more): off (no sandbox, the control),"
            " before (the allow-list before issue 17), narrow, resident (every page pinned),"
            " forget (the lookup caches dropped too; root only). All you can run by default.",
            show_default=False,
        ),
    ] = None,
    scenario: Annotated[
        list[CacheScenario] | None,
        typer.Option(
            metavar="SCENARIO",
            help="Measure only partners (live in one match) or legs (leg 1 to leg 2 of a pair)."
            " Both by default.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(min=0, help="Seed of the deals (random by default).", show_default=False),
    ] = None,
    receiver_delay: Annotated[
        float, typer.Option(min=0, metavar="S", help="Seconds the receiver waits to read.")
    ] = 0.0,
    progress: Annotated[
        bool, typer.Option("--progress", help="A line per trial on stderr as it ends.")
    ] = False,
) -> None:
    """Bits of a hand per match a cache timing channel carries between partners and between
    the legs of a pair, with the sandbox off and as the referee plays (about a minute)."""
    import os

    from referee.bench.channels import cache as cache_channel

    if CacheVariant.forget in (variant or []) and os.geteuid() != 0:
        raise fail("--variant forget needs root (to drop the lookup caches)")
    variants = [v.value for v in variant] if variant else cache_channel.runnable_variants()
    scenarios = [s.value for s in scenario] if scenario else cache_channel.SCENARIOS
    _echo(
        cache_channel.lines(
            trials, variants, scenarios, seed, medium.value, receiver_delay, progress
        )
    )


@bench_app.command("decode")
def bench_decode(
    lines: Annotated[int, typer.Option(min=1, help="Adversarial lines to decode.")] = 1_000_000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the line generators.")] = 1,
) -> None:
    """Fuzz the bot-line decoder; fails if any exception escapes the rejection tree."""
    from referee.bench import decoding

    try:
        _echo(decoding.lines(lines, seed))
    except decoding.Escaped as exc:
        typer.echo(f"decode: ESCAPED {type(exc.error).__name__} on {exc.line[:200]!r}", err=True)
        raise typer.Exit(FAILED) from None


@bench_app.command("league")
def bench_league(
    seeds: Annotated[
        int, typer.Option(min=1, help="Seeds of the scheduling comparison (each schedule).")
    ] = 5,
) -> None:
    """The league: matches the adaptive schedule needs to settle the true order of eight
    entrants against a round robin's; standings and one more result in a database of
    100,000 matches; a run killed with SIGKILL and run again."""
    from referee.bench import league

    _echo(league.lines(seeds))


class Channel(StrEnum):
    """``referee.bench.channels.measure.ROW_KEYS``."""

    timing = "timing"
    names = "names"
    names_legs = "names-legs"
    cpu = "cpu"
    pipe_buffers = "pipe-buffers"
    cpu_cache = "cpu-cache"
    pipe_inode = "pipe-inode"


class ChannelVariant(StrEnum):
    """``referee.bench.channels.measure.VARIANTS``."""

    before = "before"
    closed = "closed"
    final = "final"
    control = "control"


@bench_app.command("channels")
def bench_channels(
    *,
    channel: Annotated[
        list[Channel] | None,
        typer.Option(
            metavar="CHANNEL",
            help="Measure only this channel (again for more). All by default.",
            show_default=False,
        ),
    ] = None,
    variant: Annotated[
        list[ChannelVariant] | None,
        typer.Option(
            metavar="VARIANT",
            help="Measure only this variant (again for more): before (the default sandbox),"
            " closed (the row's closing layer), final (--final, every channel at once),"
            " control (--final, a silent sender). All by default.",
            show_default=False,
        ),
    ] = None,
    hands: Annotated[int, typer.Option(min=1, help="Hands per channel and variant.")] = 20,
    move_timeout: Annotated[
        float, typer.Option(min=0.05, max=5, metavar="S", help="Seconds per decision.")
    ] = 0.2,
    as_nobody: Annotated[
        bool,
        typer.Option("--as-nobody", help="Run the referee as nobody (without root)."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="The numbers as JSON.")] = False,
    progress: Annotated[
        bool, typer.Option("--progress", help="A line per hand on stderr as it ends.")
    ] = False,
    cluster: Annotated[Cluster, CLUSTER],
) -> None:
    """Bits of a hand per hand that each covert channel between partners carries (the
    referee's timing, failed lookups live and leg to leg, CPU contention, per-user pipe
    buffers, the CPU's caches, the pipe inode counter): by default, with its closing layer,
    under --final and a silent control. The last line compares the worst row one machine
    can close, under --final, with the limit. With --dask and --seats-apart, every match
    has its seats on workers of their own."""
    if as_nobody:
        from referee.bench import nobody

        why = nobody.why_not()
        if why is not None:
            raise fail(f"--as-nobody: {why}")
        words = ["bench", "channels", "--hands", str(hands), "--move-timeout", str(move_timeout)]
        words += [f"--channel={c.value}" for c in channel or []]
        words += [f"--variant={v.value}" for v in variant or []]
        words += ["--json"] * json_output + ["--progress"] * progress
        raise typer.Exit(nobody.run(*words))
    import json

    from referee.bench.channels import measure as channels
    from referee.bench.channels import report as channel_report
    from referee.terminal.tables import people_console, print_table

    keys = [c.value for c in channel] if channel else list(channels.ROW_KEYS)
    rows = tuple(row for row in channels.ROWS if row.key in keys)
    variants = tuple(v.value for v in variant) if variant else channels.VARIANTS
    show = channels.show_trial if progress else None
    if cluster.dask is None:
        cells = channels.run(hands, rows, variants, move_timeout, show)
    else:
        from referee.apart.placement import Apart, misuse
        from referee.running.cluster import ClusterError, connected

        apart: Apart | None = None if cluster.seats_apart is None else cluster.seats_apart.value
        if (misused := misuse(cluster.dask, apart, needs_apart=True)) is not None:
            raise fail(misused)
        assert apart is not None
        try:
            with connected(cluster.dask, 4) as client:
                cells = channels.run(hands, rows, variants, move_timeout, show, (client, apart))
        except ClusterError as exc:
            raise fail(str(exc)) from None
    if json_output:
        typer.echo(json.dumps(channel_report.as_json(cells), indent=2))
        return
    print_table(people_console(), channel_report.table(cells))
    _echo(channel_report.notes(cells))
    typer.echo(channel_report.figure(cells))
