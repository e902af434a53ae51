"""The pure core, one test per rule, driven by plain commands."""

import ast
import pathlib

import pytest

from broadcast.engine.errors import (
    BadCommand, CardConflict, HandInProgress, IllegalAction, NoHandInProgress, NothingToUndo, NotYourTurn,
)
from broadcast.engine.events import ActionUndone, HandEnded
from tests.engine.helpers import events, run, table


def test_start_hand_posts_blinds_and_big_blind_ante_automatically():
    s = run(table(), {"type": "start_hand", "button": 3})
    hand = s.hand
    # Button 3: seat 1 is the small blind, seat 2 the big blind and pays the big-blind ante.
    assert hand.seats == (1, 2, 3)
    assert hand.bet(1) == 200 and hand.stack(1) == 19800
    assert hand.bet(2) == 400 and hand.stack(2) == 20000 - 400 - 400
    assert hand.actor == 3
    assert hand.pot_total() == 200 + 400 + 400


def test_heads_up_the_button_posts_the_small_blind_and_acts_first():
    s = run(table((10000, 10000)), {"type": "start_hand", "button": 2})
    assert s.hand.bet(2) == 200 and s.hand.bet(1) == 400
    assert s.hand.stack(1) == 10000 - 400 - 400  # the big blind pays the big-blind ante
    assert s.hand.actor == 2


def test_the_button_moves_to_the_next_player_with_chips():
    s = run(table((20000, 0, 20000, 20000)), {"type": "start_hand", "button": 1})
    s = run(s, {"type": "fold", "seat": 1}, {"type": "fold", "seat": 3})
    assert s.hand.ended
    s = run(s, {"type": "start_hand"})
    assert s.hand.button == 3  # seat 2 has no chips and is skipped


def test_a_new_hand_cannot_start_while_one_is_in_progress():
    s = run(table(), {"type": "start_hand"})
    with pytest.raises(HandInProgress):
        events(s, {"type": "start_hand"})


def test_actions_need_a_hand():
    with pytest.raises(NoHandInProgress):
        events(table(), {"type": "call", "seat": 1})


def test_acting_out_of_turn_is_refused_naming_whose_turn_it_is():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(NotYourTurn) as err:
        events(s, {"type": "call", "seat": 1})
    assert str(err.value).startswith("it is seat 3's turn, not seat 1's")


def test_minimum_raise_is_the_last_raise_and_the_refusal_states_it():
    # Rule book example: blinds 200-400, A makes it 1,200 (an 800 raise); the next raise is to at least 2,000.
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "raise", "seat": 3, "amount": 1200})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "raise", "seat": 1, "amount": 1900})
    assert str(err.value) == "seat 1 cannot raise to 1,900: minimum raise is to 2,000"
    assert err.value.field == "amount"
    (taken,) = events(s, {"type": "raise", "seat": 1, "amount": 2000})
    assert taken.amount == 2000


def test_a_raise_beyond_the_stack_is_refused_with_the_all_in_amount():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "raise", "seat": 3, "amount": 50000})
    assert "all-in is 20,000" in str(err.value)


def test_check_facing_a_bet_is_refused_with_the_amount_to_call():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "check", "seat": 3})
    assert str(err.value) == "seat 3 cannot check: 400 to call"


def test_all_in_for_less_than_a_call_is_a_call():
    s = run(table((20000, 20000, 300)), {"type": "start_hand", "button": 3})
    (taken,) = events(s, {"type": "allin", "seat": 3})
    assert taken.action == "call" and taken.all_in and taken.amount == 300


def test_an_all_in_of_less_than_a_full_raise_does_not_reopen_the_betting():
    # Seat 3 raises to 1,200; seat 1 calls; seat 2 (big blind) moves all-in for 1,500 — less than a full raise.
    s = run(table((20000, 1900, 20000)), {"type": "start_hand", "button": 3},
            {"type": "raise", "seat": 3, "amount": 1200}, {"type": "call", "seat": 1}, {"type": "allin", "seat": 2})
    assert s.hand.actor == 3
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "raise", "seat": 3, "amount": 5000})
    assert "not reopened" in str(err.value)


def test_folding_to_a_bet_ends_the_hand_and_awards_the_pot():
    s = run(table(), {"type": "start_hand", "button": 3})
    evs = events(s, {"type": "fold", "seat": 3})
    assert not any(isinstance(e, HandEnded) for e in evs)
    s = run(s, {"type": "fold", "seat": 3})
    evs = events(s, {"type": "fold", "seat": 1})
    ended = evs[-1]
    assert isinstance(ended, HandEnded)
    # The big blind wins the small blind and the ante; the uncalled big blind comes back.
    assert ended.stacks == {1: 19800, 2: 20200, 3: 20000}


