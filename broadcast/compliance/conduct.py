"""Conduct at the TV table (rule book: "Final Table", "PENALTIES AND PLAYER ETIQUETTE",
"Deal Making").

    "players at TV Tables are not allowed to communicate with, approach, or in any way
    make contact with any person, including, without limitation, any audience members and
    appointed TV production representatives, unless such communication is related to
    technical issues with the filming"

    "profanity is not permitted at any time during the TV Table event"

    "all players must remain within pre-designated locations whilst on all breaks in play
    ... the players will not be allowed to leave these locations, at any point, without
    being accompanied by an appointed tournament representative"

    "players at the final table of the Event are only permitted to discuss any form of
    settlement deal or redistribution of any remaining prize pool whilst seated at the
    table, and that an appointed tournament representative must be present"

    "All deals will be reported to media."

Violations a rep logs go to the ledger's ladder (``violations.py``); the break escort
board is a check-out/check-in per player; deal talk is opened with the rep present
recorded, and a deal is an event on the feed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.engine.errors import BadCommand, IllegalAction

from .commands import CheckIn, CheckOut, CloseDealTalk, LogViolation, OpenDealTalk, ReportDeal
from .errors import need_role, need_text
from .events import DealReported, DealTalkClosed, DealTalkOpened, EscortCheckedIn, EscortCheckedOut, ViolationRecorded
from .facts import TableFacts
from .violations import VIOLATIONS, Violations, raise_violation

# What a rep may log from the floor (the camera and the clock raise their own).
REP_LOGGED = ("communication", "profanity", "left_area_without_escort", "deal_talk_away_from_table", "stalling")
OUTCOMES = ("deal", "no_deal")


@dataclass(frozen=True)
class Escort:
    player: str
    escort: str
    where: str
    out_ms: int


@dataclass(frozen=True)
class ConductState:
    out: tuple[Escort, ...] = ()  # players off the table with an escort now
    trips: tuple[EscortCheckedIn, ...] = ()  # finished trips, for the board's history
    deal_talk: DealTalkOpened | None = None
    deals: tuple[DealReported, ...] = ()

    def escort_of(self, player: str) -> Escort | None:
        return next((e for e in self.out if e.player == player), None)


# -- rule: violations a rep logs -------------------------------------------------------------
def log_violation(vs: Violations, facts: TableFacts, cmd: LogViolation) -> ViolationRecorded:
    """Communication (except about technical filming issues), profanity, leaving the area
    without an escort, deal talk away from the table, stalling: each feeds the ladder."""
    need_role(cmd.role, ("rep", "td"), "log a violation")
    if cmd.code not in REP_LOGGED:
        raise BadCommand(f"code must be one of {', '.join(REP_LOGGED)}", field="code")
    if cmd.code == "communication" and cmd.about_filming:
        raise BadCommand("communication about technical issues with the filming is allowed: nothing to log",
                         field="about_filming")
    seat = facts.seat_of(cmd.player)
    return raise_violation(vs, facts.ledger, cmd.player, cmd.code, seat=seat.seat if seat else None,
                           hand=facts.hand if facts.in_hand else None, note=cmd.note or VIOLATIONS[cmd.code].label,
                           at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: break escorts --------------------------------------------------------------------
def check_out(conduct: ConductState, cmd: CheckOut) -> EscortCheckedOut:
    """A player leaves the designated area on a break, with the escort named."""
    need_role(cmd.role, ("rep", "td"), "check a player out with an escort")
    escort = need_text(cmd.escort, "escort", "the appointed representative going with the player")
    if conduct.escort_of(cmd.player):
        raise BadCommand(f"{cmd.player} is already out with {conduct.escort_of(cmd.player).escort}", field="player")
    if conduct.deal_talk is not None:
        raise IllegalAction("deal talk is open: deals are discussed only while seated, so close it first", field="player")
    return EscortCheckedOut(player=cmd.player, escort=escort, where=cmd.where, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def check_in(conduct: ConductState, cmd: CheckIn) -> EscortCheckedIn:
    need_role(cmd.role, ("rep", "td"), "check a player back in")
    escort = conduct.escort_of(cmd.player)
    if escort is None:
        raise BadCommand(f"{cmd.player} is not checked out", field="player")
    return EscortCheckedIn(player=cmd.player, escort=escort.escort, out_ms=escort.out_ms,
                           at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: deal talk at the final table -----------------------------------------------------
def open_deal_talk(conduct: ConductState, facts: TableFacts, final_table: bool, cmd: OpenDealTalk) -> DealTalkOpened:
    """Only at the final table, only while every player is seated, with a rep present (recorded)."""
    need_role(cmd.role, ("rep", "td"), "open deal talk (a tournament rep must be present)")
    rep = need_text(cmd.rep or cmd.by, "rep", "the appointed representative present")
    if not final_table:
        raise IllegalAction("deal talk is allowed only at the final table", field="type")
    if conduct.deal_talk is not None:
        raise IllegalAction(f"deal talk is already open with {conduct.deal_talk.rep} present", field="type")
    away = [e.player for e in conduct.out if facts.seat_of(e.player)]
    if away:
        names = ", ".join(facts.seat_of(p).name for p in away)
        raise IllegalAction(f"deals are discussed only while seated: {names} away from the table", field="type")
    return DealTalkOpened(rep=rep, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def report_deal(conduct: ConductState, facts: TableFacts, cmd: ReportDeal) -> DealReported:
    """The deal as agreed, for the feed ("All deals will be reported to media")."""
    need_role(cmd.role, ("rep", "td"), "report a deal")
    if conduct.deal_talk is None:
        raise IllegalAction("no deal talk is open: a deal is made only while seated, with a rep present", field="type")
    seated = {s.player for s in facts.seats}
    for i, (player, _) in enumerate(cmd.payouts):
        if player not in seated:
            raise BadCommand(f"{player} is not at the final table", field=f"payouts[{i}]")
    return DealReported(rep=conduct.deal_talk.rep, text=need_text(cmd.text, "text", "the terms as agreed", limit=1000),
                        payouts=cmd.payouts, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def close_deal_talk(conduct: ConductState, cmd: CloseDealTalk) -> DealTalkClosed:
    need_role(cmd.role, ("rep", "td"), "close deal talk")
    if conduct.deal_talk is None:
        raise IllegalAction("no deal talk is open", field="type")
    if cmd.outcome not in OUTCOMES:
        raise BadCommand("outcome must be deal or no_deal", field="outcome")
    if cmd.outcome == "deal" and not any(d.at_ms >= conduct.deal_talk.at_ms for d in conduct.deals):
        raise IllegalAction("report the deal first: all deals are reported to media", field="outcome")
    return DealTalkClosed(rep=conduct.deal_talk.rep, outcome=cmd.outcome, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def apply_conduct(conduct: ConductState, event) -> ConductState:
    if isinstance(event, EscortCheckedOut):
        return replace(conduct, out=conduct.out + (Escort(event.player, event.escort, event.where, event.at_ms),))
    if isinstance(event, EscortCheckedIn):
        return replace(conduct, out=tuple(e for e in conduct.out if e.player != event.player),
                       trips=conduct.trips + (event,))
    if isinstance(event, DealTalkOpened):
        return replace(conduct, deal_talk=event)
    if isinstance(event, DealReported):
        return replace(conduct, deals=conduct.deals + (event,))
    if isinstance(event, DealTalkClosed):
        return replace(conduct, deal_talk=None)
    return conduct
