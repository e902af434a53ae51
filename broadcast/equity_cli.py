"""``tvtable equity``: exact equities and outs for operators and tools.

    tvtable equity AsKs QdQh
    tvtable equity AsKs QdQh --board "Qs 7s 2d" --dead "8s9s" --json
    tvtable equity AsAhKsQd 9c8c7h6h --game plo

Hook it in with ``add_parser(subparsers)``; the handler returns the exit code
(0 answered, even when over budget; 2 bad input).
"""

from __future__ import annotations

import argparse
import json
import sys

from .equity import DEFAULT_BUDGET, EquityInputError, equity, leaders, outs
from .equity.cards import card_text, read_deal


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``equity`` command on an ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "equity",
        help="exact equities and outs for known hands",
        description=(
            "Count every remaining board and print each hand's exact share of the pot, "
            "ties shared. On the flop and turn, also the outs of each hand that is behind, "
            "and the true outs (without the dead cards). No Monte Carlo: over the budget, "
            "no number is printed."
        ),
        epilog="Cards are two characters, rank 23456789TJQKA and suit cdhs: As Td 9c. "
        'Example: tvtable equity AsKs QdQh --board "Qs 7s 2d" --json',
    )
    p.add_argument("hands", nargs="+", metavar="HAND", help="a live hand's hole cards, like AsKs (four cards in plo)")
    p.add_argument("--board", default="", metavar="CARDS", help="board cards so far: 0, 3, 4 or 5, like 'Qs7s2d'")
    p.add_argument("--dead", default="", metavar="CARDS", help="cards known to be out of play (mucked hands), like '8s9s'")
    p.add_argument("--game", default="nlhe", choices=sorted(DEFAULT_BUDGET), help="nlhe (default) or plo")
    p.add_argument(
        "--budget",
        type=int,
        default=None,
        metavar="N",
        help="most work to do, in runouts × hands (default per game: "
        + ", ".join(f"{g} {n:,}" for g, n in DEFAULT_BUDGET.items())
        + ")",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_equity)
    return p


def report(hands, board="", dead="", game="nlhe", budget=None) -> dict:
    """Everything the command prints, as JSON-ready data; raises EquityInputError."""
    deal = read_deal(hands, board, dead, game)
    texts = lambda cards: [card_text(c) for c in cards]  # noqa: E731
    result = equity(hands, board, dead, game, budget)
    data = {
        "game": deal.game,
        "hands": [texts(h) for h in deal.holes],
        "board": texts(deal.board),
        "dead": texts(deal.dead),
        **result.as_dict(),
        "equities": list(result.equities),
        "wins": list(result.wins),
        "ties": list(result.ties),
        "leaders": None,
        "outs": None,
        "true_outs": None,
    }
    if len(deal.board) >= 3:
        data["leaders"] = list(leaders(hands, board, game))
    if len(deal.board) in (3, 4):
        data["outs"] = [list(o) for o in outs(hands, board, (), game)]
        data["true_outs"] = [list(o) for o in outs(hands, board, dead, game)]
    return data


def _text(data: dict) -> str:
    board = " ".join(data["board"]) or "none (preflop)"
    lines = [f"{data['game']}  board {board}" + (f"  dead {' '.join(data['dead'])}" if data["dead"] else "")]
    if data["exact"]:
        lines.append(f"exact over all {data['boards']:,} runouts")
    else:
        lines.append(
            f"NOT COMPUTED: {data['boards']:,} runouts × {len(data['hands'])} hands = {data['work']:,} "
            f"is over the budget of {data['budget']:,}; no number is shown (raise --budget to compute)"
        )
    for i, hand in enumerate(data["hands"]):
        line = f"  {''.join(hand):<10}"
        if data["exact"]:
            line += f"{data['equities'][i] * 100:7.2f}%   wins {data['wins'][i]:>11,}   ties {data['ties'][i]:>12,.2f}"
        if data["leaders"] is not None and i in data["leaders"]:
            line += "   ahead"
        elif data["outs"] is not None:
            nominal, true = data["outs"][i], data["true_outs"][i]
            line += f"   outs {len(nominal)}"
            if len(true) != len(nominal):
                line += f" (true {len(true)})"
            if true:
                line += ": " + " ".join(true)
        lines.append(line)
    return "\n".join(lines)


def cmd_equity(args: argparse.Namespace) -> int:
    """Run ``tvtable equity``."""
    try:
        data = report(args.hands, args.board, args.dead, args.game, args.budget)
    except EquityInputError as exc:
        print(f"tvtable equity: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(data) if args.json else _text(data))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command on its own: ``python -m broadcast.equity_cli AsKs QdQh``."""
    parser = argparse.ArgumentParser(prog="tvtable")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["equity", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
