"""The compliance core: ``decide(state, command, facts) -> events`` and ``apply(state, event)``.

Compliance events share the table's journal with the hand events. ``apply`` folds both
kinds: its own, and the few engine events that scope compliance state (a deal starts a
new hand for the camera rules and the hand-for-hand count; a hand's end stops HALT PLAY
and any called clock). ``replay`` rebuilds the state from a whole journal.

The core also calls three hooks around the table's own ``decide``:

* ``deal_in_blockers`` / ``check_deal_in`` before ``StartHand`` (the go-live gate:
  devices, branding, hand-for-hand), and ``seating_blockers`` when a player is seated;
* ``before_action`` before a betting action is taken (a called clock, HALT PLAY);
* ``before_runout`` before tabled cards or the board (a called all-in frozen for hand-for-hand);
* ``after_table`` after the table's events are applied (HALT PLAY due for the actor).

Pure: no clock, randomness or I/O; times arrive in the commands as ``at_ms``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.engine.errors import BadCommand
from broadcast.engine.events import Event, HandEnded, HandStarted, MisdealDeclared, PenaltyIssued

from . import alerts, branding, camera, clock, conduct, devices, field
from . import commands as c
from .audit import AuditEntry, audit_entry
from .config import ComplianceConfig
from .errors import Blocker, NotCleared
from .events import AlertAcknowledged, ClockExpired, event_from_dict
from .facts import TableFacts
from .violations import Violations, apply_violation, rule_on_violation


@dataclass(frozen=True)
class ComplianceState:
    seq: int = 0
    devices: devices.DeviceLedger = devices.DeviceLedger()
    camera: camera.CameraState = camera.CameraState()
    conduct: conduct.ConductState = conduct.ConductState()
    branding: branding.BrandingState = branding.BrandingState()
    called_clock: clock.CalledClock | None = None
    level_clock: clock.LevelClock = clock.LevelClock()
    field: field.FieldData = field.FieldData()
    violations: Violations = Violations()
    audit: tuple[AuditEntry, ...] = ()
    acknowledged: tuple[AlertAcknowledged, ...] = ()  # alerts seen, while they stay open

    @property
    def final_table(self) -> bool:
        return self.branding.final_table_bare is not None


# -- decide ---------------------------------------------------------------------------------
def decide(state: ComplianceState, command: c.Command, facts: TableFacts,
           config: ComplianceConfig = ComplianceConfig()) -> tuple[Event, ...]:
    """Rule on a compliance command: the events it causes, or a ``Refusal`` naming the field."""
    cmd = command
    match cmd:
        case c.SurrenderDevices():
            return (devices.surrender_devices(state.devices, cmd),)
        case c.ReturnDevices():
            return (devices.return_devices(state.devices, cmd),)
        case c.OverrideDeviceGate():
            return (devices.override_gate(state.devices, cmd),)
        case c.ReportDevice():
            return devices.device_found(state.devices, state.violations, facts, cmd)
        case c.ConfirmCardsShown():
            return camera.cards_shown(state.camera, facts, cmd)
        case c.DeclareBlind():
            return camera.declare_blind(state.camera, facts, cmd)
        case c.ClearHalt():
            return (camera.clear_halt(state.camera, facts, cmd),)
        case c.RefuseToShow():
            return (camera.refuse_to_show(state.violations, facts, config, state.final_table, cmd),)
        case c.CameraCheck():
            return (camera.camera_check(state.camera, facts, cmd),)
        case c.ClearCameraCheck():
            return (camera.clear_camera_check(state.camera, cmd),)
        case c.AcknowledgeAlert():
            return (alerts.acknowledge(state, facts, cmd),)
        case c.LogViolation():
            return (conduct.log_violation(state.violations, facts, cmd),)
        case c.RuleOnViolation():
            return rule_on_violation(state.violations, cmd.violation, cmd.kind, cmd.count, cmd.reason,
                                     at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
        case c.CheckOut():
            return (conduct.check_out(state.conduct, cmd),)
        case c.CheckIn():
            return (conduct.check_in(state.conduct, cmd),)
        case c.OpenDealTalk():
            return (conduct.open_deal_talk(state.conduct, facts, state.final_table, cmd),)
        case c.ReportDeal():
            return (conduct.report_deal(state.conduct, facts, cmd),)
        case c.CloseDealTalk():
            return (conduct.close_deal_talk(state.conduct, cmd),)
        case c.InspectLogos():
            return (branding.inspect_logos(cmd),)
        case c.DeclareSponsor():
            return (branding.declare_sponsor(state.branding, config, cmd),)
        case c.StartEvent():
            return (branding.start_event(state.branding, cmd),)
        case c.StartFinalTable():
            return (branding.start_final_table(state.branding, facts, cmd),)
        case c.DecideLogoKeepers():
            return (branding.decide_keepers(state.branding, config, state.field, cmd),)
        case c.HighCardDraw():
            return (branding.high_card_draw(state.branding, config, state.field, cmd),)
        case c.CallClock():
            return (clock.call_clock(state.called_clock, facts, cmd, config),)
        case c.ExpireClock():
            return (clock.expire_clock(state.called_clock, config, cmd),)
        case c.CancelClock():
            return (clock.cancel_clock(state.called_clock, cmd),)
        case (c.StartLevelClock() | c.PauseLevelClock() | c.ResumeLevelClock() | c.AdjustLevelClock()
              | c.SetClockLevel() | c.StartBreak() | c.EndBreak()):
            return (clock.level_clock(state.level_clock, facts.level_minutes, cmd),)
        case c.SetHandForHand() | c.ReleaseHandForHand():
            return (clock.hand_for_hand(state.level_clock, facts, cmd),)
        case c.ReleaseAllIn():
            return (clock.release_all_in(state.level_clock, facts, cmd),)
        case c.SetFieldData():
            return (field.set_field_data(cmd),)
    raise BadCommand(f"unknown command {type(cmd).__name__}", field="type")


# -- hooks the core calls around the table --------------------------------------------------
def _tv_players(facts: TableFacts, extra: str = "") -> tuple[str, ...]:
    players = tuple(s.player for s in facts.seats)
    return players + ((extra,) if extra and extra not in players else ())


def seating_blockers(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, player: str,
                     seat: int | None = None, name: str = "") -> tuple[Blocker, ...]:
    """May this player take a seat at the TV table? (devices surrendered, branding compliant)"""
    tv = _tv_players(facts, player)
    out = [devices.go_live_gate(state.devices, player, seat, name),
           branding.branding_gate(state.branding, config, state.field, player, seat, name, tv)]
    return tuple(b for b in out if b)


def deal_in_blockers(state: ComplianceState, facts: TableFacts, config: ComplianceConfig = ComplianceConfig()) -> tuple[Blocker, ...]:
    """Everything that stops the next deal: checked at every hand, so at every seating."""
    out: list[Blocker] = []
    for s in facts.seats:
        out += seating_blockers(state, facts, config, s.player, s.seat, s.name)
    gate = clock.hand_for_hand_gate(state.level_clock)
    return tuple(out + ([gate] if gate else []))


def check_deal_in(state: ComplianceState, facts: TableFacts, config: ComplianceConfig = ComplianceConfig()) -> None:
    """Refuse the deal (``NotCleared``) while any seat may not be dealt in."""
    blockers = deal_in_blockers(state, facts, config)
    if blockers:
        raise NotCleared("no deal yet: " + " | ".join(b.message for b in blockers),
                         field="seat" if blockers[0].seat else "type", blockers=blockers)


def check_hand_for_hand(state: ComplianceState) -> None:
    """At a table without the TV-table rules, only hand-for-hand stops the next deal
    (``NotCleared`` naming ``type``): it is the whole tournament's rule."""
    gate = clock.hand_for_hand_gate(state.level_clock)
    if gate:
        raise NotCleared("no deal yet: " + gate.message, field="type", blockers=(gate,))


