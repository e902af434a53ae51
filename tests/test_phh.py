"""Hand histories: PHH replay through the core, and export of a show's journal.

Rule "Hand histories" of issue 3: ``tvtable replay FILE.phh|FILE.phhs [--json]`` runs each
hand through the same command path; ``tvtable export --format phh|pokerstars`` writes PHH
that ``pokerkit.HandHistory.loads`` reads, every action with its timecode.

Test line: "At least 20 real recorded hands from public hand histories ..., with their
source noted, replayed to their recorded finishing stacks." The hands are in
``tests/data/phh``: the 18 no-limit hold'em and pot-limit Omaha hands of PokerKit's 2023
WSOP Event #43 tests (converted by ``convert_wsop.py``), one 2019 WSOP hand of the PHH
dataset and four Pluribus hands, each file naming its source.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import warnings
from pathlib import Path

import pytest
from pokerkit import HandHistory

from broadcast import phh, phh_write
from broadcast.engine.commands import parse_command
from broadcast.engine.table import apply, decide
from broadcast.export import export_table, read_journal, to_pokerstars, write_hands
from broadcast.phh_cli import add_parser
from tests.conftest import start_show
from tests.engine.helpers import table

DATA = Path(__file__).parent / "data" / "phh"
REAL_HANDS = sorted(DATA.glob("*.phh"))
UNSUPPORTED = DATA / "unsupported"


def cli(*argv: str, capsys) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="tvtable")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def pokerkit_stacks(text: str) -> list[int]:
    """What PokerKit itself makes of a PHH hand."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(tuple(HandHistory.loads(text))[-1].stacks)


# -- the recorded hands -----------------------------------------------------------------
def test_at_least_20_real_recorded_hands_each_with_its_source_noted() -> None:
    assert len(REAL_HANDS) >= 20
    for path in REAL_HANDS:
        text = path.read_text()
        assert "# Source:" in text and "licence" in text, path.name
        (hand,) = phh.loads(text)
        assert hand.fields.get("_source") and hand.fields.get("finishing_stacks"), path.name


@pytest.mark.parametrize("path", REAL_HANDS, ids=lambda p: p.stem)
def test_a_real_hand_replays_to_its_recorded_finishing_stacks(path: Path) -> None:
    (hand,) = phh.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = phh.replay_hand(hand)
    assert result["finishing_stacks"] == hand.fields["finishing_stacks"]
    assert result["matches_recorded"] is True
    # and PokerKit, reading the same file by itself, agrees with the record
    assert pokerkit_stacks(path.read_text()) == hand.fields["finishing_stacks"]


def test_the_wsop_files_hold_what_pokerkits_own_tests_assert() -> None:
    """The converted files match the installed PokerKit tests: blinds, stacks, actions and
    the asserted finishing ``state.stacks``."""
    sys.path.insert(0, str(DATA))
    try:
        import convert_wsop
    finally:
        sys.path.remove(str(DATA))
    checked = 0
    for name, game, state in convert_wsop.captured_hands():
        number = int(name.split("_")[1])
        path = DATA / f"wsop-2023-43-5-hand-{number:02d}.phh"
        if type(game) not in convert_wsop.VARIANTS:
            assert not path.exists()
            continue
        (hand,) = phh.load(path)
        f = hand.fields
        assert f["starting_stacks"] == list(state.starting_stacks)
        assert f["finishing_stacks"] == list(state.stacks)
        assert f["actions"] == list(HandHistory.from_game_state(game, state).actions)
        assert f["blinds_or_straddles"][:2] == list(game.raw_blinds_or_straddles)[:2]
        checked += 1
    assert checked == 18


# -- replay: the command ----------------------------------------------------------------
def test_replay_json_prints_one_object_per_hand_in_file_order(tmp_path, capsys) -> None:
    texts = [p.read_text() for p in REAL_HANDS]
    phhs = tmp_path / "all.phhs"
    phhs.write_text(phh_write.dumps_all(texts))
    code, out, err = cli("replay", str(phhs), "--json", capsys=capsys)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [o["hand"] for o in lines] == list(range(1, len(texts) + 1))
    for obj, text in zip(lines, texts):
        (hand,) = phh.loads(text)
        assert obj["ok"] is True
        assert obj["finishing_stacks"] == hand.fields["finishing_stacks"]  # the file's player order
        assert {"winners", "board", "pots", "players"} <= obj.keys()


