"""``recognize(image, n_cards) -> Read``: one frame in, shown/identified cards out."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import checks, classify, detect, maps
from .faces import face_count
from .art import UNKNOWN
from .model import Model, get_model


@dataclass(frozen=True)
class CardHit:
    card: str
    confidence: float
    box: tuple[float, float, float, float]   # index box in image px (x0, y0, x1, y1)
    # where the index is, to find it again in the next frame (image px): the rank-suit
    # midpoint, the card's "down" unit vector, and the rank-suit distance
    centre: tuple[float, float] = field(default=(0.0, 0.0), compare=False)
    down: tuple[float, float] = field(default=(0.0, 1.0), compare=False)
    unit: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class Track:
    """The cards of a hand read in one frame, for the next frame of the same camera: the
    frame's size, where each identified card's index was (:func:`recognize`'s ``track``),
    the hand's size, how many faces the search saw and how many frames in a row the hand
    has been read.  A *partial* track (fewer hits than the hand has cards) is followed
    too, but the frame is searched again for the cards it lacks: every frame for the first
    ``PARTIAL_EAGER`` frames of the hand, then every ``PARTIAL_SEARCH`` frames.

    It names the cards, so it stays in the card reader (never in a feed or a log)."""
    size: tuple[int, int]                    # frame (w, h)
    hits: tuple[CardHit, ...]
    step: int                                # frames followed since the search that found it
    n_cards: int                             # cards in the hand
    faces: int                               # faces the search saw
    age: int                                 # frames of this hand read before this one

    @property
    def complete(self) -> bool:
        """Every card of the hand is in the track."""
        return len(self.hits) >= self.n_cards

    def to_json(self) -> list:
        """Plain lists and numbers, to pass between processes."""
        return [list(self.size), self.step,
                [[h.card, h.confidence, list(h.box), list(h.centre), list(h.down), h.unit] for h in self.hits],
                self.n_cards, self.faces, self.age]

    @classmethod
    def from_json(cls, data) -> "Track":
        size, step, hits, n_cards, faces, age = data
        return cls((int(size[0]), int(size[1])),
                   tuple(CardHit(str(c), float(p), tuple(box), tuple(ctr), tuple(dn), float(u))
                         for c, p, box, ctr, dn, u in hits), int(step), int(n_cards), int(faces), int(age))


@dataclass(frozen=True)
class Read:
    """What one frame shows.

    ``shown``: card faces were presented to the camera (even if unreadable).
    ``faces``: how many card faces were seen (at most ``n_cards``).
    ``cards``: ``n_cards`` codes, identified cards first (left to right), ``"??"`` for
    the rest; every code other than ``"??"`` is an assertion.
    ``confidence``: per entry of ``cards`` (0.0 for ``"??"``).
    """
    shown: bool
    faces: int
    cards: tuple[str, ...]
    confidence: tuple[float, ...]
    hits: tuple[CardHit, ...] = field(default=(), compare=False)
    ms: float = field(default=0.0, compare=False)
    #: set when a card was identified: pass it with the camera's next frame
    track: Track | None = field(default=None, compare=False)
    #: this read followed the last frame's track instead of searching the whole frame
    followed: bool = field(default=False, compare=False)

    @property
    def identified(self) -> tuple[str, ...]:
        return tuple(c for c in self.cards if c != UNKNOWN)


def _profile_model(profile) -> tuple[Model | None, object]:
    if profile is None:
        return None, None
    from .calibrate import Profile, load_profile
    if isinstance(profile, (str, Path)):
        profile = load_profile(profile)
    if not isinstance(profile, Profile):
        raise TypeError("profile must be a Profile or a path")
    return None, profile


def read_candidates(image: np.ndarray, model: Model | None = None, profile=None, *,
                    paper: np.ndarray | None = None, need: int | None = None):
    """The index candidates of a frame with their reads: (analysis, candidates, reads).
    ``paper``: the frame's thumbnail paper, when the paper gate has it already.

    ``need``: the hand's cards.  The pairs then get their layout passes ``PAIR_BATCH`` at
    first, then twice as many each time, those with the solidest suit first
    (:func:`detect.pose_batches`); each batch's pairs are cut surest first (the screen's
    probability that a pair is an index), ``need + CUT_MORE`` at first, then twice as
    many each time; and the search stops once ``need`` different cards are read, stand
    their jitters and agree (:func:`_agreed`): the cards of a hand read whole are seldom
    among its last pairs.  Without it (debugging, calibration, a calibrated deck, which
    is not screened) every pair is cut, all at once.

    A search that has not read the hand whole (or was not told its size) gives its
    unsure reads a second look (:func:`_second_look`)."""
    model = model or get_model()
    a = maps.analyse(image, paper=paper)
    # the screen is trained on other decks: a deck calibrated for accuracy is not screened
    screen = model.screen if profile is None else None
    threshold = model.threshold if profile is None else profile.threshold
    surest_first = need is not None and screen is not None
    cands: list[detect.Candidate] = []
    reads: list[checks.CardRead] = []
    stands: set[str] = set()
    step = need + CUT_MORE if surest_first else 0  # 0: all of a batch at once
    for poses in detect.pose_batches(a, PAIR_BATCH if surest_first else None, screen=screen,
                                     solid_first=surest_first):
        if surest_first:
            poses.sort(key=lambda q: -q.p)
        k = 0
        while k < len(poses):
            size = step or len(poses)
            new = [c for c in (detect.cut(a, q, own_axis=OWN_AXIS) for q in poses[k:k + size]) if c is not None]
            k += size
            # each classification costs about a millisecond, however few it reads: a hand
            # whose cards are not among its surest pairs is cut in ever larger steps
            step *= 2
            if not new:
                continue
            decided = classified(new, model, profile, threshold)
            cands += new
            reads += _stable(a, decided, model, profile, threshold, stands)
            if surest_first and _whole(reads, need):
                return a, cands, reads
    # a search that cut every pair at once (no screen: a calibrated deck) may have read
    # the hand whole too: no second look then either
    if SECOND_LOOK and not _whole(reads, need):
        reads = _second_look(a, reads, model, profile, threshold)
    return a, cands, reads


def _whole(reads, need: int | None) -> bool:
    """Whether ``reads`` name ``need`` different cards that agree (:func:`_agreed`): the
    hand read whole.  Never when the hand's size is not known."""
    return need is not None and len({r.card for r in _agreed(reads)}) >= need


