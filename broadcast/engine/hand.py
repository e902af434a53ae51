"""One hand on PokerKit: betting, pots and showdown, seen through seats.

PokerKit numbers players from the seat left of the button (button last); we keep
seats. A ``Hand`` is a value: the PokerKit state inside it is derived from the
hand's entries and hole cards, so an undo or a late card entry simply rebuilds it.
"""

from __future__ import annotations

import copy
import warnings
from collections import deque
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pokerkit import (
    Automation,
    Card,
    ChipsPushing,
    HoleCardsShowingOrMucking,
    Mode,
    NoLimitTexasHoldem,
    OmahaHoldemHand,
    PotLimitOmahaHoldem,
    StandardHighHand,
    State,
)

from .cards import UNKNOWN, is_known
from .events import ActionTaken, BoardDealt, HandStarted

# Card burning and showdown stay manual: we burn "??" by hand (PokerKit trap), and a
# hand still "??" at showdown must wait for its tabled cards instead of being guessed.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

STREETS = ("preflop", "flop", "turn", "river")


def _remembering(hand_type: type) -> type:
    """``hand_type`` whose ``from_game`` remembers its answers.

    At showdown PokerKit asks for every player's best hand once per player still in (to
    decide whose hand can still win): 36 evaluations for 6 hands, in pure Python. The
    answer depends only on the cards, so it is remembered (about 9 ms saved a showdown).
    """
    best = lru_cache(maxsize=4096)(lambda cls, hole, board: super(cls, cls).from_game(hole, board))

    class Remembering(hand_type):  # type: ignore[misc, valid-type]
        @classmethod
        def from_game(cls, hole_cards, board_cards=()):
            return best(cls, tuple(Card.clean(hole_cards)), tuple(Card.clean(board_cards)))

    Remembering.__name__ = Remembering.__qualname__ = hand_type.__name__
    return Remembering


class _NoLimitHoldem(NoLimitTexasHoldem):
    hand_types = (_remembering(StandardHighHand),)


class _PotLimitOmaha(PotLimitOmahaHoldem):
    hand_types = (_remembering(OmahaHoldemHand),)


GAMES = {"nlhe": _NoLimitHoldem, "plo": _PotLimitOmaha}



def _fork(state: State) -> State:
    """An independent copy of a PokerKit state, for one more step of a hand that stays a value.

    Only PokerKit's containers (stacks, bets, cards dealt, operations, deques of who acts)
    are copied; what they hold is shared. Cards, operations and the game's settings are
    frozen values, so ``copy.deepcopy`` would copy about a thousand objects per action for
    nothing: it made the releaser fall behind a fast-keyed hand.
    """
    forked = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, _CONTAINERS):
            forked.__dict__[name] = _copy_containers(value)
    return forked


_CONTAINERS = (list, deque, set, dict)


def _copy_containers(value):
    if isinstance(value, (list, deque)):
        if not any(isinstance(v, _CONTAINERS) for v in value):
            return value.copy()  # flat (the deck, stacks, bets): one C-level copy
        items = [_copy_containers(v) for v in value]
        return items if isinstance(value, list) else deque(items, value.maxlen)
    if isinstance(value, set):
        return set(value)
    if isinstance(value, dict):
        return {k: _copy_containers(v) for k, v in value.items()}
    return value

