"""Views of the compliance state: the rep's dashboard and what may go on air.

Pure projections (JSON-ready dicts). The rep's view never carries a hole card, nor
anything that reveals one: a seat's card light says shown / blind / halt / waiting, and a
camera check says "seat 4: camera check". The public view is meant to be computed from
the *delayed* journal (the releaser's cut), with the clocks at server time minus delay.
"""

from __future__ import annotations

from . import branding, clock
from .config import ComplianceConfig
from .facts import TableFacts
from .state import ComplianceState, deal_in_blockers, hold


def rep_view(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, now_ms: int) -> dict:
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
            "cards": cam.light(s.seat) if facts.in_hand and s.seat in facts.dealt else None,
            "penalties": [{"kind": p.kind, "count": p.count, "reason": p.reason} for p in facts.ledger.history(s.player)],
            "hands_to_sit_out": facts.ledger.hands_left(s.player),
            "open_violations": [v.violation for v in state.violations.open() if v.player == s.player],
            "branding": {"compliant": not breaches, "breaches": [b.to_dict() for b in breaches],
                         "badge": branding.sponsor_badge(state.branding, config, state.field, s.player, tv)},
            "escort": {"escort": escort.escort, "where": escort.where, "out_ms": escort.out_ms} if escort else None,
        })
    called = state.called_clock
    return {
        "hand": facts.hand if facts.in_hand else None,
        "final_table": state.final_table,
        "seats": seats,
        "halt": {"seats": list(cam.halted), "hold": list(hold(state, facts, config)),
                 "messages": [f"HALT PLAY: {facts.label(s)} has not shown the cards to the camera" for s in cam.halted]},
        "camera_checks": [{"alert": a.alert, "message": a.message} for a in state.camera.checks],
        "violations": [{"violation": v.violation, "player": v.player, "code": v.code, "rule": v.rule,
                        "proposed": v.proposed, "count": v.count, "consequence": v.consequence, "note": v.note,
                        "by": v.by, "at_ms": v.at_ms} for v in state.violations.open()],
        "blockers": [b.to_dict() for b in deal_in_blockers(state, facts, config)],
        "companies": list(branding.company_board(state.branding, config, state.field, tv)),
        "escorts": {"out": [{"player": e.player, "escort": e.escort, "where": e.where, "out_ms": e.out_ms}
                            for e in state.conduct.out],
                    "trips": [{"player": t.player, "escort": t.escort, "out_ms": t.out_ms, "in_ms": t.at_ms}
                              for t in state.conduct.trips[-20:]]},
        "deal_talk": {"rep": state.conduct.deal_talk.rep, "since_ms": state.conduct.deal_talk.at_ms}
        if state.conduct.deal_talk else None,
        "clock": clock.read_level_clock(state.level_clock, facts.level_minutes, now_ms).to_dict(),
        "called_clock": clock.read_called_clock(called, now_ms).to_dict() if called else None,
        "audit": [e.to_dict() for e in state.audit[-50:]],
    }


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