#: A read left unsure (its best guess a card, under the threshold) gets a second look when
#: the search has not read the hand whole: it is cut again at each of the ``JITTERS``, and
#: read as the card when every view guesses it and the views' mean probabilities are sure
#: and pass the checks (:func:`_second_look`).
SECOND_LOOK = True
#: ... for guesses at least this sure (p(rank) x p(suit) of the first view).
SECOND_LOOK_FROM = 0.5


def _second_look(a, reads, model, profile, threshold):
    """``reads`` with each unsure read whose guess names a card not read yet looked at
    again: the candidate and its ``JITTERS`` re-cuts are classified in one batch, and the
    read is the guessed card, at the views' mean p(rank) x p(suit), when every view was
    cut and guesses that card, and their mean probabilities are sure and pass
    :func:`checks.decide`'s checks.  One blurred view under the threshold is noise; five
    views that agree are a read, and one that has stood its jitters."""
    read = {r.card for r in reads}
    look: list[tuple[int, list[detect.Candidate]]] = []
    for i, r in enumerate(reads):
        if r.card != UNKNOWN or r.guess is None or r.guess in read or r.guess_p < SECOND_LOOK_FROM:
            continue
        views = [r.cand] + [_jittered(a, r.cand, j) for j in JITTERS]
        if all(v is not None for v in views):
            look.append((i, views))
    if not look:
        return reads
    X = classify.features_batch([v for _, views in look for v in views])
    Pr, Ps = _proba(model, profile, X)
    out = list(reads)
    for k, (i, views) in enumerate(look):
        at = slice(k * len(views), (k + 1) * len(views))
        pr, ps, guess = Pr[at], Ps[at], reads[i].guess
        if not ((pr.argmax(axis=1) == classify.RANK_CLASSES.index(guess[0])).all()
                and (ps.argmax(axis=1) == classify.SUIT_CLASSES.index(guess[1])).all()):
            continue
        r = checks.decide([views[0]], pr.mean(axis=0)[None], ps.mean(axis=0)[None], threshold,
                          pips=X[at.start:at.start + 1, classify.PIP_COLUMN])[0]
        if r.card == guess:
            out[i] = r
    return out


