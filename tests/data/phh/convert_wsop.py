"""Write PokerKit's recorded 2023 WSOP hands as .phh files for ``tests/test_phh.py``.

Source: PokerKit 0.7.7 (MIT licence, Copyright (c) 2023-2026 Universal, Open, Free, and
Transparent Computer Poker Research Group), ``pokerkit/tests/test_wsop/test_2023_43_5.py``:
the televised final-table hands of Day 5 of the 2023 World Series of Poker Event #43,
$50,000 Poker Players Championship, each a test with the blinds, antes, starting stacks,
cards and actions, ending with the finishing ``state.stacks`` asserted.

Each test is run as it is; the ``HandHistory.from_game_state`` call at its end is watched
to take the game and the finished state. The hands in the core's model (no-limit hold'em
or pot-limit Omaha, small and big blind, big-blind ante) are written out with their
source; the finishing stacks written are the ones the test asserts.

Run from the repository root: ``.venv/bin/python tests/data/phh/convert_wsop.py``.
"""

from __future__ import annotations

import inspect
import re
import sys
from importlib.metadata import version
from pathlib import Path

from pokerkit import NoLimitTexasHoldem, PotLimitOmahaHoldem
from pokerkit.notation import HandHistory
from pokerkit.tests.test_wsop import test_2023_43_5 as source

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from broadcast.phh_write import dumps_fields  # noqa: E402

EVENT = "2023 World Series of Poker Event #43: $50,000 Poker Players Championship | Day 5"
VIDEO = "https://www.pokergo.com/videos/6e5e4f34-9857-458c-b61e-d478ad29dbd6"
VARIANTS = {NoLimitTexasHoldem: "NT", PotLimitOmahaHoldem: "PO"}


def captured_hands():
    """(test name, game, state) for every test of the module, in file order."""
    seen = []
    original = HandHistory.from_game_state.__func__

    def watch(cls, game, state, *args, **kwargs):
        seen.append((game, state))
        return original(cls, game, state, *args, **kwargs)

    HandHistory.from_game_state = classmethod(watch)
    try:
        case = source.StateTestCase
        names = [n for n, _ in inspect.getmembers(case, inspect.isfunction) if n.startswith("test_")]
        names.sort(key=lambda n: inspect.getsourcelines(getattr(case, n))[1])
        for name in names:
            seen.clear()
            getattr(case(name), name)()
            game, state = seen[0]
            yield name, game, state
    finally:
        HandHistory.from_game_state = classmethod(original)


def main() -> None:
    written = skipped = 0
    for name, game, state in captured_hands():
        number, hh, mm, ss = re.match(r"test_(\d+)_(\d\d)_(\d\d)_(\d\d)$", name).groups()
        variant = VARIANTS.get(type(game))
        if variant is None:
            skipped += 1
            continue
        hh_text = HandHistory.from_game_state(game, state)
        antes = list(hh_text.antes) if isinstance(hh_text.antes, list) else [hh_text.antes] * len(state.stacks)
        fields = {
            "variant": variant,
            "ante_trimming_status": bool(hh_text.ante_trimming_status),
            "antes": antes,
            "blinds_or_straddles": list(hh_text.blinds_or_straddles),
            "min_bet": hh_text.min_bet,
            "starting_stacks": list(state.starting_stacks),
            "actions": list(hh_text.actions),
            "author": "Juho Kim",
            "event": EVENT,
            "url": VIDEO,
            "city": "Las Vegas",
            "region": "Nevada",
            "country": "United States of America",
            "day": 22,
            "month": 6,
            "year": 2023,
            "hand": int(number),
            "finishing_stacks": list(state.stacks),
            "_source": f"pokerkit {version('pokerkit')} pokerkit/tests/test_wsop/test_2023_43_5.py::StateTestCase::{name}",
            "_video_timecode": f"{hh}:{mm}:{ss}",
        }
        header = (
            f"# Hand {int(number)} of the {EVENT}\n"
            f"# (televised final table; at {hh}:{mm}:{ss} in the PokerGO video {VIDEO}).\n"
            f"# Source: PokerKit {version('pokerkit')}, pokerkit/tests/test_wsop/test_2023_43_5.py, {name}\n"
            "# (MIT licence, (c) 2023-2026 Universal, Open, Free, and Transparent Computer Poker Research\n"
            "# Group). Converted by tests/data/phh/convert_wsop.py; finishing_stacks are the stacks the\n"
            "# test asserts at the end of the hand.\n"
        )
        out = HERE / f"wsop-2023-43-5-hand-{int(number):02d}.phh"
        out.write_text(header + dumps_fields(fields))
        written += 1
    print(f"wrote {written} hands, skipped {skipped} of other games", file=sys.stderr)


if __name__ == "__main__":
    main()