def test_showdown_awards_the_pot_to_the_best_tabled_hand():
    s = run(table(), {"type": "start_hand", "button": 3},
            {"type": "hole_cards", "seat": 1, "cards": "AsAh"}, {"type": "hole_cards", "seat": 2, "cards": "KsKh"},
            {"type": "hole_cards", "seat": 3, "cards": "2c7d"},
            {"type": "fold", "seat": 3}, {"type": "call", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "board", "cards": "3c8d9s"}, {"type": "check", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "board", "cards": "Jc"}, {"type": "check", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "board", "cards": "2d"}, {"type": "check", "seat": 1})
    assert s.hand.board == ("3c", "8d", "9s", "Jc", "2d")  # cards as two characters, everywhere
    evs = events(s, {"type": "check", "seat": 2})
    ended = evs[-1]
    assert isinstance(ended, HandEnded)
    assert ended.pots == ({"amount": 1200, "winners": {1: 1200}},)
    assert set(ended.shown) == {1, 2}


def test_a_hand_unknown_at_showdown_waits_for_its_tabled_cards():
    s = run(table((20000, 20000)), {"type": "start_hand", "button": 2},
            {"type": "hole_cards", "seat": 2, "cards": "AsAh"},
            {"type": "call", "seat": 2}, {"type": "check", "seat": 1},
            *[c for b in ("3c8d9s", "Jc", "2d") for c in ({"type": "board", "cards": b}, {"type": "check", "seat": 1}, {"type": "check", "seat": 2})])
    assert not s.hand.ended and s.hand.awaiting_cards() == (1,)
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "check", "seat": 1})
    assert "enter the tabled cards of seat 1" in str(err.value)
    evs = events(s, {"type": "hole_cards", "seat": 1, "cards": "KsKh"})
    assert isinstance(evs[-1], HandEnded) and evs[-1].pots[0]["winners"] == {2: 1200}


def test_all_in_showdown_hands_are_turned_face_up_before_the_run_out():
    s = run(table((20000, 20000)), {"type": "start_hand", "button": 2},
            {"type": "hole_cards", "seat": 2, "cards": "AsAh"},
            {"type": "allin", "seat": 2}, {"type": "call", "seat": 1})
    assert s.hand.awaiting_cards() == (1,)
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "board", "cards": "3c8d9s"})
    assert "enter the tabled cards of seat 1" in str(err.value)
    s = run(s, {"type": "hole_cards", "seat": 1, "cards": "KsKh"}, {"type": "board", "cards": "3c8d9s"},
            {"type": "board", "cards": "Jc"})
    ended = next(e for e in events(s, {"type": "board", "cards": "2d"}) if isinstance(e, HandEnded))
    assert ended.stacks == {2: 40000, 1: 0}


def test_side_pots_are_split_separately():
    s = run(table((5000, 20000, 20000)), {"type": "start_hand", "button": 3},
            {"type": "hole_cards", "seat": 1, "cards": "AsAh"}, {"type": "hole_cards", "seat": 2, "cards": "KsKh"},
            {"type": "hole_cards", "seat": 3, "cards": "QsQh"},
            {"type": "allin", "seat": 3}, {"type": "allin", "seat": 1}, {"type": "call", "seat": 2},
            {"type": "board", "cards": "3c8d9s"}, {"type": "board", "cards": "Jc"})
    ended = events(s, {"type": "board", "cards": "2d"})[-1]
    # Seat 1 (aces) wins the main pot it is in; seat 2 (kings) wins the side pot over the queens.
    main, side = ended.pots
    assert main["winners"] == {1: main["amount"]} and main["amount"] == 5000 * 3 + 400
    assert side["winners"] == {2: side["amount"]}
    assert sum(ended.stacks.values()) == 45000


def test_undo_the_last_action_is_a_correcting_event():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "raise", "seat": 3, "amount": 1200})
    raise_seq = s.seq
    (undo,) = events(s, {"type": "undo", "reason": "mis-key"})
    assert isinstance(undo, ActionUndone) and undo.undone_seq == raise_seq
    s = run(s, {"type": "undo"})
    assert s.hand.actor == 3 and s.hand.bet(3) == 0 and raise_seq in s.undone


