"""Per-seat fusion of frame reads (pure: no OpenCV, no I/O, no clock).

* A card is *confirmed* at a seat when it appears in at least K of the last N frames.
* "Cards shown" is confirmed the same way, from the frames' ``shown`` flags, so a hand
  under glare still lights up even when nothing can be identified.
* The per-seat light for the dealer console is ``none``, ``some`` or ``all``.
* :class:`TableTracker` checks confirmed cards across seats and the board: the same card
  twice, or more cards at a seat than the game deals, raises an alert.  The alert's
  detail (which card) is for the ``secure`` feed only; :meth:`Alert.public` is what live
  screens may show ("seat 4: camera check").
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Protocol

UNKNOWN = "??"
RANKS = "23456789TJQKA"
SUITS = "cdhs"


def valid_card(code: str) -> bool:
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


class FrameRead(Protocol):
    shown: bool
    faces: int
    cards: tuple[str, ...]
    confidence: tuple[float, ...]


@dataclass(frozen=True)
class SeatState:
    seat: Hashable
    n_cards: int
    light: str                       # "none", "some" or "all"
    shown: bool                      # confirmed: card faces are being shown
    cards: tuple[str, ...]           # confirmed cards first, "??" for the rest
    confidence: tuple[float, ...]    # per entry of cards
    impossible: bool = False         # more distinct confirmed cards than dealt
    shown_ts: float | None = None    # capture time of the first frame of the shown run
    seen_ts: float | None = None     # capture time of the frame that confirmed the cards

    @property
    def complete(self) -> bool:
        return UNKNOWN not in self.cards


@dataclass(frozen=True)
class Change:
    """What an update changed, as the worker would post it to the core's inbox."""
    kind: str                        # "HoleCardsShown" or "HoleCardsSeen"
    seat: Hashable
    cards: tuple[str, ...] = ()
    confidence: tuple[float, ...] = ()
    ts: float | None = None


class SeatTracker:
    """K-of-N confirmation of one seat's (or the board's) reads."""

    def __init__(self, seat: Hashable, n_cards: int, k: int = 3, n: int = 5):
        if not (1 <= k <= n):
            raise ValueError("need 1 <= k <= n")
        if n_cards < 1:
            raise ValueError("n_cards must be positive")
        self.seat, self.n_cards, self.k, self.n = seat, n_cards, k, n
        self._frames: deque = deque(maxlen=n)
        self._state = SeatState(seat, n_cards, "none", False, (UNKNOWN,) * n_cards,
                                (0.0,) * n_cards)

    @property
    def state(self) -> SeatState:
        return self._state

    def reset(self) -> None:
        """Forget everything (a new hand)."""
        self._frames.clear()
        self._state = SeatState(self.seat, self.n_cards, "none", False,
                                (UNKNOWN,) * self.n_cards, (0.0,) * self.n_cards)

    def update(self, read: FrameRead, ts: float | None = None) -> list[Change]:
        cards = {}
        for c, p in zip(read.cards, read.confidence):
            if c != UNKNOWN and valid_card(c):
                cards[c] = max(float(p), cards.get(c, 0.0))
        faces = max(0, min(int(read.faces), self.n_cards)) if read.shown else 0
        self._frames.append((bool(read.shown), faces, cards, ts))
        frames = list(self._frames)
        # shown / light
        shown_votes = sum(1 for s, _, _, _ in frames if s)
        shown = shown_votes >= self.k
        all_votes = sum(1 for s, f, c, _ in frames if s and max(f, len(c)) >= self.n_cards)
        if all_votes >= self.k:
            light = "all"
        elif shown:
            light = "some"
        else:
            light = "none"
        # cards
        votes: dict[str, list[float]] = {}
        for _, _, c, _ in frames:
            for code, p in c.items():
                votes.setdefault(code, []).append(p)
        confirmed = sorted(((code, sum(ps) / len(ps)) for code, ps in votes.items()
                            if len(ps) >= self.k), key=lambda t: -t[1])
        impossible = len(confirmed) > self.n_cards
        if impossible:
            confirmed = []  # do not guess which of them is wrong
        if len(confirmed) >= self.n_cards and light != "all":
            light = "all"
        prev = self._state
        keep_prev = [c for c in prev.cards if c != UNKNOWN]
        codes = [c for c, _ in confirmed]
        # keep a stable order: cards confirmed earlier stay first
        ordered = [c for c in keep_prev if c in codes] + [c for c in codes if c not in keep_prev]
        conf_map = dict(confirmed)
        new_cards = tuple(ordered) + (UNKNOWN,) * (self.n_cards - len(ordered))
        new_conf = tuple(round(conf_map[c], 4) for c in ordered) + (0.0,) * (self.n_cards - len(ordered))
        shown_ts = prev.shown_ts
        if shown and not prev.shown:
            run = [t for s, _, _, t in frames if s]
            shown_ts = run[0] if run else ts
        elif not shown:
            shown_ts = None
        seen_ts = prev.seen_ts if set(new_cards) == set(prev.cards) else ts
        self._state = SeatState(self.seat, self.n_cards, light, shown, new_cards, new_conf,
                                impossible, shown_ts, seen_ts)
        changes = []
        if shown and not prev.shown:
            changes.append(Change("HoleCardsShown", self.seat, ts=shown_ts))
        known_prev = {c for c in prev.cards if c != UNKNOWN}
        known_new = {c for c in new_cards if c != UNKNOWN}
        if known_new and known_new != known_prev:
            changes.append(Change("HoleCardsSeen", self.seat, new_cards, new_conf, ts))
        return changes


