"""Per-seat K-of-N confirmation, lights and duplicate checks (pure, no OpenCV)."""
from dataclasses import dataclass

import pytest

from cardcam.tracker import Alert, SeatTracker, TableTracker, duplicates, valid_card


@dataclass(frozen=True)
class R:
    shown: bool
    faces: int
    cards: tuple
    confidence: tuple


def read(*cards, faces=None, shown=True):
    cards = tuple(cards)
    return R(shown, len(cards) if faces is None else faces, cards,
             tuple(0.99 if c != "??" else 0.0 for c in cards))


NONE = R(False, 0, ("??", "??"), (0.0, 0.0))


def test_card_confirmed_only_after_k_of_n():
    t = SeatTracker(1, 2, k=3, n=5)
    t.update(read("As", "??"))
    t.update(read("As", "??"))
    assert t.state.cards == ("??", "??")
    t.update(read("As", "Kd"))
    assert t.state.cards == ("As", "??")
    t.update(read("??", "Kd"))
    t.update(read("??", "Kd"))
    assert set(t.state.cards) == {"As", "Kd"} and t.state.complete


def test_single_misread_never_confirmed():
    t = SeatTracker(1, 2, k=3, n=5)
    for r in [read("As", "Kd"), read("As", "Qd"), read("As", "Kd"), read("As", "Kd"),
              read("As", "Jd")]:
        t.update(r)
    assert set(t.state.cards) == {"As", "Kd"}


def test_old_frames_fall_out_of_the_window():
    t = SeatTracker(1, 2, k=2, n=3)
    t.update(read("As", "Kd"))
    t.update(read("As", "Kd"))
    assert t.state.complete
    for _ in range(3):
        t.update(NONE)
    assert t.state.cards == ("??", "??")
    assert t.state.light == "none" and not t.state.shown


def test_lights_none_some_all():
    t = SeatTracker(3, 2, k=2, n=3)
    assert t.state.light == "none"
    t.update(read("??", "??", faces=1))
    t.update(read("??", "??", faces=1))
    assert t.state.light == "some" and t.state.shown
    t.update(read("??", "??", faces=2))
    t.update(read("??", "??", faces=2))
    assert t.state.light == "all"


def test_shown_under_glare_without_identification():
    t = SeatTracker(3, 2, k=3, n=5)
    changes = []
    for i in range(3):
        changes += t.update(read("??", "??", faces=2), ts=100.0 + i)
    assert t.state.shown and t.state.cards == ("??", "??")
    assert [c.kind for c in changes] == ["HoleCardsShown"]
    assert changes[0].ts == 100.0  # capture time of the first frame of the run


def test_changes_report_shown_then_seen():
    t = SeatTracker(5, 2, k=2, n=3)
    kinds = []
    for i in range(3):
        kinds += [c.kind for c in t.update(read("As", "Kd"), ts=float(i))]
    assert kinds == ["HoleCardsShown", "HoleCardsSeen"]
    # a repeat of the same cards does not post again
    assert t.update(read("As", "Kd"), ts=9.0) == []


def test_more_cards_than_dealt_is_impossible_and_asserts_nothing():
    t = SeatTracker(2, 2, k=2, n=4)
    t.update(read("As", "Kd"))
    t.update(read("As", "Kd"))
    t.update(read("Qc", "Jh"))
    t.update(read("Qc", "Jh"))
    assert t.state.impossible
    assert t.state.cards == ("??", "??")


def test_invalid_codes_ignored():
    t = SeatTracker(2, 2, k=1, n=1)
    t.update(R(True, 2, ("Zz", "1s"), (0.99, 0.99)))
    assert t.state.cards == ("??", "??")
    assert valid_card("Td") and not valid_card("10d") and not valid_card("??")


def test_duplicate_across_seats_and_board():
    tt = TableTracker({1: 2, 4: 2}, board_cards=5, k=1, n=1)
    tt.update(1, read("As", "Kd"))
    tt.update(4, read("As", "2c"))
    tt.update("board", R(True, 3, ("Kd", "7h", "8h", "??", "??"), (0.9,) * 3 + (0.0,) * 2))
    alerts = tt.alerts()
    dup = {a.card: a for a in alerts if a.kind == "duplicate"}
    assert set(dup) == {"As", "Kd"}
    assert dup["As"].seats == (1, 4) and dup["Kd"].seats == (1, "board")
    assert dup["As"].secure()["card"] == "As"
    # live screens never learn the card
    for a in alerts:
        for line in a.public():
            assert "As" not in line and "Kd" not in line and "camera check" in line
    assert dup["As"].public() == ["seat 1: camera check", "seat 4: camera check"]
    assert tt.lights() == {1: "all", 4: "all"}


def test_new_hand_resets():
    tt = TableTracker({1: 4}, k=1, n=2)
    tt.update(1, read("As", "Kd", "Qh", "Jc"))
    assert tt.state(1).complete
    tt.new_hand()
    assert tt.state(1).cards == ("??",) * 4 and tt.state(1).light == "none"


def test_duplicates_helper():
    assert duplicates({1: ["As", "??"], 2: ["As", "Kd"], "board": ["Kd"]}) == {
        "As": [1, 2], "Kd": [2, "board"]}


def test_bad_parameters():
    with pytest.raises(ValueError):
        SeatTracker(1, 2, k=4, n=3)
    with pytest.raises(ValueError):
        SeatTracker(1, 0)


def test_alert_public_board():
    assert Alert("duplicate", ("board",), "As").public() == ["board: camera check"]


def test_tracker_module_has_no_opencv():
    import subprocess
    import sys
    code = "import sys, cardcam.tracker; sys.exit('cv2' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