#: A pose whose refined axis finds no index is cut at its pair's own axis (:func:`detect.cut`).
OWN_AXIS = True
#: With the hand's size known, a batch's pairs are cut this many more than the hand's
#: cards at a time, surest first (:func:`read_candidates`).  On 70 searched frames of 7
#: decks the 43 hands read whole had all their cards among their 2 to 9 surest pairs (3.7
#: on average) of 3 to 32 cut.
CUT_MORE = 1
#: ... and the pairs get their layout passes this many at a time at first (some 36 a
#: searched frame).  In batches of a fixed size, 8 to 24 pairs and one to three more cuts
#: cost 4,600 to 4,940 layout passes and cuts (a cut counted twice) on 70 searched frames
#: (seeds 7000 and 7100), against 6,160 with every pair cut; 16 and 1 were among the
#: cheapest on both seeds.  (Batches that double cost 4,914 on seed 7000, but a hand not
#: read whole 4-10 % more CPU instead of 11-14 %.)
PAIR_BATCH = 16


def classified(cands: list[detect.Candidate], model: Model, profile, threshold: float,
               reread: bool = False) -> list[checks.CardRead]:
    """The reads of index candidates (:func:`checks.decide`): their features, the model's
    (and a calibrated deck's) probabilities, then the checks."""
    X = classify.features_batch(cands)
    return checks.decide(cands, *_proba(model, profile, X), threshold, reread,
                         pips=X[:, classify.PIP_COLUMN])


