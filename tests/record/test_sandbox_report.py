"""What a log records about the sandbox (``record.sandbox``) names the layers as the sandbox
itself does, in the same order."""

from __future__ import annotations

from referee.record.sandbox import LAYERS
from referee.sandbox.layers import PROTECTS


def test_the_reports_layers_are_the_sandboxs_in_its_order() -> None:
    assert tuple(PROTECTS) == LAYERS
