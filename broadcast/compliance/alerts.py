"""Alerts on the rep's dashboard, and their acknowledgement.

An alert is HALT PLAY on a seat, a camera check, or a violation awaiting a ruling. A rep
(or the TD) acknowledges one to say "seen, on it": it stays open until it is cleared or
ruled on, and the acknowledgement is audited like every other decision. An alert's key
is stable while it is open: ``halt:<hand>:<seat>``, ``camera:<alert>``, ``violation:<n>``.
"""

from __future__ import annotations

from broadcast.engine.errors import BadCommand

from .commands import AcknowledgeAlert
from .errors import need_role
from .events import AlertAcknowledged
from .facts import TableFacts


def open_alerts(state, facts: TableFacts) -> dict[str, tuple[str, str]]:
    """Every open alert: key -> (kind, what the rep reads). Never names a card."""
    out: dict[str, tuple[str, str]] = {}
    cam = state.camera.for_hand(facts.hand)
    for seat in cam.halted:
        out[f"halt:{facts.hand}:{seat}"] = ("halt", f"HALT PLAY: {facts.label(seat)} has not shown the cards to the camera")
    for check in state.camera.checks:
        out[f"camera:{check.alert}"] = ("camera", check.message or "camera check")
    for v in state.violations.open():
        seat = facts.seat_of(v.player)
        who = facts.label(seat.seat) if seat else v.player
        out[f"violation:{v.violation}"] = ("violation", f"violation {v.violation}: {who}, {v.code.replace('_', ' ')}; "
                                                       f"proposed {v.proposed.replace('_', ' ')}")
    return out


def acknowledge(state, facts: TableFacts, cmd: AcknowledgeAlert) -> AlertAcknowledged:
    """A rep or the TD has seen an open alert (it stays open until cleared or ruled on)."""
    need_role(cmd.role, ("rep", "td"), "acknowledge an alert")
    alerts = open_alerts(state, facts)
    if cmd.alert not in alerts:
        raise BadCommand(f"alert {cmd.alert!r} is not open (it may have been cleared already)", field="alert")
    if any(a.alert == cmd.alert for a in state.acknowledged):
        raise BadCommand(f"alert {cmd.alert!r} is already acknowledged", field="alert")
    return AlertAcknowledged(alert=cmd.alert, what=alerts[cmd.alert][1], note=cmd.note, at_ms=cmd.at_ms, by=cmd.by,
                             role=cmd.role)
