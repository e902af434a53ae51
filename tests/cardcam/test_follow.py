"""Following a hand held still: the cards of the camera's last read are re-read where they
were, in a small region, instead of searching the whole frame; never a card the frame
does not show."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from cardcam import detect, maps, synth
from cardcam.recognize import Track, recognize
from cardcam.vision import analyse

from .conftest import needs_decks

pytestmark = needs_decks


def read_clip(model, clip, n_cards):
    """Reads of a clip, each frame given the track of the read before it."""
    reads, track = [], None
    for f in clip:
        r = recognize(f.image, n_cards, model=model, track=track)
        reads.append(r)
        track = r.track
    return reads


@pytest.mark.parametrize("deck", ["anglo", "tigullio"])
def test_a_hand_held_still_is_followed_and_never_read_wrong(model, deck):
    rng = np.random.default_rng(41)
    followed = wrong = right = 0
    for h in range(4):
        clip = synth.hand_clip(rng, deck, 2, "moderate", frames=8)
        reads = read_clip(model, clip, 2)
        for f, r in zip(clip, reads):
            followed += r.followed
            right += sum(c in f.cards for c in r.identified)
            wrong += sum(c not in f.cards for c in r.identified)
            if r.followed:  # every card the last read had, read again where it was
                assert r.shown and r.faces >= len(r.identified) >= 1
    assert wrong == 0
    assert followed >= 5, f"only {followed} of 32 frames followed"
    assert right >= 32


def test_a_track_never_carries_its_cards_to_another_hand_in_the_same_place(model):
    # Two hands in the very same pose (same seed), with no card in common.
    a_cards, b_cards = ("Kh", "7c"), ("Qd", "9s")
    clip_a = synth.hand_clip(np.random.default_rng(5), "anglo", 2, "easy", frames=3, cards=a_cards)
    clip_b = synth.hand_clip(np.random.default_rng(5), "anglo", 2, "easy", frames=3, cards=b_cards)
    assert all(np.allclose(a.quads[0], b.quads[0], atol=2) for a, b in zip(clip_a, clip_b))
    # each frame of hand A searched on its own: a whole track, and partial ones
    tracks = [r.track for r in (recognize(f.image, 2, model=model) for f in clip_a) if r.track is not None]
    assert any(t.complete for t in tracks), "hand A was never read whole"
    for track in tracks:
        assert {h.card for h in track.hits} <= set(a_cards)
        for f in clip_b:
            r = recognize(f.image, 2, model=model, track=track)
            assert not r.followed
            assert not set(r.identified) & set(a_cards)
            assert set(r.identified) <= set(b_cards)


def test_a_track_is_only_followed_on_a_frame_of_its_size_and_game(model):
    # a held hand the reader follows from its first frame to its second
    for seed in range(8, 40):
        clip = synth.hand_clip(np.random.default_rng(seed), "anglo", 2, "easy", frames=2, cards=("As", "Kd"))
        track = recognize(clip[0].image, 2, model=model).track
        if track is not None and recognize(clip[1].image, 2, model=model, track=track).followed:
            break
    else:
        pytest.fail("no held As Kd was followed from its first frame to its second")
    small = clip[1].image[:, :-2]
    assert not recognize(small, 2, model=model, track=track).followed
    four = recognize(clip[1].image, 4, model=model, track=track)  # Omaha: two cards are not the hand
    assert not four.followed


def test_a_followed_region_sees_the_paper_its_own_frame_shows():
    # The paper cut moves with the light (by 40 levels between frames of a held hand): a
    # region is analysed with its own frame's cut, so it sees the paper the whole frame
    # shows there, not what the frame that was searched showed.
    clip = synth.hand_clip(np.random.default_rng(8), "anglo", 2, "easy", frames=1, cards=("As", "Kd"))
    bright = clip[0].image
    dim = np.clip(bright.astype(np.float32) * 0.7, 0, 255).astype(np.uint8)
    img, s = maps.to_working(dim)
    assert maps.paper_cut(img) < maps.paper_cut(maps.to_working(bright)[0]) - 20
    x0, y0, x1, y1 = box = (200, 100, 760, 440)
    whole = maps.analyse(dim, whole=True).paper[y0:y1, x0:x1]
    region = maps.analyse_region(img, s, box, maps.paper_cut(img))
    assert np.array_equal(region.paper, whole)
    stale = maps.analyse_region(img, s, box, maps.paper_cut(maps.to_working(bright)[0]))
    assert stale.paper.sum() < 0.9 * whole.sum()  # the bright frame's cut loses dimmed paper


def test_a_hand_held_still_is_followed_when_the_light_changes(model):
    # Held hands, dimmed to 70 % and 90 % after the search: most reads still follow the
    # track, and a followed read is never another card.
    tried = followed = 0
    for seed in range(8, 24):
        clip = synth.hand_clip(np.random.default_rng(seed), "anglo", 2, "easy", frames=1, cards=("As", "Kd"))
        track = recognize(clip[0].image, 2, model=model).track
        if track is None or not track.complete or not recognize(clip[0].image, 2, model=model, track=track).followed:
            continue  # not followed even in the same light: not what this test is about
        for gain in (0.7, 0.9):
            img = np.clip(clip[0].image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
            r = recognize(img, 2, model=model, track=track)
            tried += 1
            if r.followed:
                assert set(r.cards) == {"As", "Kd"}
                followed += 1
    assert tried >= 16
    assert followed >= 0.8 * tried, f"{followed} of {tried} dimmed frames followed"


def test_the_track_goes_between_processes_as_plain_data(model):
    clip = synth.hand_clip(np.random.default_rng(8), "anglo", 2, "easy", frames=3, cards=("As", "Kd"))
    track = recognize(clip[0].image, 2, model=model).track
    again = Track.from_json(track.to_json())
    assert again == track
    # the vision process's job: the first frame is searched, the next ones followed
    job = {"image": clip[0].image, "regions": [(1, None, 2)]}
    first = analyse(job)
    assert first["reads"][0][1]["followed"] is False and 1 in first["tracks"]
    second = analyse({**job, "image": clip[1].image, "tracks": first["tracks"]})
    read = second["reads"][0][1]
    assert read["followed"] is True and set(read["cards"]) == {"As", "Kd"}
    assert Track.from_json(second["tracks"][1]).step == 1  # one frame followed since the search
    # a frame with no hand: nothing followed, nothing shown, no track
    empty = synth.empty_frame(np.random.default_rng(3), "easy").image
    third = analyse({**job, "image": empty, "tracks": second["tracks"]})
    assert third["reads"][0][1]["followed"] is False and not third["reads"][0][1]["shown"]
    assert third["tracks"] == {}


def test_a_hand_moved_more_than_a_follow_allows_is_cut_again_and_still_followed(model, monkeypatch):
    """A followed index is cut once where it was; a hand that moved more than
    ``detect.FOLLOW_SAME`` between frames is cut a second time at its new place, and still
    reads as the same cards.  A hand that moved a pixel is not cut again."""
    rng = np.random.default_rng(41)
    for _ in range(12):
        f = synth.hand_clip(rng, "anglo", 2, "easy", frames=1)[0]
        first = recognize(f.image, 2, model=model)
        if first.track is not None and first.track.complete:
            break
    assert first.track is not None and first.track.complete, "no hand read whole to follow"
    unit = min(h.unit for h in first.track.hits)
    recuts = []
    real = detect.candidate_at
    monkeypatch.setattr(detect, "candidate_at", lambda *a, **k: recuts.append(1) or real(*a, **k))
    for shift, cut_again in ((1, False), (round(0.2 * unit), True)):
        moved = cv2.warpAffine(f.image, np.float32([[1, 0, shift], [0, 1, 0]]),
                               (f.image.shape[1], f.image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        recuts.clear()
        r = recognize(moved, 2, model=model, track=first.track)
        assert r.followed, f"a hand moved {shift} px was not followed"
        assert set(r.identified) == set(first.identified)
        assert shift / unit > detect.FOLLOW_SAME[0] if cut_again else shift / unit < detect.FOLLOW_SAME[0]
        # one cut per card is the follow's jitter re-read; any more is an index cut again
        assert (len(recuts) > 2) == cut_again, (shift, len(recuts))


def test_a_hand_with_an_unread_card_is_followed_and_searched_again_every_few_frames(model):
    """A track that lacks a card (the search could not read it) is searched again on every
    frame of the hand's first ``PARTIAL_EAGER``; after that it is followed like a whole
    one: its cards are re-read where they were, the card it lacks stays ``??``, the faces
    are those its search saw, and every ``PARTIAL_SEARCH``-th frame is searched whole again."""
    from cardcam.recognize import PARTIAL_EAGER, PARTIAL_SEARCH
    for seed in range(8, 40):
        clip = synth.hand_clip(np.random.default_rng(seed), "anglo", 2, "easy", frames=PARTIAL_SEARCH + 1,
                               cards=("As", "Kd"))
        whole = recognize(clip[0].image, 2, model=model).track
        if whole is not None and whole.complete and recognize(clip[1].image, 2, model=model, track=whole).followed:
            break
    else:
        pytest.fail("no held As Kd was followed from its first frame to its second")
    kept = whole.hits[0]
    # the track a search would leave had it read only one of the two cards: in the hand's
    # first frames, the next frame is searched, and the search completes the hand
    fresh = Track(whole.size, (kept,), step=0, n_cards=2, faces=2, age=0)
    r = recognize(clip[1].image, 2, model=model, track=fresh)
    assert not r.followed and set(r.identified) == {"As", "Kd"} and r.track.age == 1
    # the same track of a hand held longer than that
    track = Track(whole.size, (kept,), step=0, n_cards=2, faces=2, age=PARTIAL_EAGER)
    assert not track.complete and Track.from_json(track.to_json()) == track
    for i in range(1, PARTIAL_SEARCH):
        r = recognize(clip[i].image, 2, model=model, track=track)
        assert r.followed, f"frame {i} of a partly read hand was searched, not followed"
        assert r.cards == (kept.card, "??") and r.shown and r.faces == 2
        assert r.track is not None and r.track.step == i and not r.track.complete
        assert r.track.age == PARTIAL_EAGER + i
        track = r.track
    r = recognize(clip[PARTIAL_SEARCH].image, 2, model=model, track=track)
    assert not r.followed, "the frame due for a search for the missing card was only followed"
    assert set(r.identified) == {"As", "Kd"} and r.track.complete, "the search did not complete the hand"
    # a partial track of a Hold'em hand is not followed in an Omaha frame
    held_on = Track(whole.size, (kept,), step=0, n_cards=2, faces=2, age=PARTIAL_EAGER)
    assert not recognize(clip[1].image, 4, model=model, track=held_on).followed

