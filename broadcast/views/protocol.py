"""The wire protocol in one place: every command, every event and every feed message,
each with a JSON Schema. ``docs/api.md`` is generated from this module
(``python -m broadcast.views.protocol > docs/api.md``) and a test keeps it current."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

from ..compliance import schemas as compliance
from ..compliance.commands import COMMAND_TYPES as COMPLIANCE_COMMAND_TYPES
from ..compliance.events import EVENT_TYPES as COMPLIANCE_EVENT_TYPES
from ..engine.commands import BETTING_ACTIONS
from ..engine.commands import COMMAND_TYPES as TABLE_COMMAND_TYPES
from ..engine.events import EVENT_TYPES as TABLE_EVENT_TYPES
from . import graphics

# The hand's commands and events, then the TV-table rules' (rep and TD desks): one journal.
COMMAND_TYPES = (*TABLE_COMMAND_TYPES, *COMPLIANCE_COMMAND_TYPES)
EVENT_TYPES = {**TABLE_EVENT_TYPES, **COMPLIANCE_EVENT_TYPES}

CARD = {"type": "string", "pattern": "^([2-9TJQKA][cdhs]|\\?\\?)$", "description": "rank then suit, e.g. As, Td; ?? unknown"}
KNOWN_CARD = {"type": "string", "pattern": "^[2-9TJQKA][cdhs]$"}
SEAT = {"type": "integer", "minimum": 1, "maximum": 10}
CHIPS = {"type": "integer", "minimum": 1}
TEXT = {"type": "string", "minLength": 1}

# type -> (desk(s) that may send it, description, properties, required)
COMMANDS: dict[str, tuple[str, str, dict[str, Any], list[str]]] = {
    "start_hand": ("dealer", "Shuffle up and deal; blinds and big-blind ante are posted automatically. `button` only for the first hand (the draw).",
                   {"button": SEAT}, []),
    "hole_cards": ("dealer, secure, camera (inbox)", "A seat's hole cards as known now (tabled cards at showdown; camera reads; secure corrections).",
                   {"seat": SEAT, "cards": {"type": "array", "items": CARD, "minItems": 2, "maxItems": 4},
                    "source": TEXT}, ["seat", "cards"]),
    "board": ("dealer", "Flop (3 cards), turn or river (1 card). The burn is recorded as ??.",
              {"cards": {"type": "array", "items": KNOWN_CARD, "minItems": 1, "maxItems": 3}}, ["cards"]),
    "fold": ("dealer", "Fold.", {"seat": SEAT, "out_of_turn": {"type": "boolean"}}, ["seat"]),
    "check": ("dealer", "Check.", {"seat": SEAT, "out_of_turn": {"type": "boolean"}}, ["seat"]),
    "call": ("dealer", "Call (all-in if the stack is short).", {"seat": SEAT, "out_of_turn": {"type": "boolean"}}, ["seat"]),
    "bet": ("dealer", "Bet `amount` (the seat's total on the street).", {"seat": SEAT, "amount": CHIPS, "out_of_turn": {"type": "boolean"}}, ["seat", "amount"]),
    "raise": ("dealer", "Raise to `amount` (the seat's total on the street).", {"seat": SEAT, "amount": CHIPS, "out_of_turn": {"type": "boolean"}}, ["seat", "amount"]),
    "allin": ("dealer", "All-in: the whole stack.", {"seat": SEAT, "out_of_turn": {"type": "boolean"}}, ["seat"]),
    "muck": ("dealer", "At showdown, the seat whose turn it is to show throws its cards away (not when a player is all-in).",
             {"seat": SEAT}, ["seat"]),
    "chips": ("dealer", "What physically happened: the chips pushed out (values) and any declaration; the engine rules on it (oversized chip, multiple chips, half-bet raising, undercall...).",
              {"seat": SEAT, "chips": {"type": "array", "items": CHIPS}, "declared": {"enum": ["", "call", "raise", "bet", "allin"]},
               "amount": CHIPS}, ["seat"]),
    "conditional": ("dealer", "A conditional statement, recorded and flagged.", {"seat": SEAT, "text": TEXT}, ["seat", "text"]),
    "undo": ("dealer", "Undo the last action or board card of the hand (a correcting event).", {"reason": {"type": "string"}}, []),
    "misdeal": ("dealer, td", "Declare a misdeal before substantial action: an exact re-play.", {"reason": TEXT}, ["reason"]),
    "kill_hand": ("td", "The floor kills a seat's hand.", {"seat": SEAT, "reason": TEXT}, ["seat", "reason"]),
    "penalty": ("td", "Issue a penalty from the ledger to a player (stable id).",
                {"player": TEXT, "kind": {"enum": ["verbal_warning", "missed_hands", "missed_orbits", "dead_hand", "elimination",
                                                   "disqualification", "event_ban", "all_events_exclusion"]},
                 "count": {"type": "integer", "minimum": 0}, "reason": TEXT, "rule": {"type": "string"}}, ["player", "kind", "reason"]),
    "set_level": ("td", "Move to a blind level; it applies from the next hand.", {"level": {"type": "integer", "minimum": 1}}, ["level"]),
    "seat_player": ("td", "Between hands, seat a player (late entry, re-entry, alternate, table move, redraw) in an empty seat. "
                    "Nobody is dealt in between the small blind and the button: a player seated there waits for the button to pass.",
                    {"seat": SEAT, "player": TEXT, "name": TEXT, "country": {"type": "string", "maxLength": 3}, "stack": CHIPS,
                     "reason": {"enum": ["late_entry", "re_entry", "alternate", "table_move", "redraw"]}},
                    ["seat", "player", "name", "stack"]),
    "move_player": ("td", "Between hands, move a seated player (stable id) to an empty seat.",
                    {"player": TEXT, "seat": SEAT, "reason": {"type": "string"}}, ["player", "seat"]),
    "remove_player": ("td", "Between hands, a player leaves the table with the chips (moved to another table) or with "
                      "`chips_removed` (removed from play).",
                      {"player": TEXT, "reason": TEXT, "chips_removed": {"type": "boolean"}}, ["player", "reason"]),
    "away": ("dealer, td", "Rule \"At Your Seat\": the seat was away when the last card reached the button; its hand is dead "
             "(before any action only).", {"seat": SEAT}, ["seat"]),
    "four_card_flop": ("dealer, td", "Rule \"Four-Card Flops\": the four cards, and the `burn` the floor drew at random "
                       "(or `draw`, 0-3, the index of the burn among the four); the other three are the flop.",
                       {"cards": {"type": "array", "items": KNOWN_CARD, "minItems": 4, "maxItems": 4}, "burn": KNOWN_CARD,
                        "draw": {"type": "integer", "minimum": 0, "maximum": 3}}, ["cards"]),
    "chip_count": ("td, graphics", "Between hands, the floor's chip count replaces a player's recorded stack (a correcting "
                   "event with its reason; e.g. counts at a break).",
                   {"player": TEXT, "stack": {"type": "integer", "minimum": 0}, "reason": TEXT}, ["player", "stack", "reason"]),
    "display_name": ("td, graphics", "Between hands, the name shown for a player (the stable id stays).",
                     {"player": TEXT, "name": TEXT}, ["player", "name"]),
    "draw_button": ("td", "Rule \"Button\": a draw for the button (restart, redraw, final table); the next hand is dealt "
                    "as a first hand from this seat.", {"seat": SEAT}, ["seat"]),
    "place": ("td (sent by TV Table itself for hand-for-hand ties)", "Rule \"Hand-for-Hand Play\" 2: an eliminated "
              "player's finishing place set again; `tied` players share it and split the prize money of the places they "
              "cover (players eliminated in the same hand at different tables tie).",
              {"player": TEXT, "place": {"type": "integer", "minimum": 1}, "tied": {"type": "integer", "minimum": 1},
               "reason": TEXT}, ["player", "place", "reason"]),
    "winner": ("dealer, td, secure", "Rule \"Winning hand\": at a showdown whose cards were not read, the winner instead of "
               "the cards; the other hands still to show are mucked and the winner need not show. Not at an all-in showdown.",
               {"seat": SEAT}, ["seat"]),
    "hidden_chips": ("dealer, td", "Rule \"All-In with Hidden Chips\": chips found behind a seat's acknowledged all-in. They "
                     "are committed (the main pot's winners take them if the seat loses), but the seat is not paid on them.",
                     {"seat": SEAT, "amount": CHIPS}, ["seat", "amount"]),
    "refuse_to_show": ("dealer, td", "Rule \"Refusal to Show\": the seat to show at showdown will not table its cards; a "
                       "five-second countdown starts (tabled cards stop it). Not at an all-in showdown.", {"seat": SEAT}, ["seat"]),
    "show_countdown_over": ("dealer, td (sent by TV Table itself after 5 s)", "The refusal-to-show countdown ran out: the hand "
                            "is dead and the ladder's penalty for stalling is issued.", {"seat": SEAT}, ["seat"]),
    "hold_for_review": ("dealer, td", "Rule \"Showing the Winner\" 1: hold these seats' cards aside for the floor's review "
                        "(this hand or the last one).",
                        {"seats": {"type": "array", "items": SEAT, "minItems": 1}, "reason": TEXT}, ["seats", "reason"]),
}

COMMANDS.update(compliance.COMMANDS)

FEED_MESSAGE = {
    "type": "object",
    "required": ["type", "feed", "table", "seq", "ts", "hand", "hand_complete", "seats", "board"],
    "properties": {
        "type": {"const": "view"},
        "feed": {"enum": ["public", "commentary", "live", "secure"]},
        "table": TEXT,
        "seq": {"type": "integer", "minimum": 0, "description": "the journal sequence this view reflects"},
        "ts": {"type": "integer", "description": "that event's Redis time, ms since the epoch UTC"},
        "hand": {"type": ["integer", "null"]},
        "hand_complete": {"type": "boolean"},
        "board": {"type": "array", "items": KNOWN_CARD},
        "seats": {"type": "array", "items": {"type": "object", "required": ["seat", "name", "stack", "hole_cards"],
                                             "properties": {"hole_cards": {"type": "array", "items": CARD}}}},
    },
}

FEEDS = {
    "public": "On air, delayed by D. Hole cards only once their hand ended live; each seat's `playing_blind` when declared and `sponsor` (the badge, null unless the player's branding complies). "
              "`tournament` carries the extra graphics' "
              "data from the same cut: entries, players left, chips in play, prize pool, `payouts`, `eliminated` (place, "
              "prize, eliminated by), `deals`, and the `clock` and `called_clock` as they read at the view's `ts`.",
    "commentary": "The public view plus `history` (the hand's actions), delayed.",
    "live": "Dealer console, rep and TD: live, never a hole card (`??`), with `legal`, `needs_board`, `awaiting_cards`, `rulings` and a per-seat `cards_seen` light, "
            "`called_clock` (seat, phase, `remaining_ms` and `deadline_ms` on Redis TIME, or null), `frozen` "
            "(hand-for-hand: a called all-in waits for the TD); at a TV table also `halt` (seats to hold) and `deal_blockers`.",
    "secure": "The secure card room: live with every known card. Off unless a secure person is configured; audited.",
    "compliance": compliance.FEED,
    "control": "The graphics desk, live (not delayed), open like `public`: `{type: \"control\", rev, visible: {element: "
               "bool}, hide_all, hidden_cards, lower_third, slate, trim_ms, refresh, by}` "
               "(`seq` is `rev`). The whole state on connect and on every change. On-air pages send "
               "`{\"type\": \"hello\", \"id\", \"page\", \"url\"}` on it so the desk lists them.",
}

ELEMENT = {"enum": list(graphics.ELEMENTS)}
# Graphics desk commands: type -> (description, properties, required).
GRAPHICS_COMMANDS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "show": ("Put an element up.", {"element": ELEMENT}, ["element"]),
    "hide": ("Take an element down.", {"element": ELEMENT}, ["element"]),
    "hide_all": ("Panic: hide every graphic on every page at once.", {}, []),
    "restore": ("Undo the panic: the elements chosen before come back.", {}, []),
    "hide_cards": ("Hide seat N's cards on air.", {"seat": SEAT}, ["seat"]),
    "show_cards": ("Show seat N's cards again (once released).", {"seat": SEAT}, ["seat"]),
    "lower_third": ("Put up a lower third: a player's name and bio (`title`/`text` edit them) or free text.",
                    {"player": TEXT, "title": {"type": "string", "maxLength": graphics.MAX_TITLE},
                     "text": {"type": "string", "maxLength": graphics.MAX_TEXT}, "show": {"type": "boolean"}}, []),
    "clear_lower_third": ("Take the lower third down.", {}, []),
    "slate": ("Put up a slate, or null to take it down.", {"slate": {"enum": [*graphics.SLATES, None]}}, ["slate"]),
    "trim": ("Extra delay on top of the table's (never less).",
             {"seconds": {"type": "number", "minimum": 0, "maximum": graphics.MAX_TRIM_S}}, ["seconds"]),
    "refresh": ("Reload one open page (its id) or `all`.", {"page": TEXT}, []),
    "take": ("Apply a previewed batch as one change, all or nothing.",
             {"commands": {"type": "array", "minItems": 1, "maxItems": graphics.MAX_BATCH, "items": {"type": "object"}}},
             ["commands"]),
}


def graphics_schema(kind: str) -> dict[str, Any]:
    """JSON Schema of one graphics desk command."""
    description, props, required = GRAPHICS_COMMANDS[kind]
    return {"type": "object", "description": description, "required": ["type", *required],
            "properties": {"type": {"const": kind}, **props}, "additionalProperties": False}

REFUSAL = {
    "type": "object",
    "required": ["error", "field", "message"],
    "properties": {"error": TEXT, "field": {"type": ["string", "null"]}, "message": TEXT,
                   "rule": {"type": "string", "description": "the rule book's name for the rule applied, when one is"}},
}


def command_schema(kind: str) -> dict[str, Any]:
    """JSON Schema of one command (``id`` is the client-chosen command id, optional)."""
    _, description, props, required = COMMANDS[kind]
    return {
        "type": "object",
        "description": description,
        "required": ["type", *required],
        "properties": {"type": {"const": kind}, "id": {"type": "string", "minLength": 1, "maxLength": 100}, **props},
        "additionalProperties": False,
    }


def _json_type(tp: Any) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if tp in (int,):
        return {"type": "integer"}
    if tp in (str,):
        return {"type": "string"}
    if tp in (bool,):
        return {"type": "boolean"}
    if origin is tuple:
        return {"type": "array"}
    if origin is dict or tp is dict:
        return {"type": "object"}
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        types = [_json_type(a).get("type") for a in typing.get_args(tp)]
        return {"type": [t if t else "null" for t in types]}
    if tp is type(None):
        return {}
    return {"type": "object"}


def event_schema(kind: str) -> dict[str, Any]:
    """JSON Schema of one journal event, derived from its dataclass."""
    cls = EVENT_TYPES[kind]
    hints = typing.get_type_hints(cls)
    props: dict[str, Any] = {"type": {"const": kind}}
    required = ["type"]
    for f in dataclasses.fields(cls):
        props[f.name] = _json_type(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:  # type: ignore[misc]
            required.append(f.name)
    return {"type": "object", "description": (cls.__doc__ or "").strip(), "required": required, "properties": props}


def render_markdown() -> str:
    """``docs/api.md``."""
    out = ["# TV Table API", "",
           "Generated from `broadcast/views/protocol.py` (`python -m broadcast.views.protocol > docs/api.md`).", "",
           "## Commands", "",
           "`POST /api/v1/tables/{table}/commands` with a JSON body, or an entry `c=<json>` on the table's inbox stream. "
           "`id` is chosen by the client: a retry with the same id is applied at most once. Success: "
           '`{"accepted": true, "seqs": [...], "duplicate": false}`. Refusal: HTTP 422 (400 for bad JSON) with the '
           "refusal object below, whose `message` names the rule and the legal range.", ""]
    for kind in COMMAND_TYPES:
        desks, description, _, _ = COMMANDS[kind]
        out += [f"### `{kind}`", "", description, "", f"Desk: {desks}.", "", "```json",
                json.dumps(command_schema(kind), indent=2), "```", ""]
    out += ["### Refusal", "", "```json", json.dumps(REFUSAL, indent=2), "```", "", "## Journal events", "",
            "Each journal entry is an envelope `{seq, ts, delay_ms, command_id, event}`; its hash is SHA-256 over the "
            "previous hash and the envelope's RFC 8785 canonical JSON.", ""]
    for kind in EVENT_TYPES:
        out += [f"### `{kind}`", "", "```json", json.dumps(event_schema(kind), indent=2), "```", ""]
    out += ["## Graphics control", "",
            "`POST /api/v1/tables/{table}/graphics` (role graphics), applied at once on the `control` feed and audited "
            "with the person; `?preview=1` answers the state it would give without applying it. "
            "`GET` the same path: the state and the open on-air pages. The desk's overrides (display names, chip "
            "counts at a break) are the journal's correcting commands `display_name` and `chip_count` above. A malformed command gets HTTP 400 "
            "`{\"error\": \"bad_control\", \"field\", \"message\"}`. "
            "`GET /api/v1/tables/{table}/onair.json` and `onair.xml` (open like `public`): the delayed on-air data with "
            "the controls applied, for vMix, Ross and Viz. `GET /api/v1/tables/{table}/clock` (open): the Redis server's "
            "time, the table's delay and the structure's minutes per level, `{server_ms, delay_ms, level_minutes}`, so "
            "on-air clocks run on server time minus the delay and roll a level that runs out into the next. The desk's "
            "`trim` holds `onair.json`/`onair.xml` back too: they serve the view released at least `trim_ms` ago.", ""]
    for kind in GRAPHICS_COMMANDS:
        out += [f"### `{kind}`", "", "```json", json.dumps(graphics_schema(kind), indent=2), "```", ""]
    out += ["## Feeds", "", "WebSocket `/ws/v1/{feed}?table=ID[&after=SEQ]`: a snapshot on connect, then updates; "
            "`after` resumes without a gap.", ""]
    for feed, text in FEEDS.items():
        out.append(f"- `{feed}`: {text}")
    out += ["", "Every view message:", "", "```json", json.dumps(FEED_MESSAGE, indent=2), "```", "",
            "The `compliance` view (it has no `hole_cards` anywhere):", "", "```json",
            json.dumps(compliance.VIEW, indent=2), "```", ""]
    return "\n".join(out)


assert set(COMMANDS) == set(COMMAND_TYPES), "every command type needs its schema here"
assert set(BETTING_ACTIONS) <= set(COMMANDS)
assert set(GRAPHICS_COMMANDS) == set(graphics.COMMANDS), "every graphics command needs its schema here"

if __name__ == "__main__":
    print(render_markdown(), end="")
