"""The graphics control state, driven with plain values (no Redis, no server)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from broadcast.views import graphics as g
from broadcast.views.graphics import BadControl, ControlState, Roster, apply_command, from_dict, leaderboard, onair

ROSTER = Roster(players={"p-ann": ("Ann Lee", "Two-time champion from Leeds."), "p-bo": ("Bo Chen", "")})


def run(*commands, state=ControlState()):
    for c in commands:
        state = apply_command(state, c, ROSTER, by="Gail")
    return state


def test_table_graphics_are_up_and_extra_graphics_wait_for_the_operator():
    visible = ControlState().to_dict()["visible"]
    assert [k for k, v in visible.items() if v] == ["player_bars", "board", "pot", "clock"]
    assert not visible["leaderboard"] and not visible["slate"]


def test_show_and_hide_an_element_count_revisions_and_name_the_person():
    s = run({"type": "show", "element": "leaderboard"}, {"type": "hide", "element": "board"})
    d = s.to_dict()
    assert d["visible"]["leaderboard"] and not d["visible"]["board"]
    assert (d["rev"], d["by"]) == (2, "Gail")


def test_panic_hide_all_keeps_the_element_choices_for_the_restore():
    s = run({"type": "show", "element": "payouts"}, {"type": "hide_all"})
    assert s.hide_all and "payouts" in s.visible
    assert not run({"type": "restore"}, state=s).hide_all


def test_hide_seat_cards_then_show_them_again():
    s = run({"type": "hide_cards", "seat": 4})
    assert s.to_dict()["hidden_cards"] == [4]
    assert run({"type": "show_cards", "seat": 4}, state=s).hidden_cards == frozenset()


def test_lower_third_from_a_player_takes_the_name_and_bio_unless_edited():
    s = run({"type": "lower_third", "player": "p-ann"})
    assert s.lower_third.to_dict() == {"title": "Ann Lee", "text": "Two-time champion from Leeds.", "player": "p-ann"}
    assert "lower_third" in s.visible
    edited = run({"type": "lower_third", "player": "p-ann", "text": "Chip leader  at the\nfinal table"})
    assert edited.lower_third.text == "Chip leader at the final table"
    assert run({"type": "clear_lower_third"}, state=s).lower_third is None


def test_slates_break_and_hand_for_hand():
    s = run({"type": "slate", "slate": "hand_for_hand"})
    assert s.slate == "hand_for_hand" and "slate" in s.visible
    off = run({"type": "slate", "slate": None}, state=s)
    assert off.slate is None and "slate" not in off.visible


def test_trim_may_add_delay_never_remove_it():
    assert run({"type": "trim", "seconds": 2.5}).trim_ms == 2500
    with pytest.raises(BadControl) as exc:
        run({"type": "trim", "seconds": -1})
    assert exc.value.field == "seconds" and "never take any away" in exc.value.reason


def test_refresh_counts_per_page_and_for_all():
    s = run({"type": "refresh", "page": "abc"}, {"type": "refresh"}, {"type": "refresh", "page": "abc"})
    assert s.to_dict()["refresh"] == {"abc": 2, "all": 1}


@pytest.mark.parametrize("command, field", [
    ({"type": "dance"}, "type"),
    ({"type": "show", "element": "fireworks"}, "element"),
    ({"type": "hide_cards", "seat": 11}, "seat"),
    ({"type": "hide_cards", "seat": "4"}, "seat"),
    ({"type": "lower_third", "player": "p-zed"}, "player"),
    ({"type": "lower_third"}, "title"),
    ({"type": "lower_third", "title": "x" * 61}, "title"),
    ({"type": "slate", "slate": "dinner"}, "slate"),
    ({"type": "display_name", "player": "p-ann", "name": "Annie"}, "type"),  # a journal correction, not a control
    ({"type": "take", "commands": []}, "commands"),
    ({"type": "take", "commands": [{"type": "hide_all"}, {"type": "show", "element": "x"}]}, "commands[1].element"),
    ([1, 2], "body"),
])
def test_bad_commands_name_the_field(command, field):
    with pytest.raises(BadControl) as exc:
        run(command)
    assert exc.value.field == field
    assert exc.value.to_dict()["error"] == "bad_control"


def test_take_applies_the_previewed_batch_as_one_revision():
    s = run({"type": "take", "commands": [{"type": "show", "element": "leaderboard"}, {"type": "hide_cards", "seat": 2}]})
    assert s.rev == 1 and "leaderboard" in s.visible and s.hidden_cards == {2}


def test_a_bad_command_in_a_take_changes_nothing():
    before = run({"type": "show", "element": "deal"})
    with pytest.raises(BadControl):
        run({"type": "take", "commands": [{"type": "hide_all"}, {"type": "trim", "seconds": 9999}]}, state=before)
    assert not before.hide_all


def test_wire_form_round_trips():
    s = run({"type": "lower_third", "title": "Welcome"}, {"type": "hide_cards", "seat": 3}, {"type": "refresh"},
            {"type": "slate", "slate": "break"}, {"type": "trim", "seconds": 1})
    assert from_dict(s.to_dict()) == s


VIEW = {
    "type": "view", "seq": 40, "ts": 1, "hand": 7, "hand_complete": False, "level": 1,
    "blinds": {"small_blind": 100, "big_blind": 200, "ante": 200, "minutes": 20}, "board": ["2c", "7d", "9h"], "pot": 1200,
    "street": "flop", "equity": None,
    "seats": [
        {"seat": 1, "player": "p-ann", "name": "Ann Lee", "country": "GB", "stack": 20000, "hole_cards": ["Qc", "Qd"], "in_hand": True},
        {"seat": 2, "player": "p-bo", "name": "Bo Chen", "country": "CN", "stack": 60000, "hole_cards": ["As", "Kd"], "in_hand": True},
    ],
    "tournament": {"chips_in_play": 800000, "players_left": 40, "payouts": [{"first": 1, "last": 1, "amount": 100000}],
                   "eliminated": [], "deals": []},
}


def test_onair_data_applies_hidden_cards_and_ranks_the_leaderboard():
    control = run({"type": "hide_cards", "seat": 2}).to_dict()
    data = onair(VIEW, control, table="t1")
    assert data["seats"][1]["hole_cards"] == ["??", "??"] and data["seats"][0]["hole_cards"] == ["Qc", "Qd"]
    assert data["seats"][0]["big_blinds"] == 100.0
    assert [(r["name"], r["percent"]) for r in data["leaderboard"]] == [("Bo Chen", 7.5), ("Ann Lee", 2.5)]


def test_leaderboard_uses_the_table_when_the_field_chips_are_unknown():
    view = {**VIEW, "tournament": {}}
    assert [r["percent"] for r in leaderboard(view)] == [75.0, 25.0]


def test_nothing_released_yet_is_said_plainly():
    data = onair(None, ControlState().to_dict(), table="t1")
    assert data["on_air"] is False and data["message"] == "nothing has been released yet"


def test_the_control_state_is_pure():
    tree = ast.parse(Path(g.__file__).read_text())
    imported = {n.names[0].name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"asyncio", "aiohttp", "redis", "cv2", "time"}


def test_a_lower_third_uses_the_name_on_air_from_the_roster():
    roster = Roster(players={"p-bo": ("Bobby Chen", "Macau regular")})  # the corrected name, as aired
    s = apply_command(ControlState(), {"type": "lower_third", "player": "p-bo"}, roster, by="Gail")
    assert (s.lower_third.title, s.lower_third.text) == ("Bobby Chen", "Macau regular")


def test_every_graphics_command_has_a_schema_that_its_sample_meets():
    import jsonschema

    from broadcast.views.protocol import GRAPHICS_COMMANDS, graphics_schema

    samples = {
        "show": {"element": "deal"}, "hide": {"element": "pot"}, "hide_all": {}, "restore": {}, "hide_cards": {"seat": 4},
        "show_cards": {"seat": 4}, "lower_third": {"player": "p-ann"}, "clear_lower_third": {}, "slate": {"slate": "break"},
        "trim": {"seconds": 1.5}, "refresh": {"page": "all"}, "take": {"commands": [{"type": "hide_all"}]},
    }
    assert set(samples) == set(GRAPHICS_COMMANDS) == set(g.COMMANDS)
    for kind, body in samples.items():
        command = {"type": kind, **body}
        jsonschema.validate(command, graphics_schema(kind))
        run(command)  # and the desk accepts it


def test_refresh_requests_for_pages_long_gone_do_not_grow_the_state():
    s = ControlState()
    for i in range(200):
        s = apply_command(s, {"type": "refresh", "page": f"page-{i}"}, ROSTER, by="Gail")
    s = apply_command(s, {"type": "refresh"}, ROSTER, by="Gail")
    pages = s.to_dict()["refresh"]
    assert len(pages) == g.MAX_REFRESH_KEYS and pages["all"] == 1 and "page-199" in pages and "page-0" not in pages
    with pytest.raises(BadControl) as exc:
        run({"type": "refresh", "page": "<script>"})
    assert exc.value.field == "page"


# -- the sponsor badge on the player bars: only while the player's branding complies ---------
def _badge_line(config):
    """A delay line fed a table of three (p1..p3) and a rep's logo checks and sponsor declarations."""
    from broadcast.compliance.events import Logo, LogosInspected, SponsorDeclared
    from broadcast.delay import DelayLine
    from broadcast.engine.events import TableOpened
    from broadcast.store.journal import Record
    from tests.engine.helpers import table

    state = table()
    line = DelayLine(config)
    events = [
        TableOpened(table="tv", game="nlhe", seats=state.seats, levels=state.levels),
        SponsorDeclared(player="p1", company="RiverBet", by="Rita", role="rep"),
        # p1: a declared, approved sponsor on the breast pocket, 4 x 5 cm: compliant.
        LogosInspected(player="p1", logos=(Logo("RiverBet", "breast_pocket", 4, 5),), by="Rita", role="rep"),
        # p2: the organiser's logo, which needs no declaration.
        LogosInspected(player="p2", logos=(Logo("Pokerfest", "sleeve", 3, 4),), by="Rita", role="rep"),
        # p3: an approved operator never declared on the waiver form: in breach, no badge.
        LogosInspected(player="p3", logos=(Logo("RiverBet", "sleeve", 3, 4),), by="Rita", role="rep"),
        # Later p1's logo is found too large for a filmed table: from this cut on, no badge.
        LogosInspected(player="p1", logos=(Logo("RiverBet", "breast_pocket", 8, 8),), by="Rita", role="rep"),
    ]
    for seq, event in enumerate(events, start=1):
        line.feed(Record(seq=seq, ts=seq * 1000, delay_ms=5000, event=event.to_dict(), hash=""))
    return line