def test_undo_with_nothing_entered_is_refused():
    s = run(table(), {"type": "start_hand"})
    with pytest.raises(NothingToUndo):
        events(s, {"type": "undo"})


def test_a_card_already_in_another_hand_is_refused_without_naming_it():
    s = run(table(), {"type": "start_hand"}, {"type": "hole_cards", "seat": 1, "cards": "AsAh"})
    with pytest.raises(CardConflict) as err:
        events(s, {"type": "hole_cards", "seat": 2, "cards": "AsKd"})
    assert "As" not in str(err.value) and "camera check" in str(err.value)
    s = run(s, {"type": "fold", "seat": 1}, {"type": "call", "seat": 2}, {"type": "check", "seat": 3},
            {"type": "board", "cards": "2c7d9h"})
    with pytest.raises(CardConflict):
        events(s, {"type": "hole_cards", "seat": 2, "cards": "7dKd"})  # a board card cannot be in a hand


def test_hole_cards_may_be_unknown():
    s = run(table(), {"type": "start_hand"}, {"type": "hole_cards", "seat": 1, "cards": ["As", "??"]})
    assert s.hand.hole[s.hand.index(1)] == ("As", "??")


def test_the_board_comes_flop_turn_river_with_the_right_counts():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "call", "seat": 3}, {"type": "call", "seat": 1},
            {"type": "check", "seat": 2})
    with pytest.raises(BadCommand) as err:
        events(s, {"type": "board", "cards": "2c"})
    assert str(err.value) == "the flop is 3 cards, got 1"
    with pytest.raises(IllegalAction):
        events(run(table(), {"type": "start_hand"}), {"type": "board", "cards": "2c3c4c"})


def test_bad_commands_name_the_field():
    s = run(table(), {"type": "start_hand"})
    for command, field in [({"type": "shuffle"}, "type"), ({"type": "raise", "seat": 1}, "amount"),
                           ({"type": "raise", "seat": "x", "amount": 5}, "seat"),
                           ({"type": "hole_cards", "seat": 1, "cards": ["Zz", "As"]}, "cards")]:
        with pytest.raises(BadCommand) as err:
            events(s, command)
        assert err.value.field == field


def test_pot_limit_omaha_deals_four_hole_cards():
    s = run(table(game="plo"), {"type": "start_hand"})
    assert s.hole_card_count == 4
    s = run(s, {"type": "hole_cards", "seat": 1, "cards": "AsAhKsKh"})
    assert s.hand.hole[s.hand.index(1)] == ("As", "Ah", "Ks", "Kh")


def test_a_new_level_applies_from_the_next_hand():
    s = run(table(levels=((200, 400, 400), (300, 600, 600))), {"type": "start_hand"}, {"type": "set_level", "level": 2})
    assert s.hand.big_blind == 400
    assert s.level == 2


def test_the_pure_core_imports_no_io():
    root = pathlib.Path(__file__).resolve().parents[2] / "broadcast"
    forbidden = {"asyncio", "aiohttp", "redis", "cv2", "websockets", "time", "random", "socket"}
    for folder in ("engine", "views"):
        for path in (root / folder).glob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
                for name in names:
                    assert name.split(".")[0] not in forbidden, f"{path.name} imports {name}"
    for path in [root / "delay.py"]:
        assert "import asyncio" not in path.read_text() and "redis" not in path.read_text()


def test_showdown_the_last_aggressor_shows_first_then_clockwise():
    from pokerkit import HoleCardsShowingOrMucking

    checks = lambda *seats: [{"type": "check", "seat": x} for x in seats]  # noqa: E731
    s = run(table(), {"type": "start_hand", "button": 3},
            *[{"type": "hole_cards", "seat": x, "cards": c} for x, c in ((1, "AsAh"), (2, "KsKh"), (3, "QsQh"))],
            {"type": "call", "seat": 3}, {"type": "call", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "board", "cards": "2c7d9h"}, *checks(1, 2, 3), {"type": "board", "cards": "Tc"}, *checks(1, 2, 3),
            {"type": "board", "cards": "3d"}, {"type": "check", "seat": 1}, {"type": "bet", "seat": 2, "amount": 1000},
            {"type": "call", "seat": 3}, {"type": "call", "seat": 1})
    order = [s.hand.seats[o.player_index] for o in s.hand.pk.operations if isinstance(o, HoleCardsShowingOrMucking)]
    assert order == [2, 3, 1]


