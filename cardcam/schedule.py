"""Which camera the vision pool reads next.

Ten hole-card cameras at 25 fps give two cores more frames than they can read while the
hands are shown (docs/BENCHMARKS.md, "ten cameras through the real worker"). A camera
keeps only its newest frame, so every camera is read as often as the pool gets to it; the
question is which camera gets the next free place in the pool. Not all of them need it
equally:

* ``FRESH``: a camera looking at the felt is read to see a hand the moment it comes (a
  felt frame costs a millisecond or two: the paper gate), and a hand just shown needs
  every frame: each read brings its K-of-N confirmation closer, and the broadcast waits;
* ``PARTIAL``: a hand shown for more than ``PARTIAL_AFTER`` seconds with a card still not
  confirmed is mostly a card the reader cannot read (a deck it reads badly, a thumb over
  the index); it is searched again and again (about 40 ms a frame) and seldom completed;
* ``HELD``: a hand confirmed whole and still held has nothing new to say until it is put
  away; at 25 fps its follows (about 5 ms each) are a large share of the pool's time.

A camera waits behind those of a more urgent class, but never longer than its class's
``EVERY`` seconds since its last read; within a class, the one read longest ago goes first.
"""
from __future__ import annotations

FRESH, PARTIAL, HELD = 0, 1, 2
#: a hand shown this long (seconds) with a card still unconfirmed counts as PARTIAL
PARTIAL_AFTER = 0.5
#: the longest a camera of each class waits behind more urgent ones (seconds since its last
#: read began): a held hand put away is seen within about K of these (K = 3: 0.6 s)
EVERY = {FRESH: 0.0, PARTIAL: 0.12, HELD: 0.2}


def need(shown: bool, complete: bool, shown_for: float) -> int:
    """The class of a seat's camera from its tracker: ``shown`` (confirmed card faces),
    ``complete`` (every card confirmed), ``shown_for`` (seconds since shown was confirmed)."""
    if shown and complete:
        return HELD
    if shown and shown_for > PARTIAL_AFTER:
        return PARTIAL
    return FRESH


def order(cls: int, last_read: float, now: float) -> tuple[int, float]:
    """Sort key of a camera waiting for the pool (the smallest goes first): its class
    (:func:`need`), ``last_read`` the time its last read began, ``now`` (same clock)."""
    return (cls if now - last_read < EVERY[cls] else FRESH, last_read)
