"""Clocks: one test per rule (rule book "Calling for Clock", "Hand-for-Hand Play")."""

import pytest

from broadcast.compliance.clock import clock_allowance, on_air, read_called_clock, read_level_clock
from broadcast.compliance.dashboard import public_view
from broadcast.compliance.errors import NotAllowed, NotCleared
from broadcast.compliance.state import action_allowed, before_action, check_deal_in
from broadcast.engine.errors import BadCommand, IllegalAction

from .helpers import Desk, table_facts

MIN = 60_000


def clock_desk(minutes=(60, 60)):
    desk = Desk(table_facts(3, minutes=minutes))
    desk.deal(actor=2)
    desk.do("cards_shown", role="camera", seat=2)
    return desk


def test_calling_for_clock_gives_50_seconds_then_a_10_second_countdown():
    """ "This minute will consist of a 50 second time limit, and if action has not taken place, there will be a 10
    second countdown." """
    desk = clock_desk()
    with pytest.raises(IllegalAction) as err:
        desk.do("call_clock", role="dealer", seat=3, approved_by="Floor Lia")
    assert "that is seat 2, not seat 3" in err.value.reason
    with pytest.raises(BadCommand) as err:
        desk.do("call_clock", role="dealer", seat=2)  # the floor must approve
    assert err.value.field == "approved_by"
    (called,) = desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=100_000)
    assert (called.seconds, called.countdown) == (50, 10)
    clock = desk.state.called_clock
    assert read_called_clock(clock, 130_000).phase == "time"
    assert read_called_clock(clock, 151_000).to_dict() == {"seat": 2, "phase": "countdown", "remaining_ms": 9_000,
                                                            "total_ms": 9_000, "seconds": 9}


def test_at_levels_of_twenty_minutes_or_less_the_clock_is_25_seconds_then_5():
    """ "For Pokerfest tournaments with a level time of twenty minutes or less, the clock will be twenty-five
    seconds, followed by a five second countdown." """
    assert clock_allowance(20) == (25, 5) and clock_allowance(21) == (50, 10)
    desk = clock_desk(minutes=(20, 20))
    (called,) = desk.do("call_clock", role="td", seat=2)
    assert (called.seconds, called.countdown, called.approved_by) == (25, 5, "Olivier Marchand")


def test_the_rule_book_allowance_is_the_default_and_only_a_rehearsal_config_shortens_it():
    """The allowance lives in the pure config: its defaults are the rule book's; a rehearsal show may shorten it."""
    from broadcast.compliance.config import ComplianceConfig

    rules = ComplianceConfig()
    assert (rules.clock_standard, rules.clock_short_levels, rules.short_level_minutes) == ((50, 10), (25, 5), 20)
    assert clock_allowance(20, rules) == (25, 5) and clock_allowance(60, rules) == (50, 10)
    rehearsal = ComplianceConfig(clock_short_levels=(2, 1))
    desk = Desk(table_facts(3, minutes=(20, 20)), rehearsal)
    desk.deal(actor=2)
    desk.do("cards_shown", role="camera", seat=2)
    (called,) = desk.do("call_clock", role="td", seat=2)
    assert (called.seconds, called.countdown) == (2, 1)
    with pytest.raises(ValueError):
        ComplianceConfig(clock_standard=(0, 10))


def test_the_floor_may_speed_up_the_clock_for_deliberate_stalling():
    """ "Tournament Supervisors reserve the right to speed-up the amount of time allotted for a clock if it appears
    that a player is deliberately stalling." """
    desk = clock_desk()
    with pytest.raises(BadCommand) as err:
        desk.do("call_clock", role="td", seat=2, seconds=20, countdown=5)
    assert err.value.field == "reason"
    with pytest.raises(BadCommand) as err:
        desk.do("call_clock", role="td", seat=2, seconds=90, reason="thinking")
    assert err.value.field == "seconds" and "shortened, not lengthened" in err.value.reason
    (called,) = desk.do("call_clock", role="td", seat=2, seconds=20, countdown=5, reason="third tank this orbit")
    assert (called.seconds, called.countdown) == (20, 5)


