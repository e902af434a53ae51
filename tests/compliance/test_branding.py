"""Branding at the TV table: one test per rule (rule book "Branded Logos", "Branded Logos during all
filming")."""

import pytest

from broadcast.compliance.branding import check_player, sponsor_badge
from broadcast.compliance.config import ComplianceConfig
from broadcast.compliance.dashboard import public_view
from broadcast.compliance.errors import NotCleared
from broadcast.compliance.state import check_deal_in, deal_in_blockers, seating_blockers
from broadcast.engine.errors import BadCommand, IllegalAction

from .helpers import Desk, table_facts

CONFIG = ComplianceConfig(approved_operators=("Acme Poker", "RiverBet", "Nordic Spins"), forbidden_operators=("ShadyBet",),
                          unauthorised_satellites=("SatKing",))


def logo(company, place="breast_pocket", w=4, h=5, visible=True):
    return {"company": company, "place": place, "width_cm": w, "height_cm": h, "visible": visible}


def desk_with(n=6, config=CONFIG, sponsors=()):
    desk = Desk(table_facts(n), config)
    for player, company in sponsors:
        desk.do("declare_sponsor", player=player, company=company)
    return desk


def breaches(desk, player):
    tv = tuple(s.player for s in desk.facts.seats)
    return [b.message for b in check_player(desk.state.branding, desk.config, desk.state.field, player, tv)]


def test_one_breast_pocket_logo_of_at_most_70_cm2_and_one_sleeve_logo_of_at_most_40_cm2():
    """ "One breast pocket logo no larger than 70cm squared / One upper shirt sleeve logo no larger than 40cm
    squared" (at any Event, filmed or not)."""
    desk = desk_with(config=ComplianceConfig(approved_operators=("Acme Poker",), filming=False),
                     sponsors=[("p1", "Acme Poker")])
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker", w=7, h=10), logo("Acme Poker", "sleeve", 5, 8)])
    assert breaches(desk, "p1") == []
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker", w=8, h=10), logo("Acme Poker", "sleeve", 5, 9),
                                                 logo("Acme Poker", "sleeve", 2, 2)])
    assert breaches(desk, "p1") == ["Acme Poker logo on the breast pocket is 80 cm²: no larger than 70 cm²",
                                    "2 logos on the upper sleeve: one only",
                                    "Acme Poker logo on the upper sleeve is 45 cm²: no larger than 40 cm²"]


def test_under_filming_breast_and_sleeve_logos_each_at_most_4_by_5_cm():
    """ "One breast pocket logo no larger than 4cm x 5cm / One upper shirt sleeve logo no larger than 4cm x 5cm"."""
    desk = desk_with(sponsors=[("p1", "Acme Poker")])
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker", w=5, h=4), logo("Acme Poker", "sleeve", 4, 5)])
    assert breaches(desk, "p1") == []
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker", w=6, h=5)])
    assert breaches(desk, "p1") == ["Acme Poker logo on the breast pocket is 6 × 5 cm: no larger than 4 cm × 5 cm "
                                    "on a filmed table"]


def test_caps_and_card_protectors_only_with_the_logo_not_visible():
    """ "Baseball caps and card protectors with logos will be allowed only if the logos on such apparel and/or
    items are not visible"."""
    desk = desk_with(sponsors=[("p2", "Acme Poker")])
    desk.do("inspect_logos", player="p2", logos=[logo("Acme Poker", "cap", 8, 6, visible=False),
                                                 logo("Acme Poker", "card_protector", 3, 3, visible=False)])
    assert breaches(desk, "p2") == []
    desk.do("inspect_logos", player="p2", logos=[logo("Acme Poker", "card_protector", 3, 3)])
    assert breaches(desk, "p2") == ["Acme Poker logo on the card protector is visible: allowed only if the logo is "
                                    "not visible"]


def test_no_other_brands_under_filming_sports_and_fashion_included():
    """ "No other forms of company names and/or brand logo(s) are permitted on the TV Tables and during any form of
    filming including, but not limited to, sports and fashion brands"; "No other branding on any part of the
    player's clothing or body"."""
    desk = desk_with()
    desk.do("inspect_logos", player="p3", logos=[logo("Swoosh Sports", w=3, h=3), logo("Acme Poker", "other", 10, 10)])
    got = breaches(desk, "p3")
    assert got[0] == "Acme Poker branding elsewhere on clothing or body: no other branding is permitted"
    assert "Swoosh Sports is not an approved gaming operator" in got[1]


