"""What a log records about the sandbox (``record.sandbox``) names the layers as the sandbox
itself does, in the same order, and as plain names."""

from __future__ import annotations

import msgspec

from referee.record.sandbox import Layer, SandboxReport
from referee.rules.tiles import SEATS
from referee.sandbox.layers import LAYERS


def test_every_layer_has_its_facts_in_its_order() -> None:
    assert list(LAYERS) == list(Layer)
    for facts in LAYERS.values():
        assert facts.part_of is None or LAYERS[facts.part_of].part_of is None


def test_a_report_keeps_layers_as_plain_names() -> None:
    """The log's JSON is what it was: each layer by its name, decoded from old logs as is."""
    seats = {seat: [Layer.UID, Layer.SECCOMP] for seat in SEATS}
    report = SandboxReport(mode="auto", seats=seats)
    encoded = msgspec.json.encode(report)
    assert b'"seats":{"A":["uid","seccomp"]' in encoded
    decoded = msgspec.json.decode(encoded, type=SandboxReport)
    assert decoded.layers == [Layer.UID, Layer.SECCOMP]
    assert decoded.summary() == report.summary()