def _proba(model: Model, profile, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    Pr, Ps = model.rank.proba(X), model.suit.proba(X)
    if profile is not None:
        Pr, Ps = profile.adjust(X, Pr, Ps)
    return Pr, Ps


#: Test-time jitters (degrees, scale): a sure read must survive all of them.
JITTERS = ((4.0, 1.0), (-4.0, 1.0), (0.0, 0.92), (0.0, 1.08))
#: Of a sure read's jitters, this many may be unsure (cut outside the index layout, or
#: under the threshold) as long as none reads another card.  One until 2026-12-07: two
#: read 14 more of the misses benchmark's 1,980 cards (seed 5000) and 10 to 12 more of
#: 674 and 996 at the hard level, with no wrong card added in any of them, nor in the
#: accuracy benchmark's 1,703 held-hand reads.  The wrong reads the jitters catch read
#: another card at one of them (a paris 8s read as Qs at 0.996).
UNSURE_JITTERS = 2


def _stable(a, reads, model, profile, threshold, stands: set[str] | None = None):
    """Re-read each asserted candidate of analysis ``a`` at the small rotations and scales
    of ``JITTERS``.  A jitter that reads another card refuses the read (-> ??); so do more
    than ``UNSURE_JITTERS`` unsure ones (cut outside the index layout, or under the
    threshold).

    A card is re-read through its surest candidate first, the candidates of all the
    frame's cards in one batch; only when that one is refused is the card's next candidate
    re-read, and so on.  Once a card's read stands, its other candidates (the same card's
    other index, the same index reached from another pair) are not re-read: they can add
    nothing to it, and a third of a searched frame's sure reads are such (402 sure reads
    of 262 cards on 108 hand frames).

    ``stands``: cards whose read already stands (an earlier batch of the frame's
    candidates): their candidates here are not re-read either.  The cards whose read
    stands now are added to it."""
    refused: set[int] = set()
    stands = set() if stands is None else stands
    waiting = sorted((i for i, r in enumerate(reads) if r.card != UNKNOWN and r.card not in stands),
                     key=lambda i: -reads[i].confidence)
    while waiting:
        batch, later, first = [], [], set()
        for i in waiting:  # each card's surest candidate left, then the rest
            (later if reads[i].card in first else batch).append(i)
            first.add(reads[i].card)
        refused_now = _jitter_check(a, reads, batch, model, profile, threshold)
        refused |= refused_now
        stands |= {reads[i].card for i in batch if i not in refused_now}
        waiting = [i for i in later if reads[i].card not in stands]
    return [checks.CardRead(UNKNOWN, 0.0, r.index_like, r.box, r.cand) if i in refused else r
            for i, r in enumerate(reads)]


def _jitter_check(a, reads, batch: list[int], model, profile, threshold) -> set[int]:
    """The reads of ``batch`` (indices into ``reads``) that their jittered re-reads refuse,
    all jitters classified in one batch."""
    jittered: list[tuple[int, detect.Candidate]] = []
    unsure = dict.fromkeys(batch, len(JITTERS))
    for i in batch:
        for jitter in JITTERS:
            j = _jittered(a, reads[i].cand, jitter)
            if j is not None:
                jittered.append((i, j))
                unsure[i] -= 1
    refused: set[int] = set()
    if jittered:
        cands = [j for _, j in jittered]
        again = classified(cands, model, profile, threshold * 0.9, reread=True)
        for (i, _), q in zip(jittered, again):
            if q.card == UNKNOWN:
                unsure[i] += 1
            elif q.card != reads[i].card:
                refused.add(i)
    return refused | {i for i in batch if unsure[i] > UNSURE_JITTERS}


def _jittered(a: maps.Analysis, c: detect.Candidate, jitter: tuple[float, float]):
    """Candidate ``c`` cut again turned by ``jitter`` = (degrees, scale)."""
    t = np.radians(jitter[0])
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return detect.candidate_at(a, c.centre, R @ c.down, c.unit * jitter[1], c.comps)


#: An unread spot counts as a card face when the classifier gives "an index" (any card)
#: more than this.  Unread indices of shown hands score 0.97 and more; the white flowers of
#: dondorf's back scored up to 0.73 with the model rebuilt on 2026-12-03.  On 560 frames of
#: 7 decks: 0.6 took 3 frames of backs for shown cards, 0.7 one, 0.8 none but left a second
#: shown hand unshown, which must not happen (glare, thumbs): 0.7.
INDEX_LIKE = 0.7


def _near(r1, r2) -> bool:
    c1, c2 = r1.cand, r2.cand
    return float(np.hypot(*(c1.centre - c2.centre))) < 1.2 * max(c1.unit, c2.unit)


def _agreed(reads) -> list:
    """The sure reads of ``reads`` that no other sure read of the same glyphs, or of the
    same spot, contradicts: of two conflicting reads, neither wins."""
    sure = [r for r in reads if r.card != UNKNOWN]
    bad = set()
    for i, r in enumerate(sure):
        for j in range(i + 1, len(sure)):
            q = sure[j]
            if r.card != q.card and (set(r.cand.comps) & set(q.cand.comps) or _near(r, q)):
                bad.add(i); bad.add(j)
    return [r for i, r in enumerate(sure) if i not in bad]


def _placed(r) -> tuple[bool, float]:
    """How well a sure read places its card: cut at the refined axis first, then surest."""
    return (not r.cand.own_axis, r.confidence)


def recognize(image: np.ndarray, n_cards: int = 2, *, model: Model | None = None,
              profile=None, track: Track | None = None) -> Read:
    """Read one frame.  ``n_cards`` comes from the game (2 hold'em, 4 Omaha).

    Confidence first: a code is returned only when the classifier is sure, the ink
    colour fits the suit, and no overlapping reading of the same glyphs disagrees.

    ``track``: the ``track`` of the same camera's last read.  When every card it names is
    read again, as sure as ever, at the place it was (a hand held still moves a few px a
    frame), that is the read, found in a few ms; otherwise the whole frame is searched.
    A track that lacks some of the hand's cards is followed the same way, and the frame
    is searched whole for the cards it lacks: every frame for the hand's first
    ``PARTIAL_EAGER`` frames, then every ``PARTIAL_SEARCH``-th frame.

    A search without a partial track stops once the hand's cards are read
    (:func:`read_candidates`' ``need``); one for the cards a partial track lacks cuts
    every pair.
    """
    t0 = time.perf_counter()
    if image is None or getattr(image, "size", 0) == 0:
        raise ValueError("empty image")
    _, prof = _profile_model(profile)
    if track is not None and track.n_cards == n_cards and (track.complete or (
            track.age + 1 >= PARTIAL_EAGER and track.step + 1 < PARTIAL_SEARCH)):
        held = _follow(image, track, model or get_model(), prof)
        if held is not None:
            found, a = held
            faces = min(n_cards, max(len(found), track.faces))
            return _read(image, a, n_cards, faces, found, t0, step=track.step + 1, age=track.age + 1)
    # the paper gate; its thumbnail's paper also tells analyse where the card faces are
    paper = maps.paper_map(maps.thumbnail(maps.to_working(image)[0]))
    if not maps.shows_paper(paper):  # felt, a thumb, card backs: no face to read
        return Read(False, 0, (UNKNOWN,) * n_cards, (0.0,) * n_cards, (), (time.perf_counter() - t0) * 1000)
    # a hand searched again for the cards its track lacks is seldom read whole: it is cut
    # whole at once (cut surest first, a frame not read whole costs about a tenth more)
    partial = track is not None and not track.complete
    a, cands, reads = read_candidates(image, model, prof, paper=paper, need=None if partial else n_cards)
    # 1. conflicting reads of the same glyphs, or of the same spot: nobody wins
    sure = _agreed(reads)
    # 2. fuse corners of the same card; the surest read names the card's place (its hit,
    # which the next frame follows), but one cut at the refined axis before one cut at its
    # pair's own axis: the refined axis is found again in the next frame, the pair's own
    # axis seldom (the glyph that turned the refinement is still there)
    best: dict[str, tuple[float, checks.CardRead]] = {}
    count: dict[str, int] = {}
    for r in sure:
        count[r.card] = count.get(r.card, 0) + 1
        if r.card not in best or _placed(r) > _placed(best[r.card][1]):
            best[r.card] = (r.confidence, r)
    fused = []
    for card, (conf, r) in best.items():
        if count[card] > 1:
            conf = 1.0 - (1.0 - conf) * 0.5
        fused.append((card, conf, r))
    fused.sort(key=lambda t: -t[1])
    # 3. more distinct cards than the game allows: keep only the surest, if clearly so
    if len(fused) > n_cards:
        extra = fused[n_cards:]
        keep = fused[:n_cards]
        margin = extra[0][1]
        keep = [(c, p, r) for c, p, r in keep if p > margin + 0.05]
        fused = keep
    # faces: identified cards, plus index-like spots that are not near an identified one
    idx_like = [r for r in reads if r.index_like > INDEX_LIKE]
    extra_spots: list = []
    for r in idx_like:
        if r.card != UNKNOWN and any(r.card == c for c, _, _ in fused):
            continue
        if any(_near(r, fr) for _, _, fr in fused) or any(_near(r, s) for s in extra_spots):
            continue
        extra_spots.append(r)
    faces = min(n_cards, len(fused) + len(extra_spots))
    if faces == 0:
        faces = min(n_cards, face_count(a))
    # the same hand read again (its track given): it keeps its age
    return _read(image, a, n_cards, faces, [(c, p, r.cand) for c, p, r in fused], t0,
                 age=0 if track is None else track.age + 1)


def _read(image: np.ndarray, a: maps.Analysis, n_cards: int, faces: int, found, t0: float,
          step: int = 0, age: int = 0) -> Read:
    """The Read of identified cards ``found`` [(card, confidence, candidate)], left to right,
    with a track when a card was identified."""
    found = sorted(found, key=lambda t: t[2].box[0])
    cards = tuple(c for c, _, _ in found) + (UNKNOWN,) * (n_cards - len(found))
    conf = tuple(round(float(p), 4) for _, p, _ in found) + (0.0,) * (n_cards - len(found))
    s = a.scale
    hits = tuple(CardHit(c, round(float(p), 4), tuple(round(v, 1) for v in cand.box),
                         tuple(float(v) for v in cand.centre / s),
                         (float(cand.down[0]), float(cand.down[1])), float(cand.unit / s))
                 for c, p, cand in found)
    track = None
    if found:
        track = Track((int(image.shape[1]), int(image.shape[0])), hits, step, n_cards, faces, age)
    return Read(faces > 0, faces, cards, conf, hits, (time.perf_counter() - t0) * 1000, track, step > 0)


#: A hand followed with some of its cards unread is searched whole again every this many
#: frames (the frame its track came from counts as the first), for the cards the track
#: lacks: a card that one search could not read is often read by the next one (the light
#: and the pose move), but searching every frame costs 36-55 ms against 5 for a follow.
PARTIAL_SEARCH = 3
#: ... except in the hand's first frames (about a third of a second at 25 fps, the
#: latency the issue asks for), which are all searched: a missing card read early
#: confirms the hand early; a hand held longer than that costs a search every third frame.
PARTIAL_EAGER = 8

#: A followed index is looked for this many rank-suit distances around where it was, plus
#: the reach of the paper-level estimate (one of its blur sigmas).
FOLLOW_REACH = 2.2


def _regions(poses, W: int, H: int, margin: float) -> list[tuple[tuple[int, int, int, int], list[int]]]:
    """Boxes (x0, y0, x1, y1) to analyse around the followed indices, with the indices each
    holds: one box for all, unless separate boxes are less than half its area."""
    boxes = []
    for c, _, u in poses:
        r = FOLLOW_REACH * u + margin
        boxes.append((int(max(0, c[0] - r)), int(max(0, c[1] - r)),
                      int(min(W, c[0] + r + 1)), int(min(H, c[1] + r + 1))))
    area = lambda b: max(0, b[2] - b[0]) * max(0, b[3] - b[1])  # noqa: E731
    union = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    if sum(area(b) for b in boxes) < 0.5 * area(union):
        return [(b, [i]) for i, b in enumerate(boxes)]
    return [(union, list(range(len(boxes))))]


def _follow(image: np.ndarray, track: Track, model: Model, profile):
    """Re-read the cards of ``track`` where they were: small regions of the frame instead
    of all of it.  ([(card, confidence, candidate)], the last region's analysis), or None
    (search the whole frame) unless every card reads again as the same card, with the
    full read's threshold and checks."""
    if track.size != (image.shape[1], image.shape[0]):
        return None
    img, s = maps.to_working(image)
    H, W = img.shape[:2]
    cut = maps.paper_cut(img)  # this frame's: the light moves between frames
    poses = [(np.array(h.centre) * s, np.array(h.down), h.unit * s) for h in track.hits]
    cands: list = [None] * len(poses)
    owners: list = [None] * len(poses)
    for box, which in _regions(poses, W, H, max(H, W) / 80.0):
        if box[2] - box[0] < 16 or box[3] - box[1] < 16:
            return None
        a = maps.analyse_region(img, s, box, cut)
        for i in which:
            cands[i], owners[i] = detect.follow(a, *poses[i]), a
            if cands[i] is None:
                return None
    # and one of the full read's re-reads at a small rotation or scale (see _stable), a
    # different one each frame: a hand held still for K frames has passed each of them again
    jitter = JITTERS[track.step % len(JITTERS)]
    again = [_jittered(a, c, jitter) for a, c in zip(owners, cands)]
    if any(j is None for j in again):
        return None
    threshold = model.threshold if profile is None else profile.threshold
    X = classify.features_batch(cands + again)
    Pr, Ps = _proba(model, profile, X)
    k, pips = len(cands), X[:, classify.PIP_COLUMN]
    reads = checks.decide(cands, Pr[:k], Ps[:k], threshold, pips=pips[:k])
    rereads = checks.decide(again, Pr[k:], Ps[k:], threshold * 0.9, pips=pips[k:])
    if any(r.card != h.card or q.card != h.card for r, q, h in zip(reads, rereads, track.hits)):
        return None
    return [(r.card, r.confidence, r.cand) for r in reads], a
