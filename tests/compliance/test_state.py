"""The compliance core as a whole: commands -> events -> state, the journal, the audit log, and
the rule that nothing here carries a hole card."""

import ast
import csv
import dataclasses
import io
import json
import pathlib
import re

import pytest

import broadcast.compliance as compliance_pkg
from broadcast.compliance.audit import audit_csv
from broadcast.compliance.commands import COMMAND_TYPES, parse_command
from broadcast.compliance.config import ComplianceConfig
from broadcast.compliance.dashboard import public_view, rep_view
from broadcast.compliance.events import EVENT_TYPES, Logo, Payout, event_from_dict
from broadcast.compliance.facts import facts_from_table
from broadcast.compliance.state import ComplianceState, after_table, apply, before_action, check_deal_in, decide, replay
from broadcast.engine import table as engine
from broadcast.engine.commands import parse_command as parse_table_command
from broadcast.engine.errors import BadCommand, Refusal
from broadcast.engine.events import ActionTaken
from tests.engine.helpers import table

from .helpers import Desk

SAMPLES = {
    "int": 3, "str": "x", "bool": True, "int | None": 2, "float": 1.5,
    "tuple[str, ...]": ("a", "b"), "tuple[int, ...]": (1, 4),
    "tuple[Logo, ...]": (Logo("Acme Poker", "sleeve", 4.0, 5.0, True),),
    "tuple[tuple[str, str], ...]": (("p1", "Ks"),), "tuple[tuple[str, int], ...]": (("p1", 100),),
    "tuple[Payout, ...]": (Payout(1, 1, 5000), Payout(2, 3, 2000)),
}


def test_every_compliance_event_round_trips_through_the_registry():
    for name, cls in EVENT_TYPES.items():
        event = cls(**{f.name: SAMPLES[f.type] for f in dataclasses.fields(cls)})
        wire = json.loads(json.dumps(event.to_dict()))
        assert wire["type"] == name and event_from_dict(wire) == event, name
    engine_event = ActionTaken(hand=1, seat=2, action="call", amount=400)
    assert event_from_dict(engine_event.to_dict()) == engine_event  # one function replays the whole journal


def test_commands_parse_or_refuse_naming_the_field_in_the_poker_rooms_words():
    with pytest.raises(BadCommand) as err:
        parse_command({"type": "bribe"}, by="x", role="rep", at_ms=0)
    assert err.value.field == "type"
    with pytest.raises(BadCommand) as err:
        parse_command({"type": "inspect_logos", "player": "p1", "logos": [{"company": "Acme", "place": "hat"}]},
                      by="x", role="rep", at_ms=0)
    assert err.value.field == "logos[0].place" and "breast_pocket" in err.value.reason
    with pytest.raises(BadCommand) as err:
        parse_command({"type": "call_clock", "seat": "four"}, by="x", role="dealer", at_ms=0)
    assert err.value.to_dict() == {"error": "bad_command", "field": "seat", "message": "seat must be a whole number"}
    cmd = parse_command({"type": "surrender_devices", "player": "p1", "items": ["phone"], "bag": "B1", "by": "forged"},
                        by="Ruth", role="rep", at_ms=7)
    assert (cmd.by, cmd.role, cmd.at_ms) == ("Ruth", "rep", 7)  # who and when come from the adapter, not the JSON
    assert len(COMMAND_TYPES) == len(set(COMMAND_TYPES))


def test_the_audit_log_records_who_when_and_why_and_exports_as_csv():
    desk = Desk()
    desk.do("surrender_devices", player="p1", items=["phone"], bag="B-1", at=1_000)
    desk.do("override_device_gate", player="p2", reason="phone stays with the floor supervisor", at=2_000)
    desk.do("level_clock_start", role="td", at=3_000)
    (v,) = desk.do("log_violation", player="p3", code="profanity", note="at the dealer", at=4_000)
    desk.do("rule_violation", violation=v.violation, kind="missed_hands", count=1, reason="directed at staff", at=5_000)
    rows = [(e.at_ms, e.by, e.role) for e in desk.state.audit]
    assert rows[:4] == [(1_000, "Ruth Adeyemi", "rep"), (2_000, "Ruth Adeyemi", "rep"), (3_000, "Olivier Marchand", "td"),
                        (4_000, "Ruth Adeyemi", "rep")]
    table = list(csv.reader(io.StringIO(audit_csv(desk.state.audit))))
    assert table[0] == ["seq", "at_ms", "by", "role", "what", "why"]
    assert table[-1][2:] == ["Ruth Adeyemi", "rep", "violation 1 ruled (decided otherwise): p3, missed hands x1",
                             "directed at staff"]
    assert len(table) == 1 + 5  # the ruling's PenaltyIssued is not logged twice


