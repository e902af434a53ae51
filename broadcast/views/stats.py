"""Player statistics and the hand-history list for the commentary desk, from RELEASED data only.

Pure: no I/O, clock or randomness. The input is the ``commentary`` feed's messages in
stream order, i.e. exactly what the releaser has put on air for the commentators
(``ts + D`` passed, corrections applied, hole cards only once their hand ended live).
Nothing here reads the journal or a live view, so no figure can run ahead of the
delay, and a hole card can only count once it is on the commentary feed. A hand
counts once its *completed* view has been released; the latest released view of a
hand wins (a later message of the same hand carries the same or a corrected history).
A misdealt hand (complete, no pot awarded) is void and never counts.

Definitions (the usual tracker ones, on the corrected action history):

* **hands**: hands dealt in.
* **VPIP**: put chips in voluntarily pre-flop (a call, bet or raise; a posted blind or
  ante is not), over the hands with a pre-flop decision (a walk in the big blind or a
  player all-in from the blinds had none).
* **PFR**: raised pre-flop, over the same hands.
* **3-bet**: re-raised the first raise pre-flop, over the times they acted facing
  exactly one raise they had not made themselves.
* **WTSD**: went to showdown, over the hands in which they saw the flop (still
  holding cards when it was dealt).
* **W$SD** ("won at showdown"): won chips at showdown, over the showdowns they went to.

A hand reaches showdown when two or more players still hold cards at its end.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

RANKS = "23456789TJQKA"
SUITS = "cdhs"
VOLUNTARY = ("call", "bet", "raise")
AGGRESSIVE = ("bet", "raise")
STREET_OF_BOARD = {"flop": "flop", "turn": "turn", "river": "river"}


@dataclass(frozen=True)
class PlayerHand:
    """One player's part in one finished hand."""

    seat: int
    player: str
    name: str
    country: str
    cards: tuple[str, ...]  # as released: all known hole cards of the hand, "??" if unknown
    stack: int  # after the hand
    won: int  # chips taken from the pots
    preflop_decision: bool
    vpip: bool
    pfr: bool
    three_bet_chance: bool
    three_bet: bool
    saw_flop: bool
    showdown: bool
    folded: str | None  # the street they folded on, or None


@dataclass(frozen=True)
class HandSummary:
    """A finished hand as the commentary feed released it."""

    hand: int
    seq: int
    ts: int
    level: int | None
    blinds: dict | None
    button: int | None
    board: tuple[str, ...]
    pot: int  # chips awarded
    showdown: bool
    players: tuple[PlayerHand, ...]
    actions: tuple[dict, ...]  # the released history, each entry with its street

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["winners"] = [p.seat for p in self.players if p.won]
        return out

    def brief(self) -> dict[str, Any]:
        """What the list shows: no action-by-action history."""
        out = self.to_dict()
        del out["actions"]
        return out


# -- one hand ---------------------------------------------------------------------------------
def with_streets(history: Iterable[Mapping[str, Any]]) -> list[dict]:
    """The history with each action's street ("preflop" until the flop entry, and so on)."""
    street = "preflop"
    out = []
    for entry in history:
        if "cards" in entry and "street" in entry:
            street = STREET_OF_BOARD.get(entry["street"], entry["street"])
            out.append(dict(entry))
        else:
            out.append({**entry, "street": street})
    return out


def _winnings(view: Mapping[str, Any]) -> dict[int, int]:
    won: dict[int, int] = {}
    for pot in ((view.get("results") or {}).get("pots") or []):
        for seat, amount in pot.get("winners", {}).items():
            won[int(seat)] = won.get(int(seat), 0) + int(amount)
    return won


