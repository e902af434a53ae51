"""The compliance part of the wire protocol: a JSON Schema for every rep and TD command and
for the compliance feed's view. ``broadcast.views.protocol`` lists them with the rest, and
``docs/api.md`` is generated from there. Pure data.

``by``, ``role`` and the time never appear in a command: the adapter adds them from the
caller's token and Redis TIME, so the audit log cannot be typed in by a client.
"""

from __future__ import annotations

from typing import Any

from .commands import COMMAND_TYPES, PLACES

SEAT = {"type": "integer", "minimum": 1, "maximum": 10}
TEXT = {"type": "string", "minLength": 1}
NOTE = {"type": "string"}
PLAYER = {"type": "string", "minLength": 1, "maxLength": 64, "description": "the player's stable id, e.g. p-ann"}
COUNT = {"type": "integer", "minimum": 0}
NAMES = {"type": "array", "items": TEXT}
PAIRS = {"type": "array", "items": {"type": "array", "prefixItems": [TEXT, COUNT], "minItems": 2, "maxItems": 2}}
LOGO = {"type": "object", "required": ["company", "place"], "properties": {
    "company": TEXT, "place": {"enum": list(PLACES)}, "width_cm": {"type": "number", "minimum": 0},
    "height_cm": {"type": "number", "minimum": 0}, "visible": {"type": "boolean"}}}
PAYOUT = {"type": "object", "required": ["first", "amount"], "properties": {
    "first": {"type": "integer", "minimum": 1}, "last": {"type": "integer", "minimum": 1}, "amount": COUNT}}
REP, TD, REP_TD = "rep, td", "td", "rep, td"

