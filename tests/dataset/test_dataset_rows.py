"""A log's decisions as rows: each row's tensors are the environments' for that seat at that
moment (computed apart, by replaying the seed with ``PythonGame``), its mask the legal
actions, its action the move; the hand's and the match's outcome are the seat's side's; a hand
cut short by a forfeit has no outcome; the rows read back exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import trio
from support.docs import ROOT
from support.viewer_logs import forfeit_match, log_of, random_match

from referee.dataset.columns import decoded, read, table_markdown
from referee.dataset.decisions import Rows, add_log
from referee.env.actions import INDEX
from referee.env.aec import hand_rewards
from referee.env.game import PythonGame
from referee.record.log import LogFile
from referee.record.records import BotReady, MatchEndRecord, MoveRecord
from referee.record.verify import verify
from referee.rules.tiles import PARTNERSHIP_OF, SEATS


def _log(run_match: object, seed: int) -> LogFile:
    log = log_of(trio.run(run_match, seed))  # type: ignore[arg-type]
    verify(log)
    return log


@pytest.mark.parametrize("seed", [3, 11])
def test_every_row_is_what_the_environment_gives_that_seat_then(seed: int) -> None:
    log = _log(random_match, seed)
    rows = Rows()
    add_log(rows, log, "m")
    got = decoded(rows.table())
    table = got.table.to_pydict()
    game = PythonGame(log.header.seed)
    moves = [r for r in log.records if type(r) is MoveRecord]
    assert len(moves) == len(got.actions) > 40
    hand_rows: list[int] = []
    for at, move in enumerate(moves):
        seat = game.turn
        assert seat == move.seat and SEATS[table["seat"][at]] == seat
        np.testing.assert_array_equal(got.information_states[at], game.information_state(seat))
        np.testing.assert_array_equal(got.observations[at], game.observation(seat))
        assert sorted(np.flatnonzero(got.masks[at])) == sorted(game.legal())
        assert got.actions[at] == INDEX[move.action] and table["decision"][at] == at
        assert table["phase"][at] == game.view(seat).phase
        hand_rows.append(at)
        rewards = hand_rewards(game.apply(INDEX[move.action]))
        if rewards is not None:
            for row in hand_rows:
                assert table["hand_reward"][row] == rewards[SEATS[table["seat"][row]]]
                assert table["hand_over"][row]
            hand_rows = []
    end = log.records[-1]
    assert type(end) is MatchEndRecord and end.winner is not None
    for at, seat in enumerate(table["seat"]):
        won = PARTNERSHIP_OF[SEATS[seat]] == end.winner
        assert table["match_reward"][at] == (1 if won else -1)
    ready = {r.seat: r.name for r in log.records if type(r) is BotReady}
    assert [ready[SEATS[s]] for s in table["seat"]] == table["bot"]  # the names in ready


def test_a_hand_cut_by_a_forfeit_has_no_outcome() -> None:
    log = _log(forfeit_match, 7)
    rows = Rows()
    add_log(rows, log, "f", bots={"A": "a", "B": "b", "C": "c", "D": "d"})
    table = rows.table().to_pydict()
    last_hand = max(table["hand"])
    cut = [at for at, hand in enumerate(table["hand"]) if hand == last_hand]
    assert cut and not any(table["hand_over"][at] for at in cut)
    assert {table["hand_reward"][at] for at in cut} == {0}
    assert {table["hand_points"][at] for at in cut} == {-1}
    assert all(table["hand_over"][at] for at in range(cut[0]))
    assert table["bot"][:4] == [table["bot"][at] for at in range(4)]
    assert set(table["bot"]) <= {"a", "b", "c", "d"}
    end = log.records[-1]
    assert type(end) is MatchEndRecord and end.winner is not None
    sides = {
        PARTNERSHIP_OF[SEATS[s]]: r
        for s, r in zip(table["seat"], table["match_reward"], strict=True)
    }
    assert sides == {end.winner: 1, ("BD" if end.winner == "AC" else "AC"): -1}


def test_a_written_file_reads_back_the_same_arrays(tmp_path: Path) -> None:
    rows = Rows()
    add_log(rows, _log(random_match, 5), "m")
    table = rows.table()
    pq.write_table(table, tmp_path / "d.parquet", compression="zstd")
    again, before = read(tmp_path / "d.parquet"), decoded(table)
    for name in ("information_states", "observations", "masks", "actions"):
        np.testing.assert_array_equal(getattr(again, name), getattr(before, name))
    assert again.makes is None and again.information_states.dtype == np.float32
    some = read(tmp_path / "d.parquet", filters=[("seat", "==", 2)])
    assert 0 < len(some.actions) < len(again.actions)
    assert set(some.table["seat"].to_pylist()) == {2}


def test_the_docs_print_the_columns() -> None:
    assert table_markdown() in (ROOT / "docs" / "dataset.md").read_text()