def test_showdown_with_no_bet_on_the_last_street_the_first_to_act_shows_first():
    from pokerkit import HoleCardsShowingOrMucking

    checks = lambda *seats: [{"type": "check", "seat": x} for x in seats]  # noqa: E731
    s = run(table(), {"type": "start_hand", "button": 3},
            *[{"type": "hole_cards", "seat": x, "cards": c} for x, c in ((1, "AsAh"), (2, "KsKh"), (3, "QsQh"))],
            {"type": "call", "seat": 3}, {"type": "call", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "board", "cards": "2c7d9h"}, *checks(1, 2, 3), {"type": "board", "cards": "Tc"}, *checks(1, 2, 3),
            {"type": "board", "cards": "3d"}, *checks(1, 2, 3))
    order = [s.hand.seats[o.player_index] for o in s.hand.pk.operations if isinstance(o, HoleCardsShowingOrMucking)]
    assert order == [1, 2, 3]


def test_misdeal_is_an_exact_replay_same_button_same_limits():
    s = run(table(levels=((200, 400, 400), (300, 600, 600))), {"type": "start_hand", "button": 2},
            {"type": "set_level", "level": 2}, {"type": "fold", "seat": 2})
    s = run(s, {"type": "misdeal", "reason": "two boxed cards"})
    assert s.hand.ended and s.hand.misdeal
    assert [p.stack for p in s.seats] == [20000, 20000, 20000]
    s = run(s, {"type": "start_hand"})
    assert s.hand.button == 2 and s.hand.big_blind == 400 and s.hand.number == 2
    s = run(s, {"type": "fold", "seat": 2}, {"type": "fold", "seat": 3})
    s = run(s, {"type": "start_hand"})
    assert s.hand.button == 3 and s.hand.big_blind == 600  # the new level applies from the next real hand


def test_no_misdeal_after_substantial_action():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "raise", "seat": 3, "amount": 1200},
            {"type": "fold", "seat": 1})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "misdeal", "reason": "incorrect button"})
    assert "substantial action" in str(err.value)


def test_finishing_places_the_bigger_starting_stack_places_higher_when_two_bust_in_one_hand():
    from broadcast.engine.events import PlayerEliminated

    s = run(table((3000, 5000, 20000)), {"type": "start_hand", "button": 3},
            *[{"type": "hole_cards", "seat": x, "cards": c} for x, c in ((1, "2c2d"), (2, "3c3d"), (3, "AsAh"))],
            {"type": "allin", "seat": 3}, {"type": "allin", "seat": 1}, {"type": "call", "seat": 2},
            {"type": "board", "cards": "KsQd7h"}, {"type": "board", "cards": "8c"})
    evs = events(s, {"type": "board", "cards": "9d"})
    out = {e.seat: e for e in evs if isinstance(e, PlayerEliminated)}
    assert out[2].place == 2 and out[1].place == 3  # seat 2 began the hand with more chips
    assert out[1].eliminated_by == ("p3",)


def test_finishing_places_count_the_whole_field_when_the_td_has_entered_it():
    """A bust at the feature table with 100 players left in the tournament finishes 100th,
    not 3rd at this table (the field data gives the players left)."""
    from broadcast.compliance.events import FieldDataSet
    from broadcast.engine.events import PlayerEliminated
    from broadcast.engine.table import apply

    s = apply(table((3000, 5000, 20000)), FieldDataSet(entries=400, players_left=100))
    s = run(s, {"type": "start_hand", "button": 3},
            *[{"type": "hole_cards", "seat": x, "cards": c} for x, c in ((1, "2c2d"), (2, "3c3d"), (3, "AsAh"))],
            {"type": "allin", "seat": 3}, {"type": "allin", "seat": 1}, {"type": "call", "seat": 2},
            {"type": "board", "cards": "KsQd7h"}, {"type": "board", "cards": "8c"})
    evs = events(s, {"type": "board", "cards": "9d"})
    out = {e.seat: e.place for e in evs if isinstance(e, PlayerEliminated)}
    assert out == {2: 99, 1: 100}
    # A field count below the players at this table is a mistake: the table's own count holds.
    assert apply(table((3000, 5000, 20000)), FieldDataSet(entries=400, players_left=2)).players_left == 3


def test_the_floor_kills_a_hand_and_it_folds_when_its_turn_comes():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "kill_hand", "seat": 1, "reason": "exposed cards"})
    evs = events(s, {"type": "call", "seat": 3})
    assert [(e.type, getattr(e, "seat", None), getattr(e, "action", None)) for e in evs][:2] == [
        ("ActionTaken", 3, "call"), ("ActionTaken", 1, "fold")]