@dataclass(frozen=True)
class Hand:
    """A hand in progress or just finished. Build with ``Hand.start``."""

    number: int
    game: str
    button: int
    seats: tuple[int, ...]  # PokerKit order: left of the button first, button last
    starting: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    hole: tuple[tuple[str, ...], ...]
    entries: tuple[tuple[int, ActionTaken | BoardDealt], ...] = ()
    short_all_ins: str = "tda"  # "tda" or "single": see TableOpened
    small_blind_seat: int | None = None  # may be an empty seat: a dead small blind
    big_blind_seat: int | None = None
    ended: bool = False
    misdeal: bool = False
    # PokerKit's state, derived from the fields above. Built on first use and cached, so a
    # journal replay touches PokerKit only for the hands someone actually looks at.
    _pk: State | None = field(default=None, compare=False, repr=False)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def start(cls, event: HandStarted, game: str, hole_count: int, *, short_all_ins: str = "tda") -> "Hand":
        """The hand right after the deal: blinds and ante posted, cards unknown."""
        hand = cls(
            number=event.hand,
            game=game,
            button=event.button,
            seats=tuple(event.seats),
            starting=tuple(event.stacks),
            small_blind=event.small_blind,
            big_blind=event.big_blind,
            ante=event.ante,
            hole=tuple((UNKNOWN,) * hole_count for _ in event.seats),
            small_blind_seat=event.small_blind_seat,
            big_blind_seat=event.big_blind_seat,
            short_all_ins=short_all_ins,
        )
        return hand

    @property
    def small_blind_posted(self) -> bool:
        """False when the small blind is dead (rule "Dead Button")."""
        return self.small_blind_seat is None or self.small_blind_seat in self.seats

    @property
    def pk(self) -> State:
        """PokerKit's state for this hand (derived; do not mutate it)."""
        if self._pk is None:
            object.__setattr__(self, "_pk", self._replay())
        return self._pk  # type: ignore[return-value]

    def _new_state(self) -> State:
        n = len(self.seats)
        # Index 1 is the big blind; heads-up, PokerKit itself swaps blinds and ante so the
        # button posts the small blind and the big blind pays the ante.
        bb_index = 1
        blinds: tuple[int, int] | dict[int, int] = (self.small_blind, self.big_blind)
        if not self.small_blind_posted and n > 2:
            # A dead small blind: the first seat left of the button is the big blind.
            bb_index, blinds = 0, {0: self.big_blind}
        return GAMES[self.game].create_state(
            AUTOMATIONS,
            False,  # ante_trimming_status=False for a big-blind ante
            {bb_index: self.ante} if self.ante else 0,
            blinds,
            self.big_blind,
            self.starting,
            n,
            mode=Mode.TOURNAMENT,
        )

    def _replay(self) -> State:
        state = self._new_state()
        for cards in self.hole:
            state.deal_hole("".join(cards))
        _settle(state, self.hole)
        for _, entry in self.entries:
            _perform(state, entry, self)
            _settle(state, self.hole)  # as in live play: an all-in turns hands up before the run-out
        return state

    def index(self, seat: int) -> int:
        """PokerKit's player index for a seat."""
        return self.seats.index(seat)

    # -- transitions (pure: each returns a new Hand) ------------------------------------
    def with_entry(self, seq: int, entry: ActionTaken | BoardDealt) -> "Hand":
        """The hand after one more action or board card."""
        hand = replace(self, entries=self.entries + ((seq, entry),), _pk=None)
        if self._pk is not None:  # live play: one step on from the state already built
            state = _fork(self._pk)
            _perform(state, entry, self)
            _settle(state, self.hole)
            object.__setattr__(hand, "_pk", state)
        return hand

    def without_entry(self, seq: int) -> "Hand":
        """The hand as if the entry at ``seq`` had never been keyed (an undo)."""
        return replace(self, entries=tuple(e for e in self.entries if e[0] != seq), _pk=None)

    def with_hole_cards(self, seat: int, cards: tuple[str, ...]) -> "Hand":
        """The hand with a seat's hole cards known (or corrected)."""
        hole = list(self.hole)
        hole[self.index(seat)] = cards
        return replace(self, hole=tuple(hole), _pk=None)

    def finished(self, *, misdeal: bool = False) -> "Hand":
        return replace(self, ended=True, misdeal=misdeal, _pk=self._pk)

    def actions_in_turn(self) -> list[tuple[str, int]]:
        """The betting actions so far, each with whether it put chips in (for substantial action)."""
        return [
            (e.action, 1 if e.action in ("call", "bet", "raise") or e.all_in else 0)
            for _, e in self.entries
            if isinstance(e, ActionTaken)
        ]

    # -- questions --------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """PokerKit has settled every pot."""
        return not self.pk.status

    @property
    def street(self) -> str:
        return STREETS[min(len(self.board) and len(self.board) - 2, 3)] if self.board else "preflop"

    @property
    def board(self) -> tuple[str, ...]:
        return tuple(f"{c.rank.value}{c.suit.value}" for street in self.pk.board_cards for c in street)

    @property
    def actor(self) -> int | None:
        """The seat whose turn it is, or None."""
        i = self.pk.actor_index
        return None if i is None else self.seats[i]

    def needs_board(self) -> int:
        """How many board cards the dealer must deal next (0 when none)."""
        if self.over or not (self.pk.can_burn_card() or self.pk.can_deal_board()):
            return 0
        return 3 if not self.board else 1

    def awaiting_cards(self) -> tuple[int, ...]:
        """Seats at showdown whose tabled cards are still unknown."""
        if self.over or self.pk.showdown_index is None:
            return ()
        return tuple(
            seat for i, seat in enumerate(self.seats) if self.pk.statuses[i] and not is_known(self.hole[i])
        )

    @property
    def to_show(self) -> int | None:
        """The seat whose turn it is to table (or muck) at showdown, or None."""
        i = None if self.over else self.pk.showdown_index
        return None if i is None else self.seats[i]

    def all_in_showdown(self) -> bool:
        """Someone still in the hand is all-in: every hand is turned face up."""
        return any(self.pk.statuses[i] and self.pk.stacks[i] == 0 for i in range(len(self.seats)))

    def stack(self, seat: int) -> int:
        return self.pk.stacks[self.index(seat)]

    def bet(self, seat: int) -> int:
        return self.pk.bets[self.index(seat)]

    def in_hand(self, seat: int) -> bool:
        """Still holding cards (not folded)."""
        return bool(self.pk.statuses[self.index(seat)])

    def to_call(self, seat: int) -> int:
        i = self.index(seat)
        return min(max(self.pk.bets) - self.pk.bets[i], self.pk.stacks[i])

    def pots(self) -> list[dict]:
        """Main pot then side pots, with the seats eligible for each (bets still out excluded)."""
        return [
            {"amount": pot.amount, "seats": [self.seats[i] for i in pot.player_indices]}
            for pot in self.pk.pots
        ]

    def pot_total(self) -> int:
        return sum(p.amount for p in self.pk.pots) + sum(self.pk.bets)

    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """The legal "to" amounts for a bet or raise, by the rule book, or None.

        The minimum is the current bet plus the last full bet or raise (at least the big
        blind). PokerKit caps its own minimum at what opponents can call (its issue #40);
        the rule book does not, so we use ours unless the seat is all-in for less.
        """
        i = self.index(seat)
        if self.pk.actor_index != i or not self.pk.can_complete_bet_or_raise_to():
            return None  # PokerKit applies TDA: short all-ins reopen once together they make a full raise
        if self.short_all_ins == "single" and not _reopened_by_one_full_raise(self, seat):
            return None  # the show's setting: only one full raise reopens the betting
        # The most is the stack, or the pot in pot-limit Omaha: PokerKit knows both.
        top = min(self.pk.bets[i] + self.pk.stacks[i], self.pk.max_completion_betting_or_raising_to_amount or 0)
        low = max(self.pk.min_completion_betting_or_raising_to_amount or 0, _rulebook_min_raise(self))
        return (min(low, top), top)

    def payouts(self) -> tuple[dict, ...]:
        """Each pot awarded: amount and the share each winning seat took."""
        pots = []
        for op in self.pk.operations:
            if isinstance(op, ChipsPushing):
                winners = {self.seats[i]: a for i, a in enumerate(op.amounts) if a}
                pots.append({"amount": sum(op.amounts), "winners": winners})
        return tuple(pots)

    def shown(self) -> dict[int, tuple[str, ...]]:
        """Cards tabled at showdown, by seat."""
        return {
            self.seats[op.player_index]: self.hole[op.player_index]
            for op in self.pk.operations
            if isinstance(op, HoleCardsShowingOrMucking) and op.hole_cards and is_known(self.hole[op.player_index])
        }

    def final_stacks(self) -> dict[int, int]:
        return {seat: self.pk.stacks[i] for i, seat in enumerate(self.seats)}