def test_only_approved_operators_declared_to_the_organiser_before_the_event():
    """ "a player will be permitted to wear gaming logos which are not those of the headline Sponsor ... provided
    that such player informs Pokerfest what these logos are prior to the Event"."""
    desk = desk_with()
    desk.do("inspect_logos", player="p4", logos=[logo("RiverBet")])
    assert breaches(desk, "p4") == ["RiverBet was not declared on the waiver form before the Event: written proof of "
                                    "sponsorship is needed to wear it"]
    desk.do("declare_sponsor", player="p4", company="RiverBet")
    assert breaches(desk, "p4") == []
    desk.do("inspect_logos", player="p5", logos=[logo("Pokerfest")])  # the organiser's own: always fine
    assert breaches(desk, "p5") == []


def test_a_sponsor_logo_first_worn_after_the_start_needs_written_proof():
    """ "Any Sponsored player who does not wear their Sponsors logo before a tournament starts and then tries to
    subsequently wear the logo ... will need to provide written proof of their Sponsored Affiliation"."""
    desk = desk_with()
    desk.do("start_event", role="td")
    with pytest.raises(BadCommand) as err:
        desk.do("declare_sponsor", player="p4", company="RiverBet")
    assert err.value.field == "proof"
    (declared,) = desk.do("declare_sponsor", player="p4", company="RiverBet", on_waiver=False,
                          proof="signed RiverBet contract dated 2 May, copy in the TD office")
    assert not declared.on_waiver
    desk.do("inspect_logos", player="p4", logos=[logo("RiverBet")])
    assert breaches(desk, "p4") == []


def test_no_gambling_operator_that_local_law_forbids_to_advertise():
    """ "No player will be permitted to wear at any Event any logo or branding of any gambling operator which is
    not permitted to legally advertise according to local laws." """
    desk = desk_with()
    desk.do("inspect_logos", player="p1", logos=[logo("ShadyBet")])
    assert breaches(desk, "p1") == ["ShadyBet is not permitted to advertise under local law: remove it"]


def test_no_unauthorised_satellite_operator():
    desk = desk_with()
    desk.do("inspect_logos", player="p1", logos=[logo("SatKing")])
    assert breaches(desk, "p1") == ["SatKing is not an authorised satellite operator: remove it"]


def test_at_most_two_players_at_the_tv_table_per_company_the_organiser_exempt():
    """ "No more than 2 players on the TV Table of an Event can wear the logo(s) of any single company with the
    exception of Pokerfest."""
    desk = desk_with(sponsors=[(p, "Acme Poker") for p in ("p1", "p2", "p3")])
    for p in ("p1", "p2", "p3"):
        desk.do("inspect_logos", player=p, logos=[logo("Acme Poker")])
    for p in ("p4", "p5", "p6"):
        desk.do("inspect_logos", player=p, logos=[logo("Pokerfest")])
    assert breaches(desk, "p4") == []  # three Pokerfest logos: exempt
    assert breaches(desk, "p1") == ["3 players at the TV table wear Acme Poker (at most 2): the players or a rep "
                                    "decide who keeps it, else high card"]
    with pytest.raises(BadCommand) as err:
        desk.do("decide_logo_keepers", company="Acme Poker", keep=["p1", "p2", "p3"])
    assert err.value.field == "keep"
    desk.do("decide_logo_keepers", company="Acme Poker", keep=["p1", "p3"])
    assert breaches(desk, "p1") == [] and breaches(desk, "p3") == []
    assert breaches(desk, "p2")[0].endswith("not among those keeping it")


def test_at_most_ten_percent_of_the_field_per_company():
    """ "No more than 10% of the overall entry field at any Event can wear the branding/logos of any single company
    with the exception of Pokerfest." """
    desk = desk_with(sponsors=[("p1", "Nordic Spins")])
    desk.do("inspect_logos", player="p1", logos=[logo("Nordic Spins")])
    desk.do("field_data", role="td", entries=200, players_left=6, wearers=[["Nordic Spins", 20]])
    assert breaches(desk, "p1") == []
    desk.do("field_data", role="td", entries=200, players_left=6, wearers=[["Nordic Spins", 21]])
    assert breaches(desk, "p1") == ["21 players in the field wear Nordic Spins (at most 20, 10% of 200 entries): the "
                                    "players or the company decide who keeps it, else high card"]
    desk.do("decide_logo_keepers", company="Nordic Spins", scope="field", keep=["p1"])
    assert breaches(desk, "p1") == []


