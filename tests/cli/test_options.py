"""The shared options are the settings' own: every match limit a command offers has the
``MatchLimits`` field's default and bounds, each choice is its Literal's values, and the exit
statuses keep their numbers."""

from __future__ import annotations

from typing import Any, get_args

import pytest
import typer.main
from typer.testing import CliRunner

from referee.bench.channels.cache import MEDIA, SCENARIOS, VARIANTS
from referee.cli import app, exits
from referee.cli.bench import CacheMedium, CacheScenario, CacheVariant
from referee.cli.groups import bounds, choices, limit_options, sandbox_options
from referee.cli.options import SeatName
from referee.rules.tiles import SEATS, Seat
from referee.settings import FaultPolicy, MatchLimits, SandboxMode, field_types


def params(command: str) -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    return {param.name: param for param in group.commands[command].params if param.name}


@pytest.mark.parametrize("command", ["match", "check-bot"])
def test_each_limit_option_has_the_fields_default_and_bounds(command: str) -> None:
    named = {option.name for option in limit_options().options}
    offered = {name: param for name, param in params(command).items() if name in named}
    assert len(offered) == len(field_types(MatchLimits))
    runner = CliRunner()
    for name, param in offered.items():
        if param.is_flag:  # a flag: given (True) or not (None: a file's value stands)
            (field, value), *_ = limit_options().make({name: True}).items()
            assert value is True and getattr(MatchLimits(), field) is None, name
            assert limit_options().make({name: None}) == {}, name
            continue
        field = limit_options().make({name: param.default}).popitem()[0]
        assert param.default == getattr(MatchLimits(), field), name
        flag = "--" + name.replace("_", "-")
        if name == "on_fault":
            refused = runner.invoke(app, [command, flag, "sometimes", "x"])
            assert refused.exit_code == 2 and "'forfeit', 'random'" in refused.output
            continue
        low, high = bounds(field_types(MatchLimits)[field][0])
        step = 1 if isinstance(low, int) else 0.0005
        for value in (low - step, *([] if high is None else [high + step])):
            refused = runner.invoke(app, [command, flag, str(value), "x"])
            assert refused.exit_code == 2, (name, value, refused.output)
            assert f"'{flag}'" in refused.output, (name, value, refused.output)


def test_limits_of_seconds_start_at_a_millisecond_above_zero() -> None:
    kinds = {field: kind for field, (kind, _) in field_types(MatchLimits).items()}
    assert bounds(kinds["move_timeout"]) == (0.001, 3600)  # Meta(gt=0): logged in ms
    assert bounds(kinds["time_bank"]) == (0, 86400)
    assert bounds(kinds["memory_mb"]) == (16, 1 << 20)


def test_a_group_gives_the_fields_given_and_leaves_out_the_others() -> None:
    over = limit_options(default="the file's, else {}")
    given = over.make(
        {
            "memory_limit": 512,
            "on_fault": choices("on_fault", ("forfeit", "random"))("random"),
            "max_hands": None,
        }
    )
    assert given == {"memory_mb": 512, "on_fault": "random"}
    assert type(given["on_fault"]) is str
    assert MatchLimits(**given).memory_mb == 512
    sandbox = sandbox_options().make({"sandbox": None, "sandbox_allow": [], "sandbox_env": ["X"]})
    assert sandbox == {"env": ["X"]}


def test_each_choice_is_its_literals_values() -> None:
    on_fault = choices("on_fault", get_args(FaultPolicy))
    assert [c.value for c in on_fault] == list(get_args(FaultPolicy))
    assert [c.value for c in params("match")["on_fault"].type_descriptor.annotation] == list(
        get_args(FaultPolicy)
    )
    assert [c.value for c in params("match")["sandbox"].type_descriptor.annotation] == list(
        get_args(SandboxMode)
    )
    assert [c.value for c in SeatName] == list(get_args(Seat)) == list(SEATS)
    assert tuple(c.value for c in CacheMedium) == MEDIA
    assert tuple(c.value for c in CacheVariant) == VARIANTS
    assert tuple(c.value for c in CacheScenario) == SCENARIOS
    assert params("match")["on_fault"].default.value == "forfeit"


def test_exit_statuses_keep_their_numbers() -> None:
    assert (exits.OK, exits.FAILED, exits.USAGE) == (0, 1, 2)
    assert exits.by_signal(2) == 130 and exits.by_signal(15) == 143
