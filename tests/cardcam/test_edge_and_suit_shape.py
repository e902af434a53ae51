"""Reads that depend on the glyphs' shapes: an index printed tight against the card's edge,
and clubs whose lobes blur into one blob.  A wrong card on air is worse than a missing one."""
import cv2
import numpy as np

from cardcam import synth
from cardcam.recognize import recognize

from .conftest import bench_frame, needs_decks

pytestmark = needs_decks


def _score(deck, n_cards, seeds, model, **kw):
    right, wrong = 0, []
    for seed in seeds:
        f = synth.hand_frame(np.random.default_rng(seed), deck, n_cards=n_cards,
                             level="moderate", **kw)
        r = recognize(f.image, n_cards, model=model)
        right += sum(c in f.cards for c in r.identified)
        wrong += [(seed, c, f.cards) for c in r.identified if c not in f.cards]
    return right, wrong


def test_index_printed_against_the_card_edge_is_read(model):
    # bellot prints its index tight in the corner: in the upright patch the felt beyond the
    # card's edge touched the rank and merged with it, so few bellot cards were read (5 of
    # 40 here; 25 and more now).
    right, wrong = _score("bellot", 2, range(1, 21), model,
                          thumb=False, glare=False, upside_down=False)
    assert not wrong, wrong
    assert right >= 18, f"{right} of 40 bellot cards read"


def test_club_blurred_into_one_blob_is_not_read_as_a_spade(model):
    # The unseen "plastic" deck's bold clubs blur into a dome-topped blob that the model
    # calls a sure spade (3 wrong cards in these frames); a spade's top is pointed.
    _, wrong = _score("plastic", 4, range(1, 21), model)
    assert not wrong, wrong



def _drawn(discs, tip, blur):
    """A suit drawn large from discs (x, y, r) and triangles, blurred, then cut to 24x24."""
    import cv2
    im = np.zeros((96, 96), np.float32)
    for x, y, r in discs:
        cv2.circle(im, (x, y), r, 1.0, -1)
    for tri in tip:
        cv2.fillPoly(im, [np.int32(tri)], 1.0)
    im = cv2.GaussianBlur(im, (0, 0), blur)
    return cv2.resize(im, (24, 24), interpolation=cv2.INTER_AREA)


def test_a_spade_widens_down_to_its_lobes_and_a_blurred_club_stops_at_its_neck():
    from cardcam.checks import SPADE_SPREAD, top_spread
    stem = [[48, 60], [36, 92], [60, 92]]
    spade = _drawn([(30, 56, 19), (66, 56, 19)], [[[48, 4], [13, 50], [83, 50]], stem], 4)
    club = _drawn([(48, 24, 21), (24, 56, 21), (72, 56, 21)], [stem], 6)
    assert top_spread(spade) >= SPADE_SPREAD
    assert top_spread(club) < SPADE_SPREAD
    assert top_spread(np.zeros((24, 24), np.float32)) == 0.0


def test_a_club_dips_in_where_its_lobes_meet_and_a_spade_does_not():
    from cardcam.checks import CLUB_NOTCH, CLUB_SPREAD, SPADE_SPREAD, club_notches, top_spread
    stem = [[48, 60], [36, 92], [60, 92]]
    spade = _drawn([(30, 56, 19), (66, 56, 19)], [[[48, 4], [13, 50], [83, 50]], stem], 4)
    club = _drawn([(48, 24, 21), (24, 56, 21), (72, 56, 21)], [stem], 4)
    assert club_notches(club) >= CLUB_NOTCH and top_spread(club) < CLUB_SPREAD
    assert club_notches(spade) < CLUB_NOTCH / 2
    # a spade whose tip is cut away (a thumb, the card over it) widens little below its
    # new top, as a club does, but its sides do not dip in
    im = np.zeros((96, 96), np.float32)
    for x, y in ((30, 56), (66, 56)):
        cv2.circle(im, (x, y), 19, 1.0, -1)
    for tri in ([[48, 4], [13, 50], [83, 50]], stem):
        cv2.fillPoly(im, [np.int32(tri)], 1.0)
    im[:30] = 0
    cut = cv2.resize(cv2.GaussianBlur(im, (0, 0), 4)[30:], (24, 24), interpolation=cv2.INTER_AREA)
    assert top_spread(cut) < SPADE_SPREAD and club_notches(cut) < CLUB_NOTCH / 2
    assert club_notches(np.zeros((24, 24), np.float32)) == 0.0


