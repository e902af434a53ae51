"""``tvtable penalties``: carry the field's penalty register (``tvt:field:penalties``) to
another day's Redis. What it is for and how: ``DESCRIPTION``, shown by ``--help``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from .engine.commands import carried_record
from .engine.errors import Refusal
from .show_redis import show_redis
from .store import keys

FORMAT = "tvtable-penalty-register"
DESCRIPTION = """\
Rule "Penalties Move": a penalty not fully served at the end of the night is served the
following day. The show's Redis keeps every player's record, so a next day on the same
data dir has it. When the next day runs on another machine or a new Redis, export the
register at the end of the night and import it before the first table opens:

    tvtable penalties export --data-dir var --out day1-penalties.json
    tvtable penalties import day1-penalties.json --redis redis://core-host:6379/0

The file names players and their penalties only: no card, nothing of a hand."""


def add_parser(sub: Any) -> None:
    """Register ``tvtable penalties export|import``."""
    pen = sub.add_parser("penalties", help="export or import the field's penalty register (another day, another Redis)",
                         description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = pen.add_subparsers(dest="penalties_command", required=True, metavar="ACTION")
    out = actions.add_parser("export", help="write every player's penalty record to a JSON file",
                             description="Write the field's penalty register (player id -> penalties and hands "
                                         "still to sit out) as JSON.")
    _where(out)
    out.add_argument("--out", default="-", help="the file to write (default: standard output)")
    out.set_defaults(func=cmd_export)
    into = actions.add_parser("import", help="load an exported register before the day's first table opens",
                              description="Load an exported register. A player who already has a record here "
                                          "keeps it unless --replace is given.")
    into.add_argument("file", help="a file written by 'tvtable penalties export'")
    _where(into)
    into.add_argument("--replace", action="store_true", help="overwrite records this Redis already holds")
    into.set_defaults(func=cmd_import)


def _where(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", default="var", help="the show's data dir (default ./var)")
    p.add_argument("--redis", default=None, help="external Redis URL (default: the embedded one in the data dir)")
    p.add_argument("--json", action="store_true", help="machine-readable summary")


def cmd_export(args) -> int:
    return asyncio.run(_export(args))


def cmd_import(args) -> int:
    try:
        players = read_register_file(Path(args.file))
    except Refusal as refusal:
        print(f"tvtable: {args.file}: {refusal.field}: {refusal}", file=sys.stderr)
        return 2
    return asyncio.run(_import(args, players))


async def _export(args) -> int:
    async with show_redis(args, command="tvtable penalties") as client:
        if client is None:
            return 2
        raw = await client.hgetall(keys.penalty_register())
    players = {}
    for player, record in sorted(raw.items()):
        name = player.decode() if isinstance(player, bytes) else player
        try:
            players[name] = json.loads(record)
        except ValueError:
            print(f"tvtable: the register's record of player {name!r} is unreadable: left out", file=sys.stderr)
    text = json.dumps({"format": FORMAT, "version": 1, "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "players": players}, indent=2, ensure_ascii=False) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        owing = sum(1 for r in players.values() if r.get("hands_left"))
        summary = {"players": len(players), "owing_hands": owing, "out": args.out}
        print(json.dumps(summary) if args.json else
              f"wrote {args.out}: {len(players)} player record(s), {owing} still owing hands")
    return 0


def read_register_file(path: Path) -> dict[str, dict]:
    """An exported register, checked record by record as a table checks a carried record.
    Raises ``Refusal`` naming the player and what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise Refusal(f"cannot be read ({exc.strerror})", field="file") from None
    except (ValueError, UnicodeDecodeError):
        raise Refusal("is not JSON written by 'tvtable penalties export'", field="file") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("players"), dict):
        raise Refusal("is not a penalty register written by 'tvtable penalties export'", field="format")
    players = {}
    for player, record in data["players"].items():
        if not player.strip() or len(player) > 64:
            raise Refusal(f"player id {player[:70]!r} must be 1 to 64 characters", field="players")
        if not isinstance(record, dict):
            raise Refusal(f"player {player!r}: the record must be an object", field=f"players.{player}")
        try:
            carried_record(record)  # the same check a table makes when it seats the player
        except Refusal as refusal:
            raise Refusal(f"player {player!r}: {refusal}", field=f"players.{player}") from None
        players[player] = record
    return players


async def _import(args, players: dict[str, dict]) -> int:
    async with show_redis(args, command="tvtable penalties", create=True) as client:
        if client is None:
            return 2
        held = set()
        if not args.replace:
            present = await client.hmget(keys.penalty_register(), list(players)) if players else []
            held = {p for p, r in zip(players, present) if r is not None}
        loaded = {p: json.dumps(r, separators=(",", ":")) for p, r in players.items() if p not in held}
        if loaded:
            await client.hset(keys.penalty_register(), mapping=loaded)
    summary = {"loaded": len(loaded), "kept": sorted(held)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"loaded {len(loaded)} player record(s)"
              + (f"; kept the records already here for {len(held)}: {', '.join(sorted(held))} (use --replace)"
                 if held else ""))
    return 0