def test_the_hand_is_dead_when_the_countdown_is_over():
    """ "If a player has not acted on his hand by the time the countdown is over, the hand will be dead." """
    desk = clock_desk()
    desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=0)
    with pytest.raises(IllegalAction) as err:
        desk.do("expire_clock", role="dealer", at=55_000)
    assert "5 s left" in err.value.reason
    (expired,) = desk.do("expire_clock", role="dealer", at=62_000)
    assert (expired.type, expired.seat) == ("ClockExpired", 2)
    assert desk.state.called_clock is None  # the core now kills the hand (engine KillHand)
    # An action keyed after the countdown and the tie margin comes too late: the action is not taken.
    desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=100_000)
    late = before_action(desk.state, desk.facts, desk.config, 2, 161_500)
    assert [e.type for e in late] == ["ClockExpired"] and not action_allowed(late)


def test_a_tie_between_the_countdown_and_the_action_goes_to_the_player():
    """ "In case of a perceived tie between the countdown and the player's action, that tie will customarily go to
    the player". """
    desk = clock_desk()
    desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=0)
    (answer,) = desk.feed(*before_action(desk.state, desk.facts, desk.config, 2, 60_400))
    assert answer.type == "ClockAnswered" and answer.tie
    assert desk.state.called_clock is None
    desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=0)
    with pytest.raises(IllegalAction):
        desk.do("expire_clock", role="dealer", at=60_900)  # still within the tie: no dead hand yet


def test_level_clock_start_pause_resume_and_add_or_remove_time():
    desk = Desk(table_facts(3, minutes=(30, 30, 40)))
    with pytest.raises(NotAllowed):
        desk.do("level_clock_start", role="rep")
    desk.do("level_clock_start", role="td", at=0)
    minutes = desk.facts.level_minutes
    assert read_level_clock(desk.state.level_clock, minutes, 10 * MIN).remaining_ms == 20 * MIN
    desk.do("level_clock_pause", role="td", at=10 * MIN, reason="medical break at table 4")
    assert read_level_clock(desk.state.level_clock, minutes, 50 * MIN).remaining_ms == 20 * MIN
    desk.do("level_clock_resume", role="td", at=50 * MIN)
    desk.do("level_clock_adjust", role="td", delta_ms=-5 * MIN, at=50 * MIN, reason="make up time")
    assert read_level_clock(desk.state.level_clock, minutes, 60 * MIN).remaining_ms == 5 * MIN
    with pytest.raises(BadCommand) as err:
        desk.do("level_clock_adjust", role="td", delta_ms=-6 * MIN, at=60 * MIN)
    assert err.value.field == "delta_ms"
    desk.do("level_clock_set_level", role="td", level=3, at=60 * MIN)
    assert read_level_clock(desk.state.level_clock, minutes, 61 * MIN).to_dict()["level"] == 3


def test_level_clock_rolls_into_the_next_level_and_stops_for_breaks():
    """Players grant the right "to add cancel or amend breaks in play as and when reasonably required"."""
    desk = Desk(table_facts(3, minutes=(20, 20, 20)))
    desk.do("level_clock_start", role="td", at=0)
    minutes = desk.facts.level_minutes
    r = read_level_clock(desk.state.level_clock, minutes, 25 * MIN)
    assert (r.level, r.remaining_ms) == (2, 15 * MIN)
    desk.do("break_start", role="td", minutes=10, at=25 * MIN)
    r = read_level_clock(desk.state.level_clock, minutes, 30 * MIN)
    assert r.on_break and r.break_remaining_ms == 5 * MIN and (r.level, r.remaining_ms) == (2, 15 * MIN)
    r = read_level_clock(desk.state.level_clock, minutes, 40 * MIN)  # the break ended by itself at 35
    assert not r.on_break and (r.level, r.remaining_ms) == (2, 10 * MIN)
    desk.do("break_start", role="td", minutes=10, at=41 * MIN)
    desk.do("break_end", role="td", at=43 * MIN)  # cut short
    assert read_level_clock(desk.state.level_clock, minutes, 44 * MIN).remaining_ms == 8 * MIN
    r = read_level_clock(desk.state.level_clock, minutes, 500 * MIN)
    assert (r.level, r.remaining_ms) == (3, 0)  # the last level stops at zero


