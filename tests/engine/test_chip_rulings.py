"""Chip-action rulings, one test per rule, quoting the rule book where it gives an example."""

import pytest

from broadcast.engine.errors import BadCommand, NotYourTurn
from broadcast.engine.events import ChipsRuled, ConditionalStatement
from broadcast.engine.rulings import Situation, rule_on_chips, substantial_action
from tests.engine.helpers import events, run, table


def facing_1200():
    """Blinds 200-400, player A (seat 3) makes it 1,200; player B (seat 4, the button) to act."""
    return run(table((20000,) * 4, levels=((200, 400, 0),)), {"type": "start_hand", "button": 4},
               {"type": "raise", "seat": 3, "amount": 1200})


def ruled(state, **command):
    ruling, taken = events(state, {"type": "chips", **command})
    assert isinstance(ruling, ChipsRuled)
    return ruling, taken


def test_multiple_chips_two_1000_chips_facing_1200_is_a_call():
    # "with the blinds at 200-400, player A makes it 1200 (an 800 raise), player B puts out two 1000
    # chips without declaring raise, thus making it a call."
    ruling, taken = ruled(facing_1200(), seat=4, chips=[1000, 1000])
    assert (taken.action, taken.amount) == ("call", 1200)
    assert ruling.rule == "Multiple Chips"


def test_multiple_chips_four_500_chips_facing_1200_is_a_raise_to_2000():
    # "If player B had put out four 500 chips, then he or she would have raised to 2000 (another 800 raise)."
    _, taken = ruled(facing_1200(), seat=4, chips=[500, 500, 500, 500])
    assert (taken.action, taken.amount) == ("raise", 2000)


def test_oversized_chip_without_declaring_raise_is_a_call():
    ruling, taken = ruled(facing_1200(), seat=4, chips=[5000])
    assert (taken.action, taken.amount, ruling.rule) == ("call", 1200, "Oversized Chips")


def test_oversized_chip_with_raise_declared_is_the_maximum_up_to_the_chip():
    _, taken = ruled(facing_1200(), seat=4, chips=[5000], declared="raise")
    assert (taken.action, taken.amount) == ("raise", 5000)


def test_oversized_chip_first_bet_after_the_flop_is_a_bet_of_its_size():
    s = run(facing_1200(), {"type": "call", "seat": 4}, {"type": "fold", "seat": 1}, {"type": "fold", "seat": 2},
            {"type": "board", "cards": "2c7d9h"})
    ruling, taken = ruled(s, seat=3, chips=[5000])
    assert (taken.action, taken.amount, ruling.rule) == ("bet", 5000, "Oversized Chips")


def test_half_bet_raising_half_or_more_of_a_raise_must_be_made_a_full_raise():
    # 1,600 is a 400 raise on 1,200: half the 800 raise or more, so a full raise to 2,000.
    ruling, taken = ruled(facing_1200(), seat=4, chips=[1000, 500, 100])
    assert (taken.action, taken.amount, ruling.rule) == ("raise", 2000, "Half-Bet Raising")


def test_half_bet_raising_less_than_half_without_declaring_is_a_call():
    ruling, taken = ruled(facing_1200(), seat=4, chips=[1000, 300])
    assert (taken.action, taken.amount, ruling.rule) == ("call", 1200, "Half-Bet Raising")


def test_undercall_facing_the_opening_bet_multiway_is_a_mandatory_full_call():
    # "in blind games the posted big blind is the opening bet on the first round"
    s = run(table((20000,) * 4, levels=((200, 400, 0),)), {"type": "start_hand", "button": 4})
    ruling, taken = ruled(s, seat=3, chips=[100, 100])
    assert (taken.action, taken.amount, ruling.rule, ruling.flagged) == ("call", 400, "Undercall", False)


def test_undercall_facing_a_raise_multiway_is_a_call_at_the_tds_discretion_and_flagged():
    ruling, taken = ruled(facing_1200(), seat=4, chips=[500])
    assert (taken.action, ruling.rule, ruling.flagged) == ("call", "Undercall", True)


def test_method_of_calling_item_5_a_tiny_silent_chip_is_ruled_a_full_call_and_logged():
    # "blinds 2k-4k. A bets 50k, B then silently puts out one 1k chip"
    s = run(table((200000,) * 3, levels=((2000, 4000, 0),)), {"type": "start_hand", "button": 3},
            {"type": "raise", "seat": 3, "amount": 50000})
    ruling, taken = ruled(s, seat=1, chips=[1000])
    assert (taken.action, taken.amount) == ("call", 50000)
    assert ruling.rule == "Method of Calling" and ruling.flagged and "non-standard" in ruling.note


def test_accepted_action_a_declared_call_is_held_to_the_correct_amount():
    ruling, taken = ruled(facing_1200(), seat=4, chips=[1000], declared="call")
    assert (taken.action, taken.amount, ruling.rule) == ("call", 1200, "Accepted Action")


def test_a_declared_amount_is_binding():
    _, taken = ruled(facing_1200(), seat=4, chips=[], declared="raise", amount=3500)
    assert (taken.action, taken.amount) == ("raise", 3500)


def test_a_declared_raise_below_the_minimum_is_made_the_minimum():
    _, taken = ruled(facing_1200(), seat=4, chips=[], declared="raise", amount=1500)
    assert (taken.action, taken.amount) == ("raise", 2000)


def test_all_chips_pushed_is_all_in():
    s = run(table((20000, 20000, 3000, 20000), levels=((200, 400, 0),)), {"type": "start_hand", "button": 4})
    _, taken = ruled(s, seat=3, chips=[1000, 1000, 1000])
    assert taken.all_in and taken.amount == 3000


def test_chips_out_of_turn_are_refused_naming_whose_turn_it_is():
    with pytest.raises(NotYourTurn):
        events(facing_1200(), {"type": "chips", "seat": 2, "chips": [1200]})


def test_more_chips_than_the_stack_is_refused():
    with pytest.raises(BadCommand) as err:
        events(facing_1200(), {"type": "chips", "seat": 4, "chips": [50000]})
    assert err.value.field == "chips"


def test_conditional_statements_are_recorded_and_flagged():
    (event,) = events(facing_1200(), {"type": "conditional", "seat": 1, "text": "If you bet, I will raise."})
    assert isinstance(event, ConditionalStatement) and event.seat == 1


def test_substantial_action_two_actions_one_with_chips_or_any_three():
    assert substantial_action([("raise", 1200), ("fold", 0)])
    assert not substantial_action([("check", 0), ("fold", 0)])
    assert substantial_action([("check", 0), ("check", 0), ("fold", 0)])
    assert not substantial_action([("call", 400)])


def test_situation_minimum_raise_uses_the_last_full_raise():
    s = Situation(seat=1, stack=10000, bet=0, current_bet=1200, last_raise=800, big_blind=400, opening_bet=False, players_in_hand=3)
    assert s.min_raise_to == 2000
    assert rule_on_chips(s, (1000, 1000)).action == "call"
