"""Player statistics and the hand list (broadcast/views/stats.py), from released data only.

The input is built the way the show builds it: commands go through the pure core into
journal records, the delay line releases them at a fake Redis time, and the stats fold
the released ``commentary`` messages. One test per figure, named after what it measures.
"""

from __future__ import annotations

import pytest

from broadcast.delay import DelayLine
from broadcast.engine.commands import parse_command
from broadcast.engine.events import TableOpened
from broadcast.engine.table import apply, decide
from broadcast.store.journal import Record
from broadcast.views.stats import Ledger, ledger_of, matches, pct, player_stats, search, summarize, with_streets
from tests.engine.helpers import table

DELAY = 5000


class Air:
    """A table, its journal and its delay line; ``released(now)`` is the commentary stream so far."""

    def __init__(self, stacks=(20000, 20000, 20000, 20000)) -> None:
        self.state = table(stacks, levels=((100, 200, 200),))
        self.line = DelayLine()
        self.seq = 0
        self.now = 0
        self.stream: list[dict] = []
        self._add(TableOpened(table="tv", game="nlhe", seats=self.state.seats, levels=self.state.levels))

    def _add(self, event) -> None:
        self.seq += 1
        self.line.feed(Record(seq=self.seq, ts=self.now, delay_ms=DELAY, event=event.to_dict(), hash=""))

    def do(self, *commands: dict) -> "Air":
        for command in commands:
            self.now += 100
            for event in decide(self.state, parse_command(command)):
                self.state = apply(self.state, event)
                self._add(event)
        return self

    def release(self, now: int | None = None) -> list[dict]:
        """Everything due at ``now`` (default: all of it) onto the commentary stream."""
        while True:
            out = self.line.due(self.now + DELAY if now is None else now)
            if out is None:
                return self.stream
            self.line.commit(out)
            self.stream += [m[2] for m in out.messages]

    def stats(self) -> dict:
        return {p: s.to_dict() for p, s in player_stats(ledger_of(self.release()).hands()).items()}


def hand(button: int, hole: dict[int, str], *actions: dict) -> list[dict]:
    return [{"type": "start_hand", **({"button": button} if button else {})},
            *({"type": "hole_cards", "seat": s, "cards": c} for s, c in hole.items()), *actions]


def act(kind: str, seat: int, amount: int | None = None) -> dict:
    return {"type": kind, "seat": seat, **({"amount": amount} if amount is not None else {})}


def board(cards: str) -> dict:
    return {"type": "board", "cards": cards}


HOLE = {1: "AsAh", 2: "KsKh", 3: "7c2d", 4: "9h8h"}


def opened_and_three_bet() -> Air:
    """Button 1: seat 4 opens, seat 1 3-bets, seats 2 and 3 fold, seat 4 calls; check-check
    to the river; seat 1's aces win at showdown."""
    return Air().do(*hand(1, HOLE, act("raise", 4, 600), act("raise", 1, 1800), act("fold", 2), act("fold", 3),
                          act("call", 4), board("2c3d4s"), act("check", 4), act("check", 1), board("Jd"),
                          act("check", 4), act("check", 1), board("Qc"), act("check", 4), act("check", 1)))


def test_hands_counts_each_finished_hand_a_player_was_dealt_in():
    air = opened_and_three_bet()
    air.do(*hand(0, {}, act("fold", 1), act("fold", 2), act("fold", 3)))  # button 2; seat 4 wins the blinds
    assert {p: s["hands"] for p, s in air.stats().items()} == {"p1": 2, "p2": 2, "p3": 2, "p4": 2}


def test_vpip_counts_a_preflop_call_or_raise_but_not_a_posted_blind_or_a_check():
    # Button 1: seat 4 limps, seat 1 folds, small blind (2) completes, big blind (3) checks.
    air = Air().do(*hand(1, HOLE, act("call", 4), act("fold", 1), act("call", 2), act("check", 3),
                         board("2c3d4s"), act("bet", 2, 200), act("fold", 3), act("fold", 4)))
    stats = air.stats()
    assert {p: (s["vpip"], s["preflop_decisions"]) for p, s in stats.items()} == {
        "p1": (0, 1), "p2": (1, 1), "p3": (0, 1), "p4": (1, 1)}
    assert stats["p4"]["vpip_pct"] == 100.0 and stats["p3"]["vpip_pct"] == 0.0


def test_vpip_and_pfr_leave_out_a_walk_in_the_big_blind():
    # Button 1: everyone folds to the big blind (seat 3), who never decides anything.
    air = Air().do(*hand(1, HOLE, act("fold", 4), act("fold", 1), act("fold", 2)))
    stats = air.stats()
    assert (stats["p3"]["hands"], stats["p3"]["preflop_decisions"], stats["p3"]["vpip_pct"], stats["p3"]["pfr_pct"]) == (1, 0, None, None)
    assert stats["p3"]["hands_won"] == 1


