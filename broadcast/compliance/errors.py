"""Refusals the compliance rules add to the engine's tree (``broadcast.engine.errors``).

    Refusal
    ├── NotAllowed   the person's role may not make this decision (names ``role``)
    └── NotCleared   a seat may not be dealt in yet: devices, branding, hand-for-hand

Like every refusal, the message is in the poker room's words and never names a card.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.engine.errors import BadCommand, Refusal


class NotAllowed(Refusal):
    code = "not_allowed"


class NotCleared(Refusal):
    code = "not_cleared"

    def __init__(self, reason: str, *, field: str | None = "seat", blockers: tuple["Blocker", ...] = ()) -> None:
        super().__init__(reason, field=field)
        self.blockers = blockers

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["blockers"] = [b.to_dict() for b in self.blockers]
        return out


@dataclass(frozen=True)
class Blocker:
    """Why one seat (or the table) may not be dealt in now."""

    seat: int | None
    player: str
    gate: str  # devices, branding, hand_for_hand
    message: str

    def to_dict(self) -> dict:
        return {"seat": self.seat, "player": self.player, "gate": self.gate, "message": self.message}


def need_text(value: object, field: str, what: str, *, limit: int = 300) -> str:
    """A required piece of text, trimmed; refuse naming the field when it is missing."""
    if not isinstance(value, str) or not value.strip():
        raise BadCommand(f"{field} is required: {what}", field=field)
    return value.strip()[:limit]


def need_role(role: str, allowed: tuple[str, ...], what: str) -> None:
    if role not in allowed:
        who = " or ".join({"td": "the Tournament Director", "rep": "a tournament rep", "dealer": "the dealer",
                           "camera": "the card camera", "secure": "the secure card room"}.get(r, r) for r in allowed)
        raise NotAllowed(f"only {who} may {what}", field="role")
