"""The exact equity engine: who wins how often, counting every remaining board.

Pure: no I/O, clock or randomness. The amount of work is bounded by a count passed in
(``budget``), never by wall time, so the same input always gives the same answer.

* :func:`equity` - each live hand's share of the pot over every runout, ties shared.
* :func:`outs` - on the flop and turn, the next cards that put a trailing hand in front.
* :func:`leaders` - which hands are ahead on the board as it stands.
* :func:`prepare` - build the lookup tables ahead of the first hand (a few tenths of a second).

Errors::

    ValueError
     └── EquityInputError(field, reason)   bad card text, duplicate card, wrong count,
                                           unknown (??) live card, unknown game, bad budget

Games: ``"nlhe"`` (two hole cards, best five of seven) and ``"plo"`` (four hole cards,
exactly two of them with exactly three board cards). Ranks are phevaluator's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from math import comb

from .cards import MAX_HANDS, EquityInputError, card_text, read_deal
from .holdem import holdem_tally
from .omaha import omaha_ranks, omaha_tally
from .tables import evaluate_5cards, evaluate_6cards, evaluate_7cards, prepare

__all__ = [
    "DEFAULT_BUDGET",
    "EquityInputError",
    "EquityResult",
    "MAX_HANDS",
    "equity",
    "leaders",
    "outs",
    "prepare",
    "work_needed",
]

#: Work (runouts × live hands) allowed when ``budget`` is None: about one second of one
#: core at the slowest rate measured (Omaha heads-up preflop, ~30-40 ns a unit; hold'em
#: is several times cheaper), see docs/EQUITY.md. Every case of up to 10 hands needs at
#: most 4.3 million units, so on air every all-in gets its exact number.
DEFAULT_BUDGET = {"nlhe": 20_000_000, "plo": 20_000_000}


@dataclass(frozen=True)
class EquityResult:
    """The exact share of the pot each live hand wins, in the order given.

    * ``equities``: share per hand, summing to 1 (empty when not ``exact``).
    * ``wins``: runouts each hand wins outright.
    * ``ties``: each hand's share of the runouts it splits (a three-way tie adds 1/3).
    * ``boards``: runouts from the stub, all counted when ``exact``.
    * ``exact``: False when ``work`` is over ``budget``; then no number is given and
      the caller must show none (there is no estimate to fall back on).
    * ``work``: runouts × live hands, the figure compared with ``budget``.
    """

    equities: tuple[float, ...]
    wins: tuple[int, ...]
    ties: tuple[float, ...]
    boards: int
    exact: bool
    work: int
    budget: int

    def as_dict(self) -> dict:
        """Plain JSON-ready data."""
        return asdict(self)


def work_needed(hands: int, board_cards: int, stub: int) -> int:
    """Work units of an exact count: runouts of the board from the stub × live hands."""
    return comb(stub, 5 - board_cards) * hands


def equity(
    hands: Sequence[Sequence[str]],
    board: Sequence[str] = (),
    dead: Sequence[str] = (),
    game: str = "nlhe",
    budget: int | None = None,
) -> EquityResult:
    """Exact equity of each live hand, counting every runout of the board.

    ``hands`` are the live hands (``[["As", "Ks"], ["Qd", "Qh"]]`` or ``["AsKs", "QdQh"]``);
    ``board`` has 0, 3, 4 or 5 cards; ``dead`` are cards known to be out of play (mucked
    hands, exposed burns), taken out of the stub. ``budget`` caps the work (runouts ×
    hands; None means :data:`DEFAULT_BUDGET` for the game): over it, the result has
    ``exact=False`` and no numbers. Raises :class:`EquityInputError` naming the field.
    """
    deal = read_deal(hands, board, dead, game)
    if budget is None:
        budget = DEFAULT_BUDGET[deal.game]
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise EquityInputError("budget", f"must be a whole number of runouts × hands, 0 or more, got {budget!r}")
    boards = comb(len(deal.rest), 5 - len(deal.board))
    if len(deal.holes) == 1:  # the only live hand wins every runout: nothing to count
        return EquityResult((1.0,), (boards,), (0.0,), boards, True, 0, budget)
    work = work_needed(len(deal.holes), len(deal.board), len(deal.rest))
    if work > budget:
        return EquityResult((), (), (), boards, False, work, budget)
    count = holdem_tally if deal.game == "nlhe" else omaha_tally
    tally, boards = count(deal.holes, deal.board, deal.rest)
    wins = tuple(int(n) for n in tally[:, 1])
    ties = tuple(sum(int(tally[i, k]) / k for k in range(2, tally.shape[1])) for i in range(len(deal.holes)))
    equities = tuple((w + t) / boards for w, t in zip(wins, ties))
    return EquityResult(equities, wins, ties, boards, True, work, budget)


def _ranks_now(game: str, holes: tuple[tuple[int, ...], ...], board: tuple[int, ...]) -> list[int]:
    """Each hand's rank on this board (3 to 5 cards); smaller is stronger."""
    if game == "plo":
        return [int(r) for r in omaha_ranks(holes, [board])[:, 0]]
    evaluate = {5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards}[len(board) + 2]
    return [evaluate(*hole, *board) for hole in holes]


def leaders(hands: Sequence[Sequence[str]], board: Sequence[str], game: str = "nlhe") -> tuple[int, ...]:
    """Indices of the hands ahead on this board (3 to 5 cards); several when they tie."""
    deal = read_deal(hands, board, (), game, board_sizes=(3, 4, 5))
    ranks = _ranks_now(deal.game, deal.holes, deal.board)
    return tuple(i for i, r in enumerate(ranks) if r == min(ranks))


def outs(
    hands: Sequence[Sequence[str]],
    board: Sequence[str],
    dead: Sequence[str] = (),
    game: str = "nlhe",
) -> tuple[tuple[str, ...], ...]:
    """For each hand behind now, the next cards that put it in front or level.

    Only on the flop and turn (``board`` of 3 or 4 cards). Hands ahead or level now get
    ``()``. Cards in ``dead`` cannot come, so passing the known mucked cards gives the
    "true outs"; without them it gives the outs as commonly counted. Cards are listed
    from aces down, each rank in the order c, d, h, s.
    """
    deal = read_deal(hands, board, dead, game, board_sizes=(3, 4))
    now = _ranks_now(deal.game, deal.holes, deal.board)
    behind = [r > min(now) for r in now]
    found: list[list[int]] = [[] for _ in deal.holes]
    if any(behind):
        cards = sorted(deal.rest, key=lambda c: (-(c >> 2), c & 3))
        if deal.game == "plo":
            table = omaha_ranks(deal.holes, [deal.board + (c,) for c in cards]).T.tolist()
        else:
            table = [_ranks_now("nlhe", deal.holes, deal.board + (c,)) for c in cards]
        for card, ranks in zip(cards, table):
            best = min(ranks)
            for i, rank in enumerate(ranks):
                if behind[i] and rank == best:
                    found[i].append(card)
    return tuple(tuple(card_text(c) for c in hand) for hand in found)