# type -> (desk(s) that may send it, description, properties, required)
COMMANDS: dict[str, tuple[str, str, dict[str, Any], list[str]]] = {
    "surrender_devices": (REP, "A TV-table player hands in devices (an empty `items`: declares none) to a rep; `bag` is the bag or locker.",
                          {"player": PLAYER, "items": NAMES, "bag": NOTE, "rep": NOTE}, ["player", "items"]),
    "return_devices": (REP, "The rep hands the devices back (the player can no longer be dealt in at the TV table).",
                       {"player": PLAYER}, ["player"]),
    "override_device_gate": (REP, "Let a player be dealt in without a surrender: a written reason, audited.",
                             {"player": PLAYER, "reason": TEXT}, ["player", "reason"]),
    "device_found": (REP, "A device found during play: the ledger proposes disqualification (monies forfeited); the TD decides.",
                     {"player": PLAYER, "item": TEXT, "note": NOTE}, ["player", "item"]),
    "cards_shown": ("rep (source rep); camera, secure (source camera)",
                    "The seat showed its hole cards to the camera (shown, not identified). A rep's confirmation is audited.",
                    {"seat": SEAT, "source": {"enum": ["camera", "rep"]}, "hand": {"type": "integer", "minimum": 1}}, ["seat"]),
    "declare_blind": (REP, "The player plays the hand blind: exempt from showing, shown on air as playing blind.",
                      {"seat": SEAT}, ["seat"]),
    "clear_halt": (REP, "Clear HALT PLAY on a seat, with the reason.", {"seat": SEAT, "reason": TEXT}, ["seat", "reason"]),
    "refuse_cards": (REP, "The player refused to show the cards to the camera (the ladder; at the final table's hidden camera, disqualification).",
                     {"seat": SEAT, "note": NOTE}, ["seat"]),
    "camera_check": ("camera (inbox), secure", "The card reader needs a look at these seats (or the board); the rep sees \"seat 4: camera check\", never the card.",
                     {"seats": {"type": "array", "items": SEAT}, "board": {"type": "boolean"}}, []),
    "clear_camera_check": ("rep, td, secure", "Clear a camera check by its number.",
                           {"alert": {"type": "integer", "minimum": 1}, "reason": NOTE}, ["alert"]),
    "acknowledge_alert": (REP, "Seen: an open alert (`halt:<hand>:<seat>`, `camera:<n>`, `violation:<n>`) is acknowledged, audited; it stays until cleared.",
                          {"alert": TEXT, "note": NOTE}, ["alert"]),
    "log_violation": (REP, "A conduct violation (communication, profanity, left without escort, deal talk away from the table, stalling); the ladder proposes the penalty.",
                      {"player": PLAYER, "code": TEXT, "note": NOTE, "about_filming": {"type": "boolean"}}, ["player", "code"]),
    "rule_violation": (REP_TD, "Rule on a proposed penalty: the proposal (`kind`, `count`) confirms it; anything else needs a reason. Disqualifications: TD only.",
                       {"violation": {"type": "integer", "minimum": 1}, "kind": TEXT, "count": COUNT, "reason": NOTE},
                       ["violation", "kind"]),
    "escort_out": (REP, "A player leaves the area on a break, with the escort named.",
                   {"player": PLAYER, "escort": TEXT, "where": NOTE}, ["player", "escort"]),
    "escort_in": (REP, "The player is back at the table.", {"player": PLAYER}, ["player"]),
    "open_deal_talk": (REP, "Deal talk at the final table, everyone seated, with a rep present (recorded).", {"rep": NOTE}, []),
    "report_deal": (REP, "The deal, reported to media (on the feed).", {"text": TEXT, "payouts": PAIRS}, ["text"]),
    "close_deal_talk": (REP, "Close deal talk.", {"outcome": {"enum": ["deal", "no_deal"]}}, []),
    "inspect_logos": (REP, "The logos a player wears (an empty list: none), checked before the start and at every seating.",
                      {"player": PLAYER, "logos": {"type": "array", "items": LOGO}}, ["player", "logos"]),
    "declare_sponsor": (REP, "A sponsor on the waiver form, or later with written proof.",
                        {"player": PLAYER, "company": TEXT, "on_waiver": {"type": "boolean"}, "proof": NOTE}, ["player", "company"]),
    "start_event": (TD, "Shuffle up and deal on the first day: later sponsors need written proof.", {}, []),
    "start_final_table": (TD, "The final table starts: players without logos stay without them.", {}, []),
    "decide_logo_keepers": (REP, "Who keeps a company's logo when over the limit (`scope` tv_table or field).",
                            {"company": TEXT, "keep": NAMES, "scope": {"enum": ["tv_table", "field"]}}, ["company", "keep"]),
    "high_card_draw": (REP, "The high-card draw for a logo, drawn outside the core: `[[player, card], ...]`.",
                       {"company": TEXT, "draws": {"type": "array", "items": {"type": "array", "minItems": 2, "maxItems": 2}},
                        "places": COUNT, "scope": {"enum": ["tv_table", "field"]}}, ["company", "draws"]),
    "call_clock": ("rep, td", "The floor approved a call for the clock on the player to act: 50 s + 10 s (25 s + 5 s at levels of 20 minutes or less); shorter only for stalling, with a reason.",
                   {"seat": SEAT, "approved_by": NOTE, "seconds": {"type": "integer", "minimum": 1},
                    "countdown": COUNT, "reason": NOTE}, ["seat"]),
    "expire_clock": ("rep, td; the core's own timer", "The countdown is over (after the tie margin): the seat's hand is dead.", {}, []),
    "cancel_clock": (REP_TD, "Cancel a called clock, with the reason.", {"reason": NOTE}, []),
    "level_clock_start": (TD, "Start the level clock at `level` (`remaining_ms`: less than the full level).",
                          {"level": {"type": "integer", "minimum": 1}, "remaining_ms": {"type": "integer", "minimum": 1}}, []),
    "level_clock_pause": (TD, "Pause the level clock.", {"reason": NOTE}, []),
    "level_clock_resume": (TD, "Resume the level clock.", {}, []),
    "level_clock_adjust": (TD, "Add (positive) or remove (negative) time, in ms.", {"delta_ms": {"type": "integer"}, "reason": NOTE}, ["delta_ms"]),
    "level_clock_set_level": (TD, "Go to a level, with its full time.", {"level": {"type": "integer", "minimum": 1}}, ["level"]),
    "break_start": (TD, "A break of `minutes`; the level runs again by itself after it.",
                    {"minutes": {"type": "integer", "minimum": 1}, "reason": NOTE}, ["minutes"]),
    "break_end": (TD, "End the break now.", {}, []),
    "hand_for_hand": (TD, "Hand-for-hand on or off.", {"on": {"type": "boolean"}}, ["on"]),
    "hand_for_hand_release": (TD, "Release the next hand-for-hand hand (every table has finished).", {}, []),
    "release_all_in": (TD, "Hand-for-hand, rule \"Called All-In\": every other table has finished the hand, so this table's "
                           "frozen all-in may be played out (until then the dealer's tabled cards, `muck`, `winner`, `board` "
                           "and `four_card_flop` are refused, and the live view has `frozen: true`).", {}, []),
    "field_data": (TD, "Entries, players left, chips in play, prize pool, payouts and logo wearers in the field; or the same as `csv` (one fact per line: `entries,512`, `payout,10-12,18500`, `wearers,Acme Poker,31`).",
                   {"entries": COUNT, "players_left": COUNT, "chips_in_play": COUNT, "prize_pool": COUNT,
                    "payouts": {"type": "array", "items": PAYOUT}, "wearers": PAIRS, "csv": NOTE}, []),
}