def _reopened_by_one_full_raise(hand: Hand, seat: int) -> bool:
    """True unless ``seat`` acted on this street and no single bet or raise since was a full
    one (several short all-ins adding up to a full raise do not count in this setting)."""
    street: list[ActionTaken] = []
    for _, entry in hand.entries:
        street = [] if isinstance(entry, BoardDealt) else street + [entry]
    current = hand.big_blind if not hand.board else 0
    full, acted, reopened = hand.big_blind, False, True
    for entry in street:
        if entry.seat == seat:
            acted, reopened = True, False
        if entry.action in ("bet", "raise"):
            if entry.amount - current >= full:
                full, reopened = entry.amount - current, reopened or entry.seat != seat
            current = max(current, entry.amount)
    return not acted or reopened


def _rulebook_min_raise(hand: Hand) -> int:
    state = hand.pk
    top = max(state.bets)
    # The last full raise this street; PokerKit tracks it as completion_betting_or_raising_amount.
    last = max(getattr(state, "completion_betting_or_raising_amount", 0) or 0, hand.big_blind)
    return top + last


def _perform(state: State, entry: ActionTaken | BoardDealt, hand: Hand) -> None:
    if isinstance(entry, BoardDealt):
        if state.can_burn_card():
            state.burn_card("??")
        with warnings.catch_warnings():
            # PokerKit warns when a card recorded in a hand is dealt to the board (a camera
            # misread). The warning names the card, and the operator log is a live screen:
            # the secure card room gets the detail instead (CardMisread).
            warnings.simplefilter("ignore", UserWarning)
            state.deal_board("".join(entry.cards))
        return
    if entry.action == "muck":
        state.show_or_muck_hole_cards(False)  # at showdown: the hand is not tabled, so it cannot win
    elif entry.action == "show":
        # A declared winner's unread cards stay face down (PokerKit allows it in cash-game mode).
        state.mode = Mode.CASH_GAME
        try:
            state.show_or_muck_hole_cards("".join(hand.hole[state.showdown_index]))  # type: ignore[index]
        finally:
            state.mode = Mode.TOURNAMENT
    elif entry.action == "fold":
        if state.bets[state.actor_index] >= max(state.bets):  # type: ignore[index]
            # A dead hand (killed, or "At Your Seat") folds even with nothing to call: it
            # cannot win. PokerKit's tournament mode refuses that fold, so allow it once.
            state.mode = Mode.CASH_GAME
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    state.fold()
            finally:
                state.mode = Mode.TOURNAMENT
        else:
            state.fold()
    elif entry.action in ("check", "call"):
        state.check_or_call()
    else:
        state.complete_bet_or_raise_to(entry.amount)


def _settle(state: State, hole: tuple[tuple[str, ...], ...]) -> None:
    """Table known hands at showdown, in PokerKit's showing order; wait on unknown ones."""
    # With an all-in, PokerKit (like the rule book) turns the hands up before the run-out.
    while state.showdown_index is not None:
        i = state.showdown_index
        if not is_known(hole[i]):
            if sum(state.statuses) == 1 and state.street is state.streets[-1]:
                # Rule "Winning hand": the only player left with cards need not show. PokerKit
                # keeps unknown cards face down only in its cash-game mode.
                state.mode = Mode.CASH_GAME
                try:
                    state.show_or_muck_hole_cards("".join(hole[i]))
                finally:
                    state.mode = Mode.TOURNAMENT
                continue
            return
        state.show_or_muck_hole_cards(True)
