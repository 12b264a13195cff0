"""The map from simulated chances to the bot's own results, the worlds the auction weighs, and
the logs both are fitted to: each file loads, and each command regenerates it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.rules.actions import NO_TRUMP, Bid, Pass
from referee.rules.tiles import SEATS, TILES, Tile
from referee.rules.views import Move
from referee.solver.search import mask
from referee.strong import beliefs, calibrate
from referee.strong.beliefs import Auction, Beliefs
from referee.strong.calibration import CALIBRATION, Calibration, shipped
from referee.strong.logs import NothingToFit, all_hands, log_paths
from referee.strong.worlds import draw

GOLDEN = Path(__file__).parent.parent / "golden" / "logs"
FULL = (1 << len(TILES)) - 1


def test_the_shipped_calibration_loads_and_rises_with_both_chances() -> None:
    assert CALIBRATION.exists()
    calibration = shipped()
    assert calibration == Calibration.load()
    shares = [calibration.chance(s / 10, 0.5, 30) for s in range(11)]
    assert shares == sorted(shares) and shares[0] < shares[-1]
    assert calibration.chance(0.8, 0.3, 30) < calibration.chance(0.8, 0.7, 30)
    assert 0.3 < calibration.opponents_make < 0.8


def test_all_tricks_is_never_estimated_without_data() -> None:
    assert Calibration(all_tricks=None).chance(1.0, 1.0, None) == 0.0
    assert Calibration(all_tricks=0.0).chance(1.0, 1.0, None) > 0.5


def test_the_fit_finds_the_map_the_results_come_from() -> None:
    rng = random.Random(1)
    truth = Calibration(intercept=-0.5, slope=0.5, model=1.0, per_point=-0.1)
    data = []
    for _ in range(3000):
        share, modelled, level = rng.random(), rng.random(), rng.randrange(30, 36)
        made = rng.random() < truth.chance(share, modelled, level)
        data.append((share, modelled, level, made))
    fitted = calibrate.fit(data)
    assert fitted.slope == pytest.approx(0.5, abs=0.15)
    assert fitted.model == pytest.approx(1.0, abs=0.2)
    assert fitted.per_point == pytest.approx(-0.1, abs=0.07)
    assert fitted.all_tricks is None  # no all-tricks contract in the data


def test_both_commands_regenerate_their_files_from_logs(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "calibration.json"
    args = ["strong", "calibrate", str(GOLDEN), "--name", "random", "--out", str(out)]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-1] == f"wrote {out}"
    assert Calibration.load(out) != Calibration()  # fitted (the random bot is always set)
    out = tmp_path / "beliefs.json"
    args = ["strong", "fit-beliefs", str(GOLDEN), "--steps", "5", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    assert len(Beliefs.load(out).strengths(mask(list(TILES[:7])))) == 9


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["calibrate", str(GOLDEN), "--name", "nobody"], "no contract declared by 'nobody'"),
        (["fit-beliefs"], "name match logs or a folder of them"),
        (["calibrate", "no/such/logs"], "no/such/logs: no such file or folder"),
        (["fit-bidding", "--calibrate", str(GOLDEN)], "no point contract declared by 'strong'"),
        (["fit-bidding", "--from-data", "no-samples.jsonl"], "no-samples.jsonl: no such file"),
    ],
)
def test_a_fit_with_nothing_to_fit_is_a_usage_mistake_in_one_line(
    args: list[str], said: str
) -> None:
    done = CliRunner().invoke(app, ["strong", *args, "--out", "never-written.json"])
    assert done.exit_code == 2, done.output
    assert done.output.count("\n") == 1 and said in done.output, done.output
    assert not Path("never-written.json").exists()


def test_the_logs_give_every_hand_as_dealt_and_its_auction_in_order() -> None:
    hands = list(all_hands(log_paths(GOLDEN)))
    assert hands
    for logged in hands:
        tiles = [tile for hand in logged.hands.values() for tile in hand]
        assert sorted(tiles) == sorted(TILES)
        first = SEATS[(SEATS.index(logged.dealer) + 1) % 4]
        if logged.bids:
            assert logged.bids[0].seat == first
        if logged.contract is None:
            assert logged.outcome == "passed"


def test_worlds_deal_the_other_tiles_and_lean_as_the_auction_says() -> None:
    hand = mask(
        [Tile(0, 0), Tile(0, 1), Tile(0, 2), Tile(0, 3), Tile(1, 1), Tile(1, 2), Tile(1, 3)]
    )
    auction = Auction((Move(seat="B", action=Bid(points=32)), Move(seat="C", action=Pass())))
    leaning = draw("A", hand, auction, random.Random(5), 64, 256)
    uniform = draw("A", hand, None, random.Random(5), 64, 256)
    for deal in leaning.deals + uniform.deals:
        assert deal[0] == hand and deal[0] | deal[1] | deal[2] | deal[3] == FULL
        assert all(bin(h).count("1") == 7 for h in deal)
    model = beliefs.shipped()

    def mean(deals: list[tuple[int, int, int, int]], seat: int) -> float:
        return sum(model.strength(d[seat]) for d in deals) / len(deals)

    assert mean(leaning.deals, 1) > mean(uniform.deals, 1) + 1  # B bid 32
    assert mean(leaning.deals, 2) < mean(uniform.deals, 2)  # C passed over it
    assert 0 < leaning.effective < 256
    again = draw("A", hand, auction, random.Random(5), 64, 256)
    assert again == leaning


def test_the_feature_models_shift_is_read_from_the_bots_own_contracts() -> None:
    """``fit --calibrate``: every point contract the named bot declared, and no other."""
    from referee.strong.fit import calibrate as shift_of

    hands = list(all_hands(log_paths(GOLDEN)))
    declared = [
        h
        for h in hands
        if h.contract is not None
        and h.names.get(h.contract.declarer) == "random"
        and isinstance(h.contract.bid, Bid)
        and h.contract.trump != NO_TRUMP
    ]
    assert declared
    count, predicted, share, shift = shift_of(log_paths(GOLDEN), name="random")
    assert count == len(declared)
    assert share == sum(h.outcome == "made" for h in declared) / len(declared)
    assert 0 < predicted < 1 and (shift < 0) == (share < predicted)
    with pytest.raises(NothingToFit, match="no point contract"):
        shift_of(log_paths(GOLDEN), name="nobody")
