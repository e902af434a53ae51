"""The vision process's job (``cardcam.vision.analyse``) on pushed JPEGs: a frame of felt
is answered from a quarter-size decode (the paper gate's own thumbnail size), and any
frame that may show a card is read in full, as if the paper gate were never there."""

from __future__ import annotations

import cv2
import numpy as np

from cardcam import synth
from cardcam.vision import analyse

from .conftest import needs_decks

pytestmark = needs_decks


def _jpeg(image) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()


def _reads(result):
    return [(seat, None if raw is None else {k: raw[k] for k in ("shown", "faces", "cards")})
            for seat, raw in result["reads"]]


def test_a_felt_frame_is_read_as_nothing_shown_from_a_quarter_size_decode(model):
    regions = [(1, (0.0, 0.0, 0.5, 1.0), 2), (2, (0.5, 0.0, 0.5, 1.0), 2), (3, (0.99, 0.99, 0.01, 0.01), 2)]
    for seed in range(12):
        image = synth.empty_frame(np.random.default_rng(seed), "moderate").image
        quick = analyse({"jpeg": _jpeg(image), "regions": regions})
        full = analyse({"image": cv2.imdecode(np.frombuffer(_jpeg(image), np.uint8), cv2.IMREAD_COLOR),
                        "regions": regions})
        assert quick["ok"] and _reads(quick) == _reads(full)  # the same answer as a full read
        assert quick["reads"][2] == (3, None)  # a region too small to read, as before
        assert quick["size"] == full["size"] == [960, 540]  # the frame's own size


def test_a_pushed_hand_is_read_in_full_whatever_the_thumbnail_says(model):
    clip = synth.hand_clip(np.random.default_rng(8), "anglo", 2, "easy", frames=1, cards=("As", "Kd"))
    data = _jpeg(clip[0].image)
    result = analyse({"jpeg": data, "regions": [(1, None, 2)]})
    read = result["reads"][0][1]
    assert read["shown"] and set(read["cards"]) == {"As", "Kd"} and 1 in result["tracks"]
    # two seats on one camera: the frame is read in full for both, as from the decoded image
    regions = [(1, None, 2), (2, (0.0, 0.0, 0.1, 0.1), 2)]
    two = analyse({"jpeg": data, "regions": regions})
    full = analyse({"image": cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), "regions": regions})
    assert two["reads"][0][1]["shown"] and _reads(two) == _reads(full)


def test_a_felt_frame_still_gives_the_card_room_its_crop_and_ends_a_track(model):
    clip = synth.hand_clip(np.random.default_rng(8), "anglo", 2, "easy", frames=1, cards=("As", "Kd"))
    first = analyse({"image": clip[0].image, "regions": [(1, None, 2)]})
    felt = _jpeg(synth.empty_frame(np.random.default_rng(3), "easy").image)
    with_crop = analyse({"jpeg": felt, "regions": [(1, None, 2)], "crops": True})
    assert with_crop["crops"].get(1, b"")[:2] == b"\xff\xd8"  # a JPEG of the seat for the card room
    after = analyse({"jpeg": felt, "regions": [(1, None, 2)], "tracks": first["tracks"]})
    assert not after["reads"][0][1]["shown"] and after["tracks"] == {}