def before_action(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, seat: int, at_ms: int,
                  *, by: str = "", role: str = "dealer", tv_rules: bool = True) -> tuple[Event, ...]:
    """Called before the table takes a betting action by ``seat`` at ``at_ms``.

    Returns the compliance events to journal first. If they include ``ClockExpired`` the
    player acted too late: the hand is dead and the action must not be taken (the core
    kills the hand with the engine's ``KillHand``). Otherwise the action is taken, even
    under HALT PLAY (it physically happened), and the events record it. Without
    ``tv_rules`` only the called clock applies (it is every table's rule).
    """
    timed = clock.clock_on_action(state.called_clock, config, seat, at_ms)
    if any(isinstance(e, ClockExpired) for e in timed) or not tv_rules:
        return timed
    return timed + camera.action_entered(state.camera, state.violations, facts, config, seat, at_ms, by=by, role=role)


def before_runout(state: ComplianceState, facts: TableFacts) -> None:
    """Called before the dealer plays out a hand with nobody left to act (tabled cards, a muck,
    board cards): refused (``IllegalAction`` naming ``type``) while a called all-in is frozen
    for hand-for-hand."""
    clock.check_frozen(state.level_clock, facts)


def frozen(state: ComplianceState, facts: TableFacts) -> bool:
    """Hand-for-hand: this table's called all-in waits for the TD (console and rep show the hold)."""
    return clock.all_in_frozen(state.level_clock, facts)