def test_bold_clubs_of_an_unseen_deck_are_read_as_clubs_and_never_a_spade_as_a_club(model):
    # plastic's bold clubs blur into a blob the model calls a sure spade, and the spade
    # check refused every one (0 of these 23 clubs read): black ink with a club's notches
    # and a top that stops widening is a club
    right = clubs = 0
    for seed in range(1, 21):
        f = synth.hand_frame(np.random.default_rng(seed), "plastic", n_cards=4, level="moderate")
        r = recognize(f.image, 4, model=model)
        clubs += sum(c[1] == "c" for c in f.cards)
        right += sum(c in f.cards and c[1] == "c" for c in r.identified)
        assert set(r.identified) <= set(f.cards), (seed, r.identified, f.cards)
    assert clubs == 23 and right >= 5, f"{right} of {clubs} plastic clubs read"


def test_a_club_with_a_spades_widening_top_and_no_notches_needs_a_surer_read():
    """plastic's spades have a broad foot, and the model read two as sure clubs (2s as 2c
    at 0.985, 8s as 8c at 0.990); right clubs shaped like that were read at 0.9996 and up."""
    from cardcam.checks import CLUB_SURE, SPADE_LIKE, club_notches, club_shape_ok, top_spread, veto
    stem = [[48, 60], [36, 92], [60, 92]]
    spade = _cand(_glyph())
    spade.suit.crop = _drawn([(30, 56, 19), (66, 56, 19)], [[[48, 4], [10, 40], [86, 40]], stem], 4)
    assert top_spread(spade.suit.crop) >= SPADE_LIKE and club_notches(spade.suit.crop) < 0.02
    assert veto("2", "c", spade, 0.985, 0.0) == "club_shape"
    assert veto("2", "c", spade, 0.985, 0.0, reread=True) == "club_shape"
    assert club_shape_ok("c", spade, CLUB_SURE) and veto("2", "c", spade, 0.9996, 0.0) is None
    assert club_shape_ok("s", spade, 0.985)  # a spade read as a spade: not this rule's
    club = _cand(_glyph())
    club.suit.crop = _drawn([(48, 24, 21), (24, 56, 21), (72, 56, 21)], [stem], 4)
    assert veto("2", "c", club, 0.985, 0.0) is None


def test_the_plastic_spades_read_as_clubs_on_the_twenty_decks_are_refused(model):
    for seed, frame, level, spade, misread in ((9018, 87, "moderate", "2s", "2c"),
                                               (9118, 93, "hard", "8s", "8c")):
        f = bench_frame("plastic", seed, frame, level)
        assert spade in f.cards and misread not in f.cards
        r = recognize(f.image, len(f.cards), model=model)
        assert set(r.identified) <= set(f.cards), (frame, r.identified)


def test_an_index_cut_by_the_edge_of_the_frame_is_not_read(model):
    """The 6 of diamonds' lower index, upside down and cut by the frame's right edge, read as
    a sure 5 of diamonds (unseen deck tigullio, found on held-hand clips). A glyph that
    reaches the edge of the frame is not read."""
    rng = np.random.default_rng(11)
    for deck, hand in [(d, h) for d in ("anglo", "tango", "paris") for h in range(8)] + \
            [("tigullio", h) for h in range(5)]:
        synth.HeldHand(rng, deck, 2 if hand % 2 else 4, "moderate", frames=10)  # the draws before
    f = synth.HeldHand(rng, "tigullio", 2, "moderate", frames=10).frame(8)
    assert f.cards == ("5c", "6d")
    r = recognize(f.image, 2, model=model)
    assert set(r.identified) <= set(f.cards) and "6d" in r.identified