def test_replay_without_json_prints_a_readable_summary(capsys) -> None:
    path = DATA / "wsop-2019-42-3-hand-00-01-07.phh"
    code, out, _ = cli("replay", str(path), capsys=capsys)
    assert code == 0
    assert "board    Th Jc 5h 6c 8s" in out
    assert "won      p1 Dan Matsuzuki (seat 1): 8,450,000" in out
    assert "1 of 1 hand replayed" in out


def test_a_refused_action_names_the_hand_the_action_and_the_legal_range(tmp_path, capsys) -> None:
    texts = [p.read_text() for p in REAL_HANDS[:3]]
    bad = (DATA / "wsop-2019-42-3-hand-00-01-07.phh").read_text().replace('"p7 cbr 1150000"', '"p7 cbr 600000"')
    path = tmp_path / "bad.phhs"
    path.write_text(phh_write.dumps_all(texts[:2] + [bad] + texts[2:]))
    code, out, err = cli("replay", str(path), "--json", capsys=capsys)
    assert code == 1
    assert "hand 3, action 13 'p7 cbr 600000': seat 7 cannot raise to 600,000: minimum raise is to 1,000,000" in err
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["ok"] for o in objs] == [True, True, False, True]
    assert objs[2]["action"] == 13 and objs[2]["action_text"] == "p7 cbr 600000"


def test_a_skipped_player_is_refused_as_out_of_turn(tmp_path, capsys) -> None:
    """The 2019 source leaves the button's fold out (PokerKit's reader folds him itself);
    the core, like a dealer, wants every action keyed."""
    text = (DATA / "wsop-2019-42-3-hand-00-01-07.phh").read_text().replace('  "p8 f",\n', "")
    path = tmp_path / "skipped.phh"
    path.write_text(text)
    code, _, err = cli("replay", str(path), capsys=capsys)
    assert code == 1
    assert "hand 1, action 14 'p1 cc': it is seat 8's turn, not seat 1's" in err


def test_finishing_stacks_that_differ_from_the_file_fail_the_replay(tmp_path, capsys) -> None:
    text = (DATA / "pluribus-100-0.phh").read_text().replace("finishing_stacks = [10310,", "finishing_stacks = [10300,")
    path = tmp_path / "wrong.phh"
    path.write_text(text)
    code, out, err = cli("replay", str(path), "--json", capsys=capsys)
    assert code == 1
    assert "differ from the recorded" in err
    obj = json.loads(out)
    assert obj["ok"] is False and obj["finishing_stacks"][0] == 10310


@pytest.mark.parametrize(
    "content, reason",
    [
        ("variant = 'NT'\nactions = [", "not valid PHH (TOML)"),
        ("variant = 'NT'\nstarting_stacks = [100, 100]\nactions = []\n", "missing required fields antes, blinds_or_straddles, min_bet"),
        ("title = 'x'\n", "not a PHH hand"),
        (b"\xff\xfe", "is not UTF-8"),
    ],
)
def test_a_bad_file_exits_2_with_the_reason(tmp_path, capsys, content, reason) -> None:
    path = tmp_path / "bad.phh"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, _, err = cli("replay", str(path), capsys=capsys)
    assert code == 2
    assert reason in err


def test_a_missing_file_exits_2(tmp_path, capsys) -> None:
    code, _, err = cli("replay", str(tmp_path / "nope.phh"), capsys=capsys)
    assert code == 2 and "cannot read" in err


# -- replay: hands outside the core's model ---------------------------------------------
@pytest.mark.parametrize(
    "name, reason",
    [
        ("dwan-ivey-2009", "unsupported: classic antes (every player)"),
        ("antonius-blom-2009", "unsupported: starting stack 1259450.25 is not a whole number of chips"),
        ("phua-xuan-2019", "unsupported: variant 'NS'"),
    ],
)
def test_a_hand_outside_the_model_is_refused_naming_why(name: str, reason: str) -> None:
    (hand,) = phh.load(UNSUPPORTED / f"{name}.phh")
    with pytest.raises(phh.ReplayError, match=re.escape(reason)):
        phh.replay_hand(hand)