def test_a_missed_hand_penalty_kills_the_players_next_hand_after_posting():
    s = run(table(), {"type": "penalty", "player": "p1", "kind": "missed_hands", "count": 1, "reason": "profanity"})
    s = run(s, {"type": "start_hand", "button": 3})
    assert s.killed == {1} and s.hand.bet(1) == 200  # dealt in, posted the small blind
    s = run(s, {"type": "call", "seat": 3})
    assert not s.hand.in_hand(1)


def test_out_of_turn_action_is_binding_when_the_action_to_that_player_has_not_changed():
    # Four-handed, button 4: seat 3 (UTG) to act; seat 1 calls out of turn, then 3 and 4 call.
    s = run(table((20000,) * 4), {"type": "start_hand", "button": 4},
            {"type": "call", "seat": 1, "out_of_turn": True}, {"type": "call", "seat": 3})
    evs = events(s, {"type": "call", "seat": 4})
    assert [(e.type, e.seat, e.action) for e in evs] == [("ActionTaken", 4, "call"), ("ActionTaken", 1, "call")]


def test_out_of_turn_action_is_returned_when_the_action_changed():
    s = run(table((20000,) * 4), {"type": "start_hand", "button": 4},
            {"type": "call", "seat": 1, "out_of_turn": True}, {"type": "call", "seat": 3})
    evs = events(s, {"type": "raise", "seat": 4, "amount": 1200})
    assert [e.type for e in evs] == ["ActionTaken", "OutOfTurnReturned"]
    s = run(s, {"type": "raise", "seat": 4, "amount": 1200})
    assert s.hand.actor == 1 and s.pending == ()  # options restored: seat 1 acts afresh


def test_pot_limit_omaha_refuses_a_raise_above_the_pot_stating_the_limit():
    s = run(table(game="plo", levels=((200, 400, 0),)), {"type": "start_hand", "button": 3})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "raise", "seat": 3, "amount": 5000})
    assert str(err.value) == "seat 3 cannot raise to 5,000: the pot limit is 1,400"
    (taken,) = events(s, {"type": "allin", "seat": 3})
    assert (taken.action, taken.amount, taken.all_in) == ("raise", 1400, False)


def test_a_board_card_recorded_in_a_hand_is_a_camera_check_that_never_names_the_card_live():
    from broadcast.views.projections import live_view, secure_view

    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "hole_cards", "seat": 2, "cards": "7dKd"},
            {"type": "call", "seat": 3}, {"type": "call", "seat": 1}, {"type": "check", "seat": 2})
    s = run(s, {"type": "board", "cards": "2c7d9h"})  # the board is what lies on the table
    assert s.hand.board == ("2c", "7d", "9h")
    assert s.hand.hole[s.hand.index(2)] == ("??", "Kd")
    live = live_view(s, ts=0)
    assert live["camera_checks"] == ["seat 2: camera check"] and "7d" not in str(live["camera_checks"])
    assert secure_view(s, ts=0)["camera_checks"] == [{"seat": 2, "card": "7d"}]
    s = run(s, *[{"type": "check", "seat": x} for x in (1, 2, 3)])
    with pytest.raises(CardConflict):
        events(s, {"type": "board", "cards": "9h"})  # a card already on the board


def test_a_camera_read_never_overrides_the_secure_card_rooms_correction():
    s = run(table(), {"type": "start_hand"}, {"type": "hole_cards", "seat": 1, "cards": "AsKd", "source": "camera"},
            {"type": "hole_cards", "seat": 1, "cards": "AsKh", "source": "secure"})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "hole_cards", "seat": 1, "cards": "AsKd", "source": "camera"})
    assert err.value.field == "source" and "Kd" not in str(err.value)
    s = run(s, {"type": "fold", "seat": 1}, {"type": "fold", "seat": 2}, {"type": "start_hand"})
    assert s.secured == frozenset()  # a new hand: the camera reads again