@dataclass(frozen=True)
class Alert:
    kind: str                        # "duplicate" or "impossible"
    seats: tuple[Hashable, ...]
    card: str = ""                   # secure detail only

    def public(self) -> list[str]:
        """What a live (non-secure) screen may show: never the card."""
        return [f"{_seat_name(s)}: camera check" for s in self.seats]

    def secure(self) -> dict:
        return {"kind": self.kind, "card": self.card, "seats": list(self.seats)}


def _seat_name(seat: Hashable) -> str:
    return "board" if seat == "board" else f"seat {seat}"


@dataclass
class TableTracker:
    """Seat trackers for a table plus an optional board, with cross-checks."""
    seats: dict[Hashable, int]                  # seat -> hole cards dealt (2 or 4)
    board_cards: int = 0                        # 0: no board camera
    k: int = 3
    n: int = 5
    trackers: dict[Hashable, SeatTracker] = field(init=False)

    def __post_init__(self) -> None:
        self.trackers = {s: SeatTracker(s, nc, self.k, self.n) for s, nc in self.seats.items()}
        if self.board_cards:
            self.trackers["board"] = SeatTracker("board", self.board_cards, self.k, self.n)

    def update(self, seat: Hashable, read: FrameRead, ts: float | None = None) -> list[Change]:
        return self.trackers[seat].update(read, ts)

    def new_hand(self) -> None:
        for t in self.trackers.values():
            t.reset()

    def state(self, seat: Hashable) -> SeatState:
        return self.trackers[seat].state

    def lights(self) -> dict[Hashable, str]:
        return {s: t.state.light for s, t in self.trackers.items() if s != "board"}

    def alerts(self) -> list[Alert]:
        where: dict[str, list[Hashable]] = {}
        out: list[Alert] = []
        for s, t in self.trackers.items():
            st = t.state
            if st.impossible:
                out.append(Alert("impossible", (s,)))
            for c in st.cards:
                if c != UNKNOWN:
                    where.setdefault(c, []).append(s)
        for card, seats in sorted(where.items()):
            if len(seats) > 1:
                out.append(Alert("duplicate", tuple(seats), card))
        return out


def duplicates(hands: dict[Hashable, Iterable[str]]) -> dict[str, list[Hashable]]:
    """Cards that appear at more than one seat (or seat and board)."""
    where: dict[str, list[Hashable]] = {}
    for s, cards in hands.items():
        for c in set(cards):
            if c != UNKNOWN:
                where.setdefault(c, []).append(s)
    return {c: seats for c, seats in where.items() if len(seats) > 1}