NT = """
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
actions = ["d dh p1 AsKs", "d dh p2 ????", "d dh p3 QdQc", "p3 cbr 300", "p1 cc", "p2 f",
           "d db 2c7d9h", "p1 cc", "p3 cc", "d db Jh", "p1 cc", "p3 cc", "d db 3s", "p1 cc", "p3 cc",
           "p1 sm AsKs", "p3 sm QdQc"]
"""


@pytest.mark.parametrize(
    "change, reason",
    [
        (("[50, 100, 0]", "[50, 100, 200]"), "unsupported: straddles [200]"),
        (("min_bet = 100", "min_bet = 50"), "unsupported: min_bet 50 differs from the big blind 100"),
        (('variant = "NT"', 'variant = "FT"\nsmall_bet = 100\nbig_bet = 200'), "unsupported: variant 'FT'"),
        (("antes = [0, 0, 0]", "antes = [10, 0, 0]"), "the core takes a big-blind ante only"),
    ],
)
def test_structures_the_core_does_not_play_are_refused(change, reason) -> None:
    (hand,) = phh.loads(NT.replace(*change))
    with pytest.raises(phh.ReplayError, match=re.escape(reason)):
        phh.replay_hand(hand)


def test_a_hand_with_known_cards_plays_to_showdown() -> None:
    (hand,) = phh.loads(NT)
    result = phh.replay_hand(hand)
    assert result["finishing_stacks"] == [700, 900, 1400] == pokerkit_stacks(NT)
    assert result["shown"] == {"p1": ["As", "Ks"], "p3": ["Qd", "Qc"]}
    assert result["board"] == ["2c", "7d", "9h", "Jh", "3s"]
    assert result["winners"] == [{"player": "p3", "name": "p3", "seat": 3, "amount": 700}]


def test_cards_first_seen_at_showdown_are_entered_when_tabled() -> None:
    text = NT.replace('"d dh p1 AsKs"', '"d dh p1 ????"').replace('"d dh p3 QdQc"', '"d dh p3 ????"')
    (hand,) = phh.loads(text)
    result = phh.replay_hand(hand)
    assert result["winners"][0]["player"] == "p3"
    assert result["finishing_stacks"] == [700, 900, 1400]


def test_a_muck_of_unknown_cards_at_showdown_is_the_muck_command_so_the_tabled_hand_wins() -> None:
    text = (NT.replace('"d dh p1 AsKs"', '"d dh p1 ????"').replace('"d dh p3 QdQc"', '"d dh p3 ????"')
            .replace('"p1 sm AsKs", "p3 sm QdQc"', '"p3 sm QdQc", "p1 sm"'))
    (hand,) = phh.loads(text)
    result = phh.replay_hand(hand)
    stacks, start = result["finishing_stacks"], hand.fields["starting_stacks"]
    assert stacks[2] > start[2] and stacks[0] < start[0], stacks  # p3 tabled and won; p1 mucked and lost


def test_file_seats_are_used_when_they_go_round_the_table() -> None:
    (hand,) = phh.loads(NT + "seats = [4, 7, 2]\n")
    result = phh.replay_hand(hand)
    assert [p["seat"] for p in result["players"]] == [4, 7, 2]
    (hand,) = phh.loads(NT + "seats = [7, 4, 2]\n")
    result = phh.replay_hand(hand)
    assert [p["seat"] for p in result["players"]] == [1, 2, 3]
    assert "do not go round the table" in result["notes"][0]


def test_heads_up_the_button_is_the_second_player_and_posts_the_small_blind() -> None:
    text = """
variant = "NT"
antes = [0, 100]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [5000, 3000]
actions = ["d dh p1 ????", "d dh p2 ????", "p2 cbr 300", "p1 cbr 900", "p2 f"]
finishing_stacks = [5300, 2700]
"""
    (hand,) = phh.loads(text)
    assert phh.replay_hand(hand)["finishing_stacks"] == [5300, 2700] == pokerkit_stacks(text)


def test_replay_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli("replay", "--help", capsys=capsys)
    assert exc.value.code == 0
    assert "finishing_stacks" in capsys.readouterr().out


