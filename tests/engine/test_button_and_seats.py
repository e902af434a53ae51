"""Rule book, TOURNAMENT SEATING and PROCEDURES: dead button, heads-up button, seating
between hands, "At Your Seat", four-card flops and holding cards for review."""

import pytest

from broadcast.engine.errors import BadCommand, HandInProgress, IllegalAction
from broadcast.engine.events import FourCardFlop, HandHeldForReview, HandKilled
from broadcast.engine.button import positions

from .helpers import events, run, table


def fold_around(state):
    """Everyone folds to the big blind: the hand ends with no flop."""
    while state.in_hand:
        state = run(state, {"type": "fold", "seat": state.hand.actor})
    return state


def bust(state, seat):
    """``seat`` loses every chip to the next player in a heads-up all-in... simplest: remove it
    as the floor would after a bust-out hand, keeping the table's positions."""
    return run(state, {"type": "remove_player", "player": state.seat(seat).player, "reason": "busted",
                       "chips_removed": True})


def blinds(state):
    h = state.hand
    return h.button, h.small_blind_seat if h.small_blind_posted else None, h.big_blind_seat


# -- Dead Button --------------------------------------------------------------------------
def test_dead_button_the_big_blind_moves_on_one_player_each_hand():
    s = run(table((20000,) * 5), {"type": "start_hand", "button": 1})
    assert blinds(s) == (1, 2, 3)
    s = run(fold_around(s), {"type": "start_hand"})
    assert blinds(s) == (2, 3, 4)


def test_dead_button_when_the_small_blind_busts_the_button_is_dead_on_the_empty_seat():
    # "Dead button is defined as a button that cannot be advanced due to elimination of a player."
    s = run(table((20000,) * 5), {"type": "start_hand", "button": 1})  # button 1, SB 2, BB 3
    s = bust(fold_around(s), 2)
    s = run(s, {"type": "start_hand"})
    button, sb, bb = blinds(s)
    assert (button, sb, bb) == (2, 3, 4)  # the button sits on the empty seat 2
    assert 2 not in s.hand.seats and s.hand.seats[-1] == 1  # seat 1 acts last after the flop
    assert s.hand.pk.bets[s.hand.index(3)] == 200 and s.hand.pk.bets[s.hand.index(4)] == 400


def test_dead_button_when_the_big_blind_busts_the_small_blind_is_dead():
    s = run(table((20000,) * 5, levels=((200, 400, 400),)), {"type": "start_hand", "button": 1})  # SB 2, BB 3
    s = bust(fold_around(s), 3)
    s = run(s, {"type": "start_hand"})
    assert s.hand.small_blind_seat == 3 and not s.hand.small_blind_posted  # seat 3 is empty: a dead small blind
    assert s.hand.button == 2 and s.hand.big_blind_seat == 4
    hand = s.hand
    assert hand.pk.bets[hand.index(4)] == 400 and sum(hand.pk.bets) == 400  # only the big blind is posted
    assert hand.starting[hand.index(4)] - hand.stack(4) == 800  # big blind plus the big-blind ante
    assert hand.actor == 5  # first to act is left of the big blind


def test_dead_button_nobody_posts_the_big_blind_twice_or_skips_it():
    s = run(table((20000,) * 6), {"type": "start_hand", "button": 1})
    posted = [s.hand.big_blind_seat]
    for bust_seat in (None, 4, None, None):
        s = fold_around(s)
        if bust_seat:
            s = bust(s, bust_seat)
        s = run(s, {"type": "start_hand"})
        posted.append(s.hand.big_blind_seat)
    assert posted == [3, 4, 5, 6, 1]  # seat 4 posted before it left; the big blind never went back


# -- Alternates, Late Entries and Re-Entries ----------------------------------------------
def test_late_entries_are_never_dealt_in_between_the_small_blind_and_the_button():
    # "They will be seated and assume the rights and responsibilities of any position, except
    # between the small blind and the button."
    s = run(table((20000,) * 4, seats=[1, 3, 5, 7]), {"type": "start_hand", "button": 1})  # SB 3, BB 5
    s = fold_around(s)
    s = run(s, {"type": "seat_player", "seat": 4, "player": "late", "name": "Late Larry", "country": "ie",
                "stack": 30000, "reason": "late_entry"})
    s = run(s, {"type": "start_hand"})  # button 3, SB 5, BB 7: seat 4 sits between them
    assert blinds(s) == (3, 5, 7) and 4 not in s.hand.seats
    s = run(fold_around(s), {"type": "start_hand"})  # button 5: seat 4 is behind the button now
    assert blinds(s) == (5, 7, 1) and 4 in s.hand.seats


def test_a_late_entry_may_take_the_big_blind_position():
    s = run(table((20000,) * 4, seats=[1, 3, 5, 7]), {"type": "start_hand", "button": 1})  # SB 3, BB 5
    s = run(fold_around(s), {"type": "seat_player", "seat": 6, "player": "late", "name": "Late Larry",
                             "stack": 30000})
    s = run(s, {"type": "start_hand"})
    assert blinds(s) == (3, 5, 6) and s.seat(6).country == ""


