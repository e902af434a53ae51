"""``tvtable replay`` and ``tvtable export``: hand histories in and out.

``add_parser(subparsers)`` registers both commands on the ``tvtable`` parser.

Exit status: 0 when every hand replayed (and matched the file's ``finishing_stacks``)
or the export was written; 1 when a hand could not be replayed; 2 for a bad file, a
missing journal or bad arguments.
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from pathlib import Path


def add_parser(subparsers) -> None:
    """Register ``replay`` and ``export`` on the ``tvtable`` sub-command parser."""
    replay = subparsers.add_parser(
        "replay",
        help="replay PHH hand histories through the hand engine",
        description=(
            "Play each hand of a PHH file (.phh, or .phhs with several hands) through the same "
            "command path as the dealer console (parse_command, decide, apply), and report how it "
            "ended. A hand the engine refuses is named with the action it refused; a hand whose "
            "finishing stacks differ from the file's finishing_stacks counts as failed. "
            "Exit status: 0 all hands replayed, 1 a hand could not be replayed, 2 the file cannot be read."
        ),
    )
    replay.add_argument("file", metavar="FILE", help="a .phh or .phhs file")
    replay.add_argument("--json", action="store_true",
                        help="one JSON object per hand, in file order, with finishing_stacks in the file's player order")
    replay.set_defaults(func=cmd_replay)

    export = subparsers.add_parser(
        "export",
        help="export a table's hands as PHH or PokerStars text",
        description=(
            "Read a table's journal and write its finished hands: PHH (one <table>-hand-NNNN.phh per "
            "hand; every action ends with its timecode, '# hh:mm:ss.mmm' UTC, the Redis time of the "
            "event) or PokerStars-style text for tracking software (<table>-pokerstars.txt). Undone "
            "actions are left out, misdealt hands are void and a hand still in play is not exported."
        ),
    )
    export.add_argument("--table", required=True, help="the table id")
    export.add_argument("--format", required=True, choices=("phh", "pokerstars"), help="phh or pokerstars")
    export.add_argument("--out", required=True, metavar="DIR", help="the folder to write to (created if missing)")
    export.add_argument("--data-dir", default="var", help="the show's data dir, for its embedded Redis (default ./var)")
    export.add_argument("--redis", default=None, help="external Redis URL (or TVTABLE_REDIS_URL); default: the embedded one")
    export.add_argument("--event", default=None, help="the event's name, written in each PHH hand's event field")
    export.set_defaults(func=cmd_export)


# -- replay -------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    from .phh import PhhFileError, load, replay_all, summary

    try:
        hands = load(args.file)
    except PhhFileError as exc:
        print(f"tvtable replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    failed = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit's advice on dealing "??" cards is not for the operator
        for hand, result, error in replay_all(hands):
            if error is not None:
                failed += 1
                print(f"tvtable replay: {error}", file=sys.stderr)
            if args.json:
                out = dict(result) if result is not None else {"hand": hand.number, "name": hand.name}
                out["ok"] = error is None
                if error is not None:
                    out["error"] = str(error)
                    out["action"] = error.action
                    out["action_text"] = error.text
                print(json.dumps(out), flush=True)
            elif result is not None:
                print(summary(result))
                if error is not None:
                    print(f"  FAILED: {error.reason}")
            else:
                print(f"FAILED: {error}")
    if not args.json:
        print(f"{len(hands) - failed} of {len(hands)} hand{'s' if len(hands) != 1 else ''} replayed"
              + (f", {failed} failed" if failed else ""))
    return 1 if failed else 0


# -- export -------------------------------------------------------------------------------
def cmd_export(args) -> int:
    try:
        return asyncio.run(_export(args))
    except KeyboardInterrupt:
        return 130


async def _export(args) -> int:
    from .export import export_table
    from .show_redis import show_redis

    async with show_redis(args, command="tvtable export") as client:
        if client is None:
            return 2
        result = await export_table(client, args.table, args.format, Path(args.out), event=args.event)
    if not result.events:
        print(f"tvtable export: table {args.table} has no journal", file=sys.stderr)
        return 2
    if not result.files:
        print(f"table {args.table}: no finished hand to export ({result.events} events)")
        return 0
    print(f"table {args.table}: {result.hands} hand{'s' if result.hands != 1 else ''} exported as {args.format}")
    for path in result.files:
        print(f"  {path}")
    return 0