def summarize(view: Mapping[str, Any]) -> HandSummary | None:
    """The summary of a hand from its completed commentary view; None if it is not one
    (not complete, or void: a misdeal awards no pot)."""
    if view.get("type", "view") != "view" or view.get("hand") is None or not view.get("hand_complete"):
        return None
    won = _winnings(view)
    if not won:
        return None
    actions = with_streets(view.get("history") or [])
    dealt = [s for s in view.get("seats", []) if s.get("dealt_in")]
    seats = {s["seat"] for s in dealt}

    # Pre-flop: who decided, who put chips in, who raised, who faced one raise.
    decided: set[int] = set()
    vpip: set[int] = set()
    pfr: set[int] = set()
    chance: set[int] = set()
    three: set[int] = set()
    raisers: list[int] = []
    folded: dict[int, str] = {}
    flop_seen: set[int] | None = None
    for entry in actions:
        if "action" not in entry:
            if entry.get("street") == "flop" and flop_seen is None:
                flop_seen = seats - set(folded)
            continue
        seat, action, street = entry["seat"], entry["action"], entry["street"]
        if street == "preflop":
            decided.add(seat)
            if len(raisers) == 1 and raisers[0] != seat:
                chance.add(seat)
                if action in AGGRESSIVE:
                    three.add(seat)
            if action in VOLUNTARY:
                vpip.add(seat)
            if action in AGGRESSIVE:
                pfr.add(seat)
                raisers.append(seat)
        if action == "fold":
            folded.setdefault(seat, street)
    holding = seats - set(folded)
    showdown = len(holding) >= 2
    players = tuple(
        PlayerHand(
            seat=s["seat"],
            player=s.get("player") or f"seat-{s['seat']}",
            name=s.get("name", f"Seat {s['seat']}"),
            country=s.get("country", ""),
            cards=tuple(s.get("hole_cards") or ()),
            stack=int(s.get("stack", 0)),
            won=won.get(s["seat"], 0),
            preflop_decision=s["seat"] in decided,
            vpip=s["seat"] in vpip,
            pfr=s["seat"] in pfr,
            three_bet_chance=s["seat"] in chance,
            three_bet=s["seat"] in three,
            saw_flop=flop_seen is not None and s["seat"] in flop_seen,
            showdown=showdown and s["seat"] in holding,
            folded=folded.get(s["seat"]),
        )
        for s in sorted(dealt, key=lambda s: s["seat"])
    )
    return HandSummary(
        hand=int(view["hand"]),
        seq=int(view.get("seq", 0)),
        ts=int(view.get("ts") or 0),
        level=view.get("level"),
        blinds=view.get("blinds"),
        button=view.get("button"),
        board=tuple(view.get("board") or ()),
        pot=sum(won.values()),
        showdown=showdown,
        players=players,
        actions=tuple(actions),
    )


# -- many hands ---------------------------------------------------------------------------------
class Ledger:
    """Folds the released commentary messages, one at a time, into finished hands."""

    def __init__(self) -> None:
        self._hands: dict[int, HandSummary] = {}
        self.seq = 0  # the last released seq seen

    def add(self, view: Mapping[str, Any]) -> bool:
        """Take the next released message; True if the finished hands changed."""
        if isinstance(view.get("seq"), int):
            self.seq = max(self.seq, view["seq"])
        if view.get("hand") is None or not view.get("hand_complete"):
            return False
        summary = summarize(view)
        number = int(view["hand"])
        if summary is None:
            return self._hands.pop(number, None) is not None
        if self._hands.get(number) == summary:
            return False
        self._hands[number] = summary
        return True

    def hands(self) -> list[HandSummary]:
        """Finished hands, newest first."""
        return [self._hands[n] for n in sorted(self._hands, reverse=True)]

    def hand(self, number: int) -> HandSummary | None:
        return self._hands.get(number)


def ledger_of(views: Iterable[Mapping[str, Any]]) -> Ledger:
    ledger = Ledger()
    for view in views:
        ledger.add(view)
    return ledger


@dataclass
class PlayerStats:
    player: str
    name: str
    country: str
    hands: int = 0
    preflop_decisions: int = 0
    vpip: int = 0
    pfr: int = 0
    three_bet_chances: int = 0
    three_bets: int = 0
    saw_flop: int = 0
    showdowns: int = 0
    won_at_showdown: int = 0
    hands_won: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "vpip_pct": pct(self.vpip, self.preflop_decisions),
            "pfr_pct": pct(self.pfr, self.preflop_decisions),
            "three_bet_pct": pct(self.three_bets, self.three_bet_chances),
            "wtsd_pct": pct(self.showdowns, self.saw_flop),
            "wsd_pct": pct(self.won_at_showdown, self.showdowns),
        }


