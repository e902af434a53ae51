"""The penalty ledger: one test per rule."""

import pytest

from broadcast.engine.errors import BadCommand
from broadcast.engine.penalties import Ledger, Penalty, hand_dealt, issue, propose


def pen(player, kind, count=0):
    return Penalty(player=player, kind=kind, count=count, reason="profanity", rule="Etiquette", issued_by="TD Ann")


def test_an_orbit_is_one_hand_per_player_at_the_table():
    ledger = issue(Ledger(), pen("p-bo", "missed_orbits", 1), players_at_table=7)
    assert ledger.hands_left("p-bo") == 7


def test_a_player_on_a_missed_hand_penalty_is_dealt_in_and_the_hand_is_killed():
    ledger = issue(Ledger(), pen("p-bo", "missed_hands", 2), players_at_table=6)
    ledger, killed = hand_dealt(ledger, ("p-ann", "p-bo"))
    assert killed == ("p-bo",) and ledger.hands_left("p-bo") == 1
    ledger, killed = hand_dealt(ledger, ("p-ann", "p-bo"))
    ledger, killed = hand_dealt(ledger, ("p-ann", "p-bo"))
    assert killed == () and ledger.hands_left("p-bo") == 0


def test_penalties_move_with_the_player_id_across_tables():
    ledger = issue(Ledger(), pen("p-bo", "missed_hands", 1), players_at_table=9)
    # The same ledger serves the outer table: the player's id, not the seat, carries the penalty.
    _, killed = hand_dealt(ledger, ("p-zed", "p-bo"))
    assert killed == ("p-bo",)


def test_the_ladder_escalates_from_a_warning_to_disqualification():
    ledger, steps = Ledger(), []
    for _ in range(6):
        kind, count = propose(ledger, "p-bo", "profanity")
        steps.append((kind, count))
        ledger = issue(ledger, pen("p-bo", kind, count), players_at_table=6)
    assert steps == [("verbal_warning", 0), ("missed_hands", 1), ("missed_orbits", 1), ("missed_orbits", 3),
                     ("disqualification", 0), ("disqualification", 0)]


def test_a_device_at_the_tv_table_proposes_disqualification_at_once():
    assert propose(Ledger(), "p-bo", "device_at_tv_table") == ("disqualification", 0)


def test_malformed_penalties_name_the_field():
    with pytest.raises(BadCommand) as err:
        issue(Ledger(), pen("p-bo", "missed_hands", 0), players_at_table=6)
    assert err.value.field == "count"
    with pytest.raises(BadCommand) as err:
        issue(Ledger(), pen("p-bo", "yellow_card"), players_at_table=6)
    assert err.value.field == "kind"