def _sponsors_at(line, now):
    release = line.due(now)
    line.commit(release)
    return {row["player"]: row["sponsor"] for row in release.messages[-1][1]["seats"]}


def test_the_sponsor_badge_airs_only_while_the_branding_complies_judged_at_the_delayed_cut():
    from broadcast.compliance.config import ComplianceConfig

    line = _badge_line(ComplianceConfig(organiser="Pokerfest", approved_operators=("RiverBet",)))
    assert _sponsors_at(line, 5000 + 5000) == {"p1": "RiverBet", "p2": "Pokerfest", "p3": None}
    # The breach is found at ts 6,000: it airs (and the badge goes) at 11,000, not before.
    assert line.due(10_999) is None
    assert _sponsors_at(line, 11_000) == {"p1": None, "p2": "Pokerfest", "p3": None}


def test_without_the_shows_compliance_settings_no_badge_airs():
    line = _badge_line(None)
    assert set(_sponsors_at(line, 10_000).values()) == {None}


def test_an_unapproved_company_never_gets_a_badge_even_when_declared():
    from broadcast.compliance.config import ComplianceConfig

    line = _badge_line(ComplianceConfig(organiser="Pokerfest", approved_operators=()))
    assert _sponsors_at(line, 10_000) == {"p1": None, "p2": "Pokerfest", "p3": None}