def test_a_high_card_draw_decides_who_keeps_the_logo_when_the_players_do_not():
    """ "If no decision is made, then Pokerfest will high card the players to make a decision." """
    desk = desk_with(sponsors=[(p, "Acme Poker") for p in ("p1", "p2", "p3")])
    for p in ("p1", "p2", "p3"):
        desk.do("inspect_logos", player=p, logos=[logo("Acme Poker")])
    with pytest.raises(BadCommand) as err:
        desk.do("high_card_draw", company="Acme Poker", draws=[["p1", "Kd"], ["p2", "Kd"], ["p3", "2c"]])
    assert "same card" in err.value.reason
    (decided,) = desk.do("high_card_draw", company="Acme Poker", draws=[["p1", "Kd"], ["p2", "Ks"], ["p3", "2c"]])
    assert decided.method == "high_card" and decided.keep == ("p2", "p1")  # king of spades beats king of diamonds
    assert breaches(desk, "p3")[0].endswith("not among those keeping it")


def test_a_player_starting_the_final_table_without_logos_must_remain_so():
    """ "Any player starting the final table wearing no logos must remain as such throughout the Event." """
    desk = desk_with(n=3, sponsors=[("p1", "Acme Poker"), ("p2", "Acme Poker")])
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker")])
    desk.do("inspect_logos", player="p2", logos=[])
    with pytest.raises(IllegalAction) as err:
        desk.do("start_final_table", role="td")
    assert "seat 3 (Cy Diaz)" in err.value.reason
    desk.do("inspect_logos", player="p3", logos=[])
    (started,) = desk.do("start_final_table", role="td")
    assert started.bare == ("p2", "p3")
    desk.do("inspect_logos", player="p2", logos=[logo("Acme Poker")])
    assert breaches(desk, "p2") == ["started the final table wearing no logos: must remain so throughout the Event"]


def test_a_player_in_breach_cannot_sit_at_a_televised_table_until_it_is_fixed():
    """ "will not be able to participate in a televised table until said article of clothing and/or item is
    replaced and/or removed"; checked before the start and at every seating."""
    desk = desk_with(n=2)
    for p in ("p1", "p2"):
        desk.do("surrender_devices", player=p, items=[])
    desk.do("inspect_logos", player="p1", logos=[])
    with pytest.raises(NotCleared) as err:
        check_deal_in(desk.state, desk.facts, desk.config)  # p2's logos not checked yet
    assert err.value.blockers[0].gate == "branding" and err.value.blockers[0].seat == 2
    desk.do("inspect_logos", player="p2", logos=[logo("Swoosh Sports", w=3, h=3)])
    (blocker,) = deal_in_blockers(desk.state, desk.facts, desk.config)
    assert blocker.message.startswith("seat 2 (Bo Chen): Swoosh Sports is not an approved gaming operator")
    desk.do("inspect_logos", player="p2", logos=[logo("Swoosh Sports", w=3, h=3, visible=False)])  # taped over
    check_deal_in(desk.state, desk.facts, desk.config)
    desk.do("surrender_devices", player="p7", items=[])
    desk.do("inspect_logos", player="p7", logos=[logo("ShadyBet")])
    (blocker,) = seating_blockers(desk.state, desk.facts, desk.config, "p7", seat=3, name="Gus Hale")
    assert blocker.gate == "branding" and "local law" in blocker.message


def test_the_sponsor_badge_shows_on_air_only_when_compliant():
    desk = desk_with(sponsors=[("p1", "Acme Poker")])
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker")])
    tv = tuple(s.player for s in desk.facts.seats)
    assert sponsor_badge(desk.state.branding, desk.config, desk.state.field, "p1", tv) == "Acme Poker"
    desk.do("inspect_logos", player="p1", logos=[logo("Acme Poker", w=6, h=6)])
    assert public_view(desk.state, desk.facts, desk.config, 0, 0)["sponsors"][1] is None