def test_part_of_a_rank_wider_than_tall_is_not_read(model):
    """An upside-down 8 of diamonds half under the card lying over it: what shows of the 8
    is a "U", wider than tall, and it was read as a sure 9 of diamonds (bellot, a held
    hand of the latency benchmark, frame 17). No rank but a ten is wider than tall.

    The frames round it are read too, and the 8s in most: a build of the model on another
    machine refused frame 17 whole (a conflict), which is no test of the rule."""
    rng = np.random.default_rng(3001)
    cards = tuple(synth.art.CARDS[i] for i in rng.choice(52, 4, replace=False))
    hold = synth.HeldHand(rng, "bellot", 4, "moderate", cards=cards, frames=202)
    eights = 0
    for k in range(14, 21):
        f = hold.frame(k)
        assert f.cards and set(f.cards) == {"6s", "5d", "8d", "8s"}
        r = recognize(f.image, 4, model=model)
        assert "9d" not in r.identified, k
        assert set(r.identified) <= set(f.cards), (k, r.identified)
        eights += "8s" in r.identified
    assert eights >= 5, f"the 8s read in {eights} of 7 frames"


def test_a_rank_much_smaller_than_its_suit_is_not_read(model):
    """A small, blurred "10" of hearts paired with the big heart printed beside it: the
    rank is half as tall as that "suit", and was read as a sure queen of hearts (unseen
    deck tigullio, the accuracy benchmark's frames). A rank is never much smaller than
    its suit (0.77 of it at the least in seven decks)."""
    f = bench_frame("tigullio", 1006, 36)
    assert f.cards == ("7h", "8h", "Th", "Ac")
    r = recognize(f.image, 4, model=model)
    assert "Qh" not in r.identified
    assert set(r.identified) <= set(f.cards) and len(r.identified) >= 2


def test_a_rank_with_an_outline_taken_out_through_it_is_not_read(model):
    """A clean board frame: the queen of diamonds' small Q touches the court picture's
    frame, whose straight line ran on with the Q's sides and was taken out as a card
    outline; what was left of the Q read as a sure 5 of diamonds."""
    rng = np.random.default_rng(77)
    for i in range(9):
        n = (3, 4, 5)[i % 3]
        cards = tuple(synth.art.CARDS[j] for j in rng.choice(52, n, replace=False))
        f = synth.board_frame(rng, "anglo", cards, level="easy")
    assert f.cards == ("2c", "9c", "Qd", "Jd", "5s")
    r = recognize(f.image, 5, model=model)
    assert "5d" not in r.identified
    assert set(r.identified) <= set(f.cards) and len(r.identified) >= 3


# ----------------------------------------------------------------------------- how the index was cut

def _glyph(parts=1, stacked=0.0, felt_top=0.0, cut_away=0.0):
    from cardcam.detect import Glyph
    # 1.4 times as tall as wide, 0.9 rank-suit distances tall: a rank as indices print it
    return Glyph(np.zeros((32, 24), np.float32), 1.4, 0.9, 0.0, 0.0, 0.3,
                 parts=parts, stacked=stacked, felt_top=felt_top, cut_away=cut_away)


def _cand(rank_glyph):
    from cardcam.detect import Candidate
    return Candidate(np.zeros(2), np.array([0.0, 1.0]), 20.0, rank_glyph, _glyph(), 0.8,
                     (0, 0, 10, 10), (1, 2))


def test_a_rank_of_parts_stacked_one_over_the_other_is_never_read():
    from cardcam.checks import cut_ok
    assert not cut_ok("7", _cand(_glyph(parts=2, stacked=0.56)), 1.0)
    assert not cut_ok("T", _cand(_glyph(parts=2, stacked=0.84)), 1.0)
    # a ten's "1" and "0" side by side, a queen's tail a little under the queen
    assert cut_ok("T", _cand(_glyph(parts=2, stacked=0.14)), 0.95)
    assert cut_ok("Q", _cand(_glyph(parts=2, stacked=0.38)), 0.995)


def test_a_rank_of_several_parts_other_than_a_ten_needs_a_strict_read():
    from cardcam.checks import STRICT, cut_ok
    assert not cut_ok("6", _cand(_glyph(parts=2)), 0.968)
    assert not cut_ok("Q", _cand(_glyph(parts=2)), 0.955)
    assert cut_ok("Q", _cand(_glyph(parts=2)), STRICT)
    assert cut_ok("6", _cand(_glyph(parts=1)), 0.968)


