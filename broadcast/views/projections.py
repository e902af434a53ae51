"""Projections: pure functions from the table state to each role's view model.

- ``live``: dealer and rep, at once. Never a hole card, nor anything that reveals one:
  only a per-seat "cards seen" light.
- ``public``: on air, delayed. Hole cards only when the releaser passes them in
  (the hand has ended live).
- ``commentary``: public plus the action history.
- ``secure``: live, with every card. Only the secure card room receives it.

Every view carries ``seq``, ``ts``, ``hand`` and ``hand_complete``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from ..equity import EquityInputError, equity, outs

from ..compliance.clock import read_called_clock, read_level_clock
from ..engine.cards import UNKNOWN
from ..engine.events import ActionTaken, BoardDealt, ChipsRuled, ConditionalStatement
from ..engine.table import TableState
from .graphics import sponsor_badges

FEEDS = ("public", "commentary", "live", "compliance", "secure", "control")


def board_need(state: TableState) -> dict[str, Any]:
    """What a board camera must know to deal (no hole card): the hand number, the board the
    core has, and how many board cards are due now (0: none)."""
    hand = state.hand
    if hand is None:
        return {"hand": state.hand_no, "board": [], "needs": 0}
    return {"hand": hand.number, "board": list(hand.board), "needs": 0 if hand.ended else hand.needs_board()}


def _header(state: TableState, feed: str, ts: int) -> dict[str, Any]:
    hand = state.hand
    blinds = state.blinds if state.levels else None
    return {
        "type": "view",
        "feed": feed,
        "table": state.table,
        "seq": state.seq,
        "ts": ts,
        "hand": hand.number if hand else None,
        "hand_complete": bool(hand and hand.ended),
        "game": state.game,
        "level": state.level,
        "blinds": (
            {"small_blind": blinds.small_blind, "big_blind": blinds.big_blind, "ante": blinds.ante, "minutes": blinds.minutes}
            if blinds
            else None
        ),
    }


def _last_actions(state: TableState) -> dict[int, dict]:
    last: dict[int, dict] = {}
    if state.hand:
        for _, entry in state.hand.entries:
            if isinstance(entry, ActionTaken):
                last[entry.seat] = {"action": entry.action, "amount": entry.amount, "all_in": entry.all_in}
    return last


def _seats(state: TableState, hole: Mapping[int, tuple[str, ...]] | None, *, lights: bool) -> list[dict]:
    hand = state.hand
    last = _last_actions(state)
    out = []
    for s in sorted(state.seats, key=lambda s: s.seat):
        dealt = hand is not None and s.seat in hand.seats
        row: dict[str, Any] = {
            "seat": s.seat,
            "player": s.player,
            "name": s.name,
            "country": s.country,
            "stack": hand.stack(s.seat) if dealt and not hand.ended else s.stack,  # type: ignore[union-attr]
            "bet": hand.bet(s.seat) if dealt and not hand.ended else 0,  # type: ignore[union-attr]
            "dealt_in": dealt,
            "in_hand": dealt and hand.in_hand(s.seat),  # type: ignore[union-attr]
            "button": hand is not None and hand.button == s.seat,
            "last_action": last.get(s.seat),
            "hole_cards": [],
        }
        if dealt:
            count = state.hole_card_count
            cards = (hole or {}).get(s.seat)
            row["hole_cards"] = list(cards) if cards else [UNKNOWN] * count
            if lights:
                known = hand.hole[hand.index(s.seat)]  # type: ignore[union-attr]
                seen = sum(c != UNKNOWN for c in known)
                row["cards_seen"] = "all" if seen == count else ("some" if seen else "none")
        out.append(row)
    return out


def _table(state: TableState) -> dict[str, Any]:
    hand = state.hand
    if hand is None:
        return {"board": [], "pots": [], "pot": 0, "actor": None, "street": None, "button": state.button}
    ended = hand.ended
    return {
        "board": list(hand.board),
        "pots": [] if ended else hand.pots(),
        "pot": 0 if ended else hand.pot_total(),
        "actor": None if ended else hand.actor,
        "street": hand.street,
        "button": hand.button,
    }


def _results(state: TableState, reveal: bool) -> dict[str, Any] | None:
    """Who won what once the hand is over; cards tabled only when allowed."""
    hand = state.hand
    if hand is None or not hand.ended:
        return None
    return {"pots": [{"amount": p["amount"], "winners": {str(k): v for k, v in p["winners"].items()}} for p in hand.payouts()]}


def _ruling(r: ChipsRuled | ConditionalStatement) -> dict[str, Any]:
    """A chip-action ruling or a conditional statement, for the floor's eyes on the console."""
    if isinstance(r, ConditionalStatement):
        return {"seat": r.seat, "rule": "Conditional Statements", "note": f"conditional statement recorded: {r.text}",
                "flagged": True}
    return {"seat": r.seat, "rule": r.rule, "note": r.note, "flagged": r.flagged}


