"""The board camera: its confirmed reads reach the core as the dealer's ``board`` command,
only when the core waits for those very cards, and never a card it is not sure of.

The rule (``cardcam.board.cards_to_deal``) first, with plain values; then the real
worker reading synthetic board frames pushed as a capture PC would push them, against a
real show (embedded Redis, the core following its inbox)."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import numpy as np
import pytest

from cardcam import cameras as names
from cardcam.art import BACK
from cardcam.board import BoardNeed, cards_to_deal
from cardcam.vision import process_pool
from cardcam.worker import Worker
from tests.cardcam.conftest import have_decks
from tests.cardcam.test_worker import Running, card_words, inbox, settings_for, show, until  # noqa: F401 - fixture

DECK = "anglo"


# -- the rule -------------------------------------------------------------------------------

def test_the_flop_is_posted_when_the_core_waits_for_three_cards_and_the_camera_has_read_three():
    assert cards_to_deal(("Kd", "7h", "2c", "??", "??"), (), 3) == ("Kd", "7h", "2c")


def test_nothing_is_posted_while_the_betting_goes_on():
    assert cards_to_deal(("Kd", "7h", "2c", "??", "??"), (), 0) is None


def test_a_card_the_camera_cannot_read_holds_the_whole_street_back():
    assert cards_to_deal(("Kd", "7h", "??", "??", "??"), (), 3) is None


def test_the_turn_is_only_the_new_card_and_the_camera_must_agree_with_the_flop_dealt():
    assert cards_to_deal(("Kd", "7h", "2c", "9s", "??"), ("Kd", "7h", "2c"), 1) == ("9s",)
    # the camera reads a different flop card than the core has: the dealer keyed it, we post nothing
    assert cards_to_deal(("Kd", "7h", "3c", "9s", "??"), ("Kd", "7h", "2c"), 1) is None


def test_a_camera_ahead_of_the_dealer_or_behind_posts_nothing():
    # the turn is due but the camera already sees the river too (an old board not gathered?)
    assert cards_to_deal(("Kd", "7h", "2c", "9s", "Ah"), ("Kd", "7h", "2c"), 1) is None
    # the turn is due but the camera sees only the flop
    assert cards_to_deal(("Kd", "7h", "2c", "??", "??"), ("Kd", "7h", "2c"), 1) is None


def test_a_card_read_twice_is_never_posted():
    assert cards_to_deal(("Kd", "Kd", "2c", "??", "??"), (), 3) is None


# -- through the real worker --------------------------------------------------------------

def board_jpegs(cards: tuple[str, ...], seeds=range(4)) -> list[bytes]:
    import cv2

    from cardcam import synth

    return [cv2.imencode(".jpg", synth.board_frame(np.random.default_rng(seed), DECK, cards, "easy").image,
                         [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for seed in seeds]


async def finish_betting(core) -> None:
    """Everyone checks or calls until the street's betting is over."""
    while not core.view("live")["needs_board"]:
        legal = core.view("live")["legal"]
        assert legal is not None, "betting stopped without a board due"
        await core.submit({"type": "check" if legal["check"] else "call", "seat": legal["seat"]})


FLOP, TURN = ("Kd", "7h", "2c"), ("9s",)


@pytest.fixture(scope="module")
def frames():
    """Made before the show starts: rendering would hold up the show's event loop."""
    if not have_decks():
        pytest.skip("needs gnome-cards-data and librsvg2-bin")
    return {"flop": board_jpegs(FLOP), "turn": board_jpegs(FLOP + TURN),
            "river face down": board_jpegs(FLOP + TURN + (BACK,))}


def board_commands(posted) -> list[dict]:
    return [c for c, _ in posted if c["type"] == "board"]


