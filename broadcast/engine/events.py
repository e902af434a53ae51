"""The events of a table's journal: what happened, in the order it happened.

Events are frozen values. Their wire form is a flat JSON object with a ``type``;
the journal adds the envelope (``seq``, ``ts``, ``delay``, ``command_id``).
Corrections are events too (``ActionUndone``): nothing is ever deleted.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form, with lists for tuples and string keys."""
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


@dataclass(frozen=True)
class SeatedPlayer:
    seat: int
    player: str
    name: str
    country: str
    stack: int


@dataclass(frozen=True)
class BlindLevel:
    small_blind: int
    big_blind: int
    ante: int
    minutes: int


@dataclass(frozen=True)
class TableOpened(Event):
    """The first event of every journal: who sits where, the game and the structure."""

    type: ClassVar[str] = "TableOpened"
    table: str
    game: str
    seats: tuple[SeatedPlayer, ...]
    levels: tuple[BlindLevel, ...]
    # Several short all-ins that together make a full raise: "tda" reopens the betting to a
    # player who already acted (TDA); "single" reopens it only for one full raise.
    short_all_ins: str = "tda"


@dataclass(frozen=True)
class LevelChanged(Event):
    """A new blind level; it applies from the next hand (rule "New Tournament Level")."""

    type: ClassVar[str] = "LevelChanged"
    level: int


@dataclass(frozen=True)
class HandStarted(Event):
    """A new hand: button placed, blinds and big-blind ante posted automatically."""

    type: ClassVar[str] = "HandStarted"
    hand: int
    button: int
    level: int
    small_blind: int
    big_blind: int
    ante: int
    seats: tuple[int, ...]  # dealt-in seats, first to the left of the button, button last
    stacks: tuple[int, ...]  # starting stacks, same order
    # Where the blinds are (rule "Dead Button"): the small blind's seat may be empty (a dead
    # small blind) and so may the button's. None in journals written before seats moved.
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None

    @property
    def small_blind_posted(self) -> bool:
        """False when the small blind is dead (its seat is empty or sits out)."""
        return self.small_blind_seat is None or self.small_blind_seat in self.seats


@dataclass(frozen=True)
class HoleCardsSet(Event):
    """A seat's hole cards as known now (``??`` for an unknown card)."""

    type: ClassVar[str] = "HoleCardsSet"
    hand: int
    seat: int
    cards: tuple[str, ...]
    source: str = "dealer"


@dataclass(frozen=True)
class BoardDealt(Event):
    """Flop (3 cards), turn or river (1 card)."""

    type: ClassVar[str] = "BoardDealt"
    hand: int
    street: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class ActionTaken(Event):
    """A betting action. ``amount`` is the seat's total bet on the street after it."""

    type: ClassVar[str] = "ActionTaken"
    hand: int
    seat: int
    action: str  # fold, check, call, bet, raise, allin
    amount: int = 0
    all_in: bool = False


@dataclass(frozen=True)
class ChipsRuled(Event):
    """What the dealer saw pushed out or heard, and how the rule book reads it."""

    type: ClassVar[str] = "ChipsRuled"
    hand: int
    seat: int
    chips: tuple[int, ...]
    declared: str
    action: str
    amount: int
    rule: str
    note: str
    flagged: bool = False


@dataclass(frozen=True)
class ConditionalStatement(Event):
    """Rule "Conditional Statements": recorded and flagged; binding at the TD's discretion."""

    type: ClassVar[str] = "ConditionalStatement"
    hand: int
    seat: int
    text: str


@dataclass(frozen=True)
class ActionUndone(Event):
    """Corrects a mis-keyed entry: the event at ``undone_seq`` no longer counts."""

    type: ClassVar[str] = "ActionUndone"
    hand: int
    undone_seq: int
    reason: str = ""


@dataclass(frozen=True)
class MisdealDeclared(Event):
    """Rule "Misdeals": the hand is void; the re-deal is an exact re-play (same button, same limits)."""

    type: ClassVar[str] = "MisdealDeclared"
    hand: int
    reason: str


