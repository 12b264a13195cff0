"""The shared options are the settings' own: every match limit a command offers has the
``MatchLimits`` field's default and bounds, each choice is its Literal's values, and the exit
statuses keep their numbers."""

from __future__ import annotations

from typing import Any, get_args

import pytest
import typer.main
from typer.testing import CliRunner

from referee.bench.cache_channel import MEDIA, SCENARIOS, VARIANTS
from referee.cli import app, exits
from referee.cli.bench import CacheMedium, CacheScenario, CacheVariant
from referee.cli.options import (
    DEFAULT_LIMITS,
    LIMIT_OPTIONS,
    OnFault,
    Sandbox,
    SeatName,
    limit_bounds,
    limit_fields,
    limit_option,
)
from referee.rules.tiles import SEATS, Seat
from referee.settings import FaultPolicy, MatchLimits, SandboxMode


def params(command: str) -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    return {param.name: param for param in group.commands[command].params if param.name}


@pytest.mark.parametrize("command", ["match", "check-bot"])
def test_each_limit_option_has_the_fields_default_and_bounds(command: str) -> None:
    offered = {name: param for name, param in params(command).items() if name in LIMIT_OPTIONS}
    assert len(offered) == (len(LIMIT_OPTIONS) if command == "match" else 2)
    runner = CliRunner()
    for name, param in offered.items():
        field = LIMIT_OPTIONS[name].field
        assert param.default == getattr(MatchLimits(), field), name
        flag = "--" + name.replace("_", "-")
        if name == "on_fault":
            refused = runner.invoke(app, [command, flag, "sometimes", "x"])
            assert refused.exit_code == 2 and "'forfeit', 'random'" in refused.output
            continue
        low, high = limit_bounds(field)
        step = 1 if isinstance(low, int) else 0.0005
        for value in (low - step, high + step):
            refused = runner.invoke(app, [command, flag, str(value), "x"])
            assert refused.exit_code == 2, (name, value, refused.output)
            assert f"'{flag}'" in refused.output, (name, value, refused.output)


def test_limits_of_seconds_start_at_a_millisecond_above_zero() -> None:
    assert limit_bounds("move_timeout") == (0.001, 3600)  # Meta(gt=0): logged in ms
    assert limit_bounds("time_bank") == (0, 86400)
    assert limit_bounds("memory_mb") == (16, 1 << 20)


def test_the_tournaments_form_has_no_default_and_its_one_line_help() -> None:
    # The tournament's help today, word for word: adopting limit_option(optional=True)
    # leaves ``referee tournament --help`` as it is.
    today = {
        "move_timeout": "Seconds per decision.",
        "startup_timeout": "Seconds to answer hello.",
        "time_bank": "Extra seconds per seat and match.",
        "max_rejections": "The Nth refused answer is a fault.",
        "on_fault": "forfeit or random.",
        "max_strikes": "Strikes allowed under random.",
        "max_hands": "Hands before a match is unfinished.",
        "memory_limit": "MiB of memory per seat (1024).",
        "cpu_limit": "CPU seconds per bot process (600).",
        "max_processes": "Processes per seat's tree (128).",
        "scratch_limit": "MiB of scratch per seat (256).",
    }
    for name, help_text in today.items():
        assert limit_option(name, optional=True).help == help_text, name


def test_limit_fields_name_the_fields_and_leave_out_what_was_not_given() -> None:
    given = limit_fields(memory_limit=512, on_fault=OnFault("random"), max_hands=None)
    assert given == {"memory_mb": 512, "on_fault": "random"}
    assert type(given["on_fault"]) is str
    assert MatchLimits(**given).memory_mb == 512


def test_each_choice_is_its_literals_values() -> None:
    assert [c.value for c in OnFault] == list(get_args(FaultPolicy))
    assert [c.value for c in Sandbox] == list(get_args(SandboxMode))
    assert [c.value for c in SeatName] == list(get_args(Seat)) == list(SEATS)
    assert tuple(c.value for c in CacheMedium) == MEDIA
    assert tuple(c.value for c in CacheVariant) == VARIANTS
    assert tuple(c.value for c in CacheScenario) == SCENARIOS
    assert OnFault(DEFAULT_LIMITS.on_fault).value == "forfeit"


def test_exit_statuses_keep_their_numbers() -> None:
    assert (exits.OK, exits.FAILED, exits.USAGE) == (0, 1, 2)
    assert exits.by_signal(2) == 130 and exits.by_signal(15) == 143
