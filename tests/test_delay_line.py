"""The delay line (pure): never early, order kept when D changes, undo within D never airs,
hole cards only once their hand ended live."""

from broadcast.delay import DelayLine
from broadcast.engine.commands import parse_command
from broadcast.engine.events import TableOpened
from broadcast.engine.table import apply, decide
from broadcast.store.journal import Record
from tests.engine.helpers import table


class Show:
    """Feeds a delay line the way the journal would, with a fake clock we pass in."""

    def __init__(self, delay_ms=5000):
        self.line = DelayLine()
        self.state = table()
        self.seq = 0
        self.delay_ms = delay_ms
        self._add(self._opened(), ts=0)

    def _opened(self):
        return TableOpened(table="tv", game="nlhe", seats=self.state.seats, levels=self.state.levels)

    def _add(self, event, ts):
        self.seq += 1
        self.line.feed(Record(seq=self.seq, ts=ts, delay_ms=self.delay_ms, event=event.to_dict(), hash=""))

    def cmd(self, command, ts):
        for event in decide(self.state, parse_command(command)):
            self.state = apply(self.state, event)
            self._add(event, ts)

    def release(self, now):
        out = self.line.due(now)
        if out is None:
            return []
        self.line.commit(out)
        return [m[1] for m in out.messages]


def test_nothing_is_released_before_ts_plus_delay():
    show = Show(delay_ms=5000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    assert [m["hand"] for m in show.release(5999)] == [None]  # only the table opening (ts 0) is due
    assert show.release(5999) == []
    (msg,) = show.release(6000)
    assert msg["hand"] == 1 and msg["seq"] == 2


def test_release_order_holds_when_the_delay_shrinks():
    show = Show(delay_ms=10000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)  # due at 11,000
    show.delay_ms = 2000
    show.cmd({"type": "call", "seat": 3}, ts=2000)  # ts + D = 4,000, but may not overtake: due at 11,000
    assert show.line.release_at[1:] == [11000, 11000]
    assert [m["seq"] for m in show.release(10999)] == [1]  # the call does not overtake the deal
    assert [m["seq"] for m in show.release(11000)] == [2, 3]


def test_a_mistake_undone_within_the_delay_never_airs():
    show = Show(delay_ms=5000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    show.cmd({"type": "raise", "seat": 3, "amount": 9000}, ts=2000)  # mis-keyed
    mistake = show.seq
    show.cmd({"type": "undo"}, ts=3000)
    show.cmd({"type": "raise", "seat": 3, "amount": 1200}, ts=3500)
    aired = show.release(100000)
    assert mistake not in [m["seq"] for m in aired]
    for m in aired:
        seat3 = next(s for s in m["seats"] if s["seat"] == 3)
        assert seat3["bet"] != 9000


def test_hole_cards_go_on_air_only_once_the_hand_ended_live():
    show = Show(delay_ms=1000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    show.cmd({"type": "hole_cards", "seat": 1, "cards": "AsAh"}, ts=1100)
    show.cmd({"type": "hole_cards", "seat": 2, "cards": "KsKh"}, ts=1100)
    show.cmd({"type": "hole_cards", "seat": 3, "cards": "2c7d"}, ts=1100)
    show.cmd({"type": "fold", "seat": 3}, ts=2000)
    aired = show.release(3500)  # the delayed hand is on air, but the hand is still live
    assert aired and all(c == "??" for m in aired for s in m["seats"] for c in s["hole_cards"])
    show.cmd({"type": "fold", "seat": 1}, ts=4000)  # the hand ends live
    (reveal,) = show.release(4500)  # nothing new is due yet, but the cards of the aired hand may now air
    assert reveal["seq"] == aired[-1]["seq"]
    seat1 = next(s for s in reveal["seats"] if s["seat"] == 1)
    assert seat1["hole_cards"] == ["As", "Ah"]
    assert show.release(4600) == []  # revealed once


def test_after_a_restart_overdue_records_go_out_at_once_in_order():
    show = Show(delay_ms=1000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    show.cmd({"type": "call", "seat": 3}, ts=1500)
    first = show.release(1200)
    cursor = show.line.cursor
    fresh = DelayLine()
    for rec in show.line.records:
        fresh.feed(rec)
    fresh.restore(cursor, 0)
    out = fresh.due(60000)
    fresh.commit(out)
    assert [m[0] for m in out.messages] == [2, 3]
    assert first and first[-1]["seq"] == 1


def test_equity_goes_on_air_only_with_the_hole_cards_and_only_when_every_live_hand_is_known():
    show = Show(delay_ms=1000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    show.cmd({"type": "hole_cards", "seat": 1, "cards": "AsAh"}, ts=1100)
    show.cmd({"type": "hole_cards", "seat": 2, "cards": "KsKd"}, ts=1100)
    show.cmd({"type": "hole_cards", "seat": 3, "cards": "2c7d"}, ts=1100)
    show.cmd({"type": "fold", "seat": 3}, ts=2000)
    hidden = show.release(3500)
    assert all(m["equity"] is None for m in hidden)
    show.cmd({"type": "call", "seat": 1}, ts=4000)
    show.cmd({"type": "check", "seat": 2}, ts=4000)
    show.cmd({"type": "board", "cards": "2h7s9c"}, ts=4100)
    show.cmd({"type": "allin", "seat": 1}, ts=4200)
    show.cmd({"type": "fold", "seat": 2}, ts=4300)  # the hand ends live
    aired = show.release(5050)
    preflop = [m for m in aired if m["equity"] and not m["board"]]
    # Seat 3's folded 2c 7d are known: dead cards, so the figure is the true one.
    from broadcast.equity import equity

    true = equity(("AsAh", "KsKd"), (), ("2c", "7d")).equities
    assert preflop and preflop[-1]["equity"]["seats"] == {"1": round(true[0] * 100, 2), "2": round(true[1] * 100, 2)}
    assert preflop[-1]["equity"]["seats"] != {"1": 81.95, "2": 18.05}


def test_commentary_gets_true_outs_without_the_mucked_cards():
    show = Show(delay_ms=1000)
    show.cmd({"type": "start_hand", "button": 3}, ts=1000)
    for seat, cards in ((1, "AsAh"), (2, "KsKd"), (3, "Kc2c")):
        show.cmd({"type": "hole_cards", "seat": seat, "cards": cards}, ts=1100)
    show.cmd({"type": "fold", "seat": 3}, ts=1200)
    show.cmd({"type": "call", "seat": 1}, ts=1300)
    show.cmd({"type": "check", "seat": 2}, ts=1300)
    show.cmd({"type": "board", "cards": "2h7s9c"}, ts=1400)
    show.cmd({"type": "check", "seat": 1}, ts=1500)
    show.cmd({"type": "check", "seat": 2}, ts=1500)
    show.cmd({"type": "board", "cards": "3d"}, ts=1600)
    show.cmd({"type": "check", "seat": 1}, ts=1700)
    show.cmd({"type": "check", "seat": 2}, ts=1700)
    show.cmd({"type": "board", "cards": "4d"}, ts=1800)
    show.cmd({"type": "check", "seat": 1}, ts=1900)
    show.cmd({"type": "check", "seat": 2}, ts=1900)  # showdown: the hand ends live
    out = show.line.due(10_000)
    turn = [c for _, _, c in out.messages if len(c["board"]) == 4 and c["equity"]]
    # The last king is mucked (seat 3 folded Kc): only Kh... wait, Kh is live; the true outs leave out Kc.
    assert turn and turn[-1]["equity"]["outs"]["2"] == ["Kh"]