def test_players_are_seated_moved_and_removed_only_between_hands():
    s = run(table((20000,) * 3), {"type": "start_hand", "button": 1})
    for command in ({"type": "seat_player", "seat": 5, "player": "x", "name": "X", "stack": 100},
                    {"type": "move_player", "player": "p1", "seat": 6},
                    {"type": "remove_player", "player": "p1", "reason": "moved to table 7"}):
        with pytest.raises(HandInProgress, match="between hands"):
            events(s, command)
    s = fold_around(s)
    s = run(s, {"type": "move_player", "player": "p1", "seat": 6, "reason": "final table redraw"})
    assert s.seat(6).player == "p1" and s.seat(1) is None
    s = run(s, {"type": "remove_player", "player": "p2", "reason": "moved to table 7"})
    assert s.seat(2) is None and s.players_left == 2


def test_seating_refuses_a_taken_seat_or_a_player_already_seated_naming_the_empty_seats():
    s = table((20000,) * 3)
    with pytest.raises(BadCommand, match="seat 2 is taken by Player 2; empty seats: 4, 5, 6, 7, 8, 9, 10") as info:
        events(s, {"type": "seat_player", "seat": 2, "player": "x", "name": "X", "stack": 100})
    assert info.value.field == "seat"
    with pytest.raises(BadCommand, match="already at seat 1"):
        events(s, {"type": "seat_player", "seat": 4, "player": "p1", "name": "Again", "stack": 100})
    with pytest.raises(BadCommand, match="between 1 and 10"):
        events(s, {"type": "seat_player", "seat": 11, "player": "x", "name": "X", "stack": 100})
    with pytest.raises(BadCommand, match="no player 'ghost'"):
        events(s, {"type": "move_player", "player": "ghost", "seat": 4})


def test_a_player_moved_from_another_table_keeps_chips_and_a_removed_player_takes_them():
    s = table((20000, 15000, 12000))
    s = run(s, {"type": "remove_player", "player": "p2", "reason": "table balancing: to table 7"})
    s = run(s, {"type": "seat_player", "seat": 8, "player": "m", "name": "Mover", "stack": 41000, "reason": "table_move"})
    assert [(x.seat, x.stack) for x in s.seats] == [(1, 20000), (3, 12000), (8, 41000)]


# -- Heads-Up Button ----------------------------------------------------------------------
def test_heads_up_button_at_the_change_to_heads_up_nobody_takes_the_big_blind_twice():
    # "When beginning heads-up play, the button may need to be adjusted to ensure no player
    # takes the big blind twice."
    s = run(table((20000,) * 3), {"type": "start_hand", "button": 1})  # button 1, SB 2, BB 3
    s = bust(fold_around(s), 1)
    s = run(s, {"type": "start_hand"})
    assert s.hand.big_blind_seat == 2 and s.hand.button == 3  # seat 3 just posted the big blind
    assert s.hand.small_blind_seat == 3 and s.hand.actor == 3  # the button posts the small blind, acts first
    s = run(fold_around(s), {"type": "start_hand"})
    assert s.hand.big_blind_seat == 3 and s.hand.button == 2


def test_heads_up_button_when_the_big_blind_busts_the_small_blind_moves_on_to_the_big_blind():
    s = run(table((20000,) * 3), {"type": "start_hand", "button": 1})  # button 1, SB 2, BB 3
    s = bust(fold_around(s), 3)
    s = run(s, {"type": "start_hand"})
    assert s.hand.big_blind_seat == 1 and s.hand.button == 2  # seat 2 posted the small blind, not the big


@pytest.mark.parametrize("live,last_sb,last_bb,expected", [
    ([1, 2, 3, 4], 2, 3, (2, 3, 4, [1, 2, 3, 4])),
    ([1, 3, 4], 2, 3, (2, 3, 4, [1, 3, 4])),      # seat 2 gone: dead button
    ([1, 2, 4], 2, 3, (2, 3, 4, [1, 2, 4])),      # seat 3 gone: dead small blind
    ([2, 3], 2, 3, (3, 3, 2, [2, 3])),             # heads-up: seat 3 just posted the big blind
    ([1, 3, 4, 6], 4, 6, (4, 6, 1, [1, 3, 4, 6])),  # round the corner from seat 6 to seat 1
    ([1, 3, 4, 5, 6], 1, 3, (1, 3, 4, [1, 3, 4, 5, 6])),  # seat 5 sits after the big blind: dealt in
])
def test_dead_button_positions(live, last_sb, last_bb, expected):
    assert positions(live, last_sb, last_bb) == expected


# -- At Your Seat -------------------------------------------------------------------------
def test_at_your_seat_a_player_away_when_the_last_card_reaches_the_button_has_a_dead_hand():
    s = run(table((20000,) * 4), {"type": "start_hand", "button": 4})
    (killed,) = events(s, {"type": "away", "seat": 2})
    assert isinstance(killed, HandKilled) and "At Your Seat" in killed.reason
    s = run(s, {"type": "away", "seat": 2}, {"type": "call", "seat": 3}, {"type": "call", "seat": 4},
            {"type": "call", "seat": 1})
    assert not s.hand.in_hand(2) and s.hand.starting[s.hand.index(2)] - s.hand.stack(2) == 800  # blind and ante stay in
    with pytest.raises(IllegalAction, match="before any action"):
        events(s, {"type": "away", "seat": 1})


