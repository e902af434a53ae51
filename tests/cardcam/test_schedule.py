"""Which camera the vision pool reads next (``cardcam.schedule``, ``cardcam.worker.Places``),
and a camera handing over its newest frame when a frame waited for its turn
(``Source.newest``). The figures (hands confirmed within 300 ms with ten cameras at 25 fps)
are in docs/BENCHMARKS.md; here, the rules."""

from __future__ import annotations

import asyncio

import pytest

from cardcam import schedule
from cardcam.schedule import FRESH, HELD, PARTIAL, need, order
from cardcam.sources import Frame, Source
from cardcam.worker import Places


def test_a_hand_confirmed_whole_and_still_held_is_held():
    assert need(shown=True, complete=True, shown_for=3.0) == HELD


def test_a_hand_just_shown_or_the_felt_needs_every_frame():
    assert need(shown=False, complete=False, shown_for=0.0) == FRESH
    assert need(shown=True, complete=False, shown_for=schedule.PARTIAL_AFTER / 2) == FRESH


def test_a_hand_shown_a_while_with_a_card_unconfirmed_is_partial():
    assert need(shown=True, complete=False, shown_for=schedule.PARTIAL_AFTER + 0.1) == PARTIAL


def test_a_held_hand_waits_behind_the_felt_and_a_partial_hand_behind_a_fresh_one():
    now = 100.0
    felt = order(FRESH, now - 0.01, now)       # read a moment ago
    held = order(HELD, now - 0.1, now)         # read longer ago, but its hand is confirmed
    partial = order(PARTIAL, now - 0.05, now)
    assert sorted([held, partial, felt]) == [felt, partial, held]


def test_no_camera_waits_longer_than_its_class_allows():
    now = 100.0
    overdue = order(HELD, now - schedule.EVERY[HELD] - 0.01, now)
    fresh = order(FRESH, now - 0.01, now)
    assert overdue < fresh  # not read for longer than EVERY: it goes first, by its older read


def test_within_a_class_the_camera_read_longest_ago_goes_first():
    now = 100.0
    assert order(FRESH, now - 0.08, now) < order(FRESH, now - 0.04, now)


async def test_a_free_place_goes_to_the_waiting_camera_that_needs_it_most():
    need_of = {"held": (2, 0.0), "felt": (0, 5.0), "fresh": (0, 1.0)}
    places = Places(1, lambda cam: need_of[cam])
    await places.take("first")
    got: list[str] = []

    async def camera(cam):
        await places.take(cam)
        got.append(cam)

    tasks = [asyncio.create_task(camera(c)) for c in ("held", "felt", "fresh")]
    await asyncio.sleep(0)
    assert got == [] and set(places.waiting) == {"held", "felt", "fresh"}
    for _ in range(3):
        places.give_back()
        await asyncio.sleep(0)
    assert got == ["fresh", "felt", "held"]
    places.give_back()
    assert places.free == 1 and not places.waiting
    await asyncio.gather(*tasks)


async def test_a_camera_cancelled_while_waiting_loses_no_place():
    places = Places(1, lambda cam: (0, 0.0))
    await places.take("a")
    waiter = asyncio.create_task(places.take("b"))
    await asyncio.sleep(0)
    places.give_back()          # the place goes to b ...
    waiter.cancel()             # ... which is cancelled before it runs: the place comes back
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert places.free == 1 and not places.waiting
    await places.take("c")      # and can be taken again at once
    assert places.free == 0


async def test_a_frame_that_waited_for_its_turn_gives_way_to_a_newer_one_and_is_counted_dropped():
    src = Source("cam")
    await src.start()
    src._offer(Frame(ts=1.0))
    first = await src.next_frame()
    assert src.newest(first) is first and src.stats["dropped"] == 0
    src._offer(Frame(ts=2.0))   # came while ``first`` waited for a place in the pool
    newer = src.newest(first)
    assert newer.ts == 2.0 and src.stats["dropped"] == 1
    src._offer(Frame(ts=3.0))
    assert (await src.next_frame()).ts == 3.0  # the slot is not handed out twice
