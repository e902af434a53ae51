"""Property tests: chips are conserved, replaying the journal gives the same state, and
an undo followed by re-entering the same action is the identity."""

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings, strategies as st

from broadcast.engine.cards import DECK
from broadcast.engine.commands import parse_command
from broadcast.engine.events import (
    ChipCountCorrected,
    HandEnded,
    HiddenChipsFound,
    PlayerRemoved,
    PlayerSeated,
    TableOpened,
)
from broadcast.engine.table import TableState, apply, decide, replay
from broadcast.views.projections import live_view
from tests.engine.helpers import table


def random_show(seed: int, hands: int = 3, *, stacks: tuple[int, ...] | None = None, allin_rate: float = 0.15,
                floor: bool = False):
    """Play ``hands`` hands with random legal actions; returns the journal and the state.

    With ``floor``, the floor also works between and during hands: late entries, chip
    counts, disqualifications, players away at the deal, hidden chips behind all-ins; the
    audited chip changes they make are summed on ``random_show.audited``."""
    rng = random.Random(seed)
    stacks = stacks or tuple(rng.choice([3000, 8000, 20000, 45000]) for _ in range(rng.randint(2, 6)))
    state = table(stacks)
    journal = [(1, TableOpened(table="tv", game="nlhe", seats=state.seats, levels=state.levels))]

    audited = 0

    def do(command):
        nonlocal state, audited
        for event in decide(state, parse_command(command)):
            audited += _audited_change(state, event)
            state = apply(state, event)
            journal.append((state.seq, event))

    for number in range(hands):
        if floor and number:
            _floor_between_hands(rng, state, do)
        if sum(1 for s in state.seats if s.stack > 0) < 2:
            break
        do({"type": "start_hand"})
        deck = list(DECK)
        rng.shuffle(deck)
        for seat in state.hand.seats:
            do({"type": "hole_cards", "seat": seat, "cards": [deck.pop(), deck.pop()]})
        if floor and rng.random() < 0.3:  # may end the hand at once: a dead hand to act folds
            do({"type": "away", "seat": rng.choice(state.hand.seats)})
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
                if floor and rng.random() < 0.5 and not state.hand.ended and state.hand.in_hand(seat):
                    do({"type": "hidden_chips", "seat": seat, "amount": rng.choice([500, 2500])})
            elif choice < allin_rate + 0.2 and rng_raise:
                kind = "raise" if "raise" in legal else "bet"
                low, high = rng_raise
                do({"type": kind, "seat": seat, "amount": rng.randint(low, min(high, low * 3))})
            elif choice < allin_rate + 0.35 and legal["fold"]:
                do({"type": "fold", "seat": seat})
            else:
                do({"type": "check" if legal["check"] else "call", "seat": seat})
    random_show.audited = audited  # type: ignore[attr-defined]
    return journal, state, sum(stacks)


def _audited_change(state, event) -> int:
    """Chips that enter or leave the table by an audited event, not by play."""
    if isinstance(event, PlayerSeated):
        return event.stack
    if isinstance(event, PlayerRemoved):
        return -state.seat(event.seat).stack
    if isinstance(event, ChipCountCorrected):
        return event.after - event.before
    if isinstance(event, HiddenChipsFound):
        return event.amount
    return 0


def _floor_between_hands(rng, state, do) -> None:
    playing = [s for s in state.seats if s.stack > 0]
    roll = rng.random()
    empty = [n for n in range(1, 11) if n not in {s.seat for s in playing}]
    if roll < 0.3 and empty:
        do({"type": "seat_player", "seat": rng.choice(empty), "player": f"late-{state.hand_no}", "name": "Late Entry",
            "stack": 20000})
    elif roll < 0.5:
        who = rng.choice(playing)
        do({"type": "chip_count", "player": who.player, "stack": max(0, who.stack + rng.choice([-500, 500])),
            "reason": "count at the break"})
    elif roll < 0.6 and len(playing) > 2:
        do({"type": "penalty", "player": rng.choice(playing).player, "kind": "disqualification", "reason": "device"})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6))