def live_view(state: TableState, *, ts: int) -> dict[str, Any]:
    """Dealer console and rep dashboard: actions, stacks, pots, whose turn, card lights."""
    view = _header(state, "live", ts)
    view.update(_table(state))
    view["seats"] = _seats(state, None, lights=True)
    view["results"] = _results(state, False)
    hand = state.hand
    legal: dict[str, Any] | None = None
    if hand is not None and not hand.ended and hand.actor is not None:
        seat = hand.actor
        to_call = hand.to_call(seat)
        rng = hand.raise_range(seat)
        legal = {
            "seat": seat,
            "fold": bool(to_call),
            "check": not to_call,
            "call": to_call or None,
            "bet" if not max(hand.pk.bets) else "raise": list(rng) if rng else None,
            "allin": hand.bet(seat) + hand.stack(seat),
        }
    view["legal"] = legal
    # Which seat, never which card: the card would reveal a hole card in the room.
    view["camera_checks"] = sorted({f"seat {c.seat}: camera check" for c in state.camera_checks})
    view["rulings"] = [_ruling(r) for r in state.rulings]
    view["needs_board"] = hand.needs_board() if hand and not hand.ended else 0
    view["awaiting_cards"] = list(hand.awaiting_cards()) if hand and not hand.ended else []
    return view


@lru_cache(maxsize=512)
def _exact(hands: tuple[tuple[str, ...], ...], board: tuple[str, ...], dead: tuple[str, ...], game: str, with_outs: bool):
    try:
        result = equity(hands, board, dead, game=game)
    except EquityInputError:
        return None, None
    if not result.exact:
        return "over budget", None
    found = outs(hands, board, dead, game=game) if with_outs and len(board) in (3, 4) else None
    return result.equities, found


def _equities(state: TableState, hole: Mapping[int, tuple[str, ...]] | None, *, true_outs: bool) -> dict[str, Any] | None:
    """Exact equity per live seat, only when every live hand is known (never Monte Carlo).

    ``true_outs`` (commentary) also lists the outs that leave out the known mucked cards."""
    hand = state.hand
    if hand is None or hole is None or hand.ended:
        return None
    live = [seat for seat in hand.seats if hand.in_hand(seat)]
    cards = [tuple(hole.get(seat, ())) for seat in live]
    if len(live) < 2 or any(not c or "??" in c for c in cards):
        return None
    # Known mucked cards are dead: the figure on air is the true one. Public and commentary
    # ask the same question, so the second asks the cache.
    dead = tuple(c for seat in hand.seats if seat not in live for c in hole.get(seat, ()) if c != "??")
    shares, found = _exact(tuple(cards), tuple(hand.board), dead, state.game, True)
    if shares is None:
        return None
    if shares == "over budget":
        return {"exact": False, "note": "no exact figure within budget"}
    out: dict[str, Any] = {"exact": True, "seats": {str(seat): round(share * 100, 2) for seat, share in zip(live, shares)}}
    if found is not None and true_outs:
        out["outs"] = {str(seat): list(o) for seat, o in zip(live, found)}
    return out


