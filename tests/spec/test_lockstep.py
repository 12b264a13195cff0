"""Two engines side by side on random matches: the reference agrees with itself move by move,
and an engine that breaks a rule is found at the move where it does."""

from __future__ import annotations

from typing import Any

from support.broken_engines import Renege

from referee.spec.conformance import check_engine
from referee.spec.facts import PythonEngine
from referee.spec.lockstep import lockstep


class _ForgetsPiles(PythonEngine):
    """Shows every captured pile, whatever an all-tricks declarer chose."""

    __slots__ = ()

    def state(self) -> dict[str, Any]:
        state = super().state()
        state["face_up"] = [pile["trick"] for pile in state["piles"]]
        return state


def test_the_reference_agrees_with_itself_over_whole_matches() -> None:
    assert lockstep(PythonEngine, matches=40) == []


def test_an_engine_that_lets_a_seat_renege_is_found_where_it_does() -> None:
    found = lockstep(Renege, matches=10)
    assert found and all(d.what.endswith("the legal actions") for d in found)
    assert all(len(d.got) > len(d.expected) for d in found)  # the seat could follow


def test_a_wrong_view_of_the_piles_is_found_only_when_states_are_compared() -> None:
    assert lockstep(_ForgetsPiles, matches=20, states=False) == []
    found = lockstep(_ForgetsPiles, matches=20)
    assert found and {d.what.split(": ", 1)[1] for d in found} == {"the state after it"}


class _Tuples(PythonEngine):
    """Gives tiles as tuples, as a binding might: read as JSON reads them, nothing differs."""

    __slots__ = ()

    def legal_actions(self) -> list[Any]:
        return [
            {**action, "tile": tuple(action["tile"])} if "tile" in action else action
            for action in super().legal_actions()
        ]


def test_tiles_given_as_tuples_are_the_lists_the_vectors_write() -> None:
    assert lockstep(_Tuples, matches=5) == []
    assert check_engine(_Tuples, kinds=["positions"]) == []