def test_replay_of_the_journal_rebuilds_the_same_state():
    desk = Desk()
    desk.do("surrender_devices", player="p1", items=["phone"], bag="B-1", at=1_000)
    desk.do("inspect_logos", player="p1", logos=[{"company": "Pokerfest", "place": "sleeve", "width_cm": 4, "height_cm": 4}])
    desk.do("field_data", role="td", csv="entries,300\nplayers_left,6\npayout,1,90000\nwearers,Acme Poker,3")
    desk.deal(actor=3)
    desk.do("declare_blind", role="dealer", seat=3)
    desk.do("escort_out", player="p2", escort="Kai Wu")
    desk.do("level_clock_start", role="td", at=10)
    journal = [(seq, json.loads(json.dumps(e.to_dict()))) for seq, e in enumerate(desk.log, start=1)]
    assert replay(journal) == desk.state


def core_step(table_state, cstate, config, command, at):
    """What the core will do for one dealer command: compliance hooks around the table's decide."""
    out = []
    if command["type"] in ("fold", "check", "call", "bet", "raise", "allin"):
        out += before_action(cstate, facts_from_table(table_state), config, command["seat"], at, by="Sam", role="dealer")
    for e in out:
        cstate = apply(cstate, e)
    for e in engine.decide(table_state, parse_table_command(command, hole_card_count=2)):
        table_state = engine.apply(table_state, e)
        cstate = apply(cstate, e)
    more = after_table(cstate, facts_from_table(table_state), config, at)
    for e in more:
        cstate = apply(cstate, e)
    return table_state, cstate, out + list(more)


def test_no_compliance_message_view_or_log_line_carries_a_hole_card():
    """DESIGN: no role but secure receives a hole card or anything that reveals one; a duplicate alert says
    "seat 4: camera check"."""
    config = ComplianceConfig()
    tstate, cstate = table((20000, 20000, 20000)), ComplianceState()
    said: list[str] = []
    for s in tstate.seats:
        for cmd in ({"type": "surrender_devices", "player": s.player, "items": ["phone"], "bag": f"B{s.seat}"},
                    {"type": "inspect_logos", "player": s.player, "logos": []}):
            for e in decide(cstate, parse_command(cmd, by="Ruth", role="rep", at_ms=0), facts_from_table(tstate), config):
                cstate = apply(cstate, e)
                said.append(json.dumps(e.to_dict()))
    check_deal_in(cstate, facts_from_table(tstate), config)
    hole = {1: ["Qh", "7c"], 2: ["Jd", "2s"], 3: ["9h", "3d"]}
    script = [{"type": "start_hand", "button": 3}] + [
        {"type": "hole_cards", "seat": seat, "cards": cards, "source": "secure"} for seat, cards in hole.items()]
    script += [{"type": "call", "seat": 3}, {"type": "call", "seat": 1}, {"type": "check", "seat": 2}]
    for at, cmd in enumerate(script):
        tstate, cstate, out = core_step(tstate, cstate, config, cmd, at)
        said += [json.dumps(e.to_dict()) for e in out]
        facts = facts_from_table(tstate)
        if cmd["type"] == "hole_cards":  # the camera and the rep report showing, never the cards
            for e in decide(cstate, parse_command({"type": "cards_shown", "seat": cmd["seat"]}, by="cam", role="camera",
                                                  at_ms=at), facts, config):
                cstate = apply(cstate, e)
                said.append(json.dumps(e.to_dict()))
    # The table does hold the cards (the secure room entered them); compliance must not echo them.
    assert {c for cs in tstate.hand.hole for c in cs} == {c for cs in hole.values() for c in cs}
    facts = facts_from_table(tstate)
    for cmd, role in (({"type": "camera_check", "seats": [2]}, "secure"), ({"type": "refuse_cards", "seat": 1}, "rep"),
                      ({"type": "device_found", "player": "p2", "item": "watch"}, "rep")):
        for e in decide(cstate, parse_command(cmd, by="x", role=role, at_ms=99), facts, config):
            cstate = apply(cstate, e)
            said.append(json.dumps(e.to_dict()))
    try:
        decide(cstate, parse_command({"type": "declare_blind", "seat": 2}, by="x", role="rep", at_ms=0), facts, config)
    except Refusal as refusal:
        said.append(json.dumps(refusal.to_dict()))
    said.append(json.dumps(rep_view(cstate, facts, config, 100)))
    said.append(json.dumps(public_view(cstate, facts, config, 100, 30)))
    said.append(audit_csv(cstate.audit))
    assert any("seat 2: camera check" in line for line in said)
    cards = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(c for cs in hole.values() for c in cs) + r")(?![A-Za-z0-9])")
    leaks = [line for line in said if cards.search(line)]
    kinds = {json.loads(line)["type"] for line in said if line.startswith('{"type"')}
    assert {"HoleCardsShown", "HaltRaised", "HaltCleared", "CameraCheckRaised", "ViolationRecorded"} <= kinds
    assert leaks == []
    assert "hole" not in " ".join(f.name for f in dataclasses.fields(facts))