def test_a_six_cut_into_by_the_felt_at_its_top_needs_a_strict_read():
    from cardcam.checks import STRICT, cut_ok
    assert not cut_ok("6", _cand(_glyph(felt_top=0.94)), 0.97)
    assert cut_ok("6", _cand(_glyph(felt_top=0.94)), STRICT)
    assert cut_ok("6", _cand(_glyph(felt_top=0.2)), 0.97)
    assert cut_ok("7", _cand(_glyph(felt_top=1.1)), 0.97)  # no rank's top part is a 7


def test_a_small_index_needs_a_surer_read_than_a_large_one():
    from cardcam.checks import SMALL_INDEX, SMALL_SURE, size_ok, veto
    small = _cand(_glyph())
    small.unit = 10.6       # an upside-down atlasnye Jh, read as Qh at 0.951
    assert small.unit < SMALL_INDEX
    assert not size_ok(small, 0.951) and size_ok(small, SMALL_SURE)
    assert veto("Q", "c", small, 0.951, 0.0) == "small"
    # a jittered re-read only confirms or refuses a read: the first read met the rule
    assert veto("Q", "c", small, 0.951, 0.0, reread=True) is None
    large = _cand(_glyph())
    large.unit = 20.0
    assert size_ok(large, 0.951) and veto("Q", "c", large, 0.951, 0.0) is None


def test_a_small_black_suit_needs_a_surer_read_than_a_small_red_one():
    """A spade and a club that small differ in a few pixels, which blur takes first: a
    small blurred orell 4c was read as 4s at 0.996."""
    from cardcam.checks import SMALL_BLACK_SURE, SMALL_SURE, size_ok, veto
    small = _cand(_glyph())
    small.unit = 12.8
    assert size_ok(small, 0.996, "h") and size_ok(small, 0.996, "d")
    assert not size_ok(small, 0.996, "s") and not size_ok(small, 0.996, "c")
    assert size_ok(small, SMALL_BLACK_SURE, "s") and SMALL_BLACK_SURE > SMALL_SURE
    assert veto("4", "c", small, 0.996, 0.0) == "small"
    large = _cand(_glyph())
    large.unit = 20.0
    assert size_ok(large, 0.95, "s") and veto("4", "c", large, 0.996, 0.0) is None


def test_a_five_where_broken_sixes_and_threes_land_needs_a_surer_read():
    """A 6 whose loop opened or whose side was cut, and a 3 whose middle glare took, read as
    5s: a blurred guyenne 3h was read as 5h at 0.986."""
    from cardcam.checks import LANDING_SURE, landing_ok, veto
    c = _cand(_glyph())
    # (a club: the drawn glyph has no red ink for a heart's colour check)
    assert not landing_ok("5", 0.986) and veto("5", "c", c, 0.986, 0.0) == "landing"
    assert landing_ok("5", LANDING_SURE["5"]) and veto("5", "c", c, 0.9995, 0.0) is None
    assert landing_ok("6", 0.94) and veto("6", "c", c, 0.94, 0.0) is None
    assert veto("5", "c", c, 0.986, 0.0, reread=True) is None   # a jittered re-read only confirms


def test_a_rank_taller_than_an_index_allows_needs_a_strict_read():
    """A spade pip run into the stroke of the card's edge beside it, over the next pip, is a
    "rank" 1.5 rank-suit distances tall: it was read as As at 0.963."""
    from cardcam.checks import RANK_TALL, STRICT, height_ok, veto
    g = _glyph()
    g.size = 1.50
    tall = _cand(g)
    assert tall.rank.size >= RANK_TALL
    # (a club: the drawn suit has neither a spade's shape nor a heart's red ink)
    assert not height_ok("A", tall, 0.963) and veto("A", "c", tall, 0.963, 0.0) == "tall"
    assert height_ok("A", tall, STRICT)
    assert veto("A", "c", tall, 0.963, 0.0, reread=True) is None  # a re-read only confirms
    g = _glyph()
    g.size = 1.2  # the tallest right ranks (dondorf, guyenne) measure up to 1.42
    assert height_ok("A", _cand(g), 0.963) and veto("A", "c", _cand(g), 0.963, 0.0) is None