def test_export_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli("export", "--help", capsys=capsys)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--format" in out and "timecode" in out


# -- export ------------------------------------------------------------------------------
SHOW_HANDS = [
    # Hand 1 (button 4; 1 small blind, 2 big blind + ante): a mis-keyed call, undone.
    {"type": "start_hand", "button": 4},
    {"type": "hole_cards", "seat": 1, "cards": ["As", "Kd"]},
    {"type": "hole_cards", "seat": 2, "cards": ["7h", "7c"]},
    {"type": "raise", "seat": 3, "amount": 600},
    {"type": "call", "seat": 4},
    {"type": "undo", "reason": "seat 4 folded"},
    {"type": "fold", "seat": 4},
    {"type": "call", "seat": 1},
    {"type": "call", "seat": 2},
    {"type": "board", "cards": ["Ah", "7d", "2c"]},
    {"type": "check", "seat": 1},
    {"type": "check", "seat": 2},
    {"type": "bet", "seat": 3, "amount": 800},
    {"type": "call", "seat": 1},
    {"type": "raise", "seat": 2, "amount": 2400},
    {"type": "fold", "seat": 3},
    {"type": "call", "seat": 1},
    {"type": "board", "cards": ["9s"]},
    {"type": "check", "seat": 1},
    {"type": "allin", "seat": 2},
    {"type": "call", "seat": 1},
    {"type": "board", "cards": ["Qd"]},
    # Hand 2: seat 1 is out and the button moves on; whoever acts first raises, and the
    # others fold ("seat": None is the seat to act).
    {"type": "start_hand"},
    {"type": "raise", "seat": None, "amount": 500},
    {"type": "fold", "seat": None},
    {"type": "fold", "seat": None},
    # Hand 3 is still being played: not exported.
    {"type": "start_hand"},
    {"type": "call", "seat": None},
]


async def drive_show(tmp_path: Path):
    server, runner = await start_show(tmp_path, delay=0.1)
    for command in SHOW_HANDS:
        if "seat" in command and command["seat"] is None:
            command = {**command, "seat": server.core.state.hand.actor}
        await server.core.submit(command)
        await asyncio.sleep(0.002)  # distinct timecodes
    return server, runner


async def test_export_phh_from_a_real_show(tmp_path) -> None:
    server, runner = await drive_show(tmp_path)
    try:
        redis = server.runtime.redis
        records = await read_journal(redis, server.table)
        result = await export_table(redis, server.table, "phh", tmp_path / "out", event="Test show")
    finally:
        await runner.cleanup()
        await server.runtime.stop()
    assert result.hands == 2 and len(result.files) == 2
    first, second = (p.read_text() for p in result.files)

    # PokerKit reads it, and ends on the stacks the core settled
    hh = HandHistory.loads(first)
    assert list(tuple(hh)[-1].stacks) == hh.finishing_stacks == [0, 51400, 23600, 40000]
    assert hh.players == ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Ek"] and hh.event == "Test show"
    assert hh.antes == [0, 200, 0, 0] and hh.blinds_or_straddles == [100, 200, 0, 0]
    hh2 = HandHistory.loads(second)
    assert list(tuple(hh2)[-1].stacks) == hh2.finishing_stacks

    # every action carries its timecode: the Redis time of the event that made it
    undone = {r[2]["undone_seq"] for r in records if r[2]["type"] == "ActionUndone"}
    taken = [(r[1], r[2]) for r in records if r[2]["type"] == "ActionTaken" and r[2]["hand"] == 1 and r[0] not in undone]
    stamps = [a.split(" # ")[1] for a in hh.actions if re.match(r"p\d (f|cc|cbr)", a)]
    assert stamps == [phh_write.timecode(ts) for ts, _ in taken]
    assert all(re.search(r" # \d\d:\d\d:\d\d\.\d{3}$", a) for a in hh.actions)

    # the undone call is gone: seat 4 (p4) folds and never calls
    assert "p4 f" in [a.split(" # ")[0] for a in hh.actions]
    assert "p4 cc" not in [a.split(" # ")[0] for a in hh.actions]
    assert "p4 f # " + phh_write.timecode(next(ts for ts, e in taken if e["seat"] == 4)) in hh.actions

    # and the exported file replays through the core to the same stacks
    for path in result.files:
        (hand,) = phh.load(path)
        assert phh.replay_hand(hand)["finishing_stacks"] == hand.fields["finishing_stacks"]


