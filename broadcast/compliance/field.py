"""Field data the TD types in or imports from CSV: entries, players left, chips, prize pool,
payouts, and how many players in the field wear each company's logo (the 10% rule).

The CSV is one fact per line, the first column naming it::

    entries,512
    players_left,9
    chips_in_play,15360000
    prize_pool,2480000
    payout,1,450000          # place 1
    payout,10-12,18500       # places 10 to 12, each
    wearers,Acme Poker,31    # players in the field wearing Acme Poker's logo
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from broadcast.engine.errors import BadCommand

from .commands import SetFieldData, parse_command
from .errors import need_role
from .events import FieldDataSet, Payout


@dataclass(frozen=True)
class FieldData:
    entries: int = 0
    players_left: int = 0
    chips_in_play: int = 0
    prize_pool: int = 0
    payouts: tuple[Payout, ...] = ()
    wearers: tuple[tuple[str, int], ...] = ()

    @property
    def average_stack(self) -> int:
        return self.chips_in_play // self.players_left if self.players_left and self.chips_in_play else 0

    def wearers_of(self, company: str) -> int:
        key = company.strip().casefold()
        return sum(n for c, n in self.wearers if c.strip().casefold() == key)

    def payout(self, place: int) -> int | None:
        return next((p.amount for p in self.payouts if p.first <= place <= p.last), None)

    def share_of_chips(self, stack: int) -> float:
        """A stack as a share of the chips in play (the "% of chips" graphic)."""
        return stack / self.chips_in_play if self.chips_in_play else 0.0


def _number(text: str, where: str) -> int:
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned.isdigit():
        raise BadCommand(f"{where}: {text.strip()!r} is not a whole number", field="csv")
    return int(cleaned)


def parse_field_csv(text: str) -> dict:
    """The CSV's facts as keyword arguments for ``SetFieldData``; refuses naming the line."""
    out: dict = {"payouts": [], "wearers": []}
    for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        row = [c.split("#")[0].strip() for c in row]
        if not row or not row[0]:
            continue
        key, rest, where = row[0].lower(), row[1:], f"line {n}"
        if key in ("entries", "players_left", "chips_in_play", "prize_pool"):
            if not rest:
                raise BadCommand(f"{where}: {key} needs a number", field="csv")
            out[key] = _number(rest[0], where)
        elif key == "payout":
            if len(rest) < 2:
                raise BadCommand(f"{where}: payout needs places and an amount, e.g. payout,10-12,18500", field="csv")
            first, _, last = rest[0].partition("-")
            p = Payout(_number(first, where), _number(last or first, where), _number(rest[1], where))
            if p.first < 1 or p.last < p.first:
                raise BadCommand(f"{where}: places must be like 1 or 10-12", field="csv")
            out["payouts"].append(p)
        elif key == "wearers":
            if len(rest) < 2 or not rest[0]:
                raise BadCommand(f"{where}: wearers needs a company and a count, e.g. wearers,Acme Poker,31", field="csv")
            out["wearers"].append((rest[0], _number(rest[1], where)))
        else:
            raise BadCommand(f"{where}: {row[0]!r} is not one of entries, players_left, chips_in_play, prize_pool, "
                             "payout, wearers", field="csv")
    out["payouts"], out["wearers"] = tuple(out["payouts"]), tuple(out["wearers"])
    return out


def set_field_data(cmd: SetFieldData) -> FieldDataSet:
    """The TD's field data, typed in or imported from CSV (the CSV wins where it speaks)."""
    need_role(cmd.role, ("td",), "enter field data")
    data = dict(entries=cmd.entries, players_left=cmd.players_left, chips_in_play=cmd.chips_in_play,
                prize_pool=cmd.prize_pool, payouts=cmd.payouts, wearers=cmd.wearers)
    if cmd.csv:
        parsed = parse_field_csv(cmd.csv)
        data.update({k: v for k, v in parsed.items() if v or k in ("entries", "players_left")})
    if data["players_left"] > data["entries"]:
        raise BadCommand(f"players left ({data['players_left']:,}) cannot exceed entries ({data['entries']:,})",
                         field="players_left")
    places = sorted((p.first, p.last) for p in data["payouts"])
    for (a1, b1), (a2, _) in zip(places, places[1:]):
        if a2 <= b1:
            raise BadCommand(f"payout places overlap at place {a2}", field="payouts")
    if data["prize_pool"] and data["payouts"]:
        paid = sum((p.last - p.first + 1) * p.amount for p in data["payouts"])
        if paid > data["prize_pool"]:
            raise BadCommand(f"the payouts ({paid:,}) exceed the prize pool ({data['prize_pool']:,})", field="payouts")
    return FieldDataSet(**data, at_ms=cmd.at_ms, by=cmd.by, role=cmd.role)


def from_show_file(data: dict, at_ms: int) -> FieldDataSet:
    """The show file's ``[field]`` as the TD would enter it (the same checks, ``BadCommand``
    naming the field). Settings check it at load; a new table's journal opens with it."""
    return set_field_data(parse_command({"type": "field_data", **data}, by="the show file", role="td", at_ms=at_ms))


def apply_field(field: FieldData, event) -> FieldData:
    if isinstance(event, FieldDataSet):
        return FieldData(event.entries, event.players_left, event.chips_in_play, event.prize_pool, event.payouts,
                         event.wearers)
    return field
