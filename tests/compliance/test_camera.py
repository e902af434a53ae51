"""Cards to the camera: one test per rule (rule book "Final Table", "Televised Feature Tables and
Hole Cards", "Filming and Image Rights")."""

from dataclasses import replace

import pytest

from broadcast.compliance.config import ComplianceConfig
from broadcast.compliance.dashboard import public_view, rep_view
from broadcast.compliance.errors import NotAllowed
from broadcast.compliance.state import hold
from broadcast.engine.errors import BadCommand

from .helpers import Desk, table_facts


def test_cards_shown_by_the_camera_signal_or_a_rep_confirmation():
    """ "players might be required to show their hole cards to the hole card cameras on the TV Table on
    each hand they are dealt"."""
    desk = Desk()
    desk.deal(actor=1)
    desk.log.clear()
    (shown,) = desk.do("cards_shown", role="camera", seat=2, hand=1)
    assert (shown.type, shown.seat, shown.source) == ("HoleCardsShown", 2, "camera")
    assert desk.do("cards_shown", role="camera", seat=2) == ()  # the camera repeats itself: once is enough
    desk.do("cards_shown", role="rep", source="rep", seat=3)
    assert desk.state.camera.shown == {2, 3}
    with pytest.raises(NotAllowed):
        desk.do("cards_shown", role="dealer", source="rep", seat=4)
    with pytest.raises(BadCommand) as err:
        desk.do("cards_shown", role="camera", seat=4, hand=7)
    assert err.value.field == "hand"


def test_identification_is_not_required_so_glare_never_halts_play():
    desk = Desk()
    desk.deal(actor=2)
    desk.do("cards_shown", role="camera", seat=3)  # shown; the reader could not identify a single card
    desk.facts = replace(desk.facts, actor=3)  # the action reaches seat 3
    assert desk.react() == () and hold(desk.state, desk.facts, desk.config) == ()


def test_playing_blind_is_recorded_exempts_the_seat_and_airs_as_playing_blind():
    """ "unless the player has declared that they are playing the hand 'blind'"."""
    desk = Desk()
    halts = desk.deal(actor=3)
    assert [h.seat for h in halts] == [3]
    blind, cleared = desk.do("declare_blind", role="dealer", seat=3)
    assert blind.label == "playing blind" and cleared.cause == "blind"
    assert desk.state.camera.light(3) == "blind"
    assert public_view(desk.state, desk.facts, desk.config, 10_000, 0)["playing_blind"] == [3]
    desk.do("cards_shown", role="camera", seat=4)
    with pytest.raises(BadCommand):
        desk.do("declare_blind", role="dealer", seat=4)  # already shown this hand


def test_halt_play_when_the_action_reaches_an_unshown_seat():
    """ "shall have the right to halt play, within reason, on the TV Table until all hole cards are displayed"."""
    desk = Desk()
    desk.deal(actor=1)
    for seat in (1, 2, 3, 4, 5, 6):
        if seat != 3:
            desk.do("cards_shown", role="camera", seat=seat)
    assert desk.state.camera.halted == ()  # seat 1 halted at the deal, cleared when shown
    desk.act(1, next_actor=2)
    (halt,) = desk.act(2, next_actor=3)
    assert (halt.type, halt.seat) == ("HaltRaised", 3)
    assert halt.message == "HALT PLAY: seat 3 (Cy Diaz) has not shown the cards to the camera"
    assert hold(desk.state, desk.facts, desk.config) == (3,)
    view = rep_view(desk.state, desk.facts, desk.config, 0)
    assert view["halt"]["seats"] == [3] and view["seats"][2]["cards"] == "halt"


def test_halt_play_at_the_hands_first_action_when_the_show_says_so():
    desk = Desk(config=ComplianceConfig(halt_at="first_action"))
    halts = desk.deal(actor=3)
    assert sorted(h.seat for h in halts) == [1, 2, 3, 4, 5, 6]
    for seat in (1, 2, 3, 4, 5):
        desk.do("cards_shown", role="camera", seat=seat)
    assert hold(desk.state, desk.facts, desk.config) == (6,)  # the first action waits for seat 6
    desk.do("cards_shown", role="camera", seat=6)
    assert hold(desk.state, desk.facts, desk.config) == ()


def test_halt_stays_until_the_cards_are_shown_or_a_rep_clears_it():
    desk = Desk()
    desk.deal(actor=3)
    assert desk.react() == ()  # raised once, not again
    with pytest.raises(BadCommand) as err:
        desk.do("clear_halt", seat=3, reason="")
    assert err.value.field == "reason"
    with pytest.raises(NotAllowed):
        desk.do("clear_halt", role="dealer", seat=3, reason="camera down")
    (cleared,) = desk.do("clear_halt", seat=3, reason="seat 3 camera down, producer informed", at=4_000)
    assert cleared.cause == "rep" and desk.state.camera.halted == ()
    assert desk.react() == ()  # cleared by a rep: not raised again this hand
    assert desk.state.audit[-1].why == "seat 3 camera down, producer informed"
    desk.end_hand()
    assert [h.seat for h in desk.deal(hand=2, actor=3)] == [3]  # a new hand: show again


def test_an_action_entered_under_halt_is_recorded_with_a_violation():
    desk = Desk()
    desk.deal(actor=3)
    events = desk.act(3, fold=True, next_actor=4)
    ignored, violation = events[0], events[1]
    assert (ignored.type, ignored.seat, ignored.halted) == ("HaltIgnored", 3, (3,))
    assert (violation.code, violation.player, violation.proposed) == ("cards_not_shown_to_camera", "p3", "verbal_warning")
    assert violation.rule == "Televised Feature Tables and Hole Cards"


def test_refusal_to_show_goes_to_the_ladder():
    """ "Failure to do so may result in a penalty." """
    desk = Desk()
    desk.deal(actor=3)
    (v,) = desk.do("refuse_cards", seat=3, note="covers the cards with both hands")
    assert (v.code, v.proposed) == ("refusal_to_show_cards", "verbal_warning")
    desk.do("rule_violation", violation=v.violation, kind="verbal_warning")
    (v2,) = desk.do("refuse_cards", seat=3)
    assert (v2.proposed, v2.count) == ("missed_hands", 1)  # the ledger's ladder, not ours


def test_refusal_at_the_final_tables_hidden_camera_can_mean_disqualification():
    """ "any refusal to do so could lead to disqualification from the Event with no prize money being awarded
    and no refunds given"."""
    desk = Desk(table_facts(3))
    for s in desk.facts.seats:
        desk.do("inspect_logos", player=s.player, logos=[])
    desk.do("start_final_table", role="td")
    desk.deal(actor=1)
    (v,) = desk.do("refuse_cards", seat=2)
    assert (v.code, v.proposed) == ("refusal_at_hidden_camera", "disqualification")
    assert v.consequence == "disqualification with no prize money and no refund"
    with pytest.raises(NotAllowed):
        desk.do("rule_violation", violation=v.violation, kind="verbal_warning", reason="first time, apologised")


def test_a_camera_check_names_the_seat_never_the_card():
    desk = Desk()
    desk.deal()
    (alert,) = desk.do("camera_check", role="secure", seats=[4, 6])
    assert alert.message == "seat 4: camera check; seat 6: camera check"
    assert set(alert.to_dict()) == {"type", "alert", "hand", "seats", "board", "message", "at_ms", "by", "role"}
    assert rep_view(desk.state, desk.facts, desk.config, 0)["camera_checks"] == [{"alert": 1, "message": alert.message}]
    desk.do("clear_camera_check", alert=1, reason="re-read after the glare")
    assert desk.state.camera.checks == ()
