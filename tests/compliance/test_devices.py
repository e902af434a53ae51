"""Electronic devices at the TV table: one test per rule (rule book "Final Table", "Electronic Devices")."""

import pytest

from broadcast.compliance.errors import NotAllowed, NotCleared
from broadcast.compliance.state import check_deal_in, deal_in_blockers, seating_blockers
from broadcast.engine.errors import BadCommand

from .helpers import Desk, table_facts


def cleared_desk(n=3):
    """Everyone's logos checked (no logos), so only the device gate is in play."""
    desk = Desk(table_facts(n))
    for s in desk.facts.seats:
        desk.do("inspect_logos", player=s.player, logos=[])
    return desk


def test_surrender_ledger_records_what_to_which_rep_when_and_the_bag():
    """ "must surrender any and all electronic devices ... to an appointed tournament representative"."""
    desk = Desk()
    (e,) = desk.do("surrender_devices", player="p1", items=["phone", "smart watch"], bag="B-12", at=1_000)
    assert (e.items, e.rep, e.at_ms, e.bag) == (("phone", "smart watch"), "Ruth Adeyemi", 1_000, "B-12")
    desk.do("surrender_devices", player="p2", items=[], at=2_000)  # declared none: recorded too
    held = desk.state.devices.held("p1")
    assert held[0].bag == "B-12" and desk.state.devices.surrendered("p2")
    with pytest.raises(BadCommand) as err:
        desk.do("surrender_devices", player="p3", items=["tablet"])
    assert err.value.field == "bag" and "locker" in err.value.reason
    with pytest.raises(NotAllowed):
        desk.do("surrender_devices", role="dealer", player="p3", items=["tablet"], bag="B-1")


def test_go_live_gate_a_seat_is_not_dealt_in_until_its_player_surrendered():
    desk = cleared_desk()
    desk.do("surrender_devices", player="p1", items=["phone"], bag="B-1")
    desk.do("surrender_devices", player="p2", items=[], bag="")
    with pytest.raises(NotCleared) as err:
        check_deal_in(desk.state, desk.facts)
    assert err.value.field == "seat"
    assert [b.seat for b in err.value.blockers] == [3]
    assert "seat 3 (Cy Diaz) has not surrendered electronic devices to a rep" in err.value.reason
    desk.do("surrender_devices", player="p3", items=["laptop"], bag="L-7")
    check_deal_in(desk.state, desk.facts)  # nothing raised: deal


def test_go_live_gate_is_checked_at_every_seating_not_only_before_the_first_hand():
    desk = cleared_desk()
    for p in ("p1", "p2", "p3"):
        desk.do("surrender_devices", player=p, items=["phone"], bag=f"B-{p}")
    check_deal_in(desk.state, desk.facts)
    # A new player is moved to the TV table later in the day: the gate applies to that seating too.
    desk.do("inspect_logos", player="p9", logos=[])
    (blocker,) = seating_blockers(desk.state, desk.facts, desk.config, "p9", seat=4, name="Zed Ito")
    assert blocker.gate == "devices" and blocker.message.startswith("seat 4 (Zed Ito) has not surrendered")
    desk.do("surrender_devices", player="p9", items=["phone"], bag="B-9")
    assert seating_blockers(desk.state, desk.facts, desk.config, "p9", seat=4, name="Zed Ito") == ()
    # A player who gets the phone back (left the table) is blocked again on return.
    desk.do("return_devices", player="p2")
    assert [b.player for b in deal_in_blockers(desk.state, desk.facts)] == ["p2"]


def test_rep_override_of_the_device_gate_needs_a_written_reason_and_is_audited():
    desk = cleared_desk(1)
    with pytest.raises(BadCommand) as err:
        desk.do("override_device_gate", player="p1", reason="ok")
    assert err.value.field == "reason"
    desk.do("override_device_gate", player="p1", reason="medical pager, held by the floor", at=5_000)
    check_deal_in(desk.state, desk.facts)
    entry = desk.state.audit[-1]
    assert (entry.by, entry.role, entry.at_ms, entry.why) == ("Ruth Adeyemi", "rep", 5_000, "medical pager, held by the floor")
    with pytest.raises(NotAllowed):
        desk.do("override_device_gate", role="dealer", player="p1", reason="medical pager, held by the floor")


def test_device_found_during_play_proposes_disqualification_and_the_td_decides():
    """ "Any player found in violation of this rule will be immediately disqualified ... and such player's
    Main Tournament buy-in, will be forfeited subject to the discretion of the Tournament's director"."""
    desk = Desk()
    desk.deal()
    found, violation = desk.do("device_found", player="p4", item="phone in jacket", at=9_000)
    assert found.seat == 4 and found.hand == 1
    assert (violation.code, violation.proposed) == ("device_at_tv_table", "disqualification")
    assert "buy-in forfeited" in violation.consequence and violation.rule == "Final Table"
    with pytest.raises(NotAllowed) as err:  # a rep may not decide a disqualification
        desk.do("rule_violation", violation=violation.violation, kind="disqualification")
    assert err.value.field == "role"
    with pytest.raises(BadCommand) as err:  # deciding otherwise needs a reason
        desk.do("rule_violation", role="td", violation=violation.violation, kind="verbal_warning")
    assert err.value.field == "reason"
    ruled, penalty = desk.do("rule_violation", role="td", violation=violation.violation, kind="verbal_warning",
                             reason="phone was switched off in a sealed bag he forgot to hand in")
    assert not ruled.confirmed and penalty.kind == "verbal_warning" and penalty.issued_by == "Olivier Marchand"

    desk2 = Desk()
    (_, v) = desk2.do("device_found", player="p1", item="smart watch")
    ruled, penalty = desk2.do("rule_violation", role="td", violation=v.violation, kind="disqualification")
    assert ruled.confirmed and penalty.kind == "disqualification" and penalty.rule == "Final Table"
