"""Cards as two characters: rank ``23456789TJQKA`` and suit ``cdhs``; ``??`` is unknown."""

from __future__ import annotations

from .errors import BadCommand

RANKS = "23456789TJQKA"
SUITS = "cdhs"
UNKNOWN = "??"
DECK = tuple(r + s for r in RANKS for s in SUITS)

HOLE_CARD_COUNT = {"nlhe": 2, "plo": 4}


def parse_card(text: object, *, field: str, allow_unknown: bool = True) -> str:
    """Normalise one card (``"as"`` -> ``"As"``) or refuse naming ``field``."""
    if not isinstance(text, str) or len(text) != 2:
        raise BadCommand(f"{field} must be a card like As or Td, or ?? when unknown", field=field)
    if text == UNKNOWN:
        if not allow_unknown:
            raise BadCommand(f"{field} must be a known card, not ??", field=field)
        return UNKNOWN
    card = text[0].upper() + text[1].lower()
    if card[0] not in RANKS or card[1] not in SUITS:
        raise BadCommand(
            f"{field} {text!r} is not a card: rank is one of {RANKS}, suit one of {SUITS}", field=field
        )
    return card


def parse_cards(value: object, *, field: str, count: int | tuple[int, ...], allow_unknown: bool = True) -> tuple[str, ...]:
    """Parse a list of cards or a string like ``"AsKd"``; check the count and duplicates."""
    if isinstance(value, str):
        value = [value[i : i + 2] for i in range(0, len(value), 2)] if len(value) % 2 == 0 else [value]
    if not isinstance(value, (list, tuple)):
        raise BadCommand(f"{field} must be a list of cards", field=field)
    counts = (count,) if isinstance(count, int) else count
    if len(value) not in counts:
        wanted = " or ".join(str(c) for c in counts)
        raise BadCommand(f"{field} needs {wanted} cards, got {len(value)}", field=field)
    cards = tuple(parse_card(c, field=field, allow_unknown=allow_unknown) for c in value)
    known = [c for c in cards if c != UNKNOWN]
    if len(set(known)) != len(known):
        raise BadCommand(f"{field} has the same card twice", field=field)
    return cards


def is_known(cards: tuple[str, ...]) -> bool:
    """True when every card is identified."""
    return bool(cards) and UNKNOWN not in cards
