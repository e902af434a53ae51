"""Property tests: chips are conserved, replaying the journal gives the same state, and
an undo followed by re-entering the same action is the identity."""

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from broadcast.engine.cards import DECK
from broadcast.engine.commands import parse_command
from broadcast.engine.events import HandEnded, TableOpened
from broadcast.engine.table import apply, decide, replay
from broadcast.views.projections import live_view
from tests.engine.helpers import table


def random_show(seed: int, hands: int = 3, *, stacks: tuple[int, ...] | None = None, allin_rate: float = 0.15):
    """Play ``hands`` hands with random legal actions; returns the journal and the state."""
    rng = random.Random(seed)
    stacks = stacks or tuple(rng.choice([3000, 8000, 20000, 45000]) for _ in range(rng.randint(2, 6)))
    state = table(stacks)
    journal = [(1, TableOpened(table="tv", game="nlhe", seats=state.seats, levels=state.levels))]

    def do(command):
        nonlocal state
        for event in decide(state, parse_command(command)):
            state = apply(state, event)
            journal.append((state.seq, event))

    for _ in range(hands):
        if sum(1 for s in state.seats if s.stack > 0) < 2:
            break
        do({"type": "start_hand"})
        deck = list(DECK)
        rng.shuffle(deck)
        for seat in state.hand.seats:
            do({"type": "hole_cards", "seat": seat, "cards": [deck.pop(), deck.pop()]})
        while not state.hand.ended:
            view = live_view(state, ts=0)
            if view["needs_board"]:
                do({"type": "board", "cards": [deck.pop() for _ in range(view["needs_board"])]})
                continue
            legal = view["legal"]
            seat = legal["seat"]
            rng_raise = legal.get("raise") or legal.get("bet")
            choice = rng.random()
            if choice < allin_rate and rng_raise:
                do({"type": "allin", "seat": seat})
            elif choice < allin_rate + 0.2 and rng_raise:
                kind = "raise" if "raise" in legal else "bet"
                low, high = rng_raise
                do({"type": kind, "seat": seat, "amount": rng.randint(low, min(high, low * 3))})
            elif choice < allin_rate + 0.35 and legal["fold"]:
                do({"type": "fold", "seat": seat})
            else:
                do({"type": "check" if legal["check"] else "call", "seat": seat})
    return journal, state, sum(stacks)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6))
def test_chips_are_conserved(seed):
    journal, state, total = random_show(seed)
    assert sum(s.stack for s in state.seats) == total
    for _, event in journal:
        if isinstance(event, HandEnded):
            assert sum(event.stacks.values()) + sum(
                s.stack for s in state.seats if s.seat not in event.stacks) == total


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6))
def test_replaying_the_journal_gives_the_same_state(seed):
    journal, state, _ = random_show(seed)
    again = replay(journal)
    assert live_view(again, ts=0) == live_view(state, ts=0)
    assert again.seats == state.seats and again.hand_no == state.hand_no


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=50))
def test_an_undo_then_the_same_action_again_is_the_identity(seed, pick):
    # Play one hand partway, undo the last action, enter it again: same table as before.
    rng = random.Random(seed)
    state = table((20000, 20000, 20000, 20000))
    state = apply(state, decide(state, parse_command({"type": "start_hand"}))[0])
    entered = []
    for _ in range(pick % 6 + 1):
        legal = live_view(state, ts=0)["legal"]
        if legal is None:
            break
        command = {"type": "call" if legal["call"] else "check", "seat": legal["seat"]}
        if rng.random() < 0.3 and legal.get("raise"):
            command = {"type": "raise", "seat": legal["seat"], "amount": legal["raise"][0]}
        events = decide(state, parse_command(command))
        if any(isinstance(e, HandEnded) for e in events):
            break
        for e in events:
            state = apply(state, e)
        entered.append(command)
    if not entered:
        return
    before = live_view(state, ts=0)
    for e in decide(state, parse_command({"type": "undo"})):
        state = apply(state, e)
    for e in decide(state, parse_command(entered[-1])):
        state = apply(state, e)
    after = live_view(state, ts=0)
    for view in (before, after):
        view.pop("seq")
    assert after == before