def test_a_one_part_ten_as_thin_as_one_digit_needs_a_strict_read():
    """A ten's "1" and "0" stand side by side: a blurred 7h, one glyph twice as tall as
    wide, was read as Th at 0.977."""
    from cardcam.checks import STRICT, THIN_TEN, height_ok, veto
    thin = _glyph(parts=1)
    thin.aspect = 2.0
    assert thin.aspect >= THIN_TEN
    assert not height_ok("T", _cand(thin), 0.977) and veto("T", "c", _cand(thin), 0.977, 0.0) == "tall"
    assert height_ok("T", _cand(thin), STRICT)
    assert height_ok("7", _cand(thin), 0.977)  # a 7 is that thin
    wide = _glyph(parts=1)
    wide.aspect = 1.38  # the median right one-part ten
    assert height_ok("T", _cand(wide), 0.977)


@needs_decks
def test_a_tall_rank_a_thin_ten_and_broken_nines_read_wrong_on_the_twenty_decks_are_refused(model):
    """The sure wrong reads of the all-decks check at the hard level (seeds 9100 and 9300)
    on 2026-12-07's night build of model v10: a blurred neoclassical_4_color 7h read as Th
    at 0.977 (a one-part ten twice as tall as wide), an anglo_bitmap Ts whose spade pip ran
    into the card's edge read as As at 0.963 (a rank 1.5 rank-suit distances tall), and a
    small gnomangelo_bitmap 9d read as 3d at 0.973 (a small index needs 0.98); and at the
    moderate level (seed 9011, 100 frames) a neoclassical 9h whose loop broke as 3h at 0.944
    (loose ink 0.30 in its box needs a strict read).  That build reads each of them so
    without its rule."""
    cases = [("neoclassical_4_color", 9112, 0, "hard", "Th"),
             ("anglo_bitmap", 9301, 26, "hard", "As"),
             ("gnomangelo_bitmap", 9309, 34, "hard", "3d"),
             ("neoclassical", 9011, 70, "moderate", "3h")]   # a 9h whose loop broke: loose ink 0.30
    for deck, seed, frame, level, misread in cases:
        f = bench_frame(deck, seed, frame, level)
        assert misread not in f.cards
        r = recognize(f.image, len(f.cards), model=model)
        assert set(r.identified) <= set(f.cards), (deck, frame, r.identified)


@needs_decks
def test_a_six_and_a_three_of_hearts_read_as_fives_are_refused(model):
    """The twenty decks' check (benchmarks/cardcam_misses.py --decks standard): an
    anglo_modern_4_color 6h upside down against its card's edge (validation seed 9203,
    moderate, frame 21, the 6h read as well) and a blurred guyenne 3h whose middle glare took
    (seed 9110, hard, frame 28) were read as 5h (at 0.986 for the 3h); without the rule this
    evening's build reads both.  (The anglo_modern 6h of seed 9002, frame 65, read as 5h at
    0.94 by the afternoon's build, is not read so by this one.)"""
    for deck, seed, frame, level, card in (("anglo_modern_4_color", 9203, 21, "moderate", "6h"),
                                           ("guyenne-classic", 9110, 28, "hard", "3h")):
        f = bench_frame(deck, seed, frame, level)
        assert card in f.cards and "5h" not in f.cards
        r = recognize(f.image, len(f.cards), model=model)
        assert "5h" not in r.identified and set(r.identified) <= set(f.cards), (deck, r.cards)


def test_a_ten_joined_from_a_twin_of_its_suit_is_pips_not_an_index():
    """A card's pips are printed alike: three big hearts of a dondorf 9h, one taken as the
    suit and two as the "1" and "0" of a ten, read as a sure Th (0.97)."""
    from cardcam.checks import PIP_PART, veto
    pips = _cand(_glyph(parts=2))
    pips.rank.pip_part = 0.01
    # (black glyphs here: the colour check passes a club)
    assert veto("T", "c", pips, 0.972, 0.0) == "pip_part"
    assert veto("T", "c", pips, 0.972, 0.0, reread=True) == "pip_part"  # not a rule of the cut
    ten = _cand(_glyph(parts=2))
    ten.rank.pip_part = 0.11    # a plastic "0", nearly as wide and solid as its diamond
    assert ten.rank.pip_part > PIP_PART and veto("T", "c", ten, 0.9999, 0.0) is None
    assert veto("9", "c", _cand(_glyph()), 0.99, 0.0) is None  # one part: nothing joined to it


