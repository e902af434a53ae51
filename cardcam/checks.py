"""Whether a read is sure enough to assert: the model's probabilities, then the checks a
sure read must pass.

A wrong card on air is worse than no card.  :func:`decide` turns p(rank) and p(suit)
(:mod:`cardcam.classify`) into a card only when both are sure (:func:`sure`) and no check
refuses it (:func:`veto`): the ink's colour agrees with the suit, the suit's shape with a
spade's, the pair is an index and not two pips, the rank glyph is a whole rank, and it was
not cut in a way that can change it.  Each check names the read it was written against.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .classify import RANK_CLASSES, SUIT_CLASSES, pip_likeness
from .detect import Candidate


@dataclass(frozen=True)
class CardRead:
    """What :func:`decide` made of one candidate: a card it asserts, or ``??``."""

    card: str           # "As", or "??"
    confidence: float   # probability that ``card`` is right (0 for "??")
    index_like: float   # probability that the candidate is an index at all
    box: tuple[float, float, float, float]
    cand: Candidate
    vetoed: str | None = None  # the check that refused a sure read (:func:`veto`), for the misses benchmark
    refused: str | None = None  # the card that check refused (never shown: ``card`` is ``??``)
    refused_p: float = 0.0      # p(rank) x p(suit) of that refused read, as the check saw it
    guess: str | None = None    # an unsure read's best guess, when it names a card (never shown)
    guess_p: float = 0.0        # p(rank) x p(suit) of that guess


#: Spades and clubs are ink no redder than this against the paper's own colour
#: (``Glyph.tint``).  On 2,600 sure reads of 21 decks (moderate and hard frames, 2026-12-06)
#: right black reads measure up to 0.125 and right red ones from 0.33, under the warm and
#: cool light that moved the frame's own redness of black ink up to 0.39 and of red ink
#: down to 0.29.
TINT_BLACK = 0.22
#: Spades and clubs are ink no yellower than this against the paper's colour
#: (``Glyph.yellow``, (min(r, g) - b) / min(r, g), the mean of the rank's and the suit's).
#: A four-colour deck's diamonds are yellow ink, not red, and a blurred 5d of
#: neoclassical_4_color was read as a sure 5c.  On 2026-12-07's sure reads of 20 decks (30
#: moderate and 30 hard frames each) right spades and clubs measure up to 0.14 (green clubs
#: -0.17 at most), the four-colour decks' right diamonds 0.42 and up.
YELLOW_BLACK = 0.28
#: The frame's own redness (``Glyph.red``) a black read must stay under when its patch has
#: too little clean paper to balance the light against (tint -1).
RED_BLACK = 0.2


def colour_ok(suit: str, c: Candidate) -> bool:
    """Red suits are printed in saturated, non-black ink; spades and clubs never in red
    or yellow ink (a four-colour deck's diamonds).  Redness and yellowness are taken against
    the paper beside the index (``Glyph.tint``, ``Glyph.yellow``): under warm light black
    ink looks red in the frame, but no redder than its paper."""
    if suit in "hd":
        return (c.suit.sat + c.rank.sat) / 2 > 0.25
    rank_tint, suit_tint = c.tints()
    if rank_tint >= 0 and suit_tint >= 0:
        # measured with the redness: on paper both, or neither
        return (rank_tint + suit_tint) / 2 < TINT_BLACK and sum(c.yellows()) / 2 < YELLOW_BLACK
    return (c.suit.red + c.rank.red) / 2 < RED_BLACK


#: How much wider (in widest-row widths) a spade is at 30% of its height than at 10%.  A
#: spade keeps widening from its tip down to its lobes (0.27 and more in the decks we
#: train on, one gnomangelo spade of about 330 from twelve decks at 0.22); a club's top
#: lobe stops widening at its neck, and a bold club blurred into one blob (the unseen
#: "plastic" deck) measures 0.06 to 0.23 and is read as a sure spade (0.2 until
#: 2026-12-03, when plastic clubs re-read at a small rotation measured 0.22 and 0.23).
SPADE_SPREAD = 0.25


def top_spread(crop: np.ndarray) -> float:
    """How fast a glyph widens below its top: width at 30% of its height less width at 10%,
    over its widest row's width (0 when the crop is empty)."""
    if float(crop.max()) <= 1e-6:
        return 0.0
    m = crop > 0.35 * float(crop.max())
    rows = np.nonzero(m.any(axis=1))[0]
    if len(rows) < 4:
        return 0.0
    t, b = int(rows[0]), int(rows[-1])
    w = m.sum(axis=1).astype(np.float64)

    def width_at(f: float) -> float:
        y = t + f * (b - t + 1)
        y0 = int(np.floor(y))
        k = y - y0
        return (1 - k) * w[min(y0, b)] + k * w[min(y0 + 1, b)]

    return float((width_at(0.3) - width_at(0.1)) / w.max())


def shape_ok(suit: str, c: Candidate) -> bool:
    """False for a "spade" whose top stops widening below the tip like a club's top lobe:
    the model reads a bold club blurred into one blob as a sure spade."""
    return suit != "s" or top_spread(c.suit.crop) >= SPADE_SPREAD


#: A club's notches: where its top lobe meets a side lobe, the outline dips in on both
#: sides between 25 % and 65 % of its height.  The shallower of the two, over the glyph's
#: width, measures 0.06 to 0.1 in the unseen plastic deck's bold clubs, which the model
#: takes for sure spades (the training decks print no club that bold); the concave sides of
#: sure right spades that are too narrow at the top for :data:`SPADE_SPREAD` measure up to
#: 0.059 (anglo_poker, hard frames), 0.038 when they are narrower at the top than
#: :data:`CLUB_SPREAD` (2026-12-07, 21 decks, 40 moderate and 40 hard frames each).
CLUB_NOTCH = 0.065
#: A club's top lobe stops widening at its neck: a "spade" that widens this little below
#: its tip (:func:`top_spread`) and has a club's notches is read as a club.  The bold clubs
#: above measure 0.03 to 0.2 (most under 0.15); sure right spades with notches of 0.04 or
#: more measure 0.18 and up.
CLUB_SPREAD = 0.15


def club_notches(crop: np.ndarray) -> float:
    """The shallower of the two side notches of a glyph (:data:`CLUB_NOTCH`): the deepest
    dent of its outline on each side, between 25 % and 65 % of its height, over its width.
    0 when one side has none (a spade's sides, a heart's)."""
    if float(crop.max()) <= 1e-6:
        return 0.0
    # four times up, so that a dent of a pixel or two in the 24 px crop is measured
    big = cv2.resize(crop.astype(np.float32), (crop.shape[1] * 4, crop.shape[0] * 4),
                     interpolation=cv2.INTER_CUBIC)
    m = (big > 0.35 * float(crop.max())).astype(np.uint8)
    outlines, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not outlines:
        return 0.0
    c = max(outlines, key=cv2.contourArea)
    if len(c) < 5:
        return 0.0
    x, y, w, h = cv2.boundingRect(c)
    hull = cv2.convexHull(c, returnPoints=False)
    try:
        dents = cv2.convexityDefects(c, hull)
    except cv2.error:  # an outline that turns back on itself
        return 0.0
    if dents is None:
        return 0.0
    left = right = 0.0
    for _, _, far, depth in dents.reshape(-1, 4):
        px, py = c[far][0]
        if 0.25 <= (py - y) / h <= 0.65:
            d = depth / 256.0 / w
            if px < x + w / 2:
                left = max(left, d)
            else:
                right = max(right, d)
    return min(left, right)


def bold_club(c: Candidate) -> bool:
    """A "spade" that is a bold club: its top stops widening below the tip
    (:data:`CLUB_SPREAD`) and its outline dips in on both sides where a club's lobes meet
    (:data:`CLUB_NOTCH`).  A spade cut across its tip has no such dents."""
    return top_spread(c.suit.crop) < CLUB_SPREAD and club_notches(c.suit.crop) >= CLUB_NOTCH


#: A "club" that widens below its tip like a spade (:func:`top_spread` at least
#: ``SPADE_LIKE``) and shows no club's notches (:func:`club_notches` under
#: ``CLUB_NO_NOTCH``) needs p >= ``CLUB_SURE``: the unseen plastic deck's spades, with their
#: broad foot, were read as sure clubs (a 2s as 2c at 0.985, an 8s as 8c at 0.990).  Of
#: 2,256 right club reads on the twenty decks' frames (seeds 9000 moderate and 9100 hard,
#: 100 frames a deck), three look like that, read at 0.9996 and up (a tiny neoclassical 2c,
#: a tango 3c and 8c); the right clubs' notches measure 0.06 or more in 95 % of reads.
SPADE_LIKE = 0.45
CLUB_NO_NOTCH = 0.02
CLUB_SURE = 0.995


def club_shape_ok(suit: str, c: Candidate, p: float) -> bool:
    """False for a "club" read at under ``CLUB_SURE`` whose glyph has a spade's widening
    top and none of a club's notches."""
    if suit != "c" or p >= CLUB_SURE:
        return True
    return top_spread(c.suit.crop) < SPADE_LIKE or club_notches(c.suit.crop) >= CLUB_NO_NOTCH


#: A rank glyph other than a ten is at least this tall for its width (h / w).  Right reads
#: of seven decks, tilted and in perspective, go down to 0.95; the bottom half of an 8 cut
#: off by the edge of the card lying over it is a "U" about 0.8 tall for its width, and was
#: read as a sure 9.
MIN_RANK_ASPECT = 0.9
#: A rank glyph is at least this tall for its suit glyph.  Right reads of seven decks go
#: down to 0.77 (tango prints small ranks); a blurred "10" paired with the big heart
#: beside it (0.5) was read as a sure queen (tigullio).
MIN_RANK_TO_SUIT = 0.65


def rank_shape_ok(rank: str, c: Candidate) -> bool:
    """False when the "rank" glyph cannot be a whole rank: too small for its suit (a rank
    paired with a card's big pip), wider than tall unless a ten (part of a rank), or, for
    a ten, as tall as its suit and much wider than tall (two pips side by side in a card's
    body, with a third pip below as the suit: paris and dondorf clubs read as Tc)."""
    ratio = c.rank.size / max(c.suit.size, 1e-3)
    if ratio < MIN_RANK_TO_SUIT:
        return False
    if rank != "T":
        return c.rank.aspect >= MIN_RANK_ASPECT
    return not (0.9 <= ratio <= 1.1 and c.rank.aspect < 0.7)


#: p(rank) x p(suit) a card needs when its index was cut in a doubtful way (below): the
#: model's usual margin of error, 1 - 0.93, made seven times smaller.
STRICT = 0.99
#: The parts of a rank stand side by side (the "1" and "0" of a ten; a queen's tail a
#: little under it): one may overlap the first across by at most this much of the narrower
#: one's width.
STACKED = 0.5
#: Felt cut away against the top of a rank (``Glyph.felt_top``, px per px of its width)
#: over which a read of one of :data:`FELT_TOP_RANKS` needs :data:`STRICT`.
FELT_TOP = 0.8
#: Ranks that are what is left of another rank with its top cut away: a 6 is an 8 without
#: its top loop.  (For every rank the rule cost 9 right bellot cards of 1,980 on seeds 5000.)
FELT_TOP_RANKS = "6"
#: Ink cut away right next to a rank (``Glyph.cut_away``, px per px of its height) over
#: which any read needs :data:`STRICT`.  The two wrong reads of held bellot hands (2026-12-05)
#: measure 0.26 and 1.0; of 746 right reads of the benchmark's 280 frames, 76 measure more
#: than 0.2, and all but 3 of those are read at 0.99 or more.
CUT_AWAY = 0.2
#: Other ink inside a rank's box (``Glyph.loose``, px per px of its height: the pieces of a
#: glyph that came apart) over which any read needs :data:`STRICT`.  A blurred plastic
#: queen's left arc read as 2s at 0.951 measures 0.69; dondorf 7h and Tc read wrong at 0.985
#: and 0.975, 0.68 and 1.33.  Of 811 sure right reads of the benchmark's 280 frames, 2
#: measure more (0.85 and 2.2), read at 0.995 and 0.998 (2026-12-05).  0.6 until
#: 2026-12-07: a small atlasnye 7h at the hard level, its stem broken off, measured 0.6 and
#: was read at 0.957; of 3,700 sure reads of 20 decks (40 moderate and 40 hard frames each)
#: one right read under :data:`STRICT` measures between 0.5 and 0.6 (a Kh at 0.565).  0.5
#: until 2026-12-07, night: that night's build read a neoclassical 9h whose loop broke as
#: 3h at 0.944 (loose 0.30, seed 9011 frame 70, moderate); of its 5,146 right reads of the
#: twenty decks' checks (seeds 9000, 9100 and 9300, 40 frames a deck), 5 measure between
#: 0.25 and 0.5 and lie under :data:`STRICT` (0.939 to 0.988).
LOOSE = 0.25
#: Ranks never read with ink cut away next to them (over :data:`CUT_AWAY`), however sure:
#: a 5 whose top bar ran into the felt at the card's edge leaves a J's hook.  A bellot 5d
#: read that way as Jd at 0.982 (model v7), and at 0.996 by the v9 built on 2026-12-06's
#: third machine, past :data:`STRICT`.
CUT_AWAY_NEVER = "J"
#: Ranks never read with loose ink in their box (``Glyph.loose``) over :data:`LOOSE_PIECE`,
#: however sure: a 5 whose top bar came apart from it leaves a J's hook beside the loose
#: bar.  An anglo_modern 5d was read that way as Jd at 0.992 (loose 0.4), an
#: anglo_modern_4_color 5h as Jh at 0.954 (0.235); none of 207 right J reads of 20 decks'
#: frames (40 moderate and 40 hard each, 2026-12-07) has any loose ink.
LOOSE_NEVER = "J"
#: Loose ink over which a rank of :data:`LOOSE_NEVER` is not read.
LOOSE_PIECE = 0.2


def cut_ok(rank: str, c: Candidate, p: float, reread: bool = False) -> bool:
    """False when the index was cut in a way that can change a rank, and the read ``p``
    (p(rank) x p(suit)) cannot outweigh it:

    * a rank joined from parts stacked one over the other is never read: the arc of a
      card's rounded corner joined over a dondorf J was read as 7h, over an A as Th;
    * a rank joined from several parts that is not a ten needs :data:`STRICT`: a stroke of
      the card's edge beside an 8 was read as 6h, a "10" half under a thumb as Qh (a
      queen's tail is a part too: sure queens pass);
    * a 6 the felt map cut into at its top needs :data:`STRICT`: an index printed tight to
      the card's edge touches the felt, and the felt can take a stroke with it (the top
      loop of a bellot 8 went, and a 6h was read at 0.97);
    * any rank with ink cut away right next to it (the felt map or a card outline took
      a stroke touching it) needs :data:`STRICT`: an upside-down 8 cut by the edge of the
      card lying over it was read as Qd at 0.979, a 5 whose bar ran into the felt as Jd at
      0.982 (held bellot hands), and a J (:data:`CUT_AWAY_NEVER`) is not read at all: the
      same 5 read as Jd at 0.996 by another machine's build;
    * any rank with loose ink in its box (the other pieces of a glyph that came apart)
      needs :data:`STRICT`: the left arc of a blurred queen's broken ring read as 2s at
      0.951; and a J (:data:`LOOSE_NEVER`) with loose ink is not read at all: a 5 whose
      top bar came apart was read as a J at 0.992.  Like the cut-away rule, it is not
      applied to a ``reread`` (a jittered re-read)."""
    g = c.rank
    if g.parts > 1 and (g.stacked > STACKED or (rank != "T" and p < STRICT)):
        return False
    if not reread and ((g.cut_away > CUT_AWAY and (rank in CUT_AWAY_NEVER or p < STRICT))
                     or (g.loose > LOOSE and p < STRICT)
                     or (g.loose > LOOSE_PIECE and rank in LOOSE_NEVER)):
        return False
    return not (rank in FELT_TOP_RANKS and g.felt_top > FELT_TOP and p < STRICT)


#: An index this small (``Candidate.unit``, its rank-to-suit distance in working px) is
#: drawn in few pixels, and p(rank) x p(suit) is worth less there: its read needs
#: :data:`SMALL_SURE`.  On 20 decks' frames (seeds 9000, 40 moderate and 40 hard each,
#: 2026-12-07) 3 of the 5 sure reads that came through wrong were this small and under
#: 0.96 (an atlasnye Jh read as Qh at 0.951, a 5h with its top under the card over it as Jh
#: at 0.954, and an Ac at 0.950 in an anglo_bitmap hand of 3d and 4s); 7 of some 3,700 right
#: reads were too.
SMALL_INDEX = 13.5
#: p(rank) x p(suit) a read of a small index (:data:`SMALL_INDEX`) needs.  0.98 since
#: 2026-12-07, night: the v10 built on that night's machine read a small gnomangelo_bitmap
#: 9d at the hard level as 3d at 0.973 (seed 9309, frame 34); of its 144 sure right reads of
#: small indices on the twenty decks' checks (seeds 9000 moderate, 9100 and 9300 hard, 40
#: frames a deck), 5 lie under 0.98.
SMALL_SURE = 0.98
#: p(rank) x p(suit) a read of a small index (:data:`SMALL_INDEX`) with a black suit needs:
#: a spade and a club that small differ in a few pixels (a club's lobes, a spade's point),
#: and blur takes those first.  On 20 decks' frames (seeds 9000 moderate and 9100 hard, 40
#: each, this build of model v10, 2026-12-07) 4 of the 6 sure black reads that were wrong
#: were this small, at 0.977 to 0.996 (a blurred orell 4c read as 4s at 0.996, an
#: anglo_bitmap Ac as As at 0.992, a paris 6c upside down as 5c at 0.980, an anglo_poker
#: read as 5c at 0.977); 12 of 37 right small black reads were under this, of 1,791 right
#: sure black reads in all.  0.999 since 2026-12-07, evening: the v10 built on that
#: evening's machine read a small orell 4c of seed 9000 (moderate) as 4s at 0.998; of its
#: sure small black reads of those frames (40 a deck, moderate and hard), 5 right ones and
#: that wrong one lie between 0.997 and 0.999, 22 right ones above.
SMALL_BLACK_SURE = 0.999


def size_ok(c: Candidate, p: float, suit: str = "") -> bool:
    """False for a read at ``p`` of an index too small (:data:`SMALL_INDEX`) for that p:
    it needs :data:`SMALL_SURE`, and :data:`SMALL_BLACK_SURE` with a black ``suit``."""
    return c.unit >= SMALL_INDEX or p >= (SMALL_BLACK_SURE if suit in ("s", "c") else SMALL_SURE)


def sure(pr: np.ndarray, ps: np.ndarray, threshold: float) -> bool:
    """Whether the best rank and suit of p(rank) ``pr`` and p(suit) ``ps`` are sure enough:
    their product over ``threshold``, and the runners-up small."""
    second = float(np.sort(pr)[-2]) + float(np.sort(ps)[-2])
    return float(pr.max() * ps.max()) >= threshold and second <= 1.0 - threshold


#: Pip-likeness (rank glyph against suit glyph) over which the pair is two pips, not an index.
PIP_LIKE = 0.75


#: A rank joined from parts, one of which is the suit's twin to within this (the largest
#: relative difference in width, height and ink area, ``Glyph.pip_part``), is pips, not an
#: index.  Three big hearts of a dondorf 9h, one taken as the suit and the other two (one
#: with the index beside it) as the "1" and "0" of a ten, read as a sure Th at 0.97: those
#: parts measure 0.01.  Of 354 reads of joined ranks that named the right card on the
#: twenty decks' frames (seeds 9000 moderate and 9100 hard), one measures 0.02: a dondorf
#: 10h read the same way from its pips, right by chance.  The others measure 0.11 (a
#: plastic ten of diamonds, whose "0" is nearly as wide and solid as its diamond) and up.
PIP_PART = 0.06


#: Ranks a broken rank lands on, and the p(rank) x p(suit) their reads need: a 6 whose loop
#: opened under blur, or whose side a card edge took, and a 3 whose middle glare took, are
#: read as 5s.  Three of the five wrong reads left on the twenty decks' checks were one
#: (an anglo_modern and an anglo_modern_4_color 6h upside down against the card's edge, a
#: guyenne 3h under glare, at 0.94 to 0.986), and of the sure 5s of seeds 9000 (moderate)
#: and 9100 (hard), 40 frames a deck, 10 were wrong, at 0.944 to 0.992 (the other checks
#: refused some), against 38 of 311 right ones under 0.995 (model v10, 2026-12-07,
#: evening).
LANDING_SURE = {"5": 0.995}


def landing_ok(rank: str, p: float) -> bool:
    """False for a read at ``p`` of a rank that broken ranks land on (:data:`LANDING_SURE`)
    that is not sure enough for it."""
    return p >= LANDING_SURE.get(rank, 0.0)


#: A rank glyph at least this many rank-suit distances tall has taken in something beside
#: the rank: its read needs :data:`STRICT`.  A rank over its suit can hardly be taller (the
#: two would overlap); of 5,146 right reads of the twenty decks' checks (seeds 9000
#: moderate, 9100 and 9300 hard, 40 frames a deck, 2026-12-07, night) one measures 1.4 or
#: more (a guyenne Ah, 1.42, read at 0.998).  A spade pip run into the stroke of the card's
#: edge beside it, over the next pip, measured 1.50 and was read as As at 0.963 (anglo_bitmap
#: Ts, seed 9301 frame 26, hard); bellot 2d and 2c blurred into the border, 1.46 and 1.54.
RANK_TALL = 1.4
#: A ten's two digits stand side by side; blurred into one glyph they are about as tall as
#: wide (right one-part tens: median 1.38 times as tall as wide).  A one-part "ten" at least
#: this tall for its width may be one digit: it needs :data:`STRICT`.  A blurred
#: neoclassical_4_color 7h was read that way as Th at 0.977 (seed 9112 frame 0, hard, 2.0)
#: and a 9d as Td at 0.934 (2.88); of 211 right one-part tens 5 measure 1.8 or more, 2 of
#: them under 0.99.
THIN_TEN = 1.8


def height_ok(rank: str, c: Candidate, p: float) -> bool:
    """False for a read at ``p`` of a rank glyph too tall for an index's rank
    (:data:`RANK_TALL`), or of a one-part ten too tall for its width (:data:`THIN_TEN`),
    that is not :data:`STRICT`."""
    if p >= STRICT:
        return True
    g = c.rank
    return g.size < RANK_TALL and not (rank == "T" and g.parts == 1 and g.aspect >= THIN_TEN)


def veto(rank: str, suit: str, c: Candidate, p: float, pip: float, reread: bool = False) -> str | None:
    """The first check that refuses a sure read of ``rank + suit`` at ``p`` from candidate
    ``c`` (``"colour"``, ``"spade_shape"``, ``"club_shape"``, ``"pips"``, ``"pip_part"``,
    ``"rank_shape"``, ``"cut"``, ``"tall"``, ``"small"`` or ``"landing"``), or None when
    none does (:attr:`CardRead.vetoed`; the misses benchmark counts them by name).  A
    ``reread`` (a jittered re-read of a sure read, which only confirms or refuses it) is
    not held to the rules about how the index was cut, how tall its rank is, how small it
    is and how sure a 5 must be: the first read was."""
    if not colour_ok(suit, c):
        return "colour"
    if not shape_ok(suit, c):
        return "spade_shape"
    if not club_shape_ok(suit, c, p):
        return "club_shape"
    if pip > PIP_LIKE:
        return "pips"
    if c.rank.pip_part < PIP_PART:
        return "pip_part"
    if not rank_shape_ok(rank, c):
        return "rank_shape"
    if not cut_ok(rank, c, p, reread):
        return "cut"
    if not reread and not height_ok(rank, c, p):
        return "tall"
    if not reread and not size_ok(c, p, suit):
        return "small"
    if not reread and not landing_ok(rank, p):
        return "landing"
    return None


def decide(cands: list[Candidate], P_rank: np.ndarray, P_suit: np.ndarray,
           threshold: float, reread: bool = False, pips: np.ndarray | None = None) -> list[CardRead]:
    """Each candidate's read: its card and p(rank) x p(suit) when the classes are sure and
    no check vetoes it (:func:`veto`; ``reread`` for jittered re-reads), else ``??`` at 0.0.
    ``pips``: the candidates' :func:`pip_likeness`, when their features hold it already
    (:data:`cardcam.classify.PIP_COLUMN`)."""
    out = []
    if not cands:
        return out
    if pips is None:
        pips = pip_likeness(np.stack([c.rank.crop for c in cands]), np.stack([c.suit.crop for c in cands]))
    for c, pr, ps, pip in zip(cands, P_rank, P_suit, pips):
        ri = int(np.argmax(pr))
        si = int(np.argmax(ps))
        index_like = float(1.0 - pr[-1]) * float(1.0 - ps[-1])
        rank, suit = RANK_CLASSES[ri], SUIT_CLASSES[si]
        if suit == "s" and bold_club(c):
            # the model was never shown a club this bold and calls it a spade: the ink
            # is black (colour check below), and the shape says which black suit
            ps = ps.copy()
            ps[SUIT_CLASSES.index("c")] += ps[si]
            ps[si] = 0.0
            suit, si = "c", SUIT_CLASSES.index("c")
        p = float(pr[ri] * ps[si])
        if rank == "X" or suit == "X":
            out.append(CardRead("??", 0.0, index_like, c.box, c))
        elif not sure(pr, ps, threshold):
            out.append(CardRead("??", 0.0, index_like, c.box, c, guess=rank + suit, guess_p=p))
        elif (why := veto(rank, suit, c, p, float(pip), reread)) is not None:
            out.append(CardRead("??", 0.0, index_like, c.box, c, why, rank + suit, p))
        else:
            out.append(CardRead(rank + suit, p, index_like, c.box, c))
    return out