def test_compliance_events_journal_alongside_hand_events_without_changing_the_table():
    tstate = table((20000, 20000, 20000))
    mixed, live = [], tstate
    for cmd in ({"type": "start_hand", "button": 3}, {"type": "call", "seat": 3}):
        for e in engine.decide(live, parse_table_command(cmd)):
            live = engine.apply(live, e)
            mixed.append(e)
        facts = facts_from_table(live)
        mixed += after_table(ComplianceState(), facts, ComplianceConfig(), 0)
    assert any(e.type == "HaltRaised" for e in mixed)
    replayed = tstate
    for e in mixed:
        replayed = engine.apply(replayed, e)
    assert replayed.hand.actor == live.hand.actor and replayed.seats == live.seats


def test_the_compliance_core_imports_no_clock_randomness_or_io():
    banned = {"asyncio", "aiohttp", "redis", "cv2", "time", "random", "datetime", "socket", "os", "secrets", "uuid",
              "broadcast.web", "broadcast.store", "cardcam"}
    folder = pathlib.Path(compliance_pkg.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert not any(name == b or name.startswith(b + ".") for b in banned), f"{path.name} imports {name}"


def test_a_rep_acknowledges_halt_play_and_it_stays_until_cleared():
    """HALT PLAY and other alerts are acknowledged (audited) and then cleared; acknowledging does not lift the hold."""
    from broadcast.compliance.errors import NotAllowed
    from broadcast.compliance.state import hold
    from broadcast.engine.errors import BadCommand

    from .helpers import Desk

    desk = Desk()
    desk.deal(actor=3)
    key = "halt:1:3"
    view = rep_view(desk.state, desk.facts, desk.config, 0)
    assert [a["key"] for a in view["alerts"]] == [key] and view["alerts"][0]["acknowledged"] is None
    with pytest.raises(NotAllowed):
        desk.do("acknowledge_alert", role="dealer", alert=key)
    with pytest.raises(BadCommand) as err:
        desk.do("acknowledge_alert", alert="halt:1:4")
    assert err.value.field == "alert"
    desk.do("acknowledge_alert", alert=key, note="floor told", at=5_000)
    view = rep_view(desk.state, desk.facts, desk.config, 0)
    assert view["alerts"][0]["acknowledged"] == {"by": "Ruth Adeyemi", "at_ms": 5_000, "note": "floor told"}
    assert hold(desk.state, desk.facts, desk.config) == (3,), "seen is not cleared: the dealer still holds seat 3"
    assert desk.state.audit[-1].what.startswith("alert acknowledged: HALT PLAY: seat 3")
    with pytest.raises(BadCommand):
        desk.do("acknowledge_alert", alert=key)
    desk.do("clear_halt", seat=3, reason="camera cable reseated")
    assert rep_view(desk.state, desk.facts, desk.config, 0)["alerts"] == []
