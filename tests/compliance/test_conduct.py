"""Conduct at the TV table: one test per rule (rule book "Final Table", "PENALTIES AND PLAYER
ETIQUETTE", "Deal Making")."""

import pytest

from broadcast.compliance.dashboard import public_view, rep_view
from broadcast.compliance.errors import NotAllowed
from broadcast.engine.errors import BadCommand, IllegalAction

from .helpers import Desk, table_facts


def test_communication_is_a_violation_except_about_technical_filming_issues():
    """ "not allowed to communicate with ... any person ... unless such communication is related to
    technical issues with the filming"."""
    desk = Desk()
    with pytest.raises(BadCommand) as err:
        desk.do("log_violation", player="p2", code="communication", about_filming=True, note="mic pack loose")
    assert err.value.field == "about_filming" and "allowed" in err.value.reason
    (v,) = desk.do("log_violation", player="p2", code="communication", note="waved a friend in the audience over")
    assert (v.code, v.rule, v.proposed, v.seat) == ("communication", "Final Table", "verbal_warning", 2)
    with pytest.raises(NotAllowed):
        desk.do("log_violation", role="dealer", player="p2", code="profanity")


def test_profanity_feeds_the_ladder():
    """ "profanity is not permitted at any time during the TV Table event"."""
    desk = Desk()
    proposals = []
    for _ in range(4):
        (v,) = desk.do("log_violation", player="p5", code="profanity")
        proposals.append((v.proposed, v.count))
        desk.do("rule_violation", violation=v.violation, kind=v.proposed, count=v.count)
    assert proposals == [("verbal_warning", 0), ("missed_hands", 1), ("missed_orbits", 1), ("missed_orbits", 3)]
    assert desk.facts.ledger.hands_left("p5") == 1 + 6 + 18
    (v,) = desk.do("log_violation", player="p5", code="profanity")
    assert v.proposed == "disqualification"
    with pytest.raises(NotAllowed):  # disqualification is the TD's
        desk.do("rule_violation", violation=v.violation, kind="disqualification")
    with pytest.raises(BadCommand) as err:
        desk.do("log_violation", player="p5", code="slow_roll")
    assert err.value.field == "code"


def test_leaving_the_area_on_a_break_without_an_escort_is_a_violation():
    """ "the players will not be allowed to leave these locations, at any point, without being accompanied by
    an appointed tournament representative"."""
    desk = Desk()
    (v,) = desk.do("log_violation", player="p1", code="left_area_without_escort", note="went to the bar alone")
    assert v.code == "left_area_without_escort" and v.rule == "Final Table" and v.note == "went to the bar alone"


def test_break_escort_check_out_and_check_in_per_player():
    desk = Desk()
    with pytest.raises(BadCommand) as err:
        desk.do("escort_out", player="p1", escort="")
    assert err.value.field == "escort"
    desk.do("escort_out", player="p1", escort="Ruth Adeyemi", where="restrooms", at=60_000)
    desk.do("escort_out", player="p4", escort="Kai Wu", where="smoking area", at=61_000)
    with pytest.raises(BadCommand):
        desk.do("escort_out", player="p1", escort="Kai Wu")
    board = rep_view(desk.state, desk.facts, desk.config, 62_000)["escorts"]
    assert [(e["player"], e["escort"]) for e in board["out"]] == [("p1", "Ruth Adeyemi"), ("p4", "Kai Wu")]
    (back,) = desk.do("escort_in", player="p1", at=300_000)
    assert (back.escort, back.out_ms, back.at_ms) == ("Ruth Adeyemi", 60_000, 300_000)
    assert [e.player for e in desk.state.conduct.out] == ["p4"]
    with pytest.raises(BadCommand):
        desk.do("escort_in", player="p1")


def test_deal_talk_only_at_the_final_table_while_seated_with_a_rep_present():
    """ "only permitted to discuss any form of settlement deal ... whilst seated at the table, and ... an
    appointed tournament representative must be present"."""
    desk = Desk(table_facts(3))
    with pytest.raises(IllegalAction) as err:
        desk.do("open_deal_talk")
    assert "only at the final table" in err.value.reason
    for s in desk.facts.seats:
        desk.do("inspect_logos", player=s.player, logos=[])
    desk.do("start_final_table", role="td")
    desk.do("escort_out", player="p2", escort="Kai Wu")
    with pytest.raises(IllegalAction) as err:
        desk.do("open_deal_talk")
    assert "only while seated: Bo Chen away from the table" in err.value.reason
    desk.do("escort_in", player="p2")
    (opened,) = desk.do("open_deal_talk", rep="Ruth Adeyemi", at=1_000)
    assert opened.rep == "Ruth Adeyemi" and desk.state.audit[-1].what == "deal talk opened, Ruth Adeyemi present"
    with pytest.raises(IllegalAction):  # nobody leaves the table in the middle of deal talk
        desk.do("escort_out", player="p3", escort="Kai Wu")
    with pytest.raises(NotAllowed):
        desk.do("open_deal_talk", role="dealer")


def test_deals_are_reported_on_the_feed():
    """ "All deals will be reported to media." """
    desk = Desk(table_facts(3))
    for s in desk.facts.seats:
        desk.do("inspect_logos", player=s.player, logos=[])
    desk.do("start_final_table", role="td")
    with pytest.raises(IllegalAction):
        desk.do("report_deal", text="chop")  # no deal without deal talk, seated, with a rep present
    desk.do("open_deal_talk")
    with pytest.raises(IllegalAction):
        desk.do("close_deal_talk", outcome="deal")  # report it first
    (deal,) = desk.do("report_deal", text="ICM chop, 20,000 left to play for",
                      payouts=[["p1", 310000], ["p2", 270000], ["p3", 240000]])
    assert deal.rep == "Ruth Adeyemi"
    desk.do("close_deal_talk", outcome="deal")
    assert desk.state.conduct.deal_talk is None
    aired = public_view(desk.state, desk.facts, desk.config, 0, 0)["deals"]
    assert aired == [{"text": "ICM chop, 20,000 left to play for",
                      "payouts": [["p1", 310000], ["p2", 270000], ["p3", 240000]]}]