def action_allowed(events: tuple[Event, ...]) -> bool:
    return not any(isinstance(e, ClockExpired) for e in events)


def after_table(state: ComplianceState, facts: TableFacts, config: ComplianceConfig, at_ms: int) -> tuple[Event, ...]:
    """Called after the table's events are applied: HALT PLAY due now."""
    return camera.halts_due(state.camera, facts, config, at_ms)


def hold(state: ComplianceState, facts: TableFacts, config: ComplianceConfig = ComplianceConfig()) -> tuple[int, ...]:
    """The halted seats the dealer console must hold the action for (empty: play on)."""
    return camera.action_on_hold(state.camera, facts, config)


# -- apply ----------------------------------------------------------------------------------
def apply(state: ComplianceState, event: Event, *, seq: int | None = None, ts: int | None = None) -> ComplianceState:
    """Fold one journal event (compliance or engine) into the state."""
    seq = state.seq + 1 if seq is None else seq
    state = replace(state, seq=seq)
    if isinstance(event, HandStarted):
        return replace(state, camera=camera.new_hand(state.camera, event.hand), called_clock=None,
                       level_clock=clock.hand_dealt(state.level_clock, event.hand))
    if isinstance(event, (HandEnded, MisdealDeclared)):
        return replace(state, camera=camera.hand_over(state.camera), called_clock=None)
    entry = audit_entry(event, seq)
    if isinstance(event, PenaltyIssued) and state.audit and state.audit[-1].seq == seq - 1 \
            and state.audit[-1].what.startswith("violation ") and state.audit[-1].by == event.issued_by:
        entry = None  # the penalty of the ruling just logged: one line is enough
    if entry is not None:
        if not entry.at_ms and ts:
            entry = replace(entry, at_ms=ts)
        state = replace(state, audit=state.audit + (entry,))
    if isinstance(event, AlertAcknowledged):
        state = replace(state, acknowledged=state.acknowledged + (event,))
    return replace(
        state,
        devices=devices.apply_devices(state.devices, event),
        camera=camera.apply_camera(state.camera, event),
        conduct=conduct.apply_conduct(state.conduct, event),
        branding=branding.apply_branding(state.branding, event),
        called_clock=clock.apply_called_clock(state.called_clock, event),
        level_clock=clock.apply_level_clock(state.level_clock, event),
        field=field.apply_field(state.field, event),
        violations=apply_violation(state.violations, event),
    )


def replay(journal: list[tuple[int, Event | dict]]) -> ComplianceState:
    """The state after a whole journal of ``(seq, event)`` pairs (events or their wire form)."""
    state = ComplianceState()
    for seq, event in journal:
        if isinstance(event, dict):
            event = event_from_dict(event)
        state = apply(state, event, seq=seq)
    return state