def test_pfr_counts_preflop_raises_not_calls_or_bets_after_the_flop():
    air = opened_and_three_bet()
    air.do(*hand(0, HOLE, act("call", 1), act("call", 2), act("call", 3), act("check", 4),  # button 2, limped
                 board("2c3d4s"), act("bet", 3, 400), act("fold", 4), act("fold", 1), act("fold", 2)))
    stats = air.stats()
    assert {p: (s["pfr"], s["vpip"], s["preflop_decisions"]) for p, s in stats.items()} == {
        "p1": (1, 2, 2), "p2": (0, 1, 2), "p3": (0, 1, 2), "p4": (1, 1, 2)}
    assert stats["p1"]["pfr_pct"] == 50.0


def test_three_bet_counts_a_reraise_of_the_first_raise_over_the_times_facing_exactly_one_raise():
    stats = opened_and_three_bet().stats()
    assert (stats["p1"]["three_bets"], stats["p1"]["three_bet_chances"], stats["p1"]["three_bet_pct"]) == (1, 1, 100.0)


def test_three_bet_chance_goes_neither_to_the_opener_nor_to_a_player_facing_two_raises():
    stats = opened_and_three_bet().stats()
    assert stats["p4"]["three_bet_chances"] == 0  # the opener faced a 3-bet: a 4-bet chance
    assert stats["p2"]["three_bet_chances"] == 0 and stats["p3"]["three_bet_chances"] == 0  # two raises in front
    assert stats["p4"]["three_bet_pct"] is None


def test_three_bet_chance_counts_a_call_of_the_open_raise():
    # Button 1: seat 4 opens, seat 1 calls (a chance, not taken), seat 2 3-bets, all fold.
    air = Air().do(*hand(1, HOLE, act("raise", 4, 600), act("call", 1), act("raise", 2, 2400),
                         act("fold", 3), act("fold", 4), act("fold", 1)))
    stats = air.stats()
    assert (stats["p1"]["three_bets"], stats["p1"]["three_bet_chances"]) == (0, 1)
    assert (stats["p2"]["three_bets"], stats["p2"]["three_bet_chances"]) == (1, 1)


def test_wtsd_counts_showdowns_over_the_flops_a_player_saw():
    air = opened_and_three_bet()  # seats 1 and 4 see the flop and show down
    air.do(*hand(0, HOLE, act("call", 1), act("call", 2), act("call", 3), act("check", 4),  # all four see a flop
                 board("2c3d4s"), act("bet", 3, 400), act("fold", 4), act("fold", 1), act("fold", 2)))
    stats = air.stats()
    assert {p: (s["showdowns"], s["saw_flop"], s["wtsd_pct"]) for p, s in stats.items()} == {
        "p1": (1, 2, 50.0), "p2": (0, 1, 0.0), "p3": (0, 1, 0.0), "p4": (1, 2, 50.0)}


def test_wtsd_counts_an_all_in_before_the_flop_as_a_flop_seen_and_a_showdown():
    air = Air().do(*hand(1, HOLE, act("allin", 4), act("allin", 1), act("fold", 2), act("fold", 3),
                         board("2c3d5s"), board("Jd"), board("Qc")))
    stats = air.stats()
    assert (stats["p4"]["saw_flop"], stats["p4"]["showdowns"]) == (1, 1)
    assert (stats["p1"]["saw_flop"], stats["p1"]["showdowns"], stats["p1"]["won_at_showdown"]) == (1, 1, 1)


def test_won_at_showdown_counts_showdowns_in_which_a_player_took_chips():
    stats = opened_and_three_bet().stats()
    assert (stats["p1"]["won_at_showdown"], stats["p1"]["wsd_pct"]) == (1, 100.0)
    assert (stats["p4"]["won_at_showdown"], stats["p4"]["wsd_pct"]) == (0, 0.0)


def test_won_at_showdown_counts_a_split_pot_for_both_players():
    # Button 1: seats 4 and 1 both hold ace-king; the board plays the same for both.
    hole = {1: "AsKs", 2: "7c2d", 3: "8c3d", 4: "AdKd"}
    air = Air().do(*hand(1, hole, act("raise", 4, 600), act("call", 1), act("fold", 2), act("fold", 3),
                         board("QhJhTc"), act("check", 4), act("check", 1), board("4c"), act("check", 4),
                         act("check", 1), board("5h"), act("check", 4), act("check", 1)))
    stats = air.stats()
    assert stats["p1"]["won_at_showdown"] == 1 and stats["p4"]["won_at_showdown"] == 1


