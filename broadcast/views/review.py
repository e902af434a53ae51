"""Hands held for the floor's review (rule "Showing the Winner" 1): the held seats' cards,
the board and the reason, rebuilt from the journal. For the secure card room only."""

from __future__ import annotations

from typing import Any, Iterable

from ..engine.events import EVENT_TYPES, HandHeldForReview, event_from_dict
from ..engine.table import TableState, apply


def held_hands(records: Iterable[tuple[int, int, dict]]) -> list[dict[str, Any]]:
    """Each hold, in journal order, from ``(seq, ts, event-dict)`` records: the hand as it
    stood when the dealer held its cards aside (they are never deleted from the journal)."""
    state, out = TableState(), []
    for seq, ts, data in records:
        if data.get("type") not in EVENT_TYPES:
            continue  # a compliance event: the table does not change
        event = event_from_dict(data)
        state = apply(state, event, seq=seq)
        if isinstance(event, HandHeldForReview) and state.hand is not None and state.hand.number == event.hand:
            hand = state.hand
            out.append({
                "hand": event.hand, "seq": seq, "ts": ts, "reason": event.reason, "board": list(hand.board),
                "seats": [{"seat": n, "name": state.seat(n).name if state.seat(n) else "",
                           "hole_cards": list(hand.hole[hand.index(n)])} for n in event.seats],
                "hand_over": hand.ended,
            })
    return out