def test_hand_for_hand_deals_only_hands_the_td_released():
    """ "Once all tables have completed that hand, the Dealer at each table will deal one hand only and upon
    completion of that hand, stop the action again." """
    desk = Desk(table_facts(2))
    for s in desk.facts.seats:
        desk.do("surrender_devices", player=s.player, items=[])
        desk.do("inspect_logos", player=s.player, logos=[])
    check_deal_in(desk.state, desk.facts)
    desk.do("hand_for_hand", role="td", on=True)
    with pytest.raises(NotCleared) as err:
        check_deal_in(desk.state, desk.facts)
    assert err.value.field == "type" and "release the next hand" in err.value.reason
    desk.do("hand_for_hand_release", role="td")
    check_deal_in(desk.state, desk.facts)
    desk.deal(hand=1, actor=1)
    with pytest.raises(IllegalAction):
        desk.do("hand_for_hand_release", role="td")  # still playing
    desk.end_hand()
    with pytest.raises(NotCleared):
        check_deal_in(desk.state, desk.facts)  # one hand only
    desk.do("hand_for_hand", role="td", on=False)
    check_deal_in(desk.state, desk.facts)


def test_hand_for_hand_a_called_all_in_is_frozen_until_the_td_releases_it():
    """ "During hand-for-hand play, when a Dealer has a called all-in at their table, they are instructed to freeze
    all action remaining at that table ... At that point, Floor Personnel will attend the All-In table and instruct
    them to complete the hand." """
    from dataclasses import replace

    from broadcast.compliance.events import AllInReleased
    from broadcast.compliance.state import before_runout, frozen

    desk = Desk(table_facts(2))
    desk.do("hand_for_hand", role="td", on=True)
    desk.do("hand_for_hand_release", role="td")
    desk.deal(hand=7, actor=1)
    desk.facts = replace(desk.facts, actor=None)
    before_runout(desk.state, desk.facts)  # no all-in: the board comes as usual
    desk.facts = replace(desk.facts, all_in=True, actor=2)
    assert not frozen(desk.state, desk.facts), "the all-in is not called yet: seat 2 is still to act"
    desk.facts = replace(desk.facts, actor=None)  # called: nobody is left to act
    assert frozen(desk.state, desk.facts)
    with pytest.raises(IllegalAction) as err:
        before_runout(desk.state, desk.facts)
    assert err.value.field == "type" and err.value.reason == "hand-for-hand: a called all-in waits for the TD to release it"
    with pytest.raises(NotAllowed):
        desk.do("release_all_in", role="rep")  # the floor's call, made by the TD
    (released,) = desk.do("release_all_in", role="td", at=5_000)
    assert isinstance(released, AllInReleased) and released.hand == 7 and released.by == "Olivier Marchand"
    assert not frozen(desk.state, desk.facts)
    before_runout(desk.state, desk.facts)  # released for the whole hand: showdown, flop, turn and river
    assert desk.state.audit[-1].what == "hand-for-hand: called all-in of hand 7 released"
    with pytest.raises(IllegalAction, match="no called all-in is waiting"):
        desk.do("release_all_in", role="td")
    # The next hand's all-in is frozen again; with hand-for-hand off nothing is held.
    desk.facts = replace(desk.facts, hand=8)
    assert frozen(desk.state, desk.facts)
    desk.do("hand_for_hand", role="td", on=False)
    assert not frozen(desk.state, desk.facts)
    with pytest.raises(IllegalAction, match="hand-for-hand is off"):
        desk.do("release_all_in", role="td")


def test_the_on_air_clock_is_the_servers_time_minus_the_delay():
    desk = Desk(table_facts(3, minutes=(30, 30)))
    desk.do("level_clock_start", role="td", at=1_000_000)
    desk.do("level_clock_pause", role="td", at=1_000_000 + 10 * MIN)
    delay = 30_000
    aired = on_air(desk.state.level_clock, desk.facts.level_minutes, 1_000_000 + 10 * MIN + 10_000, delay)
    assert aired.running and aired.remaining_ms == 20 * MIN + 20_000  # the pause has not aired yet
    aired = on_air(desk.state.level_clock, desk.facts.level_minutes, 1_000_000 + 10 * MIN + 40_000, delay)
    assert not aired.running and aired.remaining_ms == 20 * MIN
    desk = clock_desk()
    desk.do("call_clock", role="dealer", seat=2, approved_by="Floor Lia", at=100_000)
    assert public_view(desk.state, desk.facts, desk.config, 120_000, delay)["called_clock"] is None
    shown = public_view(desk.state, desk.facts, desk.config, 150_000, delay)["called_clock"]
    assert shown["phase"] == "time" and shown["seconds"] == 30