async def test_export_pokerstars_from_a_real_show(tmp_path) -> None:
    server, runner = await drive_show(tmp_path)
    try:
        result = await export_table(server.runtime.redis, server.table, "pokerstars", tmp_path / "out")
    finally:
        await runner.cleanup()
        await server.runtime.stop()
    (path,) = result.files
    text = path.read_text()
    first, second = text.split("\n\n\n")[:2]
    assert first.startswith("PokerStars Hand #1: Tournament #")
    assert "Hold'em No Limit - Level I (100/200)" in first
    for line in (
        "Table '%s' 10-max Seat #4 is the button" % server.table,
        "Seat 1: Ann Lee (20000 in chips)",
        "Bo Chen: posts the ante 200",
        "Ann Lee: posts small blind 100",
        "Bo Chen: posts big blind 200",
        "Dealt to Ann Lee [As Kd]",
        "Cy Diaz: raises 400 to 600",
        "Di Ek: folds",
        "Bo Chen: raises 1600 to 2400",
        "Bo Chen: bets 26800 and is all-in",
        "Ann Lee: calls 17000 and is all-in",
        "Uncalled bet (9800) returned to Bo Chen",
        "*** RIVER *** [Ah 7d 2c 9s] [Qd]",
        "Bo Chen: shows [7h 7c] (three of a kind)",
        "Bo Chen collected 41600 from pot",
        "Total pot 41600 | Rake 0",
        "Seat 2: Bo Chen (big blind) showed [7h 7c] and won (41600) with three of a kind",
    ):
        assert line in first.splitlines(), line
    assert "Di Ek: calls" not in first  # the undone call
    assert re.search(r"^Uncalled bet \(300\) returned to (Bo Chen|Cy Diaz|Di Ek)$", second, re.M)
    assert "Ann Lee" not in second


async def test_export_command_reads_the_show_data_dir_and_leaves_its_redis_running(tmp_path, capsys) -> None:
    server, runner = await drive_show(tmp_path)
    try:
        out_dir = tmp_path / "export"
        code = await asyncio.to_thread(
            lambda: cli("export", "--table", server.table, "--format", "phh", "--out", str(out_dir),
                        "--data-dir", str(server.data_dir), capsys=capsys))
        assert code[0] == 0, code[2]
        assert "2 hands exported as phh" in code[1]
        assert sorted(p.name for p in out_dir.iterdir()) == [f"{server.table}-hand-0001.phh", f"{server.table}-hand-0002.phh"]
        assert await server.runtime.redis.ping()  # the show's Redis is still up
        code = await asyncio.to_thread(
            lambda: cli("export", "--table", "nosuch", "--format", "pokerstars", "--out", str(out_dir),
                        "--data-dir", str(server.data_dir), capsys=capsys))
        assert code[0] == 2 and "has no journal" in code[2]
    finally:
        await runner.cleanup()
        await server.runtime.stop()


def test_export_without_show_data_exits_2(tmp_path, capsys) -> None:
    code, _, err = cli("export", "--table", "t", "--format", "phh", "--out", str(tmp_path / "o"),
                       "--data-dir", str(tmp_path / "none"), capsys=capsys)
    assert code == 2 and "no show data" in err


def journal_of(state, commands, *, start_ts=1_700_000_000_000):
    """Drive the pure core and keep its events as journal triples (seq, ts, event)."""
    records = [(1, start_ts, state_opened.to_dict())] if (state_opened := _opened(state)) else []
    seq, ts = len(records), start_ts
    for command in commands:
        for event in decide(state, parse_command(command, hole_card_count=state.hole_card_count)):
            seq, ts = seq + 1, ts + 1500
            state = apply(state, event, seq=seq)
            records.append((seq, ts, event.to_dict()))
    return records


def _opened(state):
    from broadcast.engine.events import TableOpened

    return TableOpened(table=state.table, game=state.game, seats=state.seats, levels=state.levels)


