"""The penalty ledger: one test per rule."""

import pytest

from broadcast.engine.errors import BadCommand
from broadcast.engine.penalties import Ledger, Penalty, carry, hand_dealt, issue, propose, record


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
    at_a = issue(Ledger(), pen("p-bo", "missed_hands", 2), players_at_table=9)
    at_a, _ = hand_dealt(at_a, ("p-bo", "p-ann"))  # one hand sat out at table A
    kept = record(at_a, "p-bo")  # what the field's register keeps of p-bo
    assert kept["hands_left"] == 1
    # Table B has its own ledger; the record comes with p-bo's id.
    at_b = issue(Ledger(), pen("p-zed", "verbal_warning", 0), players_at_table=8)
    at_b = carry(at_b, tuple(Penalty(**p) for p in kept["penalties"]), "p-bo", kept["hands_left"])
    at_b, killed = hand_dealt(at_b, ("p-zed", "p-bo"))
    assert killed == ("p-bo",)
    assert hand_dealt(at_b, ("p-zed", "p-bo"))[1] == ()
    assert propose(at_b, "p-bo", "soft_play") == ("missed_hands", 1)  # the ladder goes on from table A
    # Carried twice (back to table A, say), a penalty is still one penalty.
    assert carry(at_b, at_b.history("p-bo"), "p-bo", 0).history("p-bo") == at_b.history("p-bo")


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


# -- Elimination and disqualification through the table ------------------------------------
from broadcast.engine.events import PlayerEliminated, PlayerRemoved  # noqa: E402

from .helpers import events, run, table  # noqa: E402


def _penalty(player, kind, reason="deliberate soft play"):
    return {"type": "penalty", "player": player, "kind": kind, "reason": reason}


def test_elimination_penalty_removes_the_chips_and_the_player_takes_and_is_paid_the_place_it_equals():
    s = table((20000, 20000, 20000, 20000))
    out = events(s, _penalty("p2", "elimination"))
    removed = next(e for e in out if isinstance(e, PlayerRemoved))
    gone = next(e for e in out if isinstance(e, PlayerEliminated))
    assert removed.stack == 0 and gone.place == 4 and gone.paid and gone.how == "elimination penalty"
    s = run(s, _penalty("p2", "elimination"))
    assert s.seat(2) is None and s.players_left == 3 and sum(x.stack for x in s.seats) == 60000  # chips out of play


def test_disqualification_removes_the_chips_from_play_with_no_prize():
    s = run(table((20000, 20000, 20000)), _penalty("p3", "disqualification", "electronic device at the TV table"))
    (gone,) = s.eliminated
    assert gone.place == 0 and not gone.paid and gone.how == "disqualified" and gone.name == "Player 3"
    assert s.seat(3) is None and s.players_left == 2


def test_a_disqualification_during_a_hand_kills_the_hand_and_empties_the_seat_when_the_hand_ends():
    s = run(table((20000, 20000, 20000)), {"type": "start_hand", "button": 3}, {"type": "raise", "seat": 3, "amount": 1200})
    s = run(s, _penalty("p3", "disqualification"))
    assert 3 in s.killed and s.seat(3).stack > 0  # still seated: the hand is running
    s = run(s, {"type": "fold", "seat": 1}, {"type": "call", "seat": 2}, {"type": "board", "cards": "2c7d9h"},
            {"type": "check", "seat": 2})  # seat 3's dead hand folds at its turn
    assert not s.in_hand and s.seat(3) is None and [e.how for e in s.eliminated] == ["disqualified"]
    # Seat 3's 1,200 and ante stay in the pot: only the chips behind leave play.
    assert sum(x.stack for x in s.seats) == 60000 - (20000 - 1200 - 0)