@dataclass(frozen=True)
class HandEnded(Event):
    """The hand is over live: pots awarded, stacks settled."""

    type: ClassVar[str] = "HandEnded"
    hand: int
    pots: tuple[dict, ...]  # {"amount": n, "winners": {seat: share}}
    stacks: dict  # seat -> stack after the hand
    shown: dict = field(default_factory=dict)  # seat -> cards tabled at showdown


@dataclass(frozen=True)
class PlayerEliminated(Event):
    """A player is out: finishing place and who eliminated them (the main pot's winners).

    ``how`` is "busted", "elimination penalty" (chips removed; the player takes, and is
    paid for, the place it equals) or "disqualified" (chips removed from play, no prize;
    ``place`` is 0). ``name`` keeps the name on air after the seat is empty."""

    type: ClassVar[str] = "PlayerEliminated"
    hand: int
    seat: int
    player: str
    place: int
    eliminated_by: tuple[str, ...]
    how: str = "busted"
    name: str = ""
    tied: int = 1  # players sharing the place (and splitting its prize money)

    @property
    def paid(self) -> bool:
        """Whether the place is paid: never after a disqualification."""
        return self.how != "disqualified"


@dataclass(frozen=True)
class PenaltyIssued(Event):
    """A penalty from the ledger, issued by the floor (by the player's stable id)."""

    type: ClassVar[str] = "PenaltyIssued"
    player: str
    kind: str
    count: int
    reason: str
    rule: str
    issued_by: str


@dataclass(frozen=True)
class HandKilled(Event):
    """A seat's hand is dead (a missed-hand penalty: dealt in, posts, hand killed)."""

    type: ClassVar[str] = "HandKilled"
    hand: int
    seat: int
    reason: str


@dataclass(frozen=True)
class OutOfTurnRecorded(Event):
    """An action out of turn: binding if the action to that seat has not changed by its turn."""

    type: ClassVar[str] = "OutOfTurnRecorded"
    hand: int
    seat: int
    action: str
    amount: int | None = None


@dataclass(frozen=True)
class OutOfTurnReturned(Event):
    """The action changed before the seat's turn: the out-of-turn action is returned and
    the player's options are restored."""

    type: ClassVar[str] = "OutOfTurnReturned"
    hand: int
    seat: int
    reason: str


@dataclass(frozen=True)
class CardMisread(Event):
    """A card recorded at a seat turned out to be elsewhere (board or another seat).

    ``card`` is for the secure card room only: live screens say "seat N: camera check"."""

    type: ClassVar[str] = "CardMisread"
    hand: int
    seat: int
    card: str


@dataclass(frozen=True)
class PlayerSeated(Event):
    """A player takes a seat between hands: a late entry, a re-entry, an alternate or a
    player moved in from another table (rule "Alternates, Late Entries, and Re-Entries")."""

    type: ClassVar[str] = "PlayerSeated"
    seat: int
    player: str
    name: str
    country: str
    stack: int
    reason: str


@dataclass(frozen=True)
class PlaceCorrected(Event):
    """A finishing place set again: players eliminated in the same hand-for-hand hand at
    different tables tie for the place (rule "Hand-for-Hand Play" 2), or the TD corrects
    one. ``tied`` players share the place and split the prize money of the places they cover."""

    type: ClassVar[str] = "PlaceCorrected"
    player: str
    before: int
    place: int
    tied: int
    reason: str


@dataclass(frozen=True)
class PenaltiesCarried(Event):
    """A player seated here brings the penalty record kept at another table or day: the
    penalties (so the ladder goes on from there) and the hands still to sit out. Penalties
    belong to the player's stable id and move with it."""

    type: ClassVar[str] = "PenaltiesCarried"
    player: str
    from_table: str
    penalties: tuple[dict, ...]  # {player, kind, count, reason, rule, issued_by}
    hands_left: int


@dataclass(frozen=True)
class PlayerMoved(Event):
    """A player changes seat at this table between hands (a redraw, a seat change)."""

    type: ClassVar[str] = "PlayerMoved"
    player: str
    from_seat: int
    to_seat: int
    reason: str


