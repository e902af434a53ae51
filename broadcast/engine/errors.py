"""The typed refusals of the pure core.

Every refusal carries the field it is about and a sentence a dealer, a rep or an
operator can act on, in the poker room's words::

    Refusal                      anything the core will not do
    ├── BadCommand               a command that is malformed (names the field)
    ├── NoHandInProgress         an action with no hand dealt
    ├── HandInProgress           a new hand while one is running
    ├── NotYourTurn              a seat acting out of turn
    ├── IllegalAction            an action the rules forbid, with the legal range
    ├── CardConflict             a card already seen elsewhere in the hand
    └── NothingToUndo            an undo with nothing left to correct

Messages never name a hole card: an error may be shown on a live screen.
"""

from __future__ import annotations


class Refusal(Exception):
    """The core refused a command; ``field`` names what was wrong, ``reason`` why."""

    code = "refused"

    def __init__(self, reason: str, *, field: str | None = None, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field
        self.rule = rule  # the rule book's name for the rule applied, when one is

    def to_dict(self) -> dict:
        """The wire form: ``{"error": code, "field": ..., "message": ..., "rule": ...}``."""
        out = {"error": self.code, "field": self.field, "message": self.reason}
        if self.rule:
            out["rule"] = self.rule
        return out


class BadCommand(Refusal):
    code = "bad_command"


class NoHandInProgress(Refusal):
    code = "no_hand"


class HandInProgress(Refusal):
    code = "hand_in_progress"


class NotYourTurn(Refusal):
    code = "not_your_turn"


class IllegalAction(Refusal):
    code = "illegal_action"


class CardConflict(Refusal):
    code = "card_conflict"


class NothingToUndo(Refusal):
    code = "nothing_to_undo"


def chips(amount: int) -> str:
    """Chip amounts as the room says them: ``1,200``."""
    return f"{amount:,}"
