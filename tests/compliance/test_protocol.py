"""The compliance part of the wire protocol: every rep and TD command has a schema that real
commands match, the compliance view matches its schema, and neither has a place for a card."""

import jsonschema

from broadcast.compliance.commands import COMMAND_TYPES, parse_command
from broadcast.compliance.dashboard import rep_view
from broadcast.compliance.schemas import COMMANDS, VIEW
from broadcast.views.protocol import command_schema, event_schema, render_markdown

from .helpers import Desk

SAMPLES = [
    {"type": "surrender_devices", "player": "p1", "items": ["phone", "smart watch"], "bag": "B-12"},
    {"type": "device_found", "player": "p2", "item": "phone", "note": "jacket"},
    {"type": "cards_shown", "seat": 3, "source": "rep"},
    {"type": "clear_halt", "seat": 3, "reason": "camera cable reseated"},
    {"type": "acknowledge_alert", "alert": "halt:1:3"},
    {"type": "inspect_logos", "player": "p1", "logos": [{"company": "Acme Poker", "place": "breast_pocket",
                                                          "width_cm": 4, "height_cm": 5}]},
    {"type": "high_card_draw", "company": "Acme Poker", "draws": [["p1", "Ks"], ["p2", "7d"]]},
    {"type": "call_clock", "seat": 2, "approved_by": "Floor Lia"},
    {"type": "level_clock_adjust", "delta_ms": -120000, "reason": "make up time"},
    {"type": "field_data", "entries": 512, "players_left": 9, "payouts": [{"first": 10, "last": 12, "amount": 18500}],
     "wearers": [["Acme Poker", 31]]},
    {"type": "field_data", "csv": "entries,512\nplayers_left,9\n"},
]


def test_every_compliance_command_has_a_schema_and_real_commands_match_it():
    assert set(COMMANDS) == set(COMMAND_TYPES)
    for command in SAMPLES:
        jsonschema.validate(command, command_schema(command["type"]))
        parse_command(command, by="Ruth", role="rep", at_ms=1)  # and the core reads the same shape
    assert "### `acknowledge_alert`" in render_markdown() and "The `compliance` view" in render_markdown()


def test_the_compliance_view_and_events_match_their_schemas_and_carry_no_card():
    desk = Desk()
    desk.do("surrender_devices", player="p1", items=["phone"], bag="B1")
    desk.deal(actor=3)
    desk.do("acknowledge_alert", alert="halt:1:3")
    desk.do("device_found", player="p2", item="phone")
    view = rep_view(desk.state, desk.facts, desk.config, 0)
    view.update(type="view", feed="compliance", table="tv", seq=desk.state.seq, ts=0, now_ms=0, hand_complete=False)
    jsonschema.validate(view, VIEW)
    with_card = {**view, "seats": [{**view["seats"][0], "hole_cards": ["As", "Kd"]}]}
    try:
        jsonschema.validate(with_card, VIEW)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("the compliance view's schema must refuse a seat with hole cards")
    for event in desk.log:
        data = event.to_dict()
        jsonschema.validate(data, event_schema(data["type"]))