def test_a_hand_counts_only_once_its_completed_view_is_released():
    air = opened_and_three_bet()
    end = air.now  # the hand ended live at this Redis time; it airs DELAY later
    assert ledger_of(air.release(end + DELAY - 1)).hands() == []
    assert player_stats(ledger_of(air.stream).hands()) == {}
    assert [h.hand for h in ledger_of(air.release(end + DELAY)).hands()] == [1]


def test_a_hand_in_progress_never_counts_even_with_its_first_views_released():
    air = Air().do(*hand(1, HOLE, act("raise", 4, 600), act("raise", 1, 1800)))
    stream = air.release()
    assert stream[-1]["hand"] == 1 and not stream[-1]["hand_complete"]
    assert ledger_of(stream).hands() == [] and player_stats([]) == {}


def test_stats_use_the_corrected_history_after_an_undo():
    # Seat 4's raise was mis-keyed and undone within the delay: it never aired as a raise.
    air = Air().do(*hand(1, HOLE, act("raise", 4, 600), {"type": "undo", "reason": "mis-keyed"}, act("call", 4),
                         act("fold", 1), act("fold", 2), act("check", 3), board("2c3d4s"), act("check", 3),
                         act("bet", 4, 200), act("fold", 3)))
    stats = air.stats()
    assert (stats["p4"]["pfr"], stats["p4"]["vpip"]) == (0, 1)


def test_a_misdeal_is_void_and_never_counts():
    air = Air().do(*hand(1, {}), {"type": "misdeal", "reason": "exposed card"})
    stream = air.release()
    assert stream[-1]["hand_complete"] and summarize(stream[-1]) is None
    assert ledger_of(stream).hands() == []


def test_the_latest_released_view_of_a_hand_replaces_an_earlier_one():
    air = opened_and_three_bet()
    stream = air.release()
    final = [m for m in stream if m["hand_complete"]]
    ledger = Ledger()
    assert ledger.add(final[0]) is True
    changed = dict(final[-1], results={"pots": [{"amount": 1, "winners": {"4": 1}}]})
    assert ledger.add(changed) is True
    assert ledger.hand(1).pot == 1 and [p.seat for p in ledger.hand(1).players if p.won] == [4]


def test_hand_summary_carries_the_released_cards_board_winners_and_streets():
    (summary,) = ledger_of(opened_and_three_bet().release()).hands()
    assert summary.board == ("2c", "3d", "4s", "Jd", "Qc")
    assert {p.seat: "".join(p.cards) for p in summary.players} == HOLE
    assert summary.to_dict()["winners"] == [1] and summary.showdown
    assert [a["street"] for a in summary.actions if "action" in a][:5] == ["preflop"] * 5
    assert {p.seat: p.folded for p in summary.players} == {1: None, 2: "preflop", 3: "preflop", 4: None}
    assert "actions" not in summary.brief()


def test_with_streets_labels_each_action_with_its_street():
    history = [{"seq": 1, "seat": 1, "action": "call"}, {"seq": 2, "street": "flop", "cards": ["2c", "3d", "4s"]},
               {"seq": 3, "seat": 1, "action": "check"}]
    assert [e["street"] for e in with_streets(history)] == ["preflop", "flop", "flop"]


@pytest.mark.parametrize("query, found", [
    ("", [2, 1]),
    ("player", [2, 1]),
    ("PLAY", [2, 1]),
    ("#1", [1]),
    ("2", [2]),
    ("AA", [1]),
    ("aks", [2]),
    ("AK", [2]),
    ("a♠", [2, 1]),
    ("10h", [2]),
    ("showdown", [1]),
    ("all in", [2]),
    ("3-bet", [1]),
    ("river qc", [1]),
    ("nobody", []),
])
def test_search_finds_hands_by_player_number_card_starting_hand_and_what_happened(query, found):
    air = opened_and_three_bet()
    # Hand 2 (button 2): seat 1 holds AsKs and moves in; all fold.
    air.do(*hand(0, {1: "AsKs", 2: "Th9h", 3: "7c2d", 4: "5d5c"}, act("allin", 1), act("fold", 2),
                 act("fold", 3), act("fold", 4)))
    hands = ledger_of(air.release()).hands()
    assert [h.hand for h in search(hands, query)] == found, query


def test_search_needs_every_word_to_match():
    (summary,) = ledger_of(opened_and_three_bet().release()).hands()
    assert matches(summary, "player showdown qq") is False  # nobody held queens
    assert matches(summary, "player showdown aa") and not matches(summary, "player showdown nothing")


def test_pct_is_none_without_a_chance_and_rounds_to_one_decimal():
    assert pct(0, 0) is None
    assert pct(1, 3) == 33.3 and pct(2, 3) == 66.7
