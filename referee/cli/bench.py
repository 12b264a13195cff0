"""``referee bench``: the benchmarks, each printing its figure as the last line."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.app import bench_app
from referee.cli.options import (
    CacheMedium,
    fail,
)


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

    result = engine.run(hands, seed, views=views)
    typer.echo(
        f"played {result.hands} hands ({result.matches} matches, {result.actions} actions)"
        f" in {result.seconds:.2f} s on one core"
    )
    typer.echo(f"{result.microseconds_per_action:.2f} µs per action (legal actions + apply)")
    typer.echo(
        f"target: {engine.TARGET_HANDS_PER_SECOND:,} hands/s;"
        f" {result.hands_per_second / engine.TARGET_HANDS_PER_SECOND:.0%} of it"
    )
    typer.echo(f"engine: {result.hands_per_second:.0f} hands/s")


@bench_app.command("referee")
def bench_referee(
    matches: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 50,
    seed: Annotated[int, typer.Option(min=0, help="First match seed.")] = 1,
) -> None:
    """Matches between instant bots through the real referee, against the raw pipe rate."""
    from referee.bench import referee

    result = referee.run(matches, seed)
    pinned = ", the referee and the bots on CPUs of their own" if result.pinned else ""
    typer.echo(
        f"raw pipe: {result.raw_per_second:.0f} round trips/s"
        f" ({result.raw_round_trips} act lines echoed by a Python process{pinned})"
    )
    typer.echo(
        f"four echo processes taking turns: {result.turns_per_second:.0f} round trips/s"
        f" ({result.turns_per_second / result.raw_per_second:.0%} of one: what taking turns"
        " among four bots costs with no referee work at all)"
    )
    typer.echo(
        f"referee: {result.matches} matches, {result.decisions} decisions"
        f" in {result.seconds:.2f} s of play (start-up excluded);"
        f" {result.decisions_per_second / result.turns_per_second:.0%} of the four echoes' rate"
    )
    share = result.decisions_per_second / result.raw_per_second
    typer.echo(f"target: {referee.TARGET_SHARE:.0%} of the raw pipe rate")
    typer.echo(
        f"referee: {result.decisions_per_second:.0f} decisions/s ({share:.0%} of raw pipe rate)"
    )


@bench_app.command("tournament")
def bench_tournament(
    seeds: Annotated[
        int, typer.Option(min=1, help="Deal seeds (two matches each) per measurement.")
    ] = 30,
) -> None:
    """Matches per second through the tournament runner: fresh bots and warm pools, at 1 and
    2 jobs, against the rate the pipes allow."""
    from referee.bench import tournament

    raw = tournament.raw_round_trips_per_second()
    typer.echo(f"raw pipe: {raw:.0f} round trips/s")
    runs = {}
    for warm in (False, True):
        for jobs in (1, 2):
            result = runs[warm, jobs] = tournament.run(seeds, jobs, warm)
            busy = "" if result.busy_cores is None else f", {result.busy_cores:.2f} cores busy"
            typer.echo(
                f"{'warm' if warm else 'fresh'} jobs={jobs}: {result.matches} matches in"
                f" {result.seconds:.2f} s = {result.matches_per_second:.1f}/s"
                f" ({result.decisions_per_match:.0f} decisions a match{busy})"
            )
    best = runs[True, 2]
    limit = min(2, tournament.cores()) * raw / best.decisions_per_match
    over_fresh = best.matches_per_second / runs[False, 2].matches_per_second
    share = best.matches_per_second / limit
    scaling = best.matches_per_second / runs[True, 1].matches_per_second
    typer.echo(
        f"pipe limit at jobs=2: {limit:.0f} matches/s; targets: warm"
        f" {tournament.TARGET_WARM_OVER_FRESH:.0f}x fresh, {tournament.TARGET_PIPE_SHARE:.0%}"
        f" of the pipe limit, jobs=2 {tournament.TARGET_SCALING}x jobs=1"
    )
    typer.echo(
        f"tournament: {best.matches_per_second:.1f} matches/s at jobs=2 warm ({over_fresh:.1f}x"
        f" fresh, {share:.0%} of the pipe limit, jobs=2 {scaling:.2f}x jobs=1)"
    )


@bench_app.command("startup")
def bench_startup(
    delay: Annotated[
        float, typer.Option(min=0, metavar="S", help="Seconds each bot sleeps before ready.")
    ] = 1.0,
    matches: Annotated[int, typer.Option(min=2, help="Matches to play (one job).")] = 20,
) -> None:
    """Wall time of a tournament between bots that are slow to start, fresh and warm."""
    from referee.bench import tournament

    fresh = tournament.startup(delay, matches, warm=False)
    typer.echo(f"fresh: {matches} matches in {fresh:.1f} s")
    warm = tournament.startup(delay, matches, warm=True)
    typer.echo(f"warm: {matches} matches in {warm:.1f} s")
    typer.echo(
        f"startup: {matches} matches with a {delay:g} s start-up: fresh {fresh:.1f} s,"
        f" warm {warm:.1f} s ({fresh / warm:.1f}x)"
    )


@bench_app.command("solver")
def bench_solver(
    deals: Annotated[int, typer.Option(min=1, help="Seeded deals to solve trick by trick.")] = 40,
    seed: Annotated[int, typer.Option(min=0, help="First deal seed.")] = 1,
) -> None:
    """The strong bot's exact solver: positions/s, and the make-or-set time at each trick."""
    from referee.bench import solver

    result = solver.run(deals, seed)
    for trick, times in sorted(result.seconds.items()):
        mean, p90, most = solver.summary(times)
        typer.echo(
            f"trick {trick}: {len(times)} leads, every legal tile solved in {mean:.1f} ms mean"
            f" ({p90:.1f} p90, {most:.1f} max)"
        )
    mean, p90, most = solver.summary(result.seconds[1])
    typer.echo(
        f"solver: {result.nodes_per_second / 1e6:.2f} M positions/s; first lead {mean:.0f} ms"
        f" mean ({p90:.0f} p90, {most:.0f} max)"
    )