def test_chips_are_conserved(seed):
    journal, state, total = random_show(seed)
    assert sum(s.stack for s in state.seats) == total
    for _, event in journal:
        if isinstance(event, HandEnded):
            assert sum(event.stacks.values()) + sum(
                s.stack for s in state.seats if s.seat not in event.stacks) == total


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6))
def test_chips_are_conserved_except_for_audited_corrections(seed):
    journal, state, total = random_show(seed, hands=4, floor=True)
    assert sum(s.stack for s in state.seats if s.stack > 0) == total + random_show.audited  # type: ignore[attr-defined]
    again = replay(journal)
    assert again.seats == state.seats and live_view(again, ts=0) == live_view(state, ts=0)


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


def _camera_chaos(seed: int) -> None:
    """A hand where reads arrive at any moment: late, partial (??), misread as a board card,
    taken back, corrected; with undos, mucks and winners keyed in between. Every command is
    ruled on (accepted or refused); none may break the hand's record."""
    from broadcast.engine.errors import Refusal

    rng = random.Random(seed)
    state = table(tuple(rng.choice([1000, 3000, 20000]) for _ in range(rng.choice([2, 3, 4]))))
    for _ in range(3):
        if state.in_hand or sum(1 for s in state.seats if s.stack > 0) < 2:
            return  # a hand left waiting (say, on a tabled card) ends the trial
        command: dict = {"type": "start_hand", **({"button": 1} if state.button is None else {})}
        for event in decide(state, parse_command(command)):
            state = apply(state, event)
        deck = list(DECK)
        rng.shuffle(deck)
        hole = {seat: [deck.pop(), deck.pop()] for seat in state.hand.seats}
        board = [deck.pop() for _ in range(5)]
        for _ in range(60):
            if not state.in_hand:
                break
            hand, roll = state.hand, rng.random()
            if roll < 0.25:
                seat = rng.choice(hand.seats)
                cards = hole[seat][:]
                if rng.random() < 0.3:
                    cards[rng.randrange(2)] = "??"
                if rng.random() < 0.15:
                    cards[0] = rng.choice(board)  # a misread: the card is really on the board
                command = {"type": "hole_cards", "seat": seat, "cards": "".join(cards),
                           "source": rng.choice(["camera", "dealer", "secure"])}
            elif roll < 0.45:
                n = len(hand.board)
                command = {"type": "board", "cards": "".join(board[n:n + (3 if n == 0 else 1)])}
            elif roll < 0.5:
                command = {"type": "undo"}
            elif roll < 0.55:
                command = {"type": rng.choice(["muck", "winner"]), "seat": rng.choice(hand.seats)}
            else:
                seat = hand.actor if hand.actor is not None else rng.choice(hand.seats)
                command = {"type": rng.choice(["call", "check", "fold", "allin", "allin", "raise"]), "seat": seat}
                if command["type"] == "raise":
                    command["amount"] = rng.choice([800, 1200, 2500])
            try:
                for event in decide(state, parse_command(command)):
                    state = apply(state, event)
            except Refusal:
                pass
            assert state.hand is None or state.hand.pk is not None  # the record still plays through


def test_camera_reads_at_any_moment_never_break_the_hands_record():
    for seed in range(60):
        _camera_chaos(seed)


def _pk_snapshot(hand):
    pk = hand.pk
    return (list(pk.stacks), list(pk.bets), [list(c) for c in pk.hole_cards], [list(c) for c in pk.board_cards],
            list(pk.statuses), len(pk.operations), len(pk.deck_cards), pk.actor_index, list(pk.payoffs))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**6))
def test_a_hand_is_a_value_each_action_leaves_the_hand_before_it_as_it_was(seed):
    """Each action steps on from a copy of PokerKit's state (not a replay): the hand before it
    must not change, and each step must equal the same hand replayed from its entries."""
    journal, _, _ = random_show(seed, hands=2)
    state, seen = None, []
    for seq, event in journal:
        state = apply(state, event, seq=seq) if state is not None else apply(TableState(), event, seq=seq)
        hand = state.hand
        if hand is not None:  # the snapshot builds its state; the next action steps on from it
            seen.append((hand, _pk_snapshot(hand)))
    assert len(seen) > 5, "too few hand steps to check"
    for hand, snapshot in seen:
        assert _pk_snapshot(hand) == snapshot, "a later action changed an earlier hand"
        replayed = replace(hand, _pk=None)
        assert _pk_snapshot(replayed) == snapshot, "stepping on differs from replaying the entries"