def test_odd_chip_goes_to_the_first_seat_left_of_the_button():
    # Rule book "Odd Chips": the odd chip goes to the player closest to the button (on its left).
    checks = lambda *seats: [{"type": "check", "seat": x} for x in seats]  # noqa: E731
    s = run(table((20000, 20000, 20000), levels=((100, 200, 0),)), {"type": "start_hand", "button": 3},
            *[{"type": "hole_cards", "seat": x, "cards": c} for x, c in ((1, "AsKd"), (2, "AhKc"), (3, "2c3d"))],
            {"type": "raise", "seat": 3, "amount": 401}, {"type": "call", "seat": 1}, {"type": "call", "seat": 2},
            {"type": "board", "cards": "QsJhTc"}, *checks(1, 2, 3), {"type": "board", "cards": "7d"}, *checks(1, 2, 3),
            {"type": "board", "cards": "6s"}, *checks(1, 2))
    ended = next(e for e in events(s, {"type": "check", "seat": 3}) if isinstance(e, HandEnded))
    assert ended.pots == ({"amount": 1203, "winners": {1: 602, 2: 601}},)


def test_an_uncalled_bet_is_returned():
    s = run(table((20000, 20000, 20000), levels=((100, 200, 0),)), {"type": "start_hand", "button": 3},
            {"type": "raise", "seat": 3, "amount": 5000}, {"type": "fold", "seat": 1})
    ended = next(e for e in events(s, {"type": "fold", "seat": 2}) if isinstance(e, HandEnded))
    assert ended.stacks == {1: 19900, 2: 19800, 3: 20300}  # seat 3 wins the blinds; its 4,800 uncalled came back


def test_only_tabled_hands_win_a_player_may_muck_at_showdown():
    checks = lambda *seats: [{"type": "check", "seat": x} for x in seats]  # noqa: E731
    s = run(table((20000, 20000), levels=((100, 200, 0),)), {"type": "start_hand", "button": 2},
            {"type": "hole_cards", "seat": 2, "cards": "2c3d"},
            {"type": "call", "seat": 2}, {"type": "check", "seat": 1},
            *[c for b in ("QsJhTc", "7d", "6s") for c in ({"type": "board", "cards": b}, *checks(1, 2))])
    assert s.hand.to_show == 1 and s.hand.awaiting_cards() == (1,)  # seat 1's cards were never read
    with pytest.raises(NotYourTurn):
        events(s, {"type": "muck", "seat": 2})
    ended = next(e for e in events(s, {"type": "muck", "seat": 1}) if isinstance(e, HandEnded))
    assert ended.pots[0]["winners"] == {2: 400}


def test_no_muck_at_an_all_in_showdown():
    s = run(table((20000, 20000), levels=((100, 200, 0),)), {"type": "start_hand", "button": 2},
            {"type": "hole_cards", "seat": 2, "cards": "2c3d"}, {"type": "allin", "seat": 2}, {"type": "call", "seat": 1})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "muck", "seat": 1})
    assert "All-In Showdown" in str(err.value)


# -- All-In Raising: several short all-ins (the rule book is silent; a show setting) -------
def _short_all_ins(setting):
    from dataclasses import replace as _replace

    s = table((10000, 10000, 10000, 1400, 1900, 10000), levels=((100, 200, 0),))
    s = _replace(s, short_all_ins=setting)
    # A (seat 3) makes it 1,000; B (seat 4) all-in 1,400 and C (seat 5) all-in 1,900 are each
    # less than a full raise (800), together 900 more: D calls, the blinds fold, back to A.
    return run(s, {"type": "start_hand", "button": 6}, {"type": "raise", "seat": 3, "amount": 1000},
               {"type": "allin", "seat": 4}, {"type": "allin", "seat": 5}, {"type": "call", "seat": 6},
               {"type": "fold", "seat": 1}, {"type": "fold", "seat": 2})


def test_all_in_raising_tda_several_short_all_ins_making_a_full_raise_reopen_the_betting():
    s = _short_all_ins("tda")
    assert s.hand.actor == 3 and s.hand.raise_range(3) is not None
    s = run(s, {"type": "raise", "seat": 3, "amount": 5000})
    assert s.hand.bet(3) == 5000


def test_all_in_raising_single_setting_only_one_full_raise_reopens_the_betting():
    s = _short_all_ins("single")
    assert s.hand.actor == 3 and s.hand.raise_range(3) is None
    with pytest.raises(IllegalAction, match="betting is not reopened to them; they may call or fold"):
        events(s, {"type": "raise", "seat": 3, "amount": 5000})


@pytest.mark.parametrize("setting", ["tda", "single"])
def test_all_in_raising_one_short_all_in_does_not_reopen_under_either_setting(setting):
    from dataclasses import replace as _replace

    s = _replace(table((10000, 10000, 10000, 1400, 10000), levels=((100, 200, 0),)), short_all_ins=setting)
    s = run(s, {"type": "start_hand", "button": 5}, {"type": "raise", "seat": 3, "amount": 1000},
            {"type": "allin", "seat": 4}, {"type": "call", "seat": 5}, {"type": "fold", "seat": 1}, {"type": "fold", "seat": 2})
    assert s.hand.actor == 3 and s.hand.raise_range(3) is None