@bench_app.command("viewer")
def bench_viewer(
    seed: Annotated[int, typer.Option(min=0, help="The matches' seed.")] = 1,
) -> None:
    """The viewer page of the longest log (200 hands) and of a full match: its size, the
    time to build it, to its first render in headless Chromium, and per step."""
    from referee.bench import viewer
    from referee.bench.browser import NoBrowser

    try:
        results = viewer.run(seed)
    except NoBrowser as exc:
        raise fail(f"bench viewer needs a browser: {exc}") from None
    for result in results:
        typer.echo(
            f"{result.name}: {result.hands} hands, {result.steps} steps,"
            f" {result.bytes / 1024:.0f} KiB; built in {result.build_ms:.0f} ms; first render"
            f" {result.first_render_ms:.0f} ms; a step {result.step_mean_ms:.2f} ms mean,"
            f" {result.step_p99_ms:.1f} ms p99, {result.step_max_ms:.1f} ms max"
        )
    typer.echo(
        f"limits: first render {viewer.FIRST_RENDER_LIMIT_MS:.0f} ms,"
        f" a step {viewer.STEP_LIMIT_MS:.1f} ms at p99 (one frame at 60 Hz)"
    )
    longest = results[0]
    typer.echo(
        f"viewer: {longest.name} {longest.bytes / 1024:.0f} KiB, first render"
        f" {longest.first_render_ms:.0f} ms"
        f" ({longest.first_render_ms / viewer.FIRST_RENDER_LIMIT_MS:.0%} of its limit), a step"
        f" {longest.step_p99_ms:.1f} ms p99 ({longest.step_p99_ms / viewer.STEP_LIMIT_MS:.0%}"
        " of a frame)"
    )


@bench_app.command("sandbox")
def bench_sandbox(
    rounds: Annotated[int, typer.Option(min=1, help="Rounds of four bot starts each.")] = 30,
) -> None:
    """Extra milliseconds per bot start for each sandbox layer, against a bare start."""
    from referee.bench import sandbox

    result = sandbox.run(rounds)
    typer.echo(f"bare start: {result.bare_ms:.1f} ms per bot ({' '.join(result.program)})")
    for name, extra in result.extra_ms.items():
        if name != "all":
            typer.echo(f"  {name:<15} {extra:+.1f} ms")
    typer.echo(f"limit: +{sandbox.LIMIT_MS:.0f} ms per bot start")
    typer.echo(
        f"sandbox: {result.extra_ms['all']:+.1f} ms per bot start ({', '.join(result.layers)})"
    )


@bench_app.command("cache")
def bench_cache(
    trials: Annotated[int, typer.Option(min=1, help="Hands per variant and scenario.")] = 6,
    medium: Annotated[
        CacheMedium,
        typer.Option(help="pages: timed reads of pages; names: timed lookups of missing names."),
    ] = CacheMedium.pages,
) -> None:
    """Bits of a hand per match a cache timing channel carries between partners and between
    the legs of a pair, with the sandbox off and as the referee plays (about a minute)."""
    import os

    from referee.bench import cache_channel

    # Without root the lookup caches cannot be dropped: no "forget" variant.
    unprivileged = [a for v in ("off", "before", "narrow", "resident") for a in ("--variant", v)]
    variants = [] if os.geteuid() == 0 else unprivileged
    cache_channel.main(["--trials", str(trials), "--medium", medium.value, "--quiet", *variants])


@bench_app.command("decode")
def bench_decode(
    lines: Annotated[int, typer.Option(min=1, help="Adversarial lines to decode.")] = 1_000_000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the line generators.")] = 1,
) -> None:
    """Fuzz the bot-line decoder; fails if any exception escapes the rejection tree."""
    from referee.bench import decode

    try:
        result = decode.run(lines, seed)
    except decode.Escaped as exc:
        typer.echo(f"decode: ESCAPED {type(exc.error).__name__} on {exc.line[:200]!r}", err=True)
        raise typer.Exit(1) from None
    reasons = ", ".join(f"{code} {count:,}" for code, count in sorted(result.rejected.items()))
    typer.echo(f"accepted {result.accepted:,}; rejected: {reasons}")
    typer.echo(f"{result.microseconds_per_line:.1f} µs per line, {result.bytes:,} bytes in all")
    typer.echo(
        f"decode: {result.lines:,} lines, nothing escaped ({result.lines_per_second:,.0f} lines/s)"
    )
