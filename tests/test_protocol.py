"""The wire protocol: docs/api.md is current, and real commands, events and views match their schemas."""

from pathlib import Path

import jsonschema

from broadcast.views.projections import commentary_view, live_view, public_view
from broadcast.views.protocol import FEED_MESSAGE, command_schema, event_schema, render_markdown
from tests.engine.test_properties import random_show

ROOT = Path(__file__).resolve().parents[1]


def test_docs_api_md_is_generated_from_the_protocol_module():
    assert (ROOT / "docs" / "api.md").read_text() == render_markdown(), "run: python -m broadcast.views.protocol > docs/api.md"


def test_every_event_of_a_show_matches_its_schema():
    journal, state, _ = random_show(11, hands=6)
    kinds = set()
    for _, event in journal:
        data = event.to_dict()
        jsonschema.validate(data, event_schema(data["type"]))
        kinds.add(data["type"])
    assert {"TableOpened", "HandStarted", "ActionTaken", "HandEnded"} <= kinds
    for view in (live_view(state, ts=1), public_view(state, ts=1), commentary_view(state, ts=1)):
        jsonschema.validate(view, FEED_MESSAGE)


def test_commands_match_their_schemas():
    samples = [
        {"type": "start_hand", "button": 3, "id": "c-1"},
        {"type": "hole_cards", "seat": 2, "cards": ["As", "??"]},
        {"type": "board", "cards": ["2c", "7d", "9h"]},
        {"type": "raise", "seat": 4, "amount": 1200},
        {"type": "chips", "seat": 4, "chips": [1000, 1000]},
        {"type": "penalty", "player": "p-bo", "kind": "missed_orbits", "count": 1, "reason": "profanity"},
    ]
    for command in samples:
        jsonschema.validate(command, command_schema(command["type"]))
