"""Cards to the camera (rule book: "Final Table", "Televised Feature Tables and Hole Cards",
"Filming and Image Rights").

    "players might be required to show their hole cards to the hole card cameras on the
    TV Table on each hand they are dealt, unless the player has declared that they are
    playing the hand 'blind'. Pokerfest, or the affiliate, shall have the right to halt
    play, within reason, on the TV Table until all hole cards are displayed by all
    players in play."

    "any refusal to do so could lead to disqualification from the Event with no prize
    money being awarded and no refunds given" (the hidden camera at the final table)

A seat counts as shown on the camera's ``HoleCardsShown`` signal or a rep's manual
confirmation: showing, not identification, so glare never halts play. This module never
sees a card; a camera check names the seat only ("seat 4: camera check").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.engine.errors import BadCommand

from .commands import CameraCheck, ClearCameraCheck, ClearHalt, ConfirmCardsShown, DeclareBlind, RefuseToShow
from .config import ComplianceConfig
from .errors import need_role, need_text
from .events import (
    CameraCheckCleared,
    CameraCheckRaised,
    HaltCleared,
    HaltIgnored,
    HaltRaised,
    HoleCardsShown,
    PlayingBlind,
    ViolationRecorded,
)
from .facts import TableFacts
from .violations import Violations, raise_violation

SOURCES = ("camera", "rep")


@dataclass(frozen=True)
class CameraState:
    """This hand's card lights and HALT PLAY, plus the open camera checks."""

    hand: int = 0
    shown: frozenset[int] = frozenset()
    blind: frozenset[int] = frozenset()
    halted: tuple[int, ...] = ()  # seats under HALT PLAY, in the order raised
    cleared: frozenset[int] = frozenset()  # a rep cleared the seat this hand: no new halt
    checks: tuple[CameraCheckRaised, ...] = ()  # open camera checks
    checks_raised: int = 0

    def for_hand(self, hand: int) -> "CameraState":
        """The state for ``hand``: a new hand starts with no lights and no halts."""
        if hand == self.hand:
            return self
        return CameraState(hand=hand, checks=self.checks, checks_raised=self.checks_raised)

    def light(self, seat: int) -> str:
        """The rep's card light: shown, blind, halt or waiting."""
        if seat in self.blind:
            return "blind"
        if seat in self.shown:
            return "shown"
        if seat in self.halted:
            return "halt"
        return "waiting"


def needs_showing(cam: CameraState, facts: TableFacts, seat: int) -> bool:
    """A dealt-in seat, still holding live cards, that has neither shown them nor declared blind."""
    cam = cam.for_hand(facts.hand)
    return (facts.in_hand and seat in facts.dealt and seat in facts.live and seat not in facts.killed
            and seat not in cam.shown and seat not in cam.blind and seat not in cam.cleared)


def _current_hand(facts: TableFacts, seat: int, hand: int | None = None) -> None:
    if not facts.in_hand:
        raise BadCommand("no hand is being played", field="seat")
    if hand is not None and hand != facts.hand:
        raise BadCommand(f"hand {hand} is not the hand being played (hand {facts.hand})", field="hand")
    if seat not in facts.dealt:
        raise BadCommand(f"seat {seat} is not dealt in to hand {facts.hand}", field="seat")


def _cleared(cam: CameraState, facts: TableFacts, seat: int, cause: str, cmd, reason: str = "") -> tuple[HaltCleared, ...]:
    if seat not in cam.for_hand(facts.hand).halted:
        return ()
    return (HaltCleared(hand=facts.hand, seat=seat, cause=cause, reason=reason, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role),)


