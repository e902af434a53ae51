"""The exact equity engine, checked against a plain enumeration written here.

The reference below knows nothing of the engine's tables: it lists every runout with
itertools and asks phevaluator's public functions who wins, sharing ties with
Fractions. Cases are kept small (river, turn, flop, or preflop from a short stub made
by many dead cards) so the whole file runs in seconds; the one full preflop count by
the plain loop is marked slow.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from phevaluator import evaluate_cards, evaluate_omaha_cards

from broadcast.equity import (
    DEFAULT_BUDGET,
    EquityInputError,
    EquityResult,
    equity,
    leaders,
    outs,
    work_needed,
)
from broadcast.equity import tables
from broadcast.equity.counting import combinations
from broadcast import equity_cli

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


# --- the reference: a plain exact enumeration ------------------------------------


def _rank(game, hole, board):
    if game == "plo":
        return evaluate_omaha_cards(*board, *hole)
    return evaluate_cards(*board, *hole)


def _split(cards):
    return [cards[i : i + 2] for i in range(0, len(cards), 2)] if isinstance(cards, str) else list(cards)


def plain_equity(hands, board="", dead="", game="nlhe"):
    """(shares as Fractions, outright wins, boards) over every runout."""
    hands = [_split(h) for h in hands]
    board, dead = _split(board), _split(dead)
    known = {c for h in hands for c in h} | set(board) | set(dead)
    stub = [c for c in DECK if c not in known]
    shares = [Fraction(0)] * len(hands)
    wins = [0] * len(hands)
    boards = 0
    for runout in itertools.combinations(stub, 5 - len(board)):
        full = board + list(runout)
        ranks = [_rank(game, h, full) for h in hands]
        best = min(ranks)
        ahead = [i for i, r in enumerate(ranks) if r == best]
        for i in ahead:
            shares[i] += Fraction(1, len(ahead))
        if len(ahead) == 1:
            wins[ahead[0]] += 1
        boards += 1
    return [s / boards for s in shares], wins, boards


def plain_outs(hands, board, dead="", game="nlhe"):
    """The next cards that put each trailing hand ahead or level."""
    hands = [_split(h) for h in hands]
    board, dead = _split(board), _split(dead)

    def ahead(full):
        # phevaluator's Omaha call wants five board cards; on 3 or 4, try every
        # two-from-hand, three-from-board five-card hand instead.
        if game == "plo":
            ranks = [
                min(evaluate_cards(*p, *t) for p in itertools.combinations(h, 2) for t in itertools.combinations(full, 3))
                for h in hands
            ]
        else:
            ranks = [evaluate_cards(*full, *h) for h in hands]
        return {i for i, r in enumerate(ranks) if r == min(ranks)}

    now = ahead(board)
    known = {c for h in hands for c in h} | set(board) | set(dead)
    stub = [c for c in DECK if c not in known]
    found = [set() for _ in hands]
    for card in stub:
        for i in ahead(board + [card]):
            if i not in now:
                found[i].add(card)
    return found


def assert_matches_plain(result: EquityResult, hands, board="", dead="", game="nlhe"):
    shares, wins, boards = plain_equity(hands, board, dead, game)
    assert result.exact
    assert result.boards == boards
    assert list(result.wins) == wins
    assert result.equities == pytest.approx([float(s) for s in shares], abs=1e-12)
    assert sum(result.equities) == pytest.approx(1.0, abs=1e-12)
    for i, share in enumerate(shares):
        assert (result.wins[i] + result.ties[i]) == pytest.approx(float(share * boards), abs=1e-6)


def deal_random(rng, game, hands, board_cards, dead_cards):
    per = 4 if game == "plo" else 2
    cards = rng.sample(DECK, hands * per + board_cards + dead_cards)
    holes = ["".join(cards[i * per : (i + 1) * per]) for i in range(hands)]
    rest = cards[hands * per :]
    return holes, "".join(rest[:board_cards]), "".join(rest[board_cards:])


# --- hold'em against the plain enumeration ----------------------------------------


@pytest.mark.parametrize(
    "hands, board",
    [
        (["AsAh", "KdKc"], "2c7d9hTsKs"),  # river: a set beats aces
        (["AsKs", "QdQh"], "2s7s9dTc"),  # turn: flush draw against an overpair
        (["9c8c", "AsAh"], "2c7c5d"),  # flop: straight and flush draw
        (["AhKh", "QsQc", "JdTd"], "Jh7h2c"),  # flop, three hands
        (["AsKd", "AcKh"], "QsJs2s"),  # flop, the same hand but one flush draw
        (["2c3d", "2h3s", "2s3c"], "AhKhQdJc"),  # turn, three-way split on most rivers
        (["AsAh", "KsKh"], "QsJsTs"),  # flop, two hands already on a straight flush draw
    ],
)
def test_holdem_matches_plain_enumeration(hands, board):
    assert_matches_plain(equity(hands, board), hands, board)


def test_holdem_random_flop_turn_river_match_plain_enumeration():
    rng = random.Random(6)
    for _ in range(30):
        count = rng.randint(2, 4)
        board_cards = rng.choice([3, 4, 5])
        dead_cards = rng.randint(0, 6)
        hands, board, dead = deal_random(rng, "nlhe", count, board_cards, dead_cards)
        assert_matches_plain(equity(hands, board, _split(dead)), hands, board, dead)


def test_holdem_preflop_matches_plain_enumeration_on_a_short_stub():
    # Preflop the engine counts runouts by rank pattern plus listed flush boards;
    # a short stub (many dead cards) keeps the plain count small.
    rng = random.Random(7)
    for count in (2, 3, 4):
        hands, _, dead = deal_random(rng, "nlhe", count, 0, 48 - 2 * count - 18)
        assert_matches_plain(equity(hands, (), _split(dead)), hands, "", dead)


def test_holdem_preflop_with_suits_crowding_the_stub():
    # Every spade but three gone: flush-only runouts must still be counted once each.
    dead = [r + "s" for r in "23456789T"] + [r + s for r in "234567" for s in "hdc"] + ["8h", "8d"]
    hands = ["AhKh", "JsQs", "9c8c"]
    assert_matches_plain(equity(hands, (), dead), hands, "", dead)


# --- textbook figures --------------------------------------------------------------


def test_aces_against_kings_preflop_is_81_95_percent():
    # Counted once with the plain loop over phevaluator (test_full_preflop_... below).
    result = equity(["AsAh", "KsKd"])
    assert result.exact and result.boards == 1_712_304
    assert result.wins == (1_399_204, 305_177)
    assert result.ties == (3961.5, 3961.5)
    assert [round(e * 100, 2) for e in result.equities] == [81.95, 18.05]


def test_suits_matter_for_aces_against_kings():
    shared = equity(["AsAh", "KsKh"]).equities[0]
    one = equity(["AsAh", "KsKd"]).equities[0]
    none = equity(["AsAh", "KdKc"]).equities[0]
    assert shared > one > none
    assert equity(["AsAh", "KdKc"]).wins == (1_388_072, 317_694)


def test_coin_flip_preflop():
    result = equity(["AsKs", "QhJh"])
    assert result.wins == (1_069_685, 634_101)
    assert result.ties == (4259.0, 4259.0)


@pytest.mark.slow
def test_full_preflop_heads_up_matches_a_plain_loop():
    from phevaluator import _pheval

    hole = [[51, 50], [47, 45]]  # AsAh, KsKd as phevaluator ids
    stub = [c for c in range(52) if c not in (51, 50, 47, 45)]
    wins = [0, 0]
    for board in itertools.combinations(stub, 5):
        a, b = _pheval.evaluate_7cards(*hole[0], *board), _pheval.evaluate_7cards(*hole[1], *board)
        if a != b:
            wins[a > b] += 1
    assert tuple(wins) == equity(["AsAh", "KsKd"]).wins


# --- ties --------------------------------------------------------------------------


def test_a_three_way_tie_gives_a_third_each():
    result = equity(["2c3d", "2h4s", "5c6c"], "AsKsQsJsTs")  # the board plays: a royal flush
    assert result.boards == 1 and result.wins == (0, 0, 0)
    assert result.ties == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert result.equities == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_two_share_while_the_third_loses():
    result = equity(["AcKd", "AdKc", "2c3d"], "AhKhQd7s9s")
    assert result.equities == pytest.approx((0.5, 0.5, 0.0))
    assert result.ties == (0.5, 0.5, 0.0)


def test_tie_shares_are_exact_over_many_boards():
    hands = ["2c3d", "2h3s", "2s3c"]
    result = equity(hands, "AhKhQdJc")
    shares, _, _ = plain_equity(hands, "AhKhQdJc")
    assert result.ties == pytest.approx([float(s * result.boards) - w for s, w in zip(shares, result.wins)], abs=1e-9)
    assert sum(result.ties) + sum(result.wins) == result.boards


# --- dead cards --------------------------------------------------------------------


def test_dead_cards_are_taken_out_of_the_stub():
    hands, board = ["AsAh", "9c8c"], "2c7c5d"
    live = equity(hands, board)
    mucked = equity(hands, board, ["Kc", "Qc", "6h"])  # two flush cards and a straight card folded
    assert live.boards == 990 and mucked.boards == 861
    assert mucked.equities[1] < live.equities[1]
    assert_matches_plain(mucked, hands, board, "KcQc6h")


def test_dead_cards_change_preflop_equity():
    live = equity(["AsAh", "KsKd"])
    mucked = equity(["AsAh", "KsKd"], dead=["Ac", "Ad"])  # the other aces were folded
    assert mucked.boards == 1_370_754
    assert mucked.equities[0] < live.equities[0]  # the aces can no longer make a set


def test_unknown_dead_cards_change_nothing():
    assert equity(["AsAh", "9c8c"], "2c7c5d", ["??", "??"]) == equity(["AsAh", "9c8c"], "2c7c5d")


# --- Omaha -------------------------------------------------------------------------


def test_omaha_uses_exactly_two_hole_cards_and_three_board_cards():
    # Four spades on board: one spade in hand is no flush, and Ts is no royal.
    hands, board = ["Ts2h3c4d", "5c5h7c8c"], "AsKsQsJs5d"
    result = equity(hands, board, game="plo")
    assert result.equities == (0.0, 1.0)  # trip fives win
    assert equity(["Ts2h", "5c5h"], board).equities == (1.0, 0.0)  # in hold'em the royal would
    assert_matches_plain(result, hands, board, game="plo")


def test_omaha_cannot_play_the_board():
    # The board is a straight; neither hand may use it without two hole cards.
    result = equity(["AcAd2c2d", "KcKd3c3d"], "5h6s7h8s9d", game="plo")
    assert result.equities == (1.0, 0.0)


@pytest.mark.parametrize(
    "hands, board",
    [
        (["AsAhKsQd", "9c8c7h6h"], "2c5h9dTh"),
        (["AsAhKsQd", "9c8c7h6h"], "2c5h9d"),
        (["AsKsQhJh", "TcTd9s9c", "8h7h6d5d"], "2s3h4c"),
    ],
)
def test_omaha_matches_plain_enumeration(hands, board):
    assert_matches_plain(equity(hands, board, game="plo"), hands, board, game="plo")


def test_omaha_random_cases_match_plain_enumeration():
    rng = random.Random(9)
    for _ in range(12):
        count = rng.randint(2, 4)
        board_cards = rng.choice([3, 4, 5])
        hands, board, dead = deal_random(rng, "plo", count, board_cards, rng.randint(0, 10))
        assert_matches_plain(equity(hands, board, _split(dead), "plo"), hands, board, dead, "plo")


def test_omaha_preflop_matches_plain_enumeration_on_a_short_stub():
    rng = random.Random(10)
    for count in (2, 3):
        hands, _, dead = deal_random(rng, "plo", count, 0, 52 - 4 * count - 16)
        assert_matches_plain(equity(hands, (), _split(dead), "plo"), hands, "", dead, "plo")


# --- budget ------------------------------------------------------------------------


def test_over_budget_gives_no_numbers():
    result = equity(["AsAh", "KsKd"], budget=1_000_000)
    assert not result.exact
    assert result.equities == () and result.wins == () and result.ties == ()
    assert result.work == 2 * 1_712_304 and result.boards == 1_712_304


def test_one_live_hand_wins_every_runout_without_counting():
    result = equity(["AsAh"], budget=0)
    assert result.exact and result.equities == (1.0,) and result.wins == (result.boards,) == (2_118_760,)


def test_budget_counts_runouts_times_hands():
    work = work_needed(hands=3, board_cards=3, stub=43)
    assert work == 3 * 903
    assert equity(["AsAh", "KsKd", "9c8c"], "2c7c5d", budget=work).exact
    assert not equity(["AsAh", "KsKd", "9c8c"], "2c7c5d", budget=work - 1).exact


def test_default_budget_covers_every_case_up_to_ten_hands():
    # The default is sized so any table's all-in is computed; see docs/EQUITY.md.
    for game, per in (("nlhe", 2), ("plo", 4)):
        worst = max(work_needed(n, 0, 52 - per * n) for n in range(1, 11))
        assert worst <= DEFAULT_BUDGET[game]


# --- outs --------------------------------------------------------------------------


def test_outs_of_a_flush_and_straight_draw():
    got = outs(["AsAh", "9c8c"], "2c7c5d")
    assert got[0] == ()  # the aces are ahead
    assert set(got[1]) == {"Ac", "Kc", "Qc", "Jc", "Tc", "5c", "4c", "3c", "6c", "6d", "6h", "6s"}


def test_true_outs_leave_out_mucked_cards():
    nominal = outs(["AsAh", "9c8c"], "2c7c5d")
    true = outs(["AsAh", "9c8c"], "2c7c5d", dead=["Kc", "6d", "Jd"])
    assert set(nominal[1]) - set(true[1]) == {"Kc", "6d"}


def test_outs_include_cards_that_tie():
    # Ace-queen trails ace-king on 2-3-4; any five gives both the wheel, a split.
    got = outs(["AsKs", "AcQs"], "2c3d4h")
    assert got[0] == ()
    assert set(got[1]) == {"Qc", "Qd", "Qh", "5c", "5d", "5h", "5s"}
    assert set(got[1]) == plain_outs(["AsKs", "AcQs"], "2c3d4h")[1]


@pytest.mark.parametrize("game, hands, board", [
    ("nlhe", ["AhKh", "QsQc", "JdTd"], "Jh7h2c"),
    ("nlhe", ["AsKd", "7c7d"], "Qs7h2s4d"),
    ("plo", ["AsAhKsQd", "9c8c7h6h"], "2c5h9d"),
    ("plo", ["AsKsQhJh", "TcTd9s9c", "8h7h6d5d"], "2s3h4cKd"),
])
def test_outs_match_plain_enumeration(game, hands, board):
    expected = plain_outs(hands, board, game=game)
    assert [set(o) for o in outs(hands, board, game=game)] == expected


def test_outs_are_listed_aces_first_in_suit_order():
    assert outs(["AsAh", "9c8c"], "2c7c5d")[1] == ("Ac", "Kc", "Qc", "Jc", "Tc", "6c", "6d", "6h", "6s", "5c", "4c", "3c")


def test_leaders_on_the_board_as_it_stands():
    assert leaders(["AsAh", "9c8c"], "2c7c5d") == (0,)
    assert leaders(["AcKd", "AdKc", "2c3d"], "AhKhQd7s9s") == (0, 1)


def test_outs_only_on_the_flop_and_turn():
    for board in ("", "2c7c5d4h9s"):
        with pytest.raises(EquityInputError) as caught:
            outs(["AsAh", "9c8c"], board)
        assert caught.value.field == "board"


# --- input errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, field, words",
    [
        (dict(hands=["AsAh", "AsKd"]), "hands[1]", "As is also in hands[0]"),
        (dict(hands=["AsAs", "KdKc"]), "hands[0]", "twice"),
        (dict(hands=["AsAh", "KdKc"], board="Kd2c3c"), "board", "also in hands[1]"),
        (dict(hands=["AsAh", "KdKc"], dead=["Ah"]), "dead", "also in hands[0]"),
        (dict(hands=["AsAh", "Kd??"]), "hands[1]", "unknown"),
        (dict(hands=["AsAh", "KdKc"], board="??2c3c"), "board", "unknown"),
        (dict(hands=["AsAhKs", "KdKc"]), "hands[0]", "2 hole cards, got 3"),
        (dict(hands=["AsAh", "KdKc"], game="plo"), "hands[0]", "4 hole cards"),
        (dict(hands=["AsAh", "KdKc"], board="2c3c"), "board", "got 2"),
        (dict(hands=["AsXh", "KdKc"]), "hands[0]", "'Xh' is not a card"),
        (dict(hands=["AsAh", "KdKc"], board=["2c", "3c", "4"]), "board", "not a card"),
        (dict(hands=[]), "hands", "need 1 to 10"),
        (dict(hands=["AsAh", "KdKc"], game="stud"), "game", "'stud'"),
        (dict(hands=["AsAh", "KdKc"], budget=-1), "budget", "0 or more"),
        (dict(hands="AsAhKdKc"), "hands", "list of hands"),
    ],
)
def test_input_errors_name_the_field(kwargs, field, words):
    with pytest.raises(EquityInputError) as caught:
        equity(**kwargs)
    assert caught.value.field == field
    assert words in str(caught.value)
    assert str(caught.value).startswith(field + ": ")
    assert isinstance(caught.value, ValueError)


def test_cards_may_be_written_in_several_ways():
    ways = [
        (["As", "Ah"], ["Kd", "Kc"]),
        ("AsAh", "KdKc"),
        ("as ah", "kd,kc"),
    ]
    results = {equity(list(w), "2c7d9h") for w in ways}
    assert len(results) == 1


# --- the machinery -----------------------------------------------------------------


def test_rank_keys_give_every_rank_multiset_its_own_sum():
    for keys, size in ((tables.RANK_KEY7, 7), (tables.RANK_KEY5, 5)):
        _, ranks = tables.rank_multisets(size)
        sums = keys[ranks].sum(axis=1)
        assert len(np.unique(sums)) == len(sums)


def test_combinations_are_itertools_combinations():
    for n, k in ((10, 0), (10, 3), (12, 5), (5, 5), (3, 4)):
        assert combinations(n, k).tolist() == [list(c) for c in itertools.combinations(range(n), k)]


def test_same_input_same_answer():
    assert equity(["AhKh", "QsQc", "JdTd"], "Jh7h2c") == equity(["AhKh", "QsQc", "JdTd"], "Jh7h2c")


def test_the_engine_is_pure():
    code = (
        "import sys, broadcast.equity as e; e.equity(['AsAh','KsKd']);"
        "print([m for m in ('asyncio','aiohttp','redis','cv2','random','time') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not {"asyncio", "aiohttp", "redis", "cv2"} & set(json.loads(out.replace("'", '"')))
    import ast
    import pathlib

    for path in pathlib.Path(equity.__code__.co_filename).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            )
            for name in names:
                assert name.split(".")[0] not in {"random", "time", "datetime", "asyncio", "aiohttp", "redis", "cv2"}, path


# --- the command -------------------------------------------------------------------


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "broadcast.equity_cli", *argv], capture_output=True, text=True)


def test_cli_help():
    done = run_cli("--help")
    assert done.returncode == 0 and "--board" in done.stdout and "--dead" in done.stdout


def test_cli_json_prints_equities_and_outs():
    done = run_cli("AsAh", "9c8c", "--board", "2c 7c 5d", "--dead", "KcQc", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["exact"] and len(data["equities"]) == 2
    assert data["equities"] == pytest.approx(list(equity(["AsAh", "9c8c"], "2c7c5d", ["Kc", "Qc"]).equities))
    assert data["outs"][0] == [] and "Kc" in data["outs"][1] and "Kc" not in data["true_outs"][1]


def test_cli_bad_input_exits_2_naming_the_field():
    done = run_cli("AsAh", "AsKd")
    assert done.returncode == 2 and "hands[1]" in done.stderr


def test_cli_registers_on_a_parser():
    import argparse

    parser = argparse.ArgumentParser(prog="tvtable")
    equity_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["equity", "AsKs", "QdQh", "--game", "nlhe", "--budget", "10"])
    assert args.func is equity_cli.cmd_equity and args.hands == ["AsKs", "QdQh"] and args.budget == 10
