"""Views of the compliance state: the rep's dashboard and what may go on air.

Pure projections (JSON-ready dicts). The rep's view never carries a hole card, nor
anything that reveals one: a seat's card light says shown / blind / halt / waiting, and a
camera check says "seat 4: camera check". The public view is meant to be computed from
the *delayed* journal (the releaser's cut), with the clocks at server time minus delay.
"""

from __future__ import annotations

from broadcast.engine.penalties import SEVERE

from . import branding, clock
from .alerts import open_alerts
from .config import ComplianceConfig
from .facts import TableFacts
from .state import ComplianceState, deal_in_blockers, frozen, hold
from .violations import TD_ONLY_KINDS, VIOLATIONS


def needs_td(code: str, proposed: str) -> bool:
    """A proposal only the Tournament Director may rule on (a disqualification, a device found)."""
    return code in SEVERE or proposed in TD_ONLY_KINDS


def rep_view(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, now_ms: int) -> dict:
    """The rep's dashboard (and the TD's controls) at ``now_ms``: seats with devices, card
    lights and penalties; alerts; branding; escorts; deal talk; clocks; field; the audit log."""
    tv = tuple(s.player for s in facts.seats)
    cam = state.camera.for_hand(facts.hand)
    seats = []
    for s in facts.seats:
        held = state.devices.held(s.player)
        override = state.devices.override(s.player)
        breaches = branding.check_player(state.branding, config, state.field, s.player, tv)
        escort = state.conduct.escort_of(s.player)
        seats.append({
            "seat": s.seat, "player": s.player, "name": s.name,
            "devices": "surrendered" if held else ("override" if override else "missing"),
            "bags": [h.bag for h in held if h.bag],
            "surrendered": [{"items": list(h.items), "rep": h.rep, "bag": h.bag, "at_ms": h.at_ms} for h in held],
            "override": {"reason": override.reason, "by": override.by, "at_ms": override.at_ms} if override else None,
            "cards": cam.light(s.seat) if facts.in_hand and s.seat in facts.dealt else None,
            "penalties": [{"kind": p.kind, "count": p.count, "reason": p.reason} for p in facts.ledger.history(s.player)],
            "hands_to_sit_out": facts.ledger.hands_left(s.player),
            "open_violations": [v.violation for v in state.violations.open() if v.player == s.player],
            "branding": {"compliant": not breaches, "breaches": [b.to_dict() for b in breaches],
                         "badge": branding.sponsor_badge(state.branding, config, state.field, s.player, tv)},
            "escort": {"escort": escort.escort, "where": escort.where, "out_ms": escort.out_ms} if escort else None,
        })
    called = state.called_clock
    acks = {a.alert: {"by": a.by, "at_ms": a.at_ms, "note": a.note} for a in state.acknowledged}
    return {
        "hand": facts.hand if facts.in_hand else None,
        "final_table": state.final_table,
        "seats": seats,
        "halt": {"seats": list(cam.halted), "hold": list(hold(state, facts, config)),
                 "messages": [f"HALT PLAY: {facts.label(s)} has not shown the cards to the camera" for s in cam.halted]},
        "alerts": [{"key": key, "kind": kind, "message": message, "acknowledged": acks.get(key)}
                   for key, (kind, message) in open_alerts(state, facts).items()],
        "camera_checks": [{"alert": a.alert, "message": a.message} for a in state.camera.checks],
        "violations": [{"violation": v.violation, "player": v.player, "code": v.code, "rule": v.rule,
                        "proposed": v.proposed, "count": v.count, "consequence": v.consequence, "note": v.note,
                        "by": v.by, "at_ms": v.at_ms, "label": VIOLATIONS[v.code].label if v.code in VIOLATIONS else v.code,
                        "needs_td": needs_td(v.code, v.proposed)} for v in state.violations.open()],
        "blockers": [b.to_dict() for b in deal_in_blockers(state, facts, config)],
        "companies": list(branding.company_board(state.branding, config, state.field, tv)),
        "escorts": {"out": [{"player": e.player, "escort": e.escort, "where": e.where, "out_ms": e.out_ms}
                            for e in state.conduct.out],
                    "trips": [{"player": t.player, "escort": t.escort, "out_ms": t.out_ms, "in_ms": t.at_ms}
                              for t in state.conduct.trips[-20:]]},
        "deal_talk": {"rep": state.conduct.deal_talk.rep, "since_ms": state.conduct.deal_talk.at_ms}
        if state.conduct.deal_talk else None,
        "clock": clock.read_level_clock(state.level_clock, facts.level_minutes, now_ms).to_dict(),
        "hand_for_hand": {"on": state.level_clock.hand_for_hand, "released": state.level_clock.released,
                          "dealt": state.level_clock.dealt, "all_in_frozen": frozen(state, facts)},
        "field": field_view(state.field),
        "called_clock": clock.read_called_clock(called, now_ms).to_dict() if called else None,
        "audit": [e.to_dict() for e in state.audit[-50:]],
    }


def field_view(f) -> dict:
    """The TD's field data: entries, players left, chips, average stack, prize pool, payouts."""
    return {"entries": f.entries, "players_left": f.players_left, "chips_in_play": f.chips_in_play,
            "average_stack": f.average_stack, "prize_pool": f.prize_pool,
            "payouts": [{"first": p.first, "last": p.last, "amount": p.amount} for p in f.payouts],
            "wearers": [list(w) for w in f.wearers]}


def public_view(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, server_now_ms: int,
                delay_ms: int) -> dict:
    """What the audience may see: "playing blind", compliant sponsor badges, deals, the clocks."""
    tv = tuple(s.player for s in facts.seats)
    cam = state.camera.for_hand(facts.hand)
    called = clock.on_air_called_clock(state.called_clock, server_now_ms, delay_ms)
    return {
        "playing_blind": sorted(cam.blind) if facts.in_hand else [],
        "sponsors": {s.seat: branding.sponsor_badge(state.branding, config, state.field, s.player, tv) for s in facts.seats},
        "deals": [{"text": d.text, "payouts": [list(p) for p in d.payouts]} for d in state.conduct.deals],
        "clock": clock.on_air(state.level_clock, facts.level_minutes, server_now_ms, delay_ms).to_dict(),
        "called_clock": called.to_dict() if called else None,
    }
