"""The reasons a log may give are the exception tree's: ``reasons`` reads them off it, so a
new kind of rejection or fault is counted as one without a list kept by hand."""

from __future__ import annotations

from referee.errors import BotFault, Rejection, reason_code, reasons
from referee.record.records import REJECTION_REASONS


def test_rejection_reasons_are_every_rejections_code() -> None:
    refused = {"invalid_utf8", "invalid_json", "bad_message", "illegal_action"}
    assert reasons(Rejection) == refused
    assert {*refused, "ignored"} == REJECTION_REASONS


def test_fault_reasons_reach_every_depth_and_never_meet_a_rejection() -> None:
    faults = reasons(BotFault)
    assert {"timeout", "resigned", "memory_limit", "too_many_rejections"} <= faults
    assert not faults & REJECTION_REASONS
    assert reason_code(BotFault) not in faults
