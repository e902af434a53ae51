"""Chip-action rulings: the dealer enters what physically happened, the rule book decides
what it means.

The dealer says which chips went out and what, if anything, was declared. ``rule_on_chips``
returns the betting action it amounts to and the rule that decided it. Rules covered
(rule book, ACTION): Oversized Chips, Multiple Chips, Half-Bet Raising, Undercall,
Accepted Action, Method of Calling (item 5, a tiny silent chip), Method of Raising.
Pure: no state beyond the ``Situation`` it is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import BadCommand, chips

DECLARATIONS = ("", "call", "raise", "bet", "allin")

# "Relatively tiny" (Method of Calling, item 5): the rule book's example is one 1k chip
# against a 50k bet (2%). We treat anything under a tenth of the call as tiny.
TINY_FRACTION = 0.10


@dataclass(frozen=True)
class Situation:
    """What the seat faces when the chips go out."""

    seat: int
    stack: int  # chips behind, not yet in front of the player
    bet: int  # already in front of the player this street
    current_bet: int  # the largest bet this street
    last_raise: int  # the last full bet or raise increment this street (at least the big blind)
    big_blind: int
    opening_bet: bool  # the bet faced is the street's opening bet (preflop: the big blind)
    players_in_hand: int  # players still holding cards

    @property
    def to_call(self) -> int:
        return min(self.current_bet - self.bet, self.stack)

    @property
    def all_in_to(self) -> int:
        return self.bet + self.stack

    @property
    def min_raise_to(self) -> int:
        return self.current_bet + max(self.last_raise, self.big_blind)


@dataclass(frozen=True)
class Ruling:
    """The action the chips amount to: ``action`` in fold/check/call/bet/raise/allin."""

    action: str
    amount: int  # the seat's total bet on the street after it ("to" amount)
    rule: str  # the rule book's name for the rule that decided it
    note: str  # one sentence for the dealer console and the log
    flagged: bool = False  # non-standard: the floor / TD should know


def rule_on_chips(s: Situation, pushed: tuple[int, ...], declared: str = "", declared_amount: int | None = None) -> Ruling:
    """Rule on chips pushed out (denominations) with an optional declaration."""
    if declared not in DECLARATIONS:
        raise BadCommand(f"declared must be one of: nothing, {', '.join(d for d in DECLARATIONS if d)}", field="declared")
    if any(not isinstance(c, int) or c <= 0 for c in pushed):
        raise BadCommand("chips must be the chip values pushed out, each above zero", field="chips")
    total = sum(pushed)
    if not pushed and not declared:
        raise BadCommand("enter the chips pushed out or what was declared", field="chips")
    if total > s.stack:
        raise BadCommand(f"seat {s.seat} has only {chips(s.stack)} behind, not {chips(total)}", field="chips")

    if declared == "allin" or (total and total == s.stack):
        return _all_in(s, "Verbal and Physical Action in Turn", "all-in: the whole stack is committed")
    if declared_amount is not None and declared in ("bet", "raise"):
        # Method of Raising, 2: the full amount declared before the chips is binding.
        return _raise_to(s, declared_amount, "Method of Raising", f"declared {declared} to {chips(declared_amount)}", declared=True)
    if declared == "call":
        # Accepted Action: the caller is held to the correct amount, whatever was pushed.
        return _call(s, "Accepted Action", "declared call: the correct amount to call is taken", flagged=total not in (0, s.to_call))

    if s.to_call == 0:
        return _unopened(s, pushed, declared)
    if declared in ("raise", "bet"):
        return _declared_raise(s, pushed)
    return _silent_facing_bet(s, pushed)


def _all_in(s: Situation, rule: str, note: str) -> Ruling:
    action = "allin"
    return Ruling(action, s.all_in_to, rule, note)


def _call(s: Situation, rule: str, note: str, *, flagged: bool = False) -> Ruling:
    if s.to_call == 0:
        return Ruling("check", s.bet, rule, note.replace("call", "check") if "call" in note else note, flagged)
    if s.to_call >= s.stack:
        return Ruling("allin", s.all_in_to, rule, note + " (all-in)", flagged)
    return Ruling("call", s.bet + s.to_call, rule, note, flagged)


def _raise_to(s: Situation, to: int, rule: str, note: str, *, declared: bool = False) -> Ruling:
    if to >= s.all_in_to:
        return Ruling("allin", s.all_in_to, rule, note + " (all-in)")
    verb = "raise" if s.current_bet else "bet"
    floor = s.min_raise_to if s.current_bet else s.big_blind
    if to < floor:
        if declared or to - s.current_bet >= max(s.last_raise, s.big_blind) / 2:
            made = min(floor, s.all_in_to)
            return Ruling("allin" if made == s.all_in_to else verb, made, "Half-Bet Raising" if not declared else rule,
                          f"{note}: below the minimum, so it must be a full {verb} to {chips(made)}")
        return _call(s, "Half-Bet Raising", f"{note}: less than half a raise without declaring raise is a call")
    return Ruling(verb, to, rule, note)


def _unopened(s: Situation, pushed: tuple[int, ...], declared: str) -> Ruling:
    total = sum(pushed)
    if total == 0:
        return Ruling("check", s.bet, "Official Terminology", "no chips: a check")
    if len(pushed) == 1 and not declared:
        # Oversized Chips: first to bet after the flop with one chip, no comment: a bet of its size.
        return _raise_to(s, s.bet + total, "Oversized Chips", f"a single {chips(total)} chip with no comment is a bet of its size")
    return _raise_to(s, s.bet + total, "Method of Raising", f"{chips(total)} put out in one motion")


def _declared_raise(s: Situation, pushed: tuple[int, ...]) -> Ruling:
    total = sum(pushed)
    if len(pushed) == 1:
        # Oversized Chips: "raise" with no amount is the maximum allowable up to the chip.
        to = s.bet + total
        if to < s.min_raise_to:
            return _call(s, "Oversized Chips", f"raise declared, but one {chips(total)} chip cannot make a full raise: a call")
        return _raise_to(s, to, "Oversized Chips", f"raise declared with one {chips(total)} chip: a raise to {chips(to)}")
    return _raise_to(s, s.bet + total, "Method of Raising", f"raise declared, {chips(total)} put out", declared=True)


def _silent_facing_bet(s: Situation, pushed: tuple[int, ...]) -> Ruling:
    total, call = sum(pushed), s.to_call
    if total < call:
        if total < call * TINY_FRACTION:
            return _call(s, "Method of Calling", f"a tiny silent chip ({chips(total)}) against a {chips(s.current_bet)} bet is "
                         "non-standard: ruled a full call at the TD's discretion", flagged=True)
        heads_up = s.players_in_hand == 2
        if s.opening_bet or heads_up:
            return _call(s, "Undercall", f"undercall of {chips(total)}: a mandatory full call")
        return _call(s, "Undercall", f"undercall of {chips(total)} facing a raise: ruled a full call, TD's discretion", flagged=True)
    if len(pushed) == 1 and total > call:
        return _call(s, "Oversized Chips", f"a single oversized {chips(total)} chip without 'raise' is a call")
    if len(set(pushed)) == 1 and len(pushed) > 1 and total - pushed[0] < call:
        return _call(s, "Multiple Chips", f"{len(pushed)} × {chips(pushed[0])} chips: removing one leaves less than the call, so a call")
    if total == call:
        return _call(s, "Method of Calling", "chips equal to the call")
    return _raise_to(s, s.bet + total, "Method of Raising", f"{chips(total)} put out in one motion")


def substantial_action(actions: list[tuple[str, int]]) -> bool:
    """Rule "Substantial Action": any two actions in turn, at least one of which puts chips
    in the pot, or any three actions in turn. ``actions`` are (action, chips put in)."""
    if len(actions) >= 3:
        return True
    return len(actions) == 2 and any(put > 0 for _, put in actions)