def test_pokerstars_text_reads_back_in_pokerkits_pokerstars_parser() -> None:
    """Without antes (PokerKit's PokerStars reader skips ante lines), the text round-trips."""
    state = table((5000, 7000, 6000), levels=((50, 100, 0),))
    records = journal_of(state, [
        {"type": "start_hand", "button": 3},
        {"type": "hole_cards", "seat": 1, "cards": ["Ac", "Ad"]},
        {"type": "hole_cards", "seat": 2, "cards": ["Kc", "Kd"]},
        {"type": "hole_cards", "seat": 3, "cards": ["2h", "7s"]},
        {"type": "raise", "seat": 3, "amount": 300},
        {"type": "raise", "seat": 1, "amount": 1000},
        {"type": "allin", "seat": 2},
        {"type": "call", "seat": 3},
        {"type": "call", "seat": 1},
        {"type": "board", "cards": ["3c", "8d", "Jh"]},
        {"type": "board", "cards": ["4s"]},
        {"type": "board", "cards": ["9c"]},
    ])
    (hand,) = phh_write.journal_hands(records)
    text = to_pokerstars(hand)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (hh,) = list(HandHistory.from_pokerstars(text, error_status=True))
        stacks = list(tuple(hh)[-1].stacks)
    assert stacks == list(hand.finishing)
    assert "side pot-1" in text and "Main pot" in text


def test_the_journal_export_keeps_only_finished_hands_and_drops_misdeals() -> None:
    state = table((5000, 5000, 5000), levels=((50, 100, 100),))
    records = journal_of(state, [
        {"type": "start_hand", "button": 3},
        {"type": "misdeal", "reason": "two boxed cards"},
        {"type": "start_hand"},
        {"type": "call", "seat": 3},
        {"type": "fold", "seat": 1},
        {"type": "check", "seat": 2},
        {"type": "board", "cards": ["3c", "8d", "Jh"]},
        {"type": "bet", "seat": 2, "amount": 200},
        {"type": "fold", "seat": 3},
        {"type": "start_hand"},
    ])
    hands = phh_write.journal_hands(records)
    assert [h.number for h in hands] == [2]
    text = phh_write.hand_to_phh(hands[0])
    hh = HandHistory.loads(text)
    assert list(tuple(hh)[-1].stacks) == hh.finishing_stacks == list(hands[0].finishing)
    assert hh.time is not None and hh.time_zone == "UTC"
    # timecodes from the journal's ts, 1.5 s apart
    assert [a.split(" # ")[1] for a in hh.actions if a.startswith("p")][:2] == ["22:13:26.000", "22:13:27.500"]


def test_write_hands_names_files_after_the_table(tmp_path) -> None:
    state = table((5000, 5000), levels=((50, 100, 0),))
    records = journal_of(state, [{"type": "start_hand", "button": 2}, {"type": "fold", "seat": 2}])
    hands = phh_write.journal_hands(records)
    assert [p.name for p in write_hands(hands, "phh", tmp_path, table="tv/1")] == ["tv_1-hand-0001.phh"]
    assert [p.name for p in write_hands(hands, "pokerstars", tmp_path, table="tv/1")] == ["tv_1-pokerstars.txt"]


def test_hole_cards_dealt_one_at_a_time_are_joined() -> None:
    """PokerKit's data files deal a card per action, round the table twice."""
    text = NT.replace('"d dh p1 AsKs", "d dh p2 ????", "d dh p3 QdQc"',
                      '"d dh p1 As", "d dh p2 ??", "d dh p3 Qd", "d dh p1 Ks", "d dh p2 ??", "d dh p3 Qc"')
    (hand,) = phh.loads(text)
    assert phh.replay_hand(hand)["finishing_stacks"] == [700, 900, 1400]
    (hand,) = phh.loads(NT.replace('"d dh p1 AsKs"', '"d dh p1 As"'))
    with pytest.raises(phh.ReplayError, match=r"action 1 'd dh p1 As': p1 is dealt only 1 of 2 hole cards"):
        phh.replay_hand(hand)