@needs_decks
def test_a_nine_of_hearts_pips_are_not_read_as_a_ten(model):
    """The accuracy benchmark's held dondorf hand (seed 3002, hand 2, frame 12): the pips
    of its 9h made a "10" over a heart at twice the index's size."""
    from cardcam import checks, classify, detect, maps
    from cardcam.recognize import _proba
    rng = np.random.default_rng(3002)
    for h in range(3):
        n = 2 if h % 2 else 4
        cards = tuple(synth.art.CARDS[i] for i in rng.choice(52, n, replace=False))
        # as benchmarks/cardcam_accuracy.latency draws it: 3 s give-up and 25 reads after, at 25 fps
        held = synth.HeldHand(rng, "dondorf", n, "moderate", cards=cards, frames=202)
    f = held.frame(12)
    assert "9h" in f.cards and "Th" not in f.cards
    r = recognize(f.image, len(f.cards), model=model)
    assert "Th" not in r.identified and set(r.identified) <= set(f.cards)
    cands = detect.candidates(maps.analyse(f.image), screen=model.screen)
    decided = checks.decide(cands, *_proba(model, None, classify.features_batch(cands)), model.threshold)
    refused = [d for d in decided if d.vetoed == "pip_part"]
    assert all(d.cand.unit > 1.6 * min(c.unit for c in cands) for d in refused)
    assert {d.refused for d in refused} <= {"Th"} and {d.card for d in refused} <= {"??"}
    # every sure "Th" there is those pips, refused as such (the afternoon's build read them
    # so at 0.972; the evening's build, on another machine, is not sure of them at all)
    # (decide keeps a sure read as its card, or as the card a check refused)
    tens = [d for d in decided if "Th" in (d.card, d.refused)]
    assert all(d.vetoed == "pip_part" for d in tens)
    # the real index of a ten on the same deck is still read (bench frame, hard: its pips
    # were read as a "10" too, right by chance, and are refused)
    f = bench_frame("dondorf", 9107, 47, "hard")
    assert "Th" in f.cards
    assert "Th" in recognize(f.image, len(f.cards), model=model).identified


@needs_decks
def test_small_indices_and_broken_ranks_read_wrong_on_the_twenty_decks_are_refused(model):
    """The sure wrong reads of the all-decks check (benchmarks/cardcam_misses.py --decks
    standard, seeds 9000 and 9100) that a small index (a small black suit among them) or
    loose ink explains: none is read now."""
    from .conftest import bench_frame
    cases = [("atlasnye", 9005, 8, "moderate", "Qh"),                 # a small upside-down Jh
             ("anglo_modern_4_color", 9003, 28, "moderate", "Jh"),    # a 5h, its top under a card
             ("anglo_bitmap", 9001, 23, "hard", "Ac"),                # a small index, 0.950
             ("atlasnye", 9005, 34, "hard", "7h"),                    # loose ink 0.6 in its box
             ("anglo_modern", 9102, 26, "moderate", "Jd"),            # a 5d, its top bar apart
             ("orell", 9013, 22, "moderate", "4s"),                   # a small blurred 4c
             ("anglo_bitmap", 9101, 28, "hard", "As"),                # a small Ac
             ("paris", 9117, 21, "hard", "5c")]                       # a small 6c upside down
    for deck, seed, frame, level, misread in cases:
        f = bench_frame(deck, seed, frame, level)
        assert misread not in f.cards
        r = recognize(f.image, len(f.cards), model=model)
        assert set(r.identified) <= set(f.cards), (deck, frame, r.identified)