@pytest.mark.skipif(not have_decks(), reason="needs gnome-cards-data and librsvg2-bin")
async def test_the_board_camera_deals_the_flop_and_turn_only_when_due_and_never_a_card_in_doubt(frames, show, caplog):
    caplog.set_level(logging.DEBUG)
    flop, turn = FLOP, TURN
    laid = {"now": "flop"}
    redis, core = show.runtime.redis, show.core
    settings = settings_for(show, {"id": "board-cam", "source": "push", "board": True}, k=2, n=4)
    # a real vision process: a thread would hold the GIL for long stretches of the show's loop
    worker = Worker(redis, show.runtime.show, settings, pool=process_pool(1))
    worker._own_pool = True

    async def capture_pc():  # pushes the board as laid out, as a capture PC would
        i = 0
        while True:
            await redis.xadd(names.frames_key("board-cam"), {"jpeg": frames[laid["now"]][i % 4],
                                                           "ts": int(time.time() * 1000)})
            i += 1
            await asyncio.sleep(0.1)

    async def board_read(count):
        raw = await redis.hget(names.seats_key(show.table), "board")
        read = json.loads(raw) if raw else {"cards": []}
        return sum(c != "??" for c in read["cards"]) >= count

    async with Running(worker):
        await until(lambda: redis.exists(names.alive_key("board-cam")))
        pusher = asyncio.get_running_loop().create_task(capture_pc())
        try:
            # The flop lies on the table before the preflop betting is over: nothing is posted.
            await until(lambda: board_read(3), timeout=90)
            await asyncio.sleep(0.5)
            assert board_commands(await inbox(redis, show.table)) == []
            assert core.state.hand.board == ()

            await finish_betting(core)
            await until(lambda: _is(set(core.state.hand.board) == set(flop)), timeout=60)

            # The turn, laid out while the flop betting goes on, is posted once it is due.
            laid["now"] = "turn"
            await until(lambda: board_read(4), timeout=90)
            assert len(core.state.hand.board) == 3
            await finish_betting(core)
            await until(lambda: _is(core.state.hand.board[3:] == turn), timeout=60)

            # The river lies face down (the camera cannot read it): it asserts nothing, and
            # the dealer deals the river from the console.
            laid["now"] = "river face down"
            await finish_betting(core)
            await asyncio.sleep(6.0)  # a dozen frames or more
            assert len(core.state.hand.board) == 4
            await core.submit({"type": "board", "cards": ["4h"]})
        finally:
            pusher.cancel()

    posted = await inbox(redis, show.table)
    boards = board_commands(posted)
    assert [set(c["cards"]) for c in boards] == [set(flop), set(turn)]  # in the order the camera read them
    assert all(c["source"] == "camera" and c["id"].startswith("cardcam-") for c in boards)
    assert all(person == "cardcam main (camera)" for _, person in posted)
    assert set(core.state.hand.board[:3]) == set(flop) and core.state.hand.board[3:] == turn + ("4h",)
    # The worker's log says "board", never the cards.
    leak = card_words(*flop, *turn)
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("tvtable.cardcam") and leak.search(r.getMessage())]


async def _is(value):
    return value


def test_the_board_need_tells_a_board_camera_the_board_and_no_hole_card():
    """The core's board-need key (the board camera's only view of the table) holds the hand,
    the board and the cards due; the hole cards never, though the core knows them."""
    from broadcast.views.projections import board_need, live_view
    from cardcam.board import parse_need
    from tests.engine.helpers import run, table

    state = run(table(), {"type": "start_hand", "button": 1},
                {"type": "hole_cards", "seat": 1, "cards": ["As", "Ah"]},
                {"type": "hole_cards", "seat": 2, "cards": ["Kc", "Kd"]})
    assert board_need(state) == {"hand": 1, "board": [], "needs": 0}  # preflop betting still on
    while board_need(state)["needs"] == 0:
        legal = live_view(state, ts=0)["legal"]
        state = run(state, {"type": "check" if legal["check"] else "call", "seat": legal["seat"]})
    assert board_need(state) == {"hand": 1, "board": [], "needs": 3}
    state = run(state, {"type": "board", "cards": ["Qh", "7d", "2s"]})
    raw = json.dumps(board_need(state))
    assert not {"As", "Ah", "Kc", "Kd"} & set(json.loads(raw)["board"]) and "As" not in raw and "Kc" not in raw
    assert parse_need(raw) == BoardNeed(1, ("Qh", "7d", "2s"), 0)
    assert parse_need(None) is None and parse_need(b"{not json") is None and parse_need('{"hand": 1}') is None
