"""The penalty ledger: the one owner of penalties.

Compliance rules raise violations; the ledger proposes the penalty (the ladder) and
records what the floor issues. Penalties belong to the player's stable id, so they move
with the player across tables and days. Pure: the table passes in who is dealt in.

Kinds, lightest first: verbal warning, missed hands, missed orbits (an orbit is one hand
per player at the table), dead hand, elimination, disqualification; and, beyond the
event, a ban from the event or exclusion from all events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import BadCommand

KINDS = (
    "verbal_warning",
    "missed_hands",
    "missed_orbits",
    "dead_hand",
    "elimination",
    "disqualification",
    "event_ban",
    "all_events_exclusion",
)
COUNTED = ("missed_hands", "missed_orbits")

# Violations the rule book names as grounds for disqualification outright.
SEVERE = {"device_at_tv_table", "refusal_at_hidden_camera"}


@dataclass(frozen=True)
class Penalty:
    """One penalty issued to a player (by stable id)."""

    player: str
    kind: str
    count: int  # hands or orbits for the missed-hand kinds, else 0
    reason: str
    rule: str
    issued_by: str


@dataclass(frozen=True)
class Ledger:
    """Every penalty issued so far and the hands each player still has to sit out."""

    penalties: tuple[Penalty, ...] = ()
    sitting_out: tuple[tuple[str, int], ...] = ()  # (player, hands left to miss)

    def hands_left(self, player: str) -> int:
        return dict(self.sitting_out).get(player, 0)

    def history(self, player: str) -> tuple[Penalty, ...]:
        return tuple(p for p in self.penalties if p.player == player)


def check_penalty(kind: str, count: int) -> None:
    """Refuse a malformed penalty, naming the field."""
    if kind not in KINDS:
        raise BadCommand(f"kind must be one of {', '.join(KINDS)}", field="kind")
    if kind in COUNTED and count < 1:
        raise BadCommand(f"{kind.replace('_', ' ')} needs a count of at least 1", field="count")


def issue(ledger: Ledger, penalty: Penalty, *, players_at_table: int) -> Ledger:
    """Record a penalty; missed hands and orbits start counting from the next deal."""
    check_penalty(penalty.kind, penalty.count)
    hands = penalty.count * (players_at_table if penalty.kind == "missed_orbits" else 1)
    sitting = dict(ledger.sitting_out)
    if penalty.kind in COUNTED:
        sitting[penalty.player] = sitting.get(penalty.player, 0) + hands
    return replace(ledger, penalties=ledger.penalties + (penalty,), sitting_out=tuple(sorted(sitting.items())))


def carry(ledger: Ledger, penalties: tuple[Penalty, ...], player: str, hands_left: int) -> Ledger:
    """A player arrives with the record kept at another table (or day): their penalties join
    this ledger (so the ladder goes on), and the hands still to sit out replace any count
    this table kept from an earlier stay (the register's count is the later one)."""
    known = set(ledger.penalties)
    sitting = dict(ledger.sitting_out)
    sitting.pop(player, None)
    if hands_left > 0:
        sitting[player] = hands_left
    return replace(ledger, penalties=ledger.penalties + tuple(p for p in penalties if p not in known),
                   sitting_out=tuple(sorted(sitting.items())))


def record(ledger: Ledger, player: str) -> dict:
    """A player's record as the field's penalty register keeps it (JSON-ready)."""
    return {"penalties": [p.__dict__.copy() for p in ledger.history(player)], "hands_left": ledger.hands_left(player)}


def hand_dealt(ledger: Ledger, players: tuple[str, ...]) -> tuple[Ledger, tuple[str, ...]]:
    """A hand was dealt to ``players``: returns the ledger and the players whose hands are killed.

    A player on a missed-hand penalty is dealt in and posts, and the hand is killed; the
    hand counts against the penalty (a misdeal's re-deal is the same hand: don't call twice).
    """
    sitting = dict(ledger.sitting_out)
    killed = tuple(p for p in players if sitting.get(p, 0) > 0)
    for p in killed:
        sitting[p] -= 1
        if not sitting[p]:
            del sitting[p]
    return replace(ledger, sitting_out=tuple(sorted(sitting.items()))), killed


def propose(ledger: Ledger, player: str, violation: str) -> tuple[str, int]:
    """The ladder: the penalty a violation calls for, given the player's record.

    Warning, then one missed hand, one orbit, three orbits, then disqualification, which
    the tournament director confirms or decides otherwise ("subject to the discretion of
    the Tournament's director"). Some violations go straight to disqualification.
    """
    if violation in SEVERE:
        return ("disqualification", 0)
    ladder = (("verbal_warning", 0), ("missed_hands", 1), ("missed_orbits", 1), ("missed_orbits", 3), ("disqualification", 0))
    previous = len(ledger.history(player))
    return ladder[min(previous, len(ladder) - 1)]