def _tournament(state: TableState, rules: Any, ts: int) -> dict[str, Any]:
    """The extra graphics' data (leaderboard, payouts, eliminations, deals), as released.

    ``rules`` is the compliance state at the same cut of the journal (field data and
    deals are journal events too, so they air with the same delay)."""
    names = {s.player: s.name for s in state.seats}
    field = getattr(rules, "field", None)
    deals = getattr(getattr(rules, "conduct", None), "deals", ())
    clock = getattr(rules, "level_clock", None)

    def prize(place: int, tied: int = 1) -> int | None:
        """A place's prize; tied players split the money of the places they cover."""
        if field is None:
            return None
        amounts = [field.payout(p) for p in range(place, place + max(1, tied))]
        return sum(a or 0 for a in amounts) // len(amounts) if any(a is not None for a in amounts) else None

    return {
        "entries": field.entries if field else 0,
        "players_left": (field.players_left if field and field.players_left else state.players_left),
        "chips_in_play": field.chips_in_play if field else 0,
        "prize_pool": field.prize_pool if field else 0,
        "average_stack": field.average_stack if field else 0,
        "payouts": [{"first": p.first, "last": p.last, "amount": p.amount} for p in (field.payouts if field else ())],
        "eliminated": [
            {"hand": e.hand, "seat": e.seat, "player": e.player, "name": e.name or names.get(e.player, e.player),
             "place": e.place or None, "tied": e.tied, "how": e.how, "prize": prize(e.place, e.tied) if e.paid else None,
             "eliminated_by": [names.get(p, p) for p in e.eliminated_by]}
            for e in state.eliminated
        ],
        "deals": [{"text": d.text, "payouts": [{"player": p, "name": names.get(p, p), "amount": a} for p, a in d.payouts]}
                  for d in deals],
        "hand_for_hand": bool(clock and clock.hand_for_hand),
        # The clocks as they read at this view's time: a page runs them on from there, on the
        # server's time minus the delay (never the PC's own clock).
        "clock": read_level_clock(clock, tuple(lv.minutes for lv in state.levels), ts).to_dict() if clock else None,
        "called_clock": (read_called_clock(rules.called_clock, ts).to_dict()
                         if getattr(rules, "called_clock", None) is not None else None),
    }


def public_view(
    state: TableState, *, ts: int, hole: Mapping[int, tuple[str, ...]] | None = None, feed: str = "public",
    rules: Any = None, config: Any = None,
) -> dict[str, Any]:
    """What goes on air. ``hole`` is given only for a hand that has ended live; ``rules``
    is the compliance state at the same cut (field data, deals) for the extra graphics;
    ``config`` the show's compliance settings, which judge each seat's sponsor badge."""
    view = _header(state, feed, ts)
    view.update(_table(state))
    view["seats"] = _seats(state, hole, lights=False)
    view["results"] = _results(state, hole is not None)
    view["equity"] = _equities(state, hole, true_outs=feed == "commentary")
    view["tournament"] = _tournament(state, rules, ts)
    camera = getattr(rules, "camera", None)
    # "Playing blind" is announced at the table, so it may air; nothing else of the camera does.
    blind = camera.for_hand(state.hand.number).blind if camera is not None and state.hand is not None else frozenset()
    badges = sponsor_badges(rules, config, tuple(row["player"] for row in view["seats"]))
    for row in view["seats"]:
        row["playing_blind"] = row["seat"] in blind and row["dealt_in"]
        row["sponsor"] = badges.get(row["player"])  # only while the player's branding complies
    return view


def history(state: TableState) -> list[dict[str, Any]]:
    """The current hand's actions and board cards, corrections already applied."""
    if state.hand is None:
        return []
    out = []
    for seq, entry in state.hand.entries:
        if isinstance(entry, ActionTaken):
            out.append({"seq": seq, "seat": entry.seat, "action": entry.action, "amount": entry.amount, "all_in": entry.all_in})
        elif isinstance(entry, BoardDealt):
            out.append({"seq": seq, "street": entry.street, "cards": list(entry.cards)})
    return out


def commentary_view(
    state: TableState, *, ts: int, hole: Mapping[int, tuple[str, ...]] | None = None,
    public: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The commentators' view: on-air data plus the outs and the action history (delayed).

    ``public`` is the public view of the same state, when the caller already built it
    (the releaser builds both for every record): only the differences are added."""
    if public is None:
        public = public_view(state, ts=ts, hole=hole)
    view = {**public, "feed": "commentary", "equity": _equities(state, hole, true_outs=True)}
    view["history"] = history(state)
    return view


def secure_view(state: TableState, *, ts: int) -> dict[str, Any]:
    """The secure card room: live, with every known hole card."""
    view = live_view(state, ts=ts)
    view["feed"] = "secure"
    view["camera_checks"] = [{"seat": c.seat, "card": c.card} for c in state.camera_checks]
    hand = state.hand
    if hand is not None:
        for row in view["seats"]:
            if row["dealt_in"]:
                row["hole_cards"] = list(hand.hole[hand.index(row["seat"])])
    return view