def pct(count: int, chances: int) -> float | None:
    """A percentage to one decimal, or None when there was no chance at all."""
    return None if not chances else round(100 * count / chances, 1)


def player_stats(hands: Iterable[HandSummary]) -> dict[str, PlayerStats]:
    """Per player (by stable player id): counts over the given finished hands."""
    out: dict[str, PlayerStats] = {}
    for hand in sorted(hands, key=lambda h: h.hand):
        for p in hand.players:
            stats = out.setdefault(p.player, PlayerStats(p.player, p.name, p.country))
            stats.name, stats.country = p.name, p.country  # the latest display name
            stats.hands += 1
            stats.preflop_decisions += p.preflop_decision
            stats.vpip += p.vpip
            stats.pfr += p.pfr
            stats.three_bet_chances += p.three_bet_chance
            stats.three_bets += p.three_bet
            stats.saw_flop += p.saw_flop
            stats.showdowns += p.showdown
            stats.won_at_showdown += p.showdown and p.won > 0
            stats.hands_won += p.won > 0
    return out


# -- search -------------------------------------------------------------------------------------
GLYPHS = {"\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c", "\u2664": "s", "\u2661": "h", "\u2662": "d", "\u2667": "c"}


def _card_token(text: str) -> str | None:
    """"As", "a♠", "10h", "ts" -> "as"/"th"; None when the text is not one card."""
    t = "".join(GLYPHS.get(ch, ch) for ch in text.strip().lower()).replace("10", "t")
    if len(t) == 2 and t[0].upper() in RANKS and t[1] in SUITS:
        return t
    return None


def _shapes(cards: tuple[str, ...]) -> set[str]:
    """"AsKs" -> {"ak", "aks"}; "QdQc" -> {"qq"}. Two-card hands only."""
    known = [c for c in cards if c != "??"]
    if len(known) != 2:
        return set()
    (r1, s1), (r2, s2) = sorted(((c[0], c[1]) for c in known), key=lambda c: -RANKS.index(c[0]))
    if r1 == r2:
        return {f"{r1}{r2}".lower()}
    base = f"{r1}{r2}".lower()
    return {base, base + ("s" if s1 == s2 else "o")}


def _index(hand: HandSummary) -> tuple[set[str], list[str]]:
    """Exact tokens and the names (matched by substring) a hand can be found by."""
    tokens = {str(hand.hand), f"#{hand.hand}"}
    tokens |= {c.lower() for c in hand.board}
    names: list[str] = []
    for p in hand.players:
        names.append(p.name.lower())
        tokens.add(p.player.lower())
        tokens |= {c.lower() for c in p.cards if c != "??"}
        tokens |= _shapes(p.cards)
    if hand.showdown:
        tokens |= {"showdown", "sd"}
    if any(a.get("all_in") for a in hand.actions):
        tokens |= {"allin", "all-in"}
    if any(p.three_bet for p in hand.players):
        tokens |= {"3bet", "3-bet"}
    tokens |= {a["street"] for a in hand.actions if "cards" in a}
    return tokens, names


def matches(hand: HandSummary, query: str) -> bool:
    """Every word of ``query`` must match: a hand number ("12", "#12"), a player's name
    (any part of it), a card ("As", "a♠", "10h"), a starting hand ("AK", "AKs", "QQ"),
    or "showdown", "all-in", "3-bet", "flop", "turn", "river"."""
    tokens, names = _index(hand)
    query = re.sub(r"\ball\s+in\b", "all-in", query.strip().lower())
    query = re.sub(r"\b3\s+bet\b", "3-bet", query)
    for word in re.split(r"[\s,]+", query):
        if not word:
            continue
        card = _card_token(word)
        if card is not None and card in tokens:
            continue
        if word in tokens:
            continue
        if word.lstrip("#").isdigit():
            return False  # a number is a hand number, never part of a name
        if any(word in name for name in names):
            continue
        return False
    return True


def search(hands: Iterable[HandSummary], query: str = "", *, limit: int | None = None) -> list[HandSummary]:
    """The hands matching ``query`` (all when empty), newest first."""
    found = [h for h in sorted(hands, key=lambda h: -h.hand) if matches(h, query)]
    return found if limit is None else found[:limit]
