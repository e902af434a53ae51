"""The audit log: every rep and TD decision, who made it, when and why; exportable as CSV.

Built from the compliance events themselves (each carries ``by``, ``role``, ``at_ms``),
so it can never disagree with the journal. No line carries a card.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from broadcast.engine.events import PenaltyIssued

from . import events as ev

COLUMNS = ("seq", "at_ms", "by", "role", "what", "why")


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    at_ms: int
    by: str
    role: str
    what: str
    why: str = ""

    def to_dict(self) -> dict:
        return {c: getattr(self, c) for c in COLUMNS}


def describe(event) -> tuple[str, str] | None:
    """What the decision was and why, in words; None for what nobody decided."""
    e = event
    match e:
        case ev.DevicesSurrendered():
            items = ", ".join(e.items) if e.items else "declared no devices"
            return f"{e.player} surrendered devices to {e.rep}: {items}" + (f" (bag {e.bag})" if e.bag else ""), ""
        case ev.DevicesReturned():
            return f"devices returned to {e.player}", ""
        case ev.DeviceGateOverridden():
            return f"device check overridden for {e.player}", e.reason
        case ev.DeviceFound():
            return f"device found on {e.player}: {e.item}", e.note
        case ev.ViolationRecorded():
            return (f"violation {e.violation}: {e.player}, {e.code.replace('_', ' ')}; ladder proposes "
                    f"{e.proposed.replace('_', ' ')}" + (f" x{e.count}" if e.count else ""), e.note)
        case ev.ViolationRuled():
            verdict = "confirmed" if e.confirmed else "decided otherwise"
            return (f"violation {e.violation} ruled ({verdict}): {e.player}, {e.kind.replace('_', ' ')}"
                    + (f" x{e.count}" if e.count else ""), e.reason)
        case ev.HoleCardsShown() if e.source == "rep":
            return f"hand {e.hand}: rep confirmed seat {e.seat} showed the cards to the camera", ""
        case ev.PlayingBlind():
            return f"hand {e.hand}: seat {e.seat} playing blind", ""
        case ev.HaltCleared() if e.cause == "rep":
            return f"hand {e.hand}: HALT PLAY cleared for seat {e.seat}", e.reason
        case ev.HaltIgnored():
            return f"hand {e.hand}: seat {e.seat} acted under HALT PLAY", ""
        case ev.AlertAcknowledged():
            return f"alert acknowledged: {e.what or e.alert}", e.note
        case ev.CameraCheckCleared():
            return f"camera check {e.alert} cleared", e.reason
        case ev.EscortCheckedOut():
            return f"{e.player} checked out with {e.escort}" + (f" to {e.where}" if e.where else ""), ""
        case ev.EscortCheckedIn():
            return f"{e.player} checked back in (escort {e.escort})", ""
        case ev.DealTalkOpened():
            return f"deal talk opened, {e.rep} present", ""
        case ev.DealReported():
            return f"deal reported ({e.rep} present)", e.text
        case ev.DealTalkClosed():
            return f"deal talk closed: {e.outcome.replace('_', ' ')}", ""
        case ev.LogosInspected():
            logos = ", ".join(f"{lg.company} on {lg.place.replace('_', ' ')}" for lg in e.logos) or "no logos"
            return f"logos checked for {e.player}: {logos}", ""
        case ev.SponsorDeclared():
            return f"sponsor {e.company} for {e.player}" + (" (waiver)" if e.on_waiver else " (written proof)"), e.proof
        case ev.EventStarted():
            return "Event started (shuffle up and deal)", ""
        case ev.FinalTableStarted():
            return "final table started" + (f"; without logos: {', '.join(e.bare)}" if e.bare else ""), ""
        case ev.LogoKeepersDecided():
            return f"{e.company} logo kept by {', '.join(e.keep) or 'nobody'} ({e.scope.replace('_', ' ')}, "\
                   f"{e.method.replace('_', ' ')})", ""
        case ev.ClockCalled():
            return f"hand {e.hand}: clock on seat {e.seat}, {e.seconds} s + {e.countdown} s (approved by {e.approved_by})", e.reason
        case ev.ClockExpired() if e.by:
            return f"hand {e.hand}: clock expired on seat {e.seat}, hand dead", ""
        case ev.ClockCancelled():
            return f"hand {e.hand}: clock on seat {e.seat} cancelled", e.reason
        case ev.LevelClockEvent():
            what = {"LevelClockStarted": "level clock started", "LevelClockPaused": "level clock paused",
                    "LevelClockResumed": "level clock resumed", "LevelClockAdjusted": f"level clock {e.delta_ms / 1000:+g} s",
                    "LevelClockLevelSet": "level set", "BreakStarted": "break", "BreakEnded": "break ended"}[e.type]
            return f"{what}: level {e.level}, {e.remaining_ms // 1000} s left", e.reason
        case ev.HandForHandSet():
            return f"hand-for-hand {'on' if e.on else 'off'}", ""
        case ev.HandForHandReleased():
            return f"hand-for-hand hand {e.round} released", ""
        case ev.AllInReleased():
            return f"hand-for-hand: called all-in of hand {e.hand} released", ""
        case ev.FieldDataSet():
            return f"field data: {e.entries:,} entries, {e.players_left:,} left", ""
        case PenaltyIssued():
            return f"penalty issued to {e.player}: {e.kind.replace('_', ' ')}" + (f" x{e.count}" if e.count else ""), e.reason
    return None


def audit_entry(event, seq: int) -> AuditEntry | None:
    by = getattr(event, "by", "") or getattr(event, "issued_by", "")
    if not by:
        return None  # the camera's and the system's own signals are not decisions
    said = describe(event)
    if said is None:
        return None
    return AuditEntry(seq=seq, at_ms=getattr(event, "at_ms", 0), by=by, role=getattr(event, "role", ""),
                      what=said[0], why=said[1])


def audit_csv(entries: tuple[AuditEntry, ...]) -> str:
    """The audit log as CSV (header row first)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for e in entries:
        w.writerow([getattr(e, c) for c in COLUMNS])
    return out.getvalue()