def test_heads_up_pokerstars_text_posts_the_small_blind_first_and_reads_back() -> None:
    state = table((5000, 7000), levels=((50, 100, 0),))
    records = journal_of(state, [
        {"type": "start_hand", "button": 2},
        {"type": "hole_cards", "seat": 1, "cards": ["Ac", "Ad"]},
        {"type": "raise", "seat": 2, "amount": 300},
        {"type": "call", "seat": 1},
        {"type": "board", "cards": ["2c", "3d", "4h"]},
        {"type": "bet", "seat": 1, "amount": 200},
        {"type": "call", "seat": 2},
        {"type": "board", "cards": ["5s"]},
        {"type": "check", "seat": 1},
        {"type": "check", "seat": 2},
        {"type": "board", "cards": ["Kh"]},
        {"type": "check", "seat": 1},
        {"type": "check", "seat": 2},
        {"type": "hole_cards", "seat": 2, "cards": ["Qs", "Js"]},
    ])
    (hand,) = phh_write.journal_hands(records)
    lines = to_pokerstars(hand).splitlines()
    assert lines.index("Player 2: posts small blind 50") < lines.index("Player 1: posts big blind 100")
    assert "Player 1: shows [Ac Ad] (straight)" in lines
    assert "Seat 2: Player 2 (button) (small blind) showed [Qs Js] and lost with high card" in lines
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (hh,) = list(HandHistory.from_pokerstars("\n".join(lines), error_status=True))
        assert list(tuple(hh)[-1].stacks) == list(hand.finishing) == [5500, 6500]
        assert list(tuple(HandHistory.loads(phh_write.hand_to_phh(hand)))[-1].stacks) == [5500, 6500]


def test_an_exported_plo_hand_reads_back_in_pokerkit() -> None:
    state = table((5000, 7000, 6000), levels=((50, 100, 100),), game="plo")
    records = journal_of(state, [
        {"type": "start_hand", "button": 3},
        {"type": "hole_cards", "seat": 1, "cards": ["Ac", "Ad", "Kc", "Kd"]},
        {"type": "raise", "seat": 3, "amount": 300},
        {"type": "raise", "seat": 1, "amount": 1000},
        {"type": "fold", "seat": 2},
        {"type": "call", "seat": 3},
        {"type": "board", "cards": ["2c", "3d", "4h"]},
        {"type": "bet", "seat": 1, "amount": 2000},
        {"type": "raise", "seat": 3, "amount": 5000},
        {"type": "call", "seat": 1},
        {"type": "hole_cards", "seat": 3, "cards": ["Qs", "Js", "Ts", "9s"]},
        {"type": "board", "cards": ["5s"]},
        {"type": "board", "cards": ["Kh"]},
    ])
    (hand,) = phh_write.journal_hands(records)
    text = phh_write.hand_to_phh(hand)
    assert '"d dh p2 ???????? # 22:13:21.500"' in text and 'variant = "PO"' in text
    hh = HandHistory.loads(text)
    assert list(tuple(hh)[-1].stacks) == hh.finishing_stacks == [10200, 6800, 1000]
    ps = to_pokerstars(hand)
    assert "Omaha Pot Limit" in ps and "Player 1: shows [Ac Ad Kc Kd] (three of a kind)" in ps


def test_timecodes_parse_back() -> None:
    assert phh.split_comment("p2 cbr 1200 # 20:14:03.250") == ("p2 cbr 1200", "20:14:03.250")
    assert phh.parse_timecode("20:14:03.250").isoformat() == "20:14:03.250000"
    assert phh.parse_timecode("Dwan") is None
    assert phh_write.timecode(1_700_000_000_250) == "22:13:20.250"


def test_a_recorded_muck_at_showdown_is_the_muck_command_and_only_tabled_hands_win():
    text = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [100, 200]
min_bet = 200
starting_stacks = [5000, 5000]
actions = [
  "d dh p1 ????", "d dh p2 ????", "p2 cc", "p1 cc", "d db 2c7d9h", "p1 cc", "p2 cc", "d db Js", "p1 cc", "p2 cc",
  "d db 3d", "p1 cbr 400", "p2 cc", "p1 sm", "p2 sm -",
]
"""
    (hand,) = phh.loads(text)
    result = phh.replay_hand(hand)
    assert result["finishing_stacks"] == [4400, 5600]  # p1 mucked: p2 wins without showing