# -- Refusal to Show ----------------------------------------------------------------------
def _river_showdown():
    """Seat 3 bets the river and seat 1 calls: seat 3, the last aggressor, shows first."""
    s = run(table((20000, 20000, 20000)), {"type": "start_hand", "button": 3}, {"type": "call", "seat": 3},
            {"type": "call", "seat": 1}, {"type": "check", "seat": 2}, {"type": "board", "cards": "2c7d9h"},
            {"type": "check", "seat": 1}, {"type": "check", "seat": 2}, {"type": "check", "seat": 3},
            {"type": "board", "cards": "Js"}, {"type": "check", "seat": 1}, {"type": "check", "seat": 2},
            {"type": "check", "seat": 3}, {"type": "board", "cards": "3d"}, {"type": "check", "seat": 1},
            {"type": "check", "seat": 2}, {"type": "bet", "seat": 3, "amount": 800},
            {"type": "call", "seat": 1}, {"type": "fold", "seat": 2})
    assert s.hand.to_show == 3
    return s


def test_refusal_to_show_a_five_second_countdown_then_a_dead_hand_and_a_penalty():
    s = run(_river_showdown(), {"type": "refuse_to_show", "seat": 3})
    assert s.refusing == {3} and s.in_hand
    s = run(s, {"type": "show_countdown_over", "seat": 3})
    assert not s.in_hand  # seat 3's hand is dead: seat 1 wins without showing
    ended = s.hand.payouts()
    assert list(ended[-1]["winners"]) == [1]
    assert s.hand.shown() == {}  # the last player with cards need not show them (rule "Winning hand")
    assert s.ledger.penalties[-1].player == "p3" and "stalling" in s.ledger.penalties[-1].rule


def test_refusal_to_show_cards_tabled_before_the_countdown_ends_play_on():
    s = run(_river_showdown(), {"type": "refuse_to_show", "seat": 3},
            {"type": "hole_cards", "seat": 3, "cards": "AsAd", "source": "dealer"})
    assert not s.refusing
    with pytest.raises(IllegalAction, match="tabled in time"):
        events(s, {"type": "show_countdown_over", "seat": 3})


def test_refusal_to_show_is_ruled_only_for_the_seat_to_show_at_showdown():
    s = _river_showdown()
    with pytest.raises(NotYourTurn, match="seat 3 shows first"):
        events(s, {"type": "refuse_to_show", "seat": 1})
    with pytest.raises(IllegalAction, match="only at showdown"):
        events(run(table(), {"type": "start_hand", "button": 3}), {"type": "refuse_to_show", "seat": 3})


# -- All-In with Hidden Chips -------------------------------------------------------------
def _hidden_chips_all_in(winner_cards):
    """Seat 1 (5,000 behind, as counted) moves all-in and seat 2 calls; 3,000 more chips
    are then found behind seat 1's stack."""
    s = run(table((5000, 20000, 20000)), {"type": "start_hand", "button": 3}, {"type": "fold", "seat": 3},
            {"type": "allin", "seat": 1}, {"type": "call", "seat": 2}, {"type": "hidden_chips", "seat": 1, "amount": 3000})
    return run(s, {"type": "hole_cards", "seat": 1, "cards": winner_cards[0], "source": "dealer"},
               {"type": "hole_cards", "seat": 2, "cards": winner_cards[1], "source": "dealer"},
               {"type": "board", "cards": "2c7d9h"}, {"type": "board", "cards": "Js"}, {"type": "board", "cards": "3d"})


def test_all_in_with_hidden_chips_the_winner_takes_them_when_the_all_in_player_loses():
    # "An acknowledged all-in wager commits a player's entire stack to the hand, including any hidden chips."
    s = _hidden_chips_all_in(("4c5c", "AsAd"))
    assert s.seat(1).stack == 0 and s.seat(2).stack == 20000 + 5000 + 3000  # its own ante comes back in the pot
    assert s.hand.number == s.eliminated[-1].hand and s.eliminated[-1].player == "p1"


