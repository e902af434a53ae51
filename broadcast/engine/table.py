"""The table: the pure core's ``decide`` and ``apply``.

``decide(state, command) -> events`` rules on a command, or raises a ``Refusal`` that
states the legal range. ``apply(state, event, seq=...) -> state`` folds one journal
event into the state. No clock, no randomness, no I/O: the adapter passes them in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import HOLE_CARD_COUNT, UNKNOWN
from .commands import (
    Act,
    Away,
    ChipCount,
    DeclareWinner,
    DisplayName,
    DrawButton,
    Command,
    Conditional,
    DealBoard,
    FourCardFlop,
    HiddenChips,
    HoldForReview,
    IssuePenalty,
    KillHand,
    Misdeal,
    MovePlayer,
    Muck,
    PushChips,
    RefuseToShow,
    RemovePlayer,
    SeatPlayer,
    SetPlace,
    SetHoleCards,
    SetLevel,
    StartHand,
    Undo,
)
from .errors import (
    BadCommand,
    CardConflict,
    HandInProgress,
    IllegalAction,
    NoHandInProgress,
    NothingToUndo,
    NotYourTurn,
    chips,
)
from .events import (
    ActionTaken,
    ActionUndone,
    BlindLevel,
    BoardDealt,
    ButtonDrawn,
    CardMisread,
    ChipCountCorrected,
    ChipsRuled,
    ConditionalStatement,
    DisplayNameChanged,
    Event,
    FourCardFlop as FourCardFlopEvent,
    HandEnded,
    HandHeldForReview,
    HandKilled,
    HiddenChipsFound,
    HandStarted,
    HoleCardsSet,
    LevelChanged,
    MisdealDeclared,
    OutOfTurnRecorded,
    OutOfTurnReturned,
    PenaltyIssued,
    PlayerEliminated,
    PlayerMoved,
    PlayerRemoved,
    PenaltiesCarried,
    PlaceCorrected,
    PlayerSeated,
    SeatedPlayer,
    ShowCountdownStarted,
    TableOpened,
    WinnerDeclared,
)
from .button import clockwise_from, positions
from .hand import Hand
from .penalties import Ledger, Penalty, carry, check_penalty, hand_dealt, issue, propose
from .rulings import Situation, rule_on_chips, substantial_action


@dataclass(frozen=True)
class TableState:
    """Everything the core knows about one table after some prefix of its journal."""

    table: str = ""
    game: str = "nlhe"
    short_all_ins: str = "tda"
    seats: tuple[SeatedPlayer, ...] = ()
    levels: tuple[BlindLevel, ...] = ()
    level: int = 1
    button: int | None = None
    hand_no: int = 0
    hand: Hand | None = None  # the current hand, or the last one once it ended
    seq: int = 0
    undone: frozenset[int] = frozenset()
    rulings: tuple[ChipsRuled | ConditionalStatement, ...] = ()  # this hand's, for the floor
    camera_checks: tuple[CardMisread, ...] = ()  # this hand's; the card is for secure only
    secured: frozenset[int] = frozenset()  # seats whose cards the secure card room set this hand
    hand_level: int = 1  # the level the current (or last) hand was dealt at
    ledger: Ledger = Ledger()
    killed: frozenset[int] = frozenset()  # seats whose hand is dead this hand
    players_left: int = 0
    eliminated: tuple[PlayerEliminated, ...] = ()
    # Out-of-turn actions waiting for their seat's turn: seat -> (action, amount, changed since)
    pending: tuple[tuple[int, str, int | None, bool], ...] = ()
    # Where the blinds were last hand (rule "Dead Button": the big blind moves on one player
    # each hand, and the small blind and the button follow into the seats it left).
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None
    held: tuple[HandHeldForReview, ...] = ()  # hands whose cards the floor holds for review
    refusing: frozenset[int] = frozenset()  # seats on a refusal-to-show countdown this hand
    hidden: tuple[HiddenChipsFound, ...] = ()  # chips found behind all-ins this hand
    drawn_button: int | None = None  # a draw for the button since the last hand
    winner: int | None = None  # a showdown winner entered without cards, this hand

    @property
    def hole_card_count(self) -> int:
        return HOLE_CARD_COUNT[self.game]

    @property
    def in_hand(self) -> bool:
        """A hand is being played (dealt and not yet over)."""
        return self.hand is not None and not self.hand.ended

    def seat(self, number: int) -> SeatedPlayer | None:
        return next((s for s in self.seats if s.seat == number), None)

    @property
    def blinds(self) -> BlindLevel:
        return self.levels[self.level - 1]


# -- decide -------------------------------------------------------------------------------
def decide(state: TableState, command: Command) -> tuple[Event, ...]:
    """Rule on a command: the events it causes, or a ``Refusal`` saying what is legal."""
    return rule(state, command)[0]


def rule(state: TableState, command: Command) -> tuple[tuple[Event, ...], TableState]:
    """``decide`` plus the state after its events (what ``apply`` would give), computed once."""
    events = _decide(state, command)
    try:
        return _consequences(state, events)
    except ValueError as exc:
        # The hand's record must replay (PokerKit rebuilds the hand from it): a command
        # that would leave it unplayable is refused, never journalled. Card-free wording:
        # this reaches live screens.
        raise IllegalAction("not possible now: the hand as recorded could not be played through with this "
                            "(a tabled hand's cards cannot be taken back once the board is dealt; enter the "
                            "correct cards instead)", field="type") from exc


def _decide(state: TableState, command: Command) -> tuple[Event, ...]:
    if isinstance(command, StartHand):
        return _start_hand(state, command)
    if isinstance(command, IssuePenalty):
        check_penalty(command.kind, command.count)
        if not any(s.player == command.player for s in state.seats):
            raise BadCommand(f"no player {command.player!r} at table {state.table}", field="player")
        issued = PenaltyIssued(player=command.player, kind=command.kind, count=command.count, reason=command.reason,
                               rule=command.rule, issued_by="floor")
        return (issued, *_removed_by_penalty(state, issued))
    if isinstance(command, SetLevel):
        if not 1 <= command.level <= len(state.levels):
            raise BadCommand(f"level must be between 1 and {len(state.levels)}", field="level")
        return (LevelChanged(level=command.level),)
    if isinstance(command, SetPlace):
        return _set_place(state, command)
    if isinstance(command, (SeatPlayer, MovePlayer, RemovePlayer, ChipCount, DisplayName, DrawButton)):
        return _seating(state, command)
    if isinstance(command, HoldForReview):
        return (_hold(state, command),)
    hand = _current_hand(state)
    if isinstance(command, SetHoleCards):
        read = _hole_cards(state, hand, command)
        events: tuple[Event, ...] = (read,) if read is not None else ()
    elif isinstance(command, DealBoard):
        events = _board(hand, command)
    elif isinstance(command, Act) and command.out_of_turn and hand.actor != command.seat:
        if command.seat not in hand.seats or not hand.in_hand(command.seat):
            raise BadCommand(f"seat {command.seat} holds no live hand in hand {hand.number}", field="seat")
        if hand.actor is None:
            raise IllegalAction("no betting is pending on this street", field="action")
        events = (OutOfTurnRecorded(hand=hand.number, seat=command.seat, action=command.action, amount=command.amount),)
    elif isinstance(command, Act):
        events = (_act(hand, command),)
    elif isinstance(command, PushChips):
        events = _chips(hand, command)
    elif isinstance(command, Muck):
        events = (_muck(hand, command.seat),)
    elif isinstance(command, KillHand):
        if command.seat not in hand.seats or not hand.in_hand(command.seat):
            raise BadCommand(f"seat {command.seat} holds no live hand in hand {hand.number}", field="seat")
        events = (HandKilled(hand=hand.number, seat=command.seat, reason=command.reason),)
    elif isinstance(command, Away):
        if command.seat not in hand.seats or not hand.in_hand(command.seat):
            raise BadCommand(f"seat {command.seat} holds no live hand in hand {hand.number}", field="seat")
        if any(isinstance(e, ActionTaken) for _, e in hand.entries):
            raise IllegalAction("\"At Your Seat\" is ruled when the last card reaches the button, before any action; "
                                "now only the floor can kill the hand", field="type", rule="At Your Seat")
        events = (HandKilled(hand=hand.number, seat=command.seat,
                             reason="not at the seat when the last card reached the button (rule \"At Your Seat\")"),)
    elif isinstance(command, DeclareWinner):
        events = (_declare_winner(hand, command.seat),)
    elif isinstance(command, HiddenChips):
        if command.seat not in hand.seats or not hand.in_hand(command.seat) or hand.stack(command.seat):
            all_in = [n for n in hand.seats if hand.in_hand(n) and not hand.stack(n)]
            raise IllegalAction(f"hidden chips count only behind an acknowledged all-in; all-in now: "
                                f"{('seat ' + _seat_list(all_in)) if all_in else 'nobody'}", field="seat",
                                        rule="All-In with Hidden Chips")
        events = (HiddenChipsFound(hand=hand.number, seat=command.seat, amount=command.amount),)
    elif isinstance(command, RefuseToShow):
        events = _refusal_to_show(state, hand, command)
    elif isinstance(command, FourCardFlop):
        events = _four_card_flop(hand, command)
    elif isinstance(command, Misdeal):
        if substantial_action(hand.actions_in_turn()):
            raise IllegalAction(
                "substantial action has taken place, so this is no misdeal: play continues "
                "(an incorrect button then moves on normally next hand)", field="type", rule="Substantial Action")
        return (MisdealDeclared(hand=hand.number, reason=command.reason),)
    elif isinstance(command, Conditional):
        if command.seat not in hand.seats:
            raise BadCommand(f"seat {command.seat} is not dealt in to hand {hand.number}", field="seat")
        return (ConditionalStatement(hand=hand.number, seat=command.seat, text=command.text),)
    elif isinstance(command, Undo):
        if not hand.entries:
            raise NothingToUndo(f"nothing to undo in hand {hand.number}: no action has been entered yet")
        seq, entry = hand.entries[-1]
        return (ActionUndone(hand=hand.number, undone_seq=seq, reason=command.reason),)
    else:  # pragma: no cover - the Command union is closed
        raise BadCommand(f"unknown command {command!r}", field="type")
    return events


def _consequences(state: TableState, events: tuple[Event, ...]) -> tuple[tuple[Event, ...], TableState]:
    """What follows by itself: killed hands fold when their turn comes; a settled hand ends."""
    after = state
    for event in events:
        after = apply(after, event, seq=after.seq + 1)
    while after.hand is not None and not after.hand.ended:
        hand = after.hand
        if hand.over:
            ended = _hand_ended(hand, after.hidden)
            more: tuple[Event, ...] = (ended, *_eliminations(after, ended))
            settled = after
            for event in more:
                settled = apply(settled, event, seq=settled.seq + 1)
            more += _penalised_out(settled)
        elif (hand.to_show is not None and hand.to_show == after.winner and not hand.all_in_showdown()
              and UNKNOWN in hand.hole[hand.index(hand.to_show)]):
            # The declared winner's unread cards stay face down while the others muck.
            more = (ActionTaken(hand=hand.number, seat=hand.to_show, action="show", amount=hand.bet(hand.to_show)),)
        elif hand.to_show is not None and not hand.all_in_showdown() and (
                hand.to_show in after.killed or (after.winner is not None and hand.to_show != after.winner)):
            # A dead hand at showdown is not tabled: it cannot win.
            more = (ActionTaken(hand=hand.number, seat=hand.to_show, action="muck", amount=hand.bet(hand.to_show)),)
        elif hand.actor is not None and hand.actor in after.killed:
            more = (ActionTaken(hand=hand.number, seat=hand.actor, action="fold", amount=hand.bet(hand.actor)),)
        elif hand.actor is not None and any(p[0] == hand.actor for p in after.pending):
            more = _out_of_turn_comes_due(hand, next(p for p in after.pending if p[0] == hand.actor))
        else:
            break
        events += more
        for event in more:
            after = apply(after, event, seq=after.seq + 1)
    return events, after


def _out_of_turn_comes_due(hand: Hand, pending: tuple[int, str, int | None, bool]) -> tuple[Event, ...]:
    """Rule "Action out of Turn": binding if the action to that player has not changed
    (a call, check or fold does not change it); otherwise returned, options restored."""
    seat, action, amount, changed = pending
    if changed:
        return (OutOfTurnReturned(hand=hand.number, seat=seat, reason="the action changed before their turn"),)
    try:
        return (_act(hand, Act(seat=seat, action=action, amount=amount)),)
    except (IllegalAction, BadCommand) as refusal:
        return (OutOfTurnReturned(hand=hand.number, seat=seat, reason=f"not possible at their turn: {refusal.reason}"),)


def _eliminations(state: TableState, ended: HandEnded) -> tuple[PlayerEliminated, ...]:
    """Finishing places: busted in the same hand, the bigger starting stack places higher."""
    hand = state.hand
    assert hand is not None
    busted = [seat for seat, stack in ended.stacks.items() if stack == 0]
    if not busted:
        return ()
    start = dict(zip(hand.seats, hand.starting))
    winners = tuple(state.seat(w).player for w in ended.pots[0]["winners"]) if ended.pots else ()  # type: ignore[union-attr]
    out, place = [], state.players_left
    by_stack = sorted(busted, key=lambda seat: start[seat])
    for i, seat in enumerate(by_stack):
        # Equal starting stacks tie for the better of their places.
        ties = [s for s in by_stack if start[s] == start[seat]]
        best = place - max(by_stack.index(t) for t in ties)
        out.append(PlayerEliminated(hand=hand.number, seat=seat, player=state.seat(seat).player,  # type: ignore[union-attr]
                                    place=best, eliminated_by=winners, name=state.seat(seat).name,  # type: ignore[union-attr]
                                    tied=len(ties)))
    return tuple(out)


def _set_place(state: TableState, command: SetPlace) -> tuple[Event, ...]:
    """A finishing place set again (a tie across tables in hand-for-hand, or the TD's correction)."""
    out = next((e for e in reversed(state.eliminated) if e.player == command.player), None)
    if out is None:
        names = ", ".join(e.player for e in state.eliminated) or "nobody yet"
        raise BadCommand(f"{command.player} was not eliminated at this table (eliminated here: {names})", field="player")
    if not out.place:
        raise BadCommand(f"{command.player} was disqualified: no finishing place, no prize", field="player")
    if (out.place, out.tied) == (command.place, command.tied):
        return ()  # already so
    return (PlaceCorrected(player=out.player, before=out.place, place=command.place, tied=command.tied,
                           reason=command.reason),)


REMOVING_PENALTIES = {"elimination": "elimination penalty", "disqualification": "disqualified",
                      "event_ban": "disqualified", "all_events_exclusion": "disqualified"}


def _removed_by_penalty(state: TableState, issued: PenaltyIssued) -> tuple[Event, ...]:
    """Rule "Penalties": an elimination penalty or a disqualification takes the player's chips
    out of play. In a hand, the hand is killed now and the seat emptied when the hand ends."""
    how = REMOVING_PENALTIES.get(issued.kind)
    who = next((s for s in state.seats if s.player == issued.player and s.stack > 0), None)
    if how is None or who is None:
        return ()
    hand = state.hand
    if state.in_hand and hand is not None and who.seat in hand.seats:
        return (HandKilled(hand=hand.number, seat=who.seat, reason=f"{how}: {issued.reason}"),) if hand.in_hand(who.seat) else ()
    return _penalty_out(state, who, how)


def _penalty_out(state: TableState, who: SeatedPlayer, how: str, reason: str = "") -> tuple[Event, ...]:
    place = 0 if how == "disqualified" else state.players_left
    return (PlayerRemoved(seat=who.seat, player=who.player, stack=0, reason=reason or how),
            PlayerEliminated(hand=state.hand_no, seat=who.seat, player=who.player, place=place, eliminated_by=(),
                             how=how, name=who.name))


def _penalised_out(state: TableState) -> tuple[Event, ...]:
    """At the end of a hand: players an elimination penalty or a disqualification removes."""
    out: list[Event] = []
    for penalty in state.ledger.penalties:
        how = REMOVING_PENALTIES.get(penalty.kind)
        who = next((s for s in state.seats if s.player == penalty.player and s.stack > 0), None)
        if how and who:
            out += _penalty_out(state, who, how)
    return tuple(out)


def _current_hand(state: TableState) -> Hand:
    if not state.in_hand:
        raise NoHandInProgress("no hand is in progress: start a hand first", field="hand")
    assert state.hand is not None
    return state.hand


def _start_hand(state: TableState, command: StartHand) -> tuple[Event, ...]:
    if state.in_hand:
        raise HandInProgress(f"hand {state.hand_no} is still in progress", field="hand")
    live = [s.seat for s in sorted(state.seats, key=lambda s: s.seat) if s.stack > 0]
    if len(live) < 2:
        raise IllegalAction("a hand needs at least two players with chips", field="seats")
    if command.button is not None and state.button is not None:
        raise BadCommand("the button is drawn only for the first hand; it then moves by itself", field="button")
    redeal = state.hand is not None and state.hand.misdeal
    if redeal and command.button is not None:
        raise BadCommand("after a misdeal the re-deal keeps the same button", field="button")
    if redeal:  # an exact re-play: same seats, same button, same blinds, same limits
        last = state.hand
        assert last is not None
        button, sb_seat, bb_seat, dealt = last.button, last.small_blind_seat, last.big_blind_seat, list(last.seats)
        level_no, sb, bb, ante = state.hand_level, last.small_blind, last.big_blind, last.ante
    else:
        if command.button is not None and command.button not in live:
            raise BadCommand(f"button must be an occupied seat: {_seat_list(live)}", field="button")
        drawn = command.button if command.button is not None else state.drawn_button
        button, sb_seat, bb_seat, dealt = positions(live, state.small_blind_seat, state.big_blind_seat, drawn)
        if len(dealt) < 2:
            raise IllegalAction("a hand needs at least two players dealt in", field="seats")
        level_no, sb, bb, ante = state.level, state.blinds.small_blind, state.blinds.big_blind, state.blinds.ante
    order = tuple(clockwise_from(button, dealt))
    stacks = tuple(state.seat(n).stack for n in order)  # type: ignore[union-attr]
    return (
        HandStarted(hand=state.hand_no + 1, button=button, level=level_no, small_blind=sb, big_blind=bb, ante=ante,
                    seats=order, stacks=stacks, small_blind_seat=sb_seat, big_blind_seat=bb_seat),
    )


def _seating(state: TableState, command: Command) -> tuple[Event, ...]:
    """Seat, move or remove a player, count chips, rename, draw for the button: only between
    hands (rule "Tournament Seating"), so no hand ever changes under the dealer's feet."""
    if state.in_hand:
        raise HandInProgress(f"this is done between hands: hand {state.hand_no} is in progress", field="type",
                rule="Tournament Seating")
    playing = {s.player: s for s in state.seats if s.stack > 0}
    taken = {s.seat: s for s in state.seats if s.stack > 0}
    if isinstance(command, DrawButton):
        if command.seat not in taken:
            raise BadCommand(f"the button is drawn to an occupied seat: {_seat_list(sorted(taken))}", field="seat")
        return (ButtonDrawn(seat=command.seat),)
    if isinstance(command, SeatPlayer):
        if command.player in playing:
            raise BadCommand(f"{command.player} is already at seat {playing[command.player].seat}", field="player")
        if command.seat in taken:
            raise BadCommand(f"seat {command.seat} is taken by {taken[command.seat].name}; empty seats: "
                             f"{_seat_list(_empty(taken))}", field="seat")
        seated = PlayerSeated(seat=command.seat, player=command.player, name=command.name, country=command.country,
                              stack=command.stack, reason=command.reason)
        if not command.carried and not command.carried_hands:
            return (seated,)
        # Penalties move with the player's id: the record kept elsewhere comes along.
        return (seated, PenaltiesCarried(player=command.player, from_table=command.carried_from,
                                         penalties=tuple(p.__dict__.copy() for p in command.carried),
                                         hands_left=command.carried_hands))
    who = playing.get(command.player)
    if who is None:
        raise BadCommand(f"no player {command.player!r} with chips at table {state.table}", field="player")
    if isinstance(command, ChipCount):
        return (ChipCountCorrected(seat=who.seat, player=who.player, before=who.stack, after=command.stack,
                                   reason=command.reason),)
    if isinstance(command, DisplayName):
        return (DisplayNameChanged(player=who.player, before=who.name, after=command.name),)
    if isinstance(command, MovePlayer):
        if command.seat in taken:
            what = "already their seat" if command.seat == who.seat else f"taken by {taken[command.seat].name}"
            raise BadCommand(f"seat {command.seat} is {what}; empty seats: {_seat_list(_empty(taken))}", field="seat")
        return (PlayerMoved(player=who.player, from_seat=who.seat, to_seat=command.seat, reason=command.reason),)
    if command.chips_removed:  # out of the tournament, chips out of play: no place, no prize
        return _penalty_out(state, who, "disqualified", command.reason)
    return (PlayerRemoved(seat=who.seat, player=who.player, stack=who.stack, reason=command.reason),)


def _empty(taken: dict) -> list[int]:
    return [n for n in range(1, 11) if n not in taken] or ["none"]  # type: ignore[list-item]


def _hold(state: TableState, command: HoldForReview) -> HandHeldForReview:
    """Rule "Showing the Winner" 1: hold a hand's cards aside for the floor. The right to
    dispute ends when the next hand begins, so it is the current or the last hand."""
    hand = state.hand
    if hand is None:
        raise NoHandInProgress("no hand has been dealt yet", field="hand")
    strangers = [n for n in command.seats if n not in hand.seats]
    if strangers:
        raise BadCommand(f"seat {_seat_list(strangers)} was not dealt in to hand {hand.number}: "
                         f"dealt in were seats {_seat_list(sorted(hand.seats))}", field="seats")
    return HandHeldForReview(hand=hand.number, seats=command.seats, reason=command.reason)


def _declare_winner(hand: Hand, seat: int) -> WinnerDeclared:
    """Rule "Winning hand": with unread cards at showdown, the winner may be entered instead of
    the cards; every other hand still to show is then mucked, so only the winner can win."""
    if hand.to_show is None:
        raise IllegalAction("no showdown is under way: a winner is entered only at showdown", field="type")
    if hand.all_in_showdown():
        raise IllegalAction("with a player all-in every hand is turned face up: enter the tabled cards of seat "
                            f"{_seat_list(list(hand.awaiting_cards()))}", field="type", rule="All-In Showdown")
    if seat not in hand.seats or not hand.in_hand(seat):
        live = [n for n in hand.seats if hand.in_hand(n)]
        raise BadCommand(f"seat {seat} is not in this showdown: seats {_seat_list(live)} are", field="seat")
    return WinnerDeclared(hand=hand.number, seat=seat)


STALLING = "Refusal to Show: stalling the progress of play"


def _refusal_to_show(state: TableState, hand: Hand, command: RefuseToShow) -> tuple[Event, ...]:
    """Rule "Refusal to Show": a five-second countdown, then a dead hand and a penalty."""
    seat = command.seat
    if command.over:
        if seat not in state.refusing:
            raise IllegalAction(f"seat {seat} is not on a refusal-to-show countdown (the cards were tabled in time, "
                                "or no countdown was started)", field="seat", rule="Refusal to Show")
        player = state.seat(seat).player  # type: ignore[union-attr]
        kind, count = propose(state.ledger, player, "stalling")
        return (HandKilled(hand=hand.number, seat=seat, reason="refused to show: the hand is dead (rule \"Refusal to Show\")"),
                PenaltyIssued(player=player, kind=kind, count=count, reason="refused to table the hand at showdown",
                              rule=STALLING, issued_by="floor"))
    if hand.to_show is None:
        raise IllegalAction("no showdown is under way: a refusal to show is ruled only at showdown", field="type",
                rule="Refusal to Show")
    if hand.all_in_showdown():
        raise IllegalAction("with a player all-in every hand is turned face up by the dealer (rule \"All-In Showdown\")",
                            field="type", rule="All-In Showdown")
    if seat != hand.to_show:
        raise NotYourTurn(f"seat {hand.to_show} shows first at this showdown, not seat {seat}", field="seat",
                rule="Showdown")
    if seat in state.refusing:
        raise IllegalAction(f"seat {seat}'s countdown is already running", field="seat", rule="Refusal to Show")
    return (ShowCountdownStarted(hand=hand.number, seat=seat),)


def _four_card_flop(hand: Hand, command: FourCardFlop) -> tuple[Event, ...]:
    """Rule "Four-Card Flops": the floor draws one of the four at random as the burn, the
    other three are the flop. The draw comes in with the command (no randomness here)."""
    if len(hand.board) or hand.needs_board() != 3:
        raise IllegalAction("a four-card flop is ruled only when the flop is due", field="type", rule="Four-Card Flops")
    burn = command.burn if command.burn is not None else command.cards[command.draw or 0]
    flop = tuple(c for c in command.cards if c != burn)
    dealt = _board(hand, DealBoard(cards=flop))
    return (FourCardFlopEvent(hand=hand.number, cards=command.cards, burn=burn), *dealt)


def _seat_list(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _hole_cards(state: TableState, hand: Hand, command: SetHoleCards) -> HoleCardsSet | None:
    if command.seat not in hand.seats:
        raise BadCommand(f"seat {command.seat} is not dealt in to hand {hand.number}", field="seat")
    if len(command.cards) != state.hole_card_count:
        raise BadCommand(f"cards needs {state.hole_card_count} cards in this game", field="cards")
    if command.source == "camera" and command.seat in state.secured:
        # A human in the card room corrected this seat: a later camera read must not undo it.
        raise IllegalAction(f"seat {command.seat}: the secure card room has set these cards this hand; "
                            "the camera does not override them", field="source")
    known_now = [c for c in hand.hole[hand.index(command.seat)] if c != UNKNOWN]
    if UNKNOWN in command.cards and set(command.cards) - {UNKNOWN} <= set(known_now):
        if command.source == "camera":
            return None  # a card out of view takes back nothing: nothing new to record
        if command.seat in hand.shown():
            raise IllegalAction(f"seat {command.seat}'s hand is tabled: enter all of its cards, not ??",
                                field="cards")
    elsewhere = set(hand.board)
    for i, seat in enumerate(hand.seats):
        if seat != command.seat:
            elsewhere.update(hand.hole[i])
    if any(c != UNKNOWN and c in elsewhere for c in command.cards):
        # Never say which card: this message can reach a live screen.
        raise CardConflict(
            f"seat {command.seat}: camera check — a card entered is already at another seat or on the board",
            field="cards",
        )
    return HoleCardsSet(hand=hand.number, seat=command.seat, cards=command.cards, source=command.source)


def _board(hand: Hand, command: DealBoard) -> tuple[Event, ...]:
    need = hand.needs_board()
    if not need:
        actor, waiting = hand.actor, hand.awaiting_cards()
        if waiting:
            why = f"hands are turned face up first: enter the tabled cards of seat {_seat_list(list(waiting))}"
        else:
            why = f"seat {actor} is still to act" if actor else "no more board cards are due"
        raise IllegalAction(f"cannot deal the board now: {why}", field="cards")
    if len(command.cards) != need:
        street = "flop" if need == 3 else ("turn" if len(hand.board) == 3 else "river")
        raise BadCommand(f"the {street} is {need} card{'s' if need > 1 else ''}, got {len(command.cards)}", field="cards")
    if any(c in hand.board for c in command.cards):
        raise CardConflict("that card is already on the board: check the cards", field="cards")
    street = {0: "flop", 3: "turn", 4: "river"}[len(hand.board)]
    events: list[Event] = [BoardDealt(hand=hand.number, street=street, cards=command.cards)]
    # The board is what lies on the table. A hole card recorded as one of these cards was
    # misread: refusing here would tell the dealer someone holds it, so the board is taken,
    # that card becomes unknown, and the secure card room gets the detail.
    tabled = hand.shown()
    for i, seat in enumerate(hand.seats):
        clash = [c for c in hand.hole[i] if c in command.cards]
        if clash and seat in tabled:
            # A tabled hand is face up: taking its card back would leave the hand's record
            # unplayable (the run-out waits on tabled hands). The card is not named: this
            # message reaches live screens before the delay.
            raise CardConflict("a card of that board is recorded in a tabled hand: check the board and the "
                               "tabled cards (the card room corrects a misread hand)", field="cards")
        if clash:
            cards = tuple("??" if c in clash else c for c in hand.hole[i])
            events.append(HoleCardsSet(hand=hand.number, seat=seat, cards=cards, source="camera check"))
            events += [CardMisread(hand=hand.number, seat=seat, card=c) for c in clash]
    return tuple(events)


def _act(hand: Hand, command: Act) -> ActionTaken:
    seat = command.seat
    if seat not in hand.seats:
        raise BadCommand(f"seat {seat} is not dealt in to hand {hand.number}", field="seat")
    actor = hand.actor
    if actor is None:
        if hand.needs_board():
            raise IllegalAction("betting on this street is complete: deal the board first", field="action")
        waiting = hand.awaiting_cards()
        raise IllegalAction(
            f"betting is complete: enter the tabled cards of seat {_seat_list(list(waiting))}" if waiting else "betting is complete",
            field="action",
        )
    if seat != actor:
        raise NotYourTurn(
            f"it is seat {actor}'s turn, not seat {seat}'s (if seat {seat} acted out of turn, enter it as out of turn)",
            field="seat", rule="Verbal and Physical Action out of Turn")
    to_call = hand.to_call(seat)
    stack = hand.stack(seat)
    bet = hand.bet(seat)
    action = command.action
    if action == "fold":
        if not hand.pk.can_fold():
            raise IllegalAction(f"seat {seat} has nothing to call and can check", field="action")
        return ActionTaken(hand=hand.number, seat=seat, action="fold", amount=bet)
    if action == "check":
        if to_call:
            raise IllegalAction(f"seat {seat} cannot check: {chips(to_call)} to call", field="action")
        return ActionTaken(hand=hand.number, seat=seat, action="check", amount=bet)
    if action == "call":
        if not to_call:
            raise IllegalAction(f"seat {seat} has nothing to call and can check", field="action")
        return ActionTaken(hand=hand.number, seat=seat, action="call", amount=bet + to_call, all_in=to_call == stack)
    top = bet + stack
    if action == "allin":
        amount = top
    else:
        amount = command.amount or 0
    legal = hand.raise_range(seat)
    verb = "raise to" if max(hand.pk.bets) > 0 else "bet"
    if legal is None:
        if action == "allin" and to_call:
            # All-in for no more than the call: it is a call.
            return ActionTaken(hand=hand.number, seat=seat, action="call", amount=bet + to_call, all_in=to_call >= stack)
        why = "betting is not reopened to them" if to_call else "they cannot bet"
        raise IllegalAction(f"seat {seat} cannot {verb} {chips(amount)}: {why}; they may call or fold", field="amount",
                rule="All-In Raising")
    low, high = legal
    if action == "allin" and high < top:
        amount = high  # pot limit: "all-in" is as much as the pot allows
    if amount > high:
        if high < top:
            raise IllegalAction(f"seat {seat} cannot {verb} {chips(amount)}: the pot limit is {chips(high)}", field="amount",
                    rule="Pot Limit")
        raise IllegalAction(
            f"seat {seat} cannot {verb} {chips(amount)}: they have only {chips(high)} in total (all-in is {chips(high)})",
            field="amount", rule="Method of Raising",
        )
    if amount < low:
        word = "minimum raise is to" if verb == "raise to" else "minimum bet is"
        raise IllegalAction(f"seat {seat} cannot {verb} {chips(amount)}: {word} {chips(low)}", field="amount",
                rule="Method of Raising")
    kind = "raise" if verb == "raise to" else "bet"
    return ActionTaken(hand=hand.number, seat=seat, action=kind, amount=amount, all_in=amount == top)


def _muck(hand: Hand, seat: int) -> ActionTaken:
    """Rule "Winning hand": only tabled hands win; a player at showdown may muck instead."""
    if hand.to_show is None:
        raise IllegalAction("no showdown is under way: a hand is mucked only at showdown", field="type",
                rule="Winning hand")
    if hand.all_in_showdown():
        raise IllegalAction(f"seat {seat} cannot muck: with a player all-in every hand is turned face up "
                            "(rules \"All-In Showdown\" and \"Side Action\")", field="type", rule="All-In Showdown")
    if seat != hand.to_show:
        raise NotYourTurn(f"seat {hand.to_show} shows first at this showdown, not seat {seat}", field="seat",
                rule="Showdown")
    return ActionTaken(hand=hand.number, seat=seat, action="muck", amount=hand.bet(seat))


def situation(hand: Hand, seat: int) -> Situation:
    """What ``seat`` faces now, for the chip-action rulings."""
    pk = hand.pk
    return Situation(
        seat=seat,
        stack=hand.stack(seat),
        bet=hand.bet(seat),
        current_bet=max(pk.bets),
        last_raise=max(pk.completion_betting_or_raising_amount or 0, hand.big_blind),
        big_blind=hand.big_blind,
        opening_bet=not pk.completion_betting_or_raising_count,
        players_in_hand=sum(1 for status in pk.statuses if status),
    )


def _chips(hand: Hand, command: PushChips) -> tuple[Event, ...]:
    if command.seat not in hand.seats:
        raise BadCommand(f"seat {command.seat} is not dealt in to hand {hand.number}", field="seat")
    if hand.actor != command.seat:
        _act(hand, Act(seat=command.seat, action="check"))  # raises the right refusal (turn, board, showdown)
    ruling = rule_on_chips(situation(hand, command.seat), command.chips, command.declared, command.amount)
    action, note = ruling.action, ruling.note
    if action in ("bet", "raise") and hand.raise_range(command.seat) is None:
        # All-In Raising: a short all-in did not reopen the betting; the extra chips go back.
        action, note = "call", note + "; betting was not reopened, so it stands as a call"
    act = Act(seat=command.seat, action=action, amount=ruling.amount if action in ("bet", "raise") else None)
    taken = _act(hand, act)
    ruled = ChipsRuled(
        hand=hand.number, seat=command.seat, chips=command.chips, declared=command.declared,
        action=taken.action, amount=taken.amount, rule=ruling.rule, note=note, flagged=ruling.flagged,
    )
    return (ruled, taken)


def _hand_ended(hand: Hand, hidden: tuple[HiddenChipsFound, ...] = ()) -> HandEnded:
    pots, stacks = list(hand.payouts()), hand.final_stacks()
    for found in hidden:
        # "All-In with Hidden Chips": committed, but never paid on. A player who won any
        # share keeps them; one who lost everything loses them to the main pot's winners.
        if stacks[found.seat]:
            stacks[found.seat] += found.amount
            continue
        main = pots[0]["winners"] if pots else {}
        total = sum(main.values()) or 1
        shares = {seat: found.amount * won // total for seat, won in main.items()}
        odd = found.amount - sum(shares.values())
        for seat in sorted(shares, key=lambda n: hand.seats.index(n))[:odd]:  # odd chips left of the button first
            shares[seat] += 1
        for seat, share in shares.items():
            stacks[seat] += share
        pots.append({"amount": found.amount, "winners": shares, "hidden_chips_of": found.seat})
    return HandEnded(hand=hand.number, pots=tuple(pots), stacks=stacks, shown=hand.shown())


# -- apply --------------------------------------------------------------------------------
def apply(state: TableState, event: Event, *, seq: int | None = None) -> TableState:
    """Fold one journal event into the state. ``seq`` defaults to the next sequence."""
    seq = state.seq + 1 if seq is None else seq
    state = replace(state, seq=seq)
    if isinstance(event, TableOpened):
        return replace(state, table=event.table, game=event.game, seats=event.seats, levels=event.levels,
                       short_all_ins=event.short_all_ins,
                       players_left=sum(1 for s in event.seats if s.stack > 0))
    if getattr(event, "type", "") == "FieldDataSet" and getattr(event, "players_left", 0) > 0:
        # The TD's field data (or the show file's [field]): finishing places count the whole
        # field, not this table (a bust at the feature table with 100 left finishes 100th).
        seated = sum(1 for s in state.seats if s.stack > 0)
        return replace(state, players_left=max(event.players_left, seated))  # type: ignore[attr-defined]
    if isinstance(event, PenaltyIssued):
        penalty = Penalty(event.player, event.kind, event.count, event.reason, event.rule, event.issued_by)
        players = sum(1 for s in state.seats if s.stack > 0)
        return replace(state, ledger=issue(state.ledger, penalty, players_at_table=players))
    if isinstance(event, PlaceCorrected):
        last = max((i for i, e in enumerate(state.eliminated) if e.player == event.player), default=None)
        if last is None:
            return state
        eliminated = list(state.eliminated)
        eliminated[last] = replace(eliminated[last], place=event.place, tied=event.tied)
        return replace(state, eliminated=tuple(eliminated))
    if isinstance(event, PenaltiesCarried):
        carried = tuple(Penalty(**p) for p in event.penalties)
        return replace(state, ledger=carry(state.ledger, carried, event.player, event.hands_left))
    if isinstance(event, PlayerEliminated):
        return replace(state, eliminated=state.eliminated + (event,), players_left=state.players_left - 1)
    if isinstance(event, LevelChanged):
        return replace(state, level=event.level)
    if isinstance(event, HandStarted):
        hand = Hand.start(event, state.game, state.hole_card_count, short_all_ins=state.short_all_ins)
        redeal = state.hand is not None and state.hand.misdeal
        players = tuple(state.seat(n).player for n in event.seats)  # type: ignore[union-attr]
        # A misdeal's re-deal is the same hand for a penalised player: it is not counted twice.
        ledger, killed = (state.ledger, ()) if redeal else hand_dealt(state.ledger, players)
        if redeal:
            killed = tuple(p for p in players if p in {state.seat(s).player for s in state.killed})  # type: ignore[union-attr]
        killed_seats = frozenset(n for n in event.seats if state.seat(n).player in killed)  # type: ignore[union-attr]
        sb_seat, bb_seat = event.small_blind_seat, event.big_blind_seat
        if bb_seat is None:  # a journal from before seats moved: the blinds sat left of the button
            heads_up = len(event.seats) == 2
            sb_seat, bb_seat = (event.seats[1], event.seats[0]) if heads_up else (event.seats[0], event.seats[1])
        return replace(state, hand=hand, hand_no=event.hand, button=event.button, rulings=(), hand_level=event.level,
                       ledger=ledger, killed=killed_seats, pending=(), camera_checks=(), secured=frozenset(), refusing=frozenset(),
                       hidden=(), winner=None,
                       small_blind_seat=sb_seat, big_blind_seat=bb_seat, drawn_button=None)
    if isinstance(event, PlayerSeated):
        seated = SeatedPlayer(event.seat, event.player, event.name, event.country, event.stack)
        seats = tuple(sorted((*(s for s in state.seats if s.seat != event.seat), seated), key=lambda s: s.seat))
        return replace(state, seats=seats, players_left=state.players_left + 1)
    if isinstance(event, PlayerMoved):
        seats = tuple(sorted((replace(s, seat=event.to_seat) if s.player == event.player else s
                              for s in state.seats if s.seat != event.to_seat), key=lambda s: s.seat))
        return replace(state, seats=seats)
    if isinstance(event, PlayerRemoved):
        # A player who leaves with chips (to another table) leaves this table's count; one whose
        # chips leave play is counted out by the PlayerEliminated that follows.
        return replace(state, seats=tuple(s for s in state.seats if s.seat != event.seat),
                       players_left=state.players_left - (1 if event.stack else 0))
    if isinstance(event, ChipCountCorrected):
        seats = tuple(replace(s, stack=event.after) if s.player == event.player else s for s in state.seats)
        return replace(state, seats=seats)
    if isinstance(event, DisplayNameChanged):
        return replace(state, seats=tuple(replace(s, name=event.after) if s.player == event.player else s
                                          for s in state.seats))
    if isinstance(event, ButtonDrawn):
        return replace(state, button=None, drawn_button=event.seat, small_blind_seat=None, big_blind_seat=None)
    if isinstance(event, HandHeldForReview):
        return replace(state, held=state.held + (event,))
    hand = state.hand
    if hand is None or getattr(event, "hand", None) != hand.number:
        return state  # an event for a hand we do not hold cannot change this table
    if isinstance(event, HoleCardsSet):
        secured = state.secured | {event.seat} if event.source == "secure" else state.secured
        refusing = state.refusing - {event.seat} if UNKNOWN not in event.cards else state.refusing  # tabled in time
        return replace(state, hand=hand.with_hole_cards(event.seat, event.cards), secured=secured, refusing=refusing)
    if isinstance(event, CardMisread):
        return replace(state, camera_checks=state.camera_checks + (event,))
    if isinstance(event, HandKilled):
        return replace(state, killed=state.killed | {event.seat}, refusing=state.refusing - {event.seat})
    if isinstance(event, WinnerDeclared):
        return replace(state, winner=event.seat)
    if isinstance(event, HiddenChipsFound):
        return replace(state, hidden=state.hidden + (event,))
    if isinstance(event, ShowCountdownStarted):
        return replace(state, refusing=state.refusing | {event.seat})
    if isinstance(event, (ChipsRuled, ConditionalStatement)):
        return replace(state, rulings=state.rulings + (event,))
    if isinstance(event, OutOfTurnRecorded):
        pending = tuple(p for p in state.pending if p[0] != event.seat) + ((event.seat, event.action, event.amount, False),)
        return replace(state, pending=pending)
    if isinstance(event, OutOfTurnReturned):
        return replace(state, pending=tuple(p for p in state.pending if p[0] != event.seat))
    if isinstance(event, BoardDealt):
        # A new street: out-of-turn actions from the last one can no longer come due.
        return replace(state, hand=hand.with_entry(seq, event), pending=())
    if isinstance(event, ActionTaken):
        # A bet or raise changes the action for everyone waiting; a call, check or fold does not.
        changes = event.action in ("bet", "raise")
        pending = tuple(
            (s, a, m, c or changes) for s, a, m, c in state.pending if s != event.seat
        )
        return replace(state, hand=hand.with_entry(seq, event), pending=pending)
    if isinstance(event, ActionUndone):
        return replace(state, hand=hand.without_entry(event.undone_seq), undone=state.undone | {event.undone_seq})
    if isinstance(event, MisdealDeclared):
        return replace(state, hand=hand.finished(misdeal=True))  # stacks never moved: nothing to restore
    if isinstance(event, HandEnded):
        seats = tuple(replace(s, stack=event.stacks.get(s.seat, s.stack)) for s in state.seats)
        return replace(state, hand=hand.finished(), seats=seats)
    return state


def replay(events: list[tuple[int, Event]]) -> TableState:
    """The state after a whole journal of ``(seq, event)`` pairs."""
    state = TableState()
    for seq, event in events:
        state = apply(state, event, seq=seq)
    return state