# -- Four-Card Flops ----------------------------------------------------------------------
def test_four_card_flop_the_floor_draws_one_as_the_burn_and_the_other_three_are_the_flop():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "call", "seat": 3}, {"type": "call", "seat": 1},
            {"type": "check", "seat": 2})
    out = events(s, {"type": "four_card_flop", "cards": ["As", "Kd", "7c", "2h"], "draw": 2})
    assert isinstance(out[0], FourCardFlop) and out[0].burn == "7c"
    assert out[1].cards == ("As", "Kd", "2h")
    s = run(s, {"type": "four_card_flop", "cards": "AsKd7c2h", "burn": "As"})
    assert s.hand.board == ("Kd", "7c", "2h")
    with pytest.raises(IllegalAction, match="only when the flop is due"):
        events(s, {"type": "four_card_flop", "cards": "QsJd9c3h", "draw": 0})


def test_four_card_flop_refuses_a_burn_that_is_not_one_of_the_four():
    s = run(table(), {"type": "start_hand", "button": 3})
    with pytest.raises(BadCommand, match="one of the four") as info:
        events(s, {"type": "four_card_flop", "cards": "AsKd7c2h", "burn": "Qs"})
    assert info.value.field == "burn"
    with pytest.raises(BadCommand, match="burn is required"):
        events(s, {"type": "four_card_flop", "cards": "AsKd7c2h"})


# -- Showing the Winner 1: hold the cards aside for review --------------------------------
def test_holding_cards_for_review_records_the_hand_and_the_seats_until_the_next_hand():
    s = run(table(), {"type": "start_hand", "button": 3}, {"type": "hole_cards", "seat": 1, "cards": "AhAd"})
    s = fold_around(s)
    (held,) = events(s, {"type": "hold_for_review", "seats": [1, 2], "reason": "collusion concern"})
    assert isinstance(held, HandHeldForReview) and held.hand == 1 and held.seats == (1, 2)
    s = run(s, {"type": "hold_for_review", "seats": [1, 2], "reason": "collusion concern"})
    assert s.held[-1].hand == 1 and s.hand.hole[s.hand.index(1)] == ("Ah", "Ad")  # the cards stay in the record
    with pytest.raises(BadCommand, match="seat 7 was not dealt in"):
        events(s, {"type": "hold_for_review", "seats": [7], "reason": "x"})


# -- Button draw, chip counts and names between hands ---------------------------------------
def test_a_draw_for_the_button_deals_the_next_hand_as_a_first_hand_from_that_seat():
    # "A draw for the button will be held ... for restarts, redraws and at the Final Table."
    s = run(table((20000,) * 4), {"type": "start_hand", "button": 1})
    s = run(fold_around(s), {"type": "draw_button", "seat": 3}, {"type": "start_hand"})
    assert blinds(s) == (3, 4, 1)
    s = run(fold_around(s), {"type": "start_hand"})
    assert blinds(s) == (4, 1, 2)  # and moves on from there
    with pytest.raises(BadCommand, match="occupied seat: 1, 2, 3, 4"):
        events(fold_around(s), {"type": "draw_button", "seat": 7})


def test_a_chip_count_at_the_break_replaces_the_recorded_stack_as_a_correcting_event():
    s = table((20000, 20000, 20000))
    (corrected,) = events(s, {"type": "chip_count", "player": "p2", "stack": 18750, "reason": "count at the break"})
    assert (corrected.before, corrected.after) == (20000, 18750)
    s = run(s, {"type": "chip_count", "player": "p2", "stack": 18750, "reason": "count at the break"})
    assert s.seat(2).stack == 18750
    s = run(s, {"type": "start_hand", "button": 1})
    with pytest.raises(HandInProgress, match="between hands"):
        events(s, {"type": "chip_count", "player": "p2", "stack": 1, "reason": "x"})


def test_a_display_name_changes_the_name_on_air_but_not_the_stable_id():
    s = run(table(), {"type": "display_name", "player": "p1", "name": "Ann \u201cThe Hammer\u201d Lee"})
    assert s.seat(1).name == "Ann \u201cThe Hammer\u201d Lee" and s.seat(1).player == "p1"


def test_a_late_entry_facing_a_lone_player_is_dealt_in_heads_up_at_once():
    s = run(table((20000,) * 3, seats=[1, 3, 5]), {"type": "start_hand", "button": 1})  # SB 3, BB 5
    s = fold_around(s)
    s = bust(bust(s, 3), 5)
    s = run(s, {"type": "seat_player", "seat": 2, "player": "late", "name": "Late Larry", "stack": 20000})
    s = run(s, {"type": "start_hand"})  # seat 2 sits "between" the old blinds, but nobody else is left
    assert sorted(s.hand.seats) == [1, 2] and s.hand.button == s.hand.small_blind_seat
