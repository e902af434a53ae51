"""Reading and checking the cards given to the equity engine.

Cards are two characters, rank ``23456789TJQKA`` and suit ``cdhs`` (``As``, ``Td``), as
everywhere in TV Table; ``??`` is an unknown card. Inside the engine a card is the
integer ``rank * 4 + suit`` (deuce 0 .. ace 12; clubs 0, diamonds 1, hearts 2, spades 3),
which is also phevaluator's card id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "cdhs"
UNKNOWN = "??"
HOLE_CARDS = {"nlhe": 2, "plo": 4}
BOARD_SIZES = (0, 3, 4, 5)
MAX_HANDS = 10

_SEPARATORS = re.compile(r"[\s,]+")


class EquityInputError(ValueError):
    """The engine was given cards it cannot work with.

    ``field`` names the input at fault (``hands[1]``, ``board``, ``dead``, ``game``,
    ``budget``); ``reason`` says what to fix. ``str(error)`` is ``"field: reason"``.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def card_text(card: int) -> str:
    """The two-character text of an engine card id (``51`` -> ``"As"``)."""
    return RANKS[card >> 2] + SUITS[card & 3]


def _card_id(text: object, field: str) -> int | None:
    """One card's id, ``None`` for ``??``; refuse anything else naming ``field``."""
    if not isinstance(text, str) or len(text) != 2:
        raise EquityInputError(field, f"{text!r} is not a card: write a rank and a suit like As or Td")
    if text == UNKNOWN:
        return None
    rank, suit = text[0].upper(), text[1].lower()
    if rank not in RANKS or suit not in SUITS:
        raise EquityInputError(field, f"{text!r} is not a card: rank is one of {RANKS}, suit one of {SUITS}")
    return RANKS.index(rank) * 4 + SUITS.index(suit)


def _card_texts(value: object, field: str) -> list[str]:
    """Split ``"AsKs"``, ``"As Ks"`` or ``["As", "Ks"]`` into card texts."""
    if isinstance(value, str):
        parts = [p for p in _SEPARATORS.split(value.strip()) if p]
        texts: list[str] = []
        for part in parts:
            if len(part) % 2:
                raise EquityInputError(field, f"{part!r} is not a list of cards: each card is two characters like As")
            texts.extend(part[i : i + 2] for i in range(0, len(part), 2))
        return texts
    if isinstance(value, Sequence):
        return list(value)
    raise EquityInputError(field, f"expected cards like ['As', 'Ks'] or 'AsKs', got {type(value).__name__}")


@dataclass(frozen=True)
class Deal:
    """Checked input: each live hand, the board and the dead cards as card ids.

    ``rest`` is the stub the runout comes from: every card not in a hand, on the board
    or dead, in ascending id order.
    """

    game: str
    holes: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    dead: tuple[int, ...]
    rest: tuple[int, ...]


def read_deal(
    hands: object,
    board: object = (),
    dead: object = (),
    game: object = "nlhe",
    *,
    board_sizes: tuple[int, ...] = BOARD_SIZES,
) -> Deal:
    """Check and convert the engine's input, or raise :class:`EquityInputError`.

    Every live hand must be fully known; unknown (``??``) dead cards are skipped, since
    a card nobody has seen changes no exact equity.
    """
    if game not in HOLE_CARDS:
        raise EquityInputError("game", f"{game!r} is not a game here: use one of {', '.join(HOLE_CARDS)}")
    per_hand = HOLE_CARDS[game]  # type: ignore[index]
    if isinstance(hands, str) or not isinstance(hands, Sequence):
        raise EquityInputError("hands", "expected a list of hands like [['As', 'Ks'], ['Qd', 'Qh']]")
    if not 1 <= len(hands) <= MAX_HANDS:
        raise EquityInputError("hands", f"need 1 to {MAX_HANDS} live hands, got {len(hands)}")

    seen: dict[int, str] = {}

    def take(cards: list[str], field: str, *, known: bool) -> tuple[int, ...]:
        ids = []
        for number, text in enumerate(cards, 1):
            card = _card_id(text, field)
            if card is None:
                if known:
                    raise EquityInputError(
                        field, f"card {number} is unknown (??): exact equity needs every live hand and the board known"
                    )
                continue
            if card in seen:
                where = "twice" if seen[card] == field else f"also in {seen[card]}"
                raise EquityInputError(field, f"{card_text(card)} is {where}: each card is in the deck once")
            seen[card] = field
            ids.append(card)
        return tuple(ids)

    holes = []
    for i, hand in enumerate(hands):
        field = f"hands[{i}]"
        texts = _card_texts(hand, field)
        if len(texts) != per_hand:
            raise EquityInputError(field, f"a {game} hand has {per_hand} hole cards, got {len(texts)}")
        holes.append(take(texts, field, known=True))

    board_texts = _card_texts(board, "board")
    if len(board_texts) not in board_sizes:
        sizes = ", ".join(map(str, board_sizes))
        raise EquityInputError("board", f"a board here has {sizes} cards, got {len(board_texts)}")
    board_ids = take(board_texts, "board", known=True)
    dead_ids = take(_card_texts(dead, "dead"), "dead", known=False)

    rest = tuple(c for c in range(52) if c not in seen)
    needed = 5 - len(board_ids)
    if len(rest) < needed:
        raise EquityInputError("dead", f"only {len(rest)} cards are left in the stub for {needed} board cards")
    return Deal(game, tuple(holes), board_ids, dead_ids, rest)  # type: ignore[arg-type]