# -- rule: cards shown to the camera each hand ----------------------------------------------
def cards_shown(cam: CameraState, facts: TableFacts, cmd: ConfirmCardsShown) -> tuple:
    """The camera's ``HoleCardsShown`` or a rep's confirmation; repeats are ignored."""
    if cmd.source not in SOURCES:
        raise BadCommand("source must be camera or rep", field="source")
    need_role(cmd.role, ("rep", "td") if cmd.source == "rep" else ("camera", "secure"),
              "confirm cards shown" if cmd.source == "rep" else "send the camera's signal")
    _current_hand(facts, cmd.seat, cmd.hand)
    now = cam.for_hand(facts.hand)
    if cmd.seat in now.shown:
        return ()
    shown = HoleCardsShown(hand=facts.hand, seat=cmd.seat, source=cmd.source, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
    return (shown, *_cleared(cam, facts, cmd.seat, "shown", cmd))


# -- rule: playing blind --------------------------------------------------------------------
def declare_blind(cam: CameraState, facts: TableFacts, cmd: DeclareBlind) -> tuple:
    """The player plays the hand blind: recorded, on air as "playing blind", exempt from showing."""
    need_role(cmd.role, ("rep", "dealer", "td"), "record a blind declaration")
    _current_hand(facts, cmd.seat)
    now = cam.for_hand(facts.hand)
    if cmd.seat in now.blind:
        return ()
    if cmd.seat in now.shown:
        raise BadCommand(f"seat {cmd.seat} has already shown the cards to the camera this hand", field="seat")
    blind = PlayingBlind(hand=facts.hand, seat=cmd.seat, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
    return (blind, *_cleared(cam, facts, cmd.seat, "blind", cmd))


# -- rule: HALT PLAY ------------------------------------------------------------------------
def halts_due(cam: CameraState, facts: TableFacts, config: ComplianceConfig, at_ms: int) -> tuple[HaltRaised, ...]:
    """HALT PLAY when the action reaches an unshown seat (or, with ``halt_at = "first_action"``,
    at the hand's first action for every unshown seat). The core calls this after every
    change to the table."""
    if not facts.in_hand or facts.actor is None:
        return ()
    now = cam.for_hand(facts.hand)
    due = [facts.actor] if needs_showing(now, facts, facts.actor) else []
    if config.halt_at == "first_action" and facts.actions == 0:
        due += [s for s in facts.dealt if s != facts.actor and needs_showing(now, facts, s)]
    return tuple(HaltRaised(hand=facts.hand, seat=s, at_ms=at_ms, by="", role="system",
                            message=f"HALT PLAY: {facts.label(s)} has not shown the cards to the camera")
                 for s in due if s not in now.halted)


def action_on_hold(cam: CameraState, facts: TableFacts, config: ComplianceConfig) -> tuple[int, ...]:
    """The halted seats that hold the actor's action now (the console asks the dealer to hold)."""
    now = cam.for_hand(facts.hand)
    if not facts.in_hand or not now.halted:
        return ()
    if config.halt_at == "first_action" and facts.actions == 0:
        return now.halted
    return (facts.actor,) if facts.actor in now.halted else ()


def action_entered(cam: CameraState, vs: Violations, facts: TableFacts, config: ComplianceConfig, seat: int,
                   at_ms: int, by: str = "", role: str = "dealer") -> tuple:
    """An action was entered anyway: it physically happened, so the table records it; this
    records that HALT PLAY was ignored and, when the acting seat itself had not shown,
    the violation ``cards_not_shown_to_camera`` for the ladder."""
    now = cam.for_hand(facts.hand)
    holding = action_on_hold(cam, facts, config)
    unshown = needs_showing(now, facts, seat)
    if not holding and not unshown:
        return ()
    events: list = [HaltIgnored(hand=facts.hand, seat=seat, halted=holding or (seat,), at_ms=at_ms, by=by, role=role)]
    if unshown:
        events.append(raise_violation(vs, facts.ledger, facts.player_at(seat), "cards_not_shown_to_camera",
                                      seat=seat, hand=facts.hand, note="acted under HALT PLAY",
                                      at_ms=at_ms, by=by, role=role))
    return tuple(events)


def clear_halt(cam: CameraState, facts: TableFacts, cmd: ClearHalt) -> HaltCleared:
    """A rep clears HALT PLAY for a seat (reason audited); no new halt for it this hand."""
    need_role(cmd.role, ("rep", "td"), "clear HALT PLAY")
    if cmd.seat not in cam.for_hand(facts.hand).halted:
        raise BadCommand(f"seat {cmd.seat} is not under HALT PLAY", field="seat")
    return HaltCleared(hand=facts.hand, seat=cmd.seat, cause="rep", reason=need_text(cmd.reason, "reason", "why play may go on"),
                       at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: refusing to show -----------------------------------------------------------------
def refuse_to_show(vs: Violations, facts: TableFacts, config: ComplianceConfig, final_table: bool,
                   cmd: RefuseToShow) -> ViolationRecorded:
    """A refusal goes to the ladder; at the final table's hidden camera it is grounds for
    disqualification with no prize money and no refund."""
    need_role(cmd.role, ("rep", "td"), "record a refusal to show cards")
    _current_hand(facts, cmd.seat)
    code = "refusal_at_hidden_camera" if final_table and config.hidden_camera else "refusal_to_show_cards"
    return raise_violation(vs, facts.ledger, facts.player_at(cmd.seat), code, seat=cmd.seat, hand=facts.hand,
                           note=cmd.note, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- camera checks (duplicate or impossible reads) ------------------------------------------
def camera_check(cam: CameraState, facts: TableFacts, cmd: CameraCheck) -> CameraCheckRaised:
    """Which seats need a look. Never which card: that stays in the secure room."""
    need_role(cmd.role, ("camera", "secure"), "raise a camera check")
    if not cmd.seats and not cmd.board:
        raise BadCommand("name the seats (or the board) to check", field="seats")
    names = [f"seat {s}" for s in cmd.seats] + (["board"] if cmd.board else [])
    return CameraCheckRaised(alert=cam.checks_raised + 1, hand=facts.hand, seats=tuple(cmd.seats), board=cmd.board,
                             message="; ".join(f"{n}: camera check" for n in names),
                             at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def clear_camera_check(cam: CameraState, cmd: ClearCameraCheck) -> CameraCheckCleared:
    need_role(cmd.role, ("rep", "td", "secure"), "clear a camera check")
    if not any(c.alert == cmd.alert for c in cam.checks):
        raise BadCommand(f"there is no open camera check number {cmd.alert}", field="alert")
    return CameraCheckCleared(alert=cmd.alert, reason=cmd.reason, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def apply_camera(cam: CameraState, event) -> CameraState:
    hand = getattr(event, "hand", None)
    if isinstance(event, CameraCheckRaised):
        return replace(cam, checks=cam.checks + (event,), checks_raised=event.alert)
    if isinstance(event, CameraCheckCleared):
        return replace(cam, checks=tuple(c for c in cam.checks if c.alert != event.alert))
    if hand is None:
        return cam
    now = cam.for_hand(hand)
    if isinstance(event, HoleCardsShown):
        return replace(now, shown=now.shown | {event.seat})
    if isinstance(event, PlayingBlind):
        return replace(now, blind=now.blind | {event.seat})
    if isinstance(event, HaltRaised):
        return replace(now, halted=now.halted + (event.seat,))
    if isinstance(event, HaltCleared):
        cleared = now.cleared | {event.seat} if event.cause == "rep" else now.cleared
        return replace(now, halted=tuple(s for s in now.halted if s != event.seat), cleared=cleared)
    return cam


def new_hand(cam: CameraState, hand: int) -> CameraState:
    """A deal (or a misdeal's re-deal): every seat must show again."""
    return CameraState(hand=hand, checks=cam.checks, checks_raised=cam.checks_raised)


def hand_over(cam: CameraState) -> CameraState:
    """The hand ended: HALT PLAY has nothing left to hold."""
    return replace(cam, halted=())