def test_all_in_with_hidden_chips_the_all_in_player_is_not_paid_on_them():
    # "However, the all-in player is not allowed to benefit from the hidden chips."
    s = _hidden_chips_all_in(("AsAd", "4c5c"))
    assert s.seat(1).stack == 5000 * 2 + 400 + 3000  # won only what 5,000 could win, and kept the hidden chips
    assert s.seat(2).stack == 20000 - 5000 - 400


def test_hidden_chips_count_only_behind_an_all_in():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(IllegalAction, match="behind an acknowledged all-in; all-in now: nobody"):
        events(s, {"type": "hidden_chips", "seat": 1, "amount": 500})


def test_a_refusal_names_the_rule_and_the_legal_range():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(IllegalAction) as info:
        events(s, {"type": "raise", "seat": 3, "amount": 500})
    wire = info.value.to_dict()
    assert wire["rule"] == "Method of Raising" and "minimum raise is to 800" in wire["message"] and wire["field"] == "amount"
    with pytest.raises(IllegalAction) as info:
        events(run(s, {"type": "raise", "seat": 3, "amount": 1200}, {"type": "call", "seat": 1}),
               {"type": "misdeal", "reason": "boxed card"})
    assert info.value.to_dict()["rule"] == "Substantial Action"


# -- Winning hand: the winner entered when the cards are unread ----------------------------
def _unread_showdown():
    """Three players to a river showdown, no card read; seat 1 is first to show."""
    return run(table((20000, 20000, 20000)), {"type": "start_hand", "button": 3}, {"type": "call", "seat": 3},
               {"type": "call", "seat": 1}, {"type": "check", "seat": 2}, {"type": "board", "cards": "2c7d9h"},
               *({"type": "check", "seat": n} for n in (1, 2, 3)), {"type": "board", "cards": "Js"},
               *({"type": "check", "seat": n} for n in (1, 2, 3)), {"type": "board", "cards": "3d"},
               *({"type": "check", "seat": n} for n in (1, 2, 3)))


@pytest.mark.parametrize("winner", [1, 2, 3])
def test_a_showdown_with_unread_cards_is_settled_by_entering_the_winner(winner):
    s = _unread_showdown()
    assert s.hand.awaiting_cards()
    s = run(s, {"type": "winner", "seat": winner})
    assert not s.in_hand
    (pot,) = s.hand.payouts()
    assert pot["winners"] == {winner: 1600} and s.hand.shown() == {}  # nobody's cards are made up


def test_the_winner_is_not_entered_at_an_all_in_showdown_the_cards_are():
    s = run(table((5000, 20000, 20000)), {"type": "start_hand", "button": 3}, {"type": "fold", "seat": 3},
            {"type": "allin", "seat": 1}, {"type": "call", "seat": 2})
    with pytest.raises(IllegalAction, match="enter the tabled cards"):
        events(s, {"type": "winner", "seat": 1})


def _all_in_tabled():
    """Heads-up, both all in with their cards read: the hands are turned face up."""
    s = run(table((3000, 20000)), {"type": "start_hand", "button": 1},
            {"type": "hole_cards", "seat": 1, "cards": "9hAc"}, {"type": "hole_cards", "seat": 2, "cards": "6c3s"},
            {"type": "allin", "seat": 1}, {"type": "call", "seat": 2})
    assert set(s.hand.shown()) == {1, 2}
    return s


def test_all_in_a_board_card_recorded_in_a_tabled_hand_is_refused_without_naming_the_card():
    from broadcast.engine.errors import CardConflict

    with pytest.raises(CardConflict) as err:
        events(_all_in_tabled(), {"type": "board", "cards": "9c9hQd"})  # 9h is recorded at seat 1
    assert "tabled hand" in str(err.value) and "9h" not in str(err.value)


def test_a_camera_read_that_loses_sight_of_a_card_takes_nothing_back():
    s = _all_in_tabled()
    assert events(s, {"type": "hole_cards", "seat": 2, "cards": "??3s", "source": "camera"}) == ()


def test_a_tabled_hands_cards_cannot_be_made_unknown_once_turned_up():
    s = run(_all_in_tabled(), {"type": "board", "cards": "KdQd7h"})
    with pytest.raises(IllegalAction) as err:
        events(s, {"type": "hole_cards", "seat": 2, "cards": "6c??"})
    assert "tabled" in str(err.value)
    # The right card is taken: a correction, and the hand plays on from the record.
    s = run(s, {"type": "hole_cards", "seat": 2, "cards": "6c2s"}, {"type": "board", "cards": "8c"},
            {"type": "board", "cards": "Jh"})
    assert not s.in_hand
