"""Electronic devices at the TV table (rule book: "Final Table", "Electronic Devices").

    "any player who plays at a TV Table during any Tournament must surrender any and all
    electronic devices (whether they have a messaging or communication capability or not)
    to an appointed tournament representative prior to taking their seat before play
    begins. Any player found in violation of this rule will be immediately disqualified
    from the Tournament and all such player's monies accrued up to the time of
    disqualification, and such player's Main Tournament buy-in, will be forfeited subject
    to the discretion of the Tournament's director."

    "There will be no electronic devices permitted on any Featured Televised Tables or
    Main Event Final Tables."

Three rules here: the surrender ledger (what, to which rep, when, which bag or locker);
the go-live gate, checked at every seating (no surrender, no deal-in, unless a rep
overrides it in writing); and a device found during play, which raises the violation
``device_at_tv_table`` for the ledger (which proposes disqualification; the TD rules).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.engine.errors import BadCommand

from .commands import OverrideDeviceGate, ReportDevice, ReturnDevices, SurrenderDevices
from .errors import Blocker, need_role, need_text
from .events import DeviceFound, DeviceGateOverridden, DevicesReturned, DevicesSurrendered, ViolationRecorded
from .facts import TableFacts
from .violations import Violations, raise_violation


@dataclass(frozen=True)
class Surrender:
    """One hand-over: what, to which rep, when, where it is kept."""

    player: str
    items: tuple[str, ...]
    rep: str
    bag: str
    at_ms: int
    returned_ms: int | None = None


@dataclass(frozen=True)
class Override:
    player: str
    reason: str
    by: str
    at_ms: int


@dataclass(frozen=True)
class DeviceLedger:
    surrenders: tuple[Surrender, ...] = ()
    overrides: tuple[Override, ...] = ()  # standing overrides (until a surrender or a return)
    found: tuple[DeviceFound, ...] = ()

    def held(self, player: str) -> tuple[Surrender, ...]:
        """What the reps hold for the player now."""
        return tuple(s for s in self.surrenders if s.player == player and s.returned_ms is None)

    def surrendered(self, player: str) -> bool:
        return bool(self.held(player))

    def override(self, player: str) -> Override | None:
        return next((o for o in self.overrides if o.player == player), None)


# -- rule: the surrender ledger -------------------------------------------------------------
def surrender_devices(ledger: DeviceLedger, cmd: SurrenderDevices) -> DevicesSurrendered:
    """Record a hand-over. An empty list records that the player declared carrying none."""
    need_role(cmd.role, ("rep", "td"), "take a player's devices")
    rep = cmd.rep or cmd.by
    need_text(rep, "rep", "the appointed representative who took the devices")
    if cmd.items and not cmd.bag:
        raise BadCommand("bag is required: the bag or locker number the devices are kept in", field="bag")
    return DevicesSurrendered(player=cmd.player, items=cmd.items, rep=rep, bag=cmd.bag,
                              at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def return_devices(ledger: DeviceLedger, cmd: ReturnDevices) -> DevicesReturned:
    """The player leaves the TV table and gets the devices back; the gate closes again."""
    need_role(cmd.role, ("rep", "td"), "hand devices back")
    if not ledger.surrendered(cmd.player):
        raise BadCommand(f"{cmd.player} has nothing in the reps' keeping", field="player")
    return DevicesReturned(player=cmd.player, rep=cmd.by, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


# -- rule: the go-live gate -----------------------------------------------------------------
def override_gate(ledger: DeviceLedger, cmd: OverrideDeviceGate) -> DeviceGateOverridden:
    """A rep lets a seat be dealt in without a recorded surrender: only with a written reason."""
    need_role(cmd.role, ("rep", "td"), "override the device check")
    if ledger.surrendered(cmd.player):
        raise BadCommand(f"{cmd.player} has surrendered: there is nothing to override", field="player")
    reason = need_text(cmd.reason, "reason", "write why this player may sit without surrendering")
    if len(reason) < 8:
        raise BadCommand("reason must say why in a few words (it goes in the audit log)", field="reason")
    return DeviceGateOverridden(player=cmd.player, reason=reason, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def go_live_gate(ledger: DeviceLedger, player: str, seat: int | None, name: str = "") -> Blocker | None:
    """Checked at every seating: may this player be dealt in at the TV table?"""
    if ledger.surrendered(player) or ledger.override(player):
        return None
    who = f"seat {seat} ({name or player})" if seat else (name or player)
    return Blocker(seat, player, "devices",
                   f"{who} has not surrendered electronic devices to a rep: no deal-in at the TV table")


# -- rule: a device found during play -------------------------------------------------------
def device_found(ledger: DeviceLedger, vs: Violations, facts: TableFacts, cmd: ReportDevice) -> tuple[DeviceFound, ViolationRecorded]:
    """The rep records the finding; the ledger proposes disqualification, the TD rules."""
    need_role(cmd.role, ("rep", "td"), "report a device found at the TV table")
    seat = facts.seat_of(cmd.player)
    hand = facts.hand if facts.in_hand else None
    found = DeviceFound(player=cmd.player, item=cmd.item, seat=seat.seat if seat else None, hand=hand, note=cmd.note,
                        at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
    violation = raise_violation(vs, facts.ledger, cmd.player, "device_at_tv_table", seat=found.seat, hand=hand,
                                note=f"{cmd.item}" + (f": {cmd.note}" if cmd.note else ""),
                                at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)
    return found, violation


def apply_devices(ledger: DeviceLedger, event) -> DeviceLedger:
    if isinstance(event, DevicesSurrendered):
        s = Surrender(event.player, event.items, event.rep, event.bag, event.at_ms)
        return replace(ledger, surrenders=ledger.surrenders + (s,),
                       overrides=tuple(o for o in ledger.overrides if o.player != event.player))
    if isinstance(event, DevicesReturned):
        surrenders = tuple(replace(s, returned_ms=event.at_ms) if s.player == event.player and s.returned_ms is None
                           else s for s in ledger.surrenders)
        return replace(ledger, surrenders=surrenders,
                       overrides=tuple(o for o in ledger.overrides if o.player != event.player))
    if isinstance(event, DeviceGateOverridden):
        o = Override(event.player, event.reason, event.by, event.at_ms)
        return replace(ledger, overrides=tuple(x for x in ledger.overrides if x.player != event.player) + (o,))
    if isinstance(event, DeviceFound):
        return replace(ledger, found=ledger.found + (event,))
    return ledger