@dataclass(frozen=True)
class PlayerRemoved(Event):
    """A player leaves the table between hands (moved to another table, or removed from play),
    taking ``stack`` chips with them (0 when chips are removed from play)."""

    type: ClassVar[str] = "PlayerRemoved"
    seat: int
    player: str
    stack: int
    reason: str


@dataclass(frozen=True)
class ChipCountCorrected(Event):
    """A player's recorded stack replaced by the floor's count (between hands)."""

    type: ClassVar[str] = "ChipCountCorrected"
    seat: int
    player: str
    before: int
    after: int
    reason: str


@dataclass(frozen=True)
class DisplayNameChanged(Event):
    """The name shown for a player changed (the stable id did not)."""

    type: ClassVar[str] = "DisplayNameChanged"
    player: str
    before: str
    after: str


@dataclass(frozen=True)
class ButtonDrawn(Event):
    """A draw for the button: the next hand is dealt as a first hand from this seat."""

    type: ClassVar[str] = "ButtonDrawn"
    seat: int


@dataclass(frozen=True)
class FourCardFlop(Event):
    """Rule "Four-Card Flops": the floor draws one of the four as the burn; the other three
    are the flop (dealt by the ``BoardDealt`` that follows)."""

    type: ClassVar[str] = "FourCardFlop"
    hand: int
    cards: tuple[str, ...]
    burn: str


@dataclass(frozen=True)
class WinnerDeclared(Event):
    """The dealer or the secure card room entered the showdown's winner (cards unread)."""

    type: ClassVar[str] = "WinnerDeclared"
    hand: int
    seat: int


@dataclass(frozen=True)
class HiddenChipsFound(Event):
    """Rule "All-In with Hidden Chips": the chips are committed with the all-in (the winner
    takes them if the all-in player loses), but the player is not paid on them."""

    type: ClassVar[str] = "HiddenChipsFound"
    hand: int
    seat: int
    amount: int


@dataclass(frozen=True)
class ShowCountdownStarted(Event):
    """Rule "Refusal to Show": the floor tells the seat to table its cards or be folded, and
    a ``seconds`` countdown starts (the adapter ends it: tabled cards stop it first)."""

    type: ClassVar[str] = "ShowCountdownStarted"
    hand: int
    seat: int
    seconds: int = 5


@dataclass(frozen=True)
class HandHeldForReview(Event):
    """Rule "Showing the Winner" 1: on a concern about collusion the dealer holds the cards
    aside for the floor to review; they stay in the journal for an audited review."""

    type: ClassVar[str] = "HandHeldForReview"
    hand: int
    seats: tuple[int, ...]
    reason: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        TableOpened, LevelChanged, HandStarted, HoleCardsSet, BoardDealt, ActionTaken, ChipsRuled,
        ConditionalStatement, ActionUndone, MisdealDeclared, HandEnded, PlayerEliminated, PenaltyIssued,
        HandKilled, OutOfTurnRecorded, OutOfTurnReturned, CardMisread, PlayerSeated, PenaltiesCarried, PlaceCorrected, PlayerMoved, PlayerRemoved,
        FourCardFlop, HandHeldForReview, ShowCountdownStarted, HiddenChipsFound,
        ChipCountCorrected, DisplayNameChanged, ButtonDrawn, WinnerDeclared,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its wire form (journal replay)."""
    cls = EVENT_TYPES[data["type"]]
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if cls is TableOpened and f.name == "seats":
            value = tuple(SeatedPlayer(**s) for s in value)
        elif cls is TableOpened and f.name == "levels":
            value = tuple(BlindLevel(**lv) for lv in value)
        elif cls is HandEnded and f.name == "stacks":
            value = {int(k): v for k, v in value.items()}
        elif cls is HandEnded and f.name == "shown":
            value = {int(k): tuple(v) for k, v in value.items()}
        elif cls is HandEnded and f.name == "pots":
            value = tuple({**p, "winners": {int(k): v for k, v in p["winners"].items()}} for p in value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)