assert set(COMMANDS) == set(COMMAND_TYPES), "every compliance command needs its schema here"

FEED = ("Rep dashboard and tournament controls: live, never a hole card nor anything revealing one. Seats with "
        "devices, card lights (shown, blind, halt, waiting), penalties, branding and escort; alerts to acknowledge; "
        "violations; deal-in blockers; companies; escorts; deal talk; the level clock, hand-for-hand and the called "
        "clock (read at `now_ms`, Redis TIME); field data; the last 50 audit lines "
        "(all of them: `GET /api/v1/tables/{table}/compliance/audit.csv`).")

_CLOCK = {"type": "object", "required": ["level", "remaining_ms", "running", "on_break", "started"]}
_CALLED = {"type": ["object", "null"], "required": ["seat", "phase", "remaining_ms", "total_ms"],
           "properties": {"phase": {"enum": ["time", "countdown", "expired"]}}}
VIEW = {
    "type": "object",
    "required": ["type", "feed", "table", "seq", "ts", "now_ms", "hand", "hand_complete", "seats", "alerts", "halt",
                 "violations", "blockers", "companies", "escorts", "deal_talk", "clock", "hand_for_hand",
                 "called_clock", "field", "audit"],
    "properties": {
        "type": {"const": "view"}, "feed": {"const": "compliance"}, "table": TEXT,
        "seq": {"type": "integer", "minimum": 0}, "ts": {"type": "integer"}, "now_ms": {"type": "integer"},
        "hand": {"type": ["integer", "null"]}, "hand_complete": {"type": "boolean"},
        "seats": {"type": "array", "items": {
            "type": "object",
            "required": ["seat", "player", "name", "devices", "surrendered", "cards", "penalties", "branding", "escort"],
            "not": {"required": ["hole_cards"]},
            "properties": {"devices": {"enum": ["surrendered", "override", "missing"]},
                           "cards": {"enum": ["shown", "blind", "halt", "waiting", None]}}}},
        "alerts": {"type": "array", "items": {"type": "object", "required": ["key", "kind", "message", "acknowledged"],
                                              "properties": {"kind": {"enum": ["halt", "camera", "violation"]}}}},
        "violations": {"type": "array", "items": {"type": "object", "required": ["violation", "player", "proposed", "needs_td"]}},
        "clock": _CLOCK, "called_clock": _CALLED,
        "field": {"type": "object", "required": ["entries", "players_left", "average_stack", "prize_pool", "payouts"]},
        "audit": {"type": "array", "items": {"type": "object", "required": ["seq", "at_ms", "by", "role", "what", "why"]}},
    },
}
