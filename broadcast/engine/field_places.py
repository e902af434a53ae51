"""Finishing places across tables in hand-for-hand play (rule "Hand-for-Hand Play").

Each table's journal places its own busts (rule 3: at one table, the bigger starting stack
places higher). When hand-for-hand play is on, the players eliminated in the same hand at
different tables tie (rule 2). This module turns the places the tables journaled for one
hand-for-hand hand into the field's places. Pure: the show's field coordinator
(``broadcast.field``) gathers the busts and sends the corrections.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bust:
    """One player out in the hand-for-hand hand, with the place their table journaled."""

    table: str
    player: str
    place: int


def hand_for_hand_places(busts: list[Bust]) -> dict[tuple[str, str], tuple[int, int]]:
    """(table, player) -> (place, tied) for everyone out in one hand-for-hand hand.

    The busts cover the field's places from the worst one journaled upwards, one place
    each (tables that did not yet count the others' busts journal overlapping places).
    At each table the order stands (rule 3); across tables, the players in the same
    position of their table's order tie (rule 2) for the best place of their group and
    split the money of the places the group covers.
    """
    if not busts:
        return {}
    worst = max(b.place for b in busts)
    best = worst - len(busts) + 1
    # Position at its own table: how many of that table's busts placed strictly higher.
    position = {(b.table, b.player): sum(1 for o in busts if o.table == b.table and o.place < b.place) for b in busts}
    out: dict[tuple[str, str], tuple[int, int]] = {}
    place = best
    for rank in sorted(set(position.values())):
        group = sorted(k for k, r in position.items() if r == rank)
        for key in group:
            out[key] = (place, len(group))
        place += len(group)
    return out
