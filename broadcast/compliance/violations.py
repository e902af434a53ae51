"""Violations: each compliance rule raises one; the engine's penalty ledger proposes the penalty.

The ladder lives in ``broadcast.engine.penalties.propose`` and nowhere else. A violation is
recorded with the ledger's proposal; the floor or the Tournament Director then rules on it:
confirms, or decides otherwise with a reason. A ruling that is a penalty also emits the
engine's ``PenaltyIssued``, so the table's ledger (the one owner) records it.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.engine.errors import BadCommand
from broadcast.engine.events import PenaltyIssued
from broadcast.engine.penalties import KINDS, SEVERE, Ledger, check_penalty, propose

from .errors import NotAllowed, need_text
from .events import ViolationRecorded, ViolationRuled

NO_PENALTY = "no_penalty"
TD_ONLY_KINDS = ("disqualification", "event_ban", "all_events_exclusion")


@dataclass(frozen=True)
class ViolationRule:
    label: str  # how a rep says it
    rule: str  # the rule book's section
    quote: str  # the rule book's words
    consequence: str = ""


VIOLATIONS: dict[str, ViolationRule] = {
    "device_at_tv_table": ViolationRule(
        "electronic device at the TV table", "Final Table",
        "must surrender any and all electronic devices (whether they have a messaging or communication capability "
        "or not) to an appointed tournament representative prior to taking their seat before play begins",
        "disqualified; monies accrued and the Main Tournament buy-in forfeited, "
        "subject to the discretion of the Tournament's director"),
    "cards_not_shown_to_camera": ViolationRule(
        "acted without showing the hole cards to the camera", "Televised Feature Tables and Hole Cards",
        "This includes showing your hole cards to the card camera on the table. Failure to do so may result in a penalty."),
    "refusal_to_show_cards": ViolationRule(
        "refused to show the hole cards to the camera", "Televised Feature Tables and Hole Cards",
        "This includes showing your hole cards to the card camera on the table. Failure to do so may result in a penalty."),
    "refusal_at_hidden_camera": ViolationRule(
        "refused to show the hole cards to the hidden camera at the final table", "Filming and Image Rights",
        "agrees to disclose their hole cards to the hidden camera at the final table and any refusal to do so "
        "could lead to disqualification from the Event with no prize money being awarded and no refunds given",
        "disqualification with no prize money and no refund"),
    "communication": ViolationRule(
        "communicated with someone away from the table", "Final Table",
        "players at TV Tables are not allowed to communicate with, approach, or in any way make contact with any "
        "person, including, without limitation, any audience members and appointed TV production representatives, "
        "unless such communication is related to technical issues with the filming"),
    "profanity": ViolationRule(
        "profanity", "Final Table",
        "profanity is not permitted at any time during the TV Table event, including, without limitation, verbal "
        "expressions, gestures or any other known form of anti-social behaviour"),
    "left_area_without_escort": ViolationRule(
        "left the designated area on a break without an escort", "Final Table",
        "the players will not be allowed to leave these locations, at any point, without being accompanied by an "
        "appointed tournament representative"),
    "deal_talk_away_from_table": ViolationRule(
        "discussed a deal away from the table or without a rep", "Final Table",
        "only permitted to discuss any form of settlement deal or redistribution of any remaining prize pool whilst "
        "seated at the table, and that an appointed tournament representative must be present"),
    "stalling": ViolationRule(
        "deliberate stalling", "Calling for Clock",
        "Any player believed to be deliberately stalling the progress of the game may incur a penalty."),
}


@dataclass(frozen=True)
class Violations:
    recorded: tuple[ViolationRecorded, ...] = ()
    rulings: tuple[ViolationRuled, ...] = ()

    def get(self, number: int) -> ViolationRecorded | None:
        return next((v for v in self.recorded if v.violation == number), None)

    def ruling(self, number: int) -> ViolationRuled | None:
        return next((r for r in self.rulings if r.violation == number), None)

    def open(self) -> tuple[ViolationRecorded, ...]:
        ruled = {r.violation for r in self.rulings}
        return tuple(v for v in self.recorded if v.violation not in ruled)

    def of(self, player: str) -> tuple[ViolationRecorded, ...]:
        return tuple(v for v in self.recorded if v.player == player)


def raise_violation(vs: Violations, ledger: Ledger, player: str, code: str, *, seat: int | None = None,
                    hand: int | None = None, note: str = "", at_ms: int = 0, by: str = "", role: str = "",
                    offset: int = 0) -> ViolationRecorded:
    """Record a violation with the penalty the ledger's ladder proposes for this player.

    ``offset`` numbers several violations raised by one command (1 for the second, ...).
    """
    rule = VIOLATIONS[code]
    kind, count = propose(ledger, player, code)
    return ViolationRecorded(
        violation=len(vs.recorded) + 1 + offset, player=player, code=code, rule=rule.rule, proposed=kind, count=count,
        consequence=rule.consequence, seat=seat, hand=hand, note=note, at_ms=at_ms, by=by, role=role)


def rule_on_violation(vs: Violations, number: int, kind: str, count: int, reason: str, *, at_ms: int, by: str,
                      role: str) -> tuple[ViolationRuled] | tuple[ViolationRuled, PenaltyIssued]:
    """The floor or the TD rules on a recorded violation.

    Confirming the ledger's proposal needs no reason; deciding otherwise does. Anything
    about a disqualification, a ban, or a violation the rule book calls grounds for
    disqualification is the Tournament Director's ("subject to the discretion of the
    Tournament's director").
    """
    v = vs.get(number)
    if v is None:
        raise BadCommand(f"there is no violation number {number}", field="violation")
    if vs.ruling(number) is not None:
        raise BadCommand(f"violation {number} has already been ruled on", field="violation")
    if kind != NO_PENALTY:
        if kind not in KINDS:
            raise BadCommand(f"kind must be one of {NO_PENALTY}, {', '.join(KINDS)}", field="kind")
        check_penalty(kind, count)
    else:
        count = 0
    if role not in ("rep", "td"):
        raise NotAllowed("only a tournament rep or the Tournament Director may rule on a violation", field="role")
    if role != "td" and (v.code in SEVERE or kind in TD_ONLY_KINDS or v.proposed in TD_ONLY_KINDS):
        raise NotAllowed("only the Tournament Director may rule on this: it is grounds for disqualification "
                         "(\"subject to the discretion of the Tournament's director\")", field="role")
    confirmed = (kind, count) == (v.proposed, v.count)
    if not confirmed:
        reason = need_text(reason, "reason", f"say why the ruling differs from the proposed {v.proposed.replace('_', ' ')}")
    ruled = ViolationRuled(violation=number, player=v.player, kind=kind, count=count, confirmed=confirmed,
                           reason=(reason or "").strip()[:300], at_ms=at_ms, by=by, role=role)
    if kind == NO_PENALTY:
        return (ruled,)
    label = VIOLATIONS[v.code].label if v.code in VIOLATIONS else v.code
    issued = PenaltyIssued(player=v.player, kind=kind, count=count,
                           reason=label + (f": {ruled.reason}" if ruled.reason else ""), rule=v.rule, issued_by=by)
    return ruled, issued


def apply_violation(vs: Violations, event) -> Violations:
    if isinstance(event, ViolationRecorded):
        return Violations(vs.recorded + (event,), vs.rulings)
    if isinstance(event, ViolationRuled):
        return Violations(vs.recorded, vs.rulings + (event,))
    return vs