def test_an_eight_whose_top_loop_the_felt_took_is_not_read_as_a_six(model):
    """bellot prints its index tight to the card's edge: the felt map took the top loop of
    an 8 of hearts with the felt, and the 6 left was read as a sure 6h (0.97)."""
    from cardcam import checks, classify, detect, maps
    from cardcam.recognize import _proba
    f = bench_frame("bellot", 1001, 10)
    assert "8h" in f.cards and "6h" not in f.cards
    r = recognize(f.image, len(f.cards), model=model)
    assert "6h" not in r.identified and set(r.identified) <= set(f.cards)
    # the measure behind it: the felt cut into the top of the rank at that 8's index, and a
    # "6" read there (as model v8 read it; v9 reads an unsure 8h) needs STRICT
    quad = f.quads[f.cards.index("8h")].astype(np.float32)
    cands = [c for c in detect.candidates(maps.analyse(f.image))
             if cv2.pointPolygonTest(quad, ((c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2), False) >= 0]
    assert cands
    Pr, Ps = _proba(model, None, classify.features_batch(cands))
    assert any(c.rank.felt_top > checks.FELT_TOP for c in cands)
    assert "6h" not in [r.card for r in checks.decide(cands, Pr, Ps, model.threshold)]


def test_a_card_edge_or_corner_joined_to_a_rank_does_not_make_another_rank(model):
    """The misses benchmark's wrong reads before the rule, each joined from two parts: the
    arc of a card's rounded corner over a dondorf J (7h) and over an A (Th), a stroke of
    the card's edge beside an anglo 8 (6h), a "10" half under a thumb (tango, Qh)."""
    for deck, seed, frame, wrong in (("dondorf", 1002, 7, "7h"), ("dondorf", 5002, 94, "Th"),
                                     ("anglo", 5000, 93, "6h"), ("tango", 5003, 98, "Qh")):
        f = bench_frame(deck, seed, frame)
        assert wrong not in f.cards
        r = recognize(f.image, len(f.cards), model=model)
        assert wrong not in r.identified, (deck, frame)
        assert set(r.identified) <= set(f.cards), (deck, frame, r.identified, f.cards)


def test_a_rank_with_ink_cut_away_next_to_it_needs_a_strict_read():
    from cardcam.checks import STRICT, cut_ok
    assert not cut_ok("Q", _cand(_glyph(cut_away=1.0)), 0.979)
    assert not cut_ok("J", _cand(_glyph(cut_away=0.26)), 0.982)
    assert cut_ok("Q", _cand(_glyph(cut_away=0.26)), STRICT)
    # what is left of a 5 whose bar the felt took is a J's hook: never read, however sure
    assert not cut_ok("J", _cand(_glyph(cut_away=0.26)), 0.996)
    assert not cut_ok("J", _cand(_glyph(cut_away=0.26)), 1.0)
    assert cut_ok("J", _cand(_glyph(cut_away=0.1)), 0.95)
    # a jittered re-read only checks that the read holds: the first read met the rule
    assert cut_ok("J", _cand(_glyph(cut_away=0.26)), 0.95, reread=True)


def _held_frame(deck, seed, hand, frame):
    """Frame ``frame`` of hand ``hand`` of the accuracy benchmark's held hands at ``seed``."""
    rng = np.random.default_rng(seed)
    for h in range(hand + 1):
        n_cards = 2 if h % 2 else 4
        cards = tuple(synth.art.CARDS[i] for i in rng.choice(52, n_cards, replace=False))
        held = synth.HeldHand(rng, deck, n_cards, "moderate", cards=cards, frames=202)
    return cards, held.frame(frame)


def test_a_rank_cut_by_the_card_over_it_or_by_the_felt_is_not_misread(model):
    """Held bellot hands (2026-12-05, model v7): an upside-down 8d whose side the edge of
    the card lying over it cut off was read as Qd at 0.979; a 5d whose bar ran into the
    felt at the card's edge as Jd at 0.982.  Both ranks had ink cut away next to them."""
    from cardcam import checks, classify
    from cardcam.recognize import _proba, read_candidates
    for hand, frame, wrong in ((0, 193, "Qd"), (2, 17, "Jd")):
        cards, f = _held_frame("bellot", 3001, hand, frame)
        assert wrong not in cards
        r = recognize(f.image, len(cards), model=model)
        assert wrong not in r.identified and set(r.identified) <= set(cards), (wrong, r.cards)
        # the measure behind it: the candidates the model reads as that card
        _, cands, _ = read_candidates(f.image, model)
        Pr, Ps = _proba(model, None, classify.features_batch(cands))
        hits = [c for c, pr, ps in zip(cands, Pr, Ps)
                if classify.RANK_CLASSES[pr.argmax()] + classify.SUIT_CLASSES[ps.argmax()] == wrong]
        assert hits and max(c.rank.cut_away for c in hits) > checks.CUT_AWAY
