"""Synthetic hole-cam frames with ground truth, for the demo, tests and benchmarks.

A frame shows 2 (hold'em) or 4 (Omaha) cards from an aisleriot deck, fanned and
overlapping, on a felt background, with rotation (including upside-down hands),
perspective, lighting, glare, a thumb, blur, noise and JPEG compression; or card backs;
or nothing.  Everything is drawn from a seeded :class:`numpy.random.Generator`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from . import art

#: Difficulty presets.  "moderate" is the level the recall target is quoted at.
LEVELS: dict[str, dict[str, float]] = {
    "easy": dict(height=(230, 300), tilt=25, persp=0.03, blur=0.6, noise=2.0, jpeg=(85, 95),
                 thumb=0.0, glare=0.0, upside=0.2, spread=(0.45, 0.6)),
    "moderate": dict(height=(170, 300), tilt=45, persp=0.07, blur=1.2, noise=5.0, jpeg=(60, 90),
                     thumb=0.35, glare=0.0, upside=0.3, spread=(0.33, 0.6)),
    "hard": dict(height=(120, 320), tilt=180, persp=0.12, blur=2.0, noise=8.0, jpeg=(35, 80),
                 thumb=0.5, glare=0.3, upside=0.35, spread=(0.25, 0.6)),
}


@dataclass(frozen=True)
class Frame:
    image: np.ndarray                     # BGR uint8
    kind: str                             # "hand", "backs" or "empty"
    cards: tuple[str, ...]                # ground truth, bottom card first ("" for backs)
    quads: tuple[np.ndarray, ...]         # per card, 4x2 corners (TL, TR, BR, BL of the card art)
    upside_down: bool = False
    glare: bool = False
    thumb: bool = False
    deck: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        return self.kind == "hand"


# ----------------------------------------------------------------------------- background

def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.standard_normal((max(2, h * cells // w), cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def background(rng: np.random.Generator, size: tuple[int, int] = (960, 540),
               chips: bool = True) -> np.ndarray:
    """Felt (green, blue, red or grey) with texture, vignette, maybe a rail and chips."""
    w, h = size
    felts = [(40, 110, 35), (45, 95, 30), (110, 60, 20), (40, 35, 120), (60, 60, 60), (20, 70, 20)]
    base = np.array(felts[rng.integers(len(felts))], np.float32)  # BGR
    base = base * rng.uniform(0.7, 1.3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img += _smooth_noise(rng, h, w, 6)[..., None] * rng.uniform(4, 14)
    img += rng.standard_normal((h, w, 1)).astype(np.float32) * rng.uniform(2, 7)
    if rng.random() < 0.5:  # padded rail along one edge
        band = int(h * rng.uniform(0.08, 0.2))
        rail = np.array([25, 45, 75] if rng.random() < 0.5 else [30, 30, 35], np.float32)
        if rng.random() < 0.5:
            img[-band:] = rail + _smooth_noise(rng, band, w, 10)[..., None] * 6
        else:
            img[:band] = rail + _smooth_noise(rng, band, w, 10)[..., None] * 6
    if chips and rng.random() < 0.5:
        for _ in range(int(rng.integers(1, 5))):
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            r = int(rng.integers(15, 35))
            colour = [(30, 30, 200), (200, 60, 30), (20, 20, 20), (40, 160, 40)][rng.integers(4)]
            cv2.circle(img, c, r, colour, -1, cv2.LINE_AA)
            cv2.circle(img, c, int(r * 0.75), (235, 235, 235), 2, cv2.LINE_AA)
    # vignette
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = ((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2
    img *= (1.0 - rng.uniform(0.3, 0.9) * d)[..., None]
    return img


# ----------------------------------------------------------------------------- compositing

def _composite(dst: np.ndarray, src_bgra: np.ndarray, H: np.ndarray,
               shadow: float = 0.0, rng: np.random.Generator | None = None) -> None:
    """Warp ``src_bgra`` by homography ``H`` and alpha-blend into float ``dst`` (in place)."""
    h, w = dst.shape[:2]
    warped = cv2.warpPerspective(src_bgra, H, (w, h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3].astype(np.float32) / 255.0
    if shadow > 0:
        off = np.float32([[1, 0, 3], [0, 1, 4]])
        sh = cv2.warpAffine(a, off, (w, h))
        sh = cv2.GaussianBlur(sh, (0, 0), 3.0)
        dst *= (1.0 - shadow * sh)[..., None]
    dst *= (1.0 - a)[..., None]
    dst += warped[:, :, :3].astype(np.float32) * a[..., None]


def _prescale(img: np.ndarray, scale: float) -> tuple[np.ndarray, float]:
    """Downscale the art close to the size it will be drawn at (anti-aliasing)."""
    if scale >= 0.9:
        return img, 1.0
    s = max(scale * 1.15, 0.05)
    out = cv2.resize(img, (max(2, round(img.shape[1] * s)), max(2, round(img.shape[0] * s))),
                     interpolation=cv2.INTER_AREA)
    return out, out.shape[0] / img.shape[0]


def _rot(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


def _tr(x: float, y: float) -> np.ndarray:
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)


def _sc(s: float) -> np.ndarray:
    return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1]], np.float64)


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def _thumb(img: np.ndarray, rng: np.random.Generator, centre: np.ndarray, along: np.ndarray,
           size: float) -> None:
    """Draw a thumb-like skin-coloured rounded blob with shading."""
    h, w = img.shape[:2]
    skin = np.array([rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 230)], np.float32)
    mask = np.zeros((h, w), np.float32)
    angle = float(np.degrees(np.arctan2(along[1], along[0])))
    axes = (int(size * 0.55), int(size * 0.28))
    cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
    shade = cv2.GaussianBlur(mask, (0, 0), size * 0.12)
    colour = skin[None, None, :] * (0.75 + 0.25 * shade[..., None])
    img *= (1 - mask)[..., None]
    img += colour * mask[..., None]


def _glare(img: np.ndarray, rng: np.random.Generator, centre: np.ndarray, radius: float,
           strength: float = 1.0) -> None:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ax = radius * rng.uniform(0.8, 1.6)
    ay = radius * rng.uniform(0.5, 1.0)
    t = rng.uniform(0, np.pi)
    dx, dy = xx - centre[0], yy - centre[1]
    u = (dx * np.cos(t) + dy * np.sin(t)) / ax
    v = (-dx * np.sin(t) + dy * np.cos(t)) / ay
    g = np.exp(-(u * u + v * v) * 1.5) * 2.2 * strength
    img += (g * 255.0)[..., None]


def _finish(img: np.ndarray, rng: np.random.Generator, lv: dict) -> np.ndarray:
    h, w = img.shape[:2]
    # lighting: gain and a linear gradient
    gain = rng.uniform(0.75, 1.1)
    gx, gy = rng.uniform(-0.25, 0.25, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img *= (gain * (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)))[..., None]
    # white balance
    img *= rng.uniform(0.9, 1.08, 3).astype(np.float32)[None, None, :]
    sigma = rng.uniform(0.3, lv["blur"])
    if rng.random() < 0.2:  # motion blur
        k = int(rng.integers(3, 3 + int(2 * lv["blur"]) + 1))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k))
        kern /= max(kern.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kern)
    else:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.standard_normal(img.shape).astype(np.float32) * rng.uniform(0.5, lv["noise"])
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(int(lv["jpeg"][0]), int(lv["jpeg"][1]) + 1))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


# ----------------------------------------------------------------------------- frames

def _face(deck, card: str) -> np.ndarray:
    """A card image from a deck name, or from a mapping of code -> BGR(A) image."""
    if isinstance(deck, str):
        return art.card_image(deck, card)
    img = deck[card]
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def hand_frame(rng: np.random.Generator, deck, n_cards: int = 2, level: str = "moderate",
               size: tuple[int, int] = (960, 540), cards: tuple[str, ...] | None = None,
               backs: bool = False, upside_down: bool | None = None,
               glare: bool | None = None, thumb: bool | None = None) -> Frame:
    """A fanned hand of ``n_cards`` (faces, or backs when ``backs``).

    ``deck`` is an aisleriot deck name or a mapping of card code to image.
    """
    scene, frame = _hand_scene(rng, deck, n_cards, level, size, cards, backs, upside_down, glare, thumb)
    return replace(frame, image=_finish(scene, rng, LEVELS[level]))


def hand_clip(rng: np.random.Generator, deck, n_cards: int = 2, level: str = "moderate",
              frames: int = 10, size: tuple[int, int] = (960, 540),
              cards: tuple[str, ...] | None = None, motion: float = 1.5) -> list[Frame]:
    """``frames`` frames of a hand held to the camera (see :class:`HeldHand`)."""
    held = HeldHand(rng, deck, n_cards, level, size, cards, motion, frames)
    return [held.frame(i) for i in range(frames)]


class HeldHand:
    """A hand held to the camera, as a hole cam sees it at 25 fps, frame by frame.

    One hand (pose, thumb, glare) is drawn as :func:`hand_frame` draws it; from one frame
    to the next it moves a little (up to ``motion`` px and ``motion`` / 3 degrees, a steady
    hand), and each frame is shot on its own: lighting, blur, sensor noise and JPEG. The
    quads follow the movement. :meth:`frame` renders only the frames asked for, so a reader
    that skips frames costs no rendering of them."""

    def __init__(self, rng: np.random.Generator, deck, n_cards: int = 2, level: str = "moderate",
                 size: tuple[int, int] = (960, 540), cards: tuple[str, ...] | None = None,
                 motion: float = 1.5, frames: int = 250, *, upside_down: bool | None = None,
                 glare: bool | None = None, thumb: bool | None = None):
        self.scene, self.first = _hand_scene(rng, deck, n_cards, level, size, cards,
                                             upside_down=upside_down, glare=glare, thumb=thumb)
        self.level = level
        steps = rng.uniform(-motion, motion, (frames, 3))
        steps[:, 2] /= 3
        steps[0] = 0
        self.walk = np.cumsum(steps, axis=0)  # (dx, dy, degrees) of each frame
        self.seed = int(rng.integers(2 ** 62))
        self.cards = self.first.cards

    def __len__(self) -> int:
        return len(self.walk)

    def frame(self, i: int) -> Frame:
        dx, dy, deg = self.walk[i]
        h, w = self.scene.shape[:2]
        M = cv2.getRotationMatrix2D((w / 2, h / 2), float(deg), 1.0)
        M[:, 2] += (dx, dy)
        moved = cv2.warpAffine(self.scene, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        quads = tuple((q @ M[:, :2].T + M[:, 2]).astype(np.float32) for q in self.first.quads)
        shot = _finish(moved, np.random.default_rng([self.seed, i]), LEVELS[self.level])
        return replace(self.first, image=shot, quads=quads)


def _hand_scene(rng: np.random.Generator, deck, n_cards: int, level: str, size: tuple[int, int],
                cards: tuple[str, ...] | None = None, backs: bool = False,
                upside_down: bool | None = None, glare: bool | None = None,
                thumb: bool | None = None) -> tuple[np.ndarray, Frame]:
    """The hand on the felt before the camera's lighting, blur, noise and JPEG (float32),
    and its :class:`Frame` (ground truth; its image is that scene, not yet shot)."""
    lv = LEVELS[level]
    w, h = size
    img = background(rng, size)
    if cards is None:
        idx = rng.choice(52, size=n_cards, replace=False)
        cards = tuple(art.CARDS[i] for i in idx)
    faces = [_face(deck, art.BACK if backs else c) for c in cards]
    ch = faces[0].shape[0]
    cw = faces[0].shape[1]
    card_h = rng.uniform(*lv["height"]) * (h / 540)
    if n_cards > 2:
        card_h *= 0.85
    s = card_h / ch
    # fan: cards rotate about a pivot below their centre and shift right
    spread_frac = rng.uniform(*lv["spread"])
    fan_deg = rng.uniform(3, 14)
    Fs = []
    for i in range(n_cards):
        k = i - (n_cards - 1) / 2
        F = _tr(cw / 2 + k * spread_frac * cw, ch * 1.2) @ _rot(np.radians(k * fan_deg)) \
            @ _tr(-cw / 2, -ch * 1.2)
        Fs.append(F)
    if upside_down is None:
        upside_down = bool(rng.random() < lv["upside"])
    tilt = lv["tilt"]
    theta = rng.uniform(-tilt, tilt) + (180.0 if upside_down else 0.0)
    # hand's extent in card-art coordinates, to centre it
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
    allpts = np.vstack([_apply(F, corners) for F in Fs])
    cx, cy = allpts.mean(axis=0)
    ext = allpts.max(axis=0) - allpts.min(axis=0)
    span = max(ext) * s
    margin = span * 0.45
    px = rng.uniform(min(margin, w / 2), max(w - margin, w / 2))
    py = rng.uniform(min(margin, h / 2), max(h - margin, h / 2))
    G = _tr(px, py) @ _rot(np.radians(theta)) @ _sc(s) @ _tr(-cx, -cy)
    # perspective: jitter the corners of the hand's bounding square
    p = lv["persp"]
    src = np.float32([[px - span, py - span], [px + span, py - span],
                      [px + span, py + span], [px - span, py + span]])
    dst = (src + rng.uniform(-p, p, (4, 2)) * span).astype(np.float32)
    P = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    quads = []
    for face, F in zip(faces, Fs):
        H = P @ G @ F
        art_img, pre = _prescale(face, s)
        Hs = H @ _sc(1.0 / pre)
        _composite(img, art_img, Hs, shadow=rng.uniform(0.25, 0.55), rng=rng)
        quads.append(_apply(H, corners).astype(np.float32))
    if thumb is None:
        thumb = bool(rng.random() < lv["thumb"])
    if thumb:
        # over the lower edge of a random card, pointing inwards
        i = int(rng.integers(n_cards))
        q = quads[i]
        t = rng.uniform(0.3, 0.7)
        edge_pt = q[3] + t * (q[2] - q[3])
        inward = (q[0] - q[3])
        inward = inward / (np.linalg.norm(inward) + 1e-9)
        size_px = card_h * rng.uniform(0.35, 0.5)
        _thumb(img, rng, edge_pt + inward * size_px * rng.uniform(0.0, 0.35), inward, size_px)
    if glare is None:
        glare = bool(rng.random() < lv["glare"])
    if glare:
        i = int(rng.integers(n_cards))
        q = quads[i]
        # near one of the index corners
        c = q[0] if rng.random() < 0.5 else q[2]
        centre = c + (q.mean(axis=0) - c) * rng.uniform(0.1, 0.4)
        _glare(img, rng, centre, card_h * rng.uniform(0.2, 0.35))
    return img, Frame(img, "backs" if backs else "hand", () if backs else tuple(cards), tuple(quads),
                      upside_down=upside_down, glare=glare, thumb=thumb,
                      deck=deck if isinstance(deck, str) else "",
                      meta=dict(level=level, card_h=card_h, theta=theta))


def board_frame(rng: np.random.Generator, deck, cards: tuple[str, ...], level: str = "easy",
                size: tuple[int, int] = (960, 540), slots: int = 5) -> Frame:
    """The board as the overhead board camera sees it: ``cards`` face up in a row, from
    the left of ``slots`` places (the flop is three, the turn four, the river five), with
    a little tilt, perspective and lighting.  ``cards`` may be empty (before the flop)."""
    lv = LEVELS[level]
    w, h = size
    img = background(rng, size, chips=False)
    corners = None
    quads = []
    slot_w = w * rng.uniform(0.15, 0.17)
    card_h = slot_w * 1.25
    left = (w - slots * slot_w) / 2 + rng.uniform(-0.02, 0.02) * w
    top = h / 2 + rng.uniform(-0.06, 0.06) * h
    # one gentle perspective for the whole table (the camera looks down at an angle)
    p = lv["persp"] * 0.5
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = (src + rng.uniform(-p, p, (4, 2)) * np.float32([w, h])).astype(np.float32)
    P = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    for i, card in enumerate(cards):
        face = _face(deck, card)
        ch, cw = face.shape[:2]
        corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
        s = card_h / ch
        cx = left + (i + 0.5) * slot_w + rng.uniform(-0.04, 0.04) * slot_w
        cy = top + rng.uniform(-0.03, 0.03) * card_h
        H = P @ _tr(cx, cy) @ _rot(np.radians(rng.uniform(-4, 4))) @ _sc(s) @ _tr(-cw / 2, -ch / 2)
        art_img, pre = _prescale(face, s)
        _composite(img, art_img, H @ _sc(1.0 / pre), shadow=rng.uniform(0.2, 0.4), rng=rng)
        quads.append(_apply(H, corners).astype(np.float32))
    out = _finish(img, rng, lv)
    return Frame(out, "board" if cards else "empty", tuple(cards), tuple(quads),
                 deck=deck if isinstance(deck, str) else "", meta=dict(level=level, card_h=card_h))


def empty_frame(rng: np.random.Generator, level: str = "moderate",
                size: tuple[int, int] = (960, 540)) -> Frame:
    lv = LEVELS[level]
    img = background(rng, size)
    if rng.random() < lv["thumb"] + 0.2:
        c = np.array([rng.uniform(0, size[0]), rng.uniform(0, size[1])])
        _thumb(img, rng, c, np.array([1.0, rng.uniform(-1, 1)]), size[1] * rng.uniform(0.2, 0.4))
    return Frame(_finish(img, rng, lv), "empty", (), ())


def frame(rng: np.random.Generator, deck: str, n_cards: int = 2, level: str = "moderate",
          size: tuple[int, int] = (960, 540), p_backs: float = 0.1,
          p_empty: float = 0.1) -> Frame:
    """A random frame: a hand (most of the time), backs or an empty table."""
    u = rng.random()
    if u < p_empty:
        return empty_frame(rng, level, size)
    if u < p_empty + p_backs:
        return hand_frame(rng, deck, n_cards, level, size, backs=True)
    return hand_frame(rng, deck, n_cards, level, size)


def card_crop(image: np.ndarray, quad: np.ndarray, height: int = 240) -> np.ndarray:
    """Rectify one card of a frame given its quad (for calibration images and debugging)."""
    q = np.asarray(quad, np.float32)
    wpx = int(round(height * np.linalg.norm(q[1] - q[0]) / max(np.linalg.norm(q[3] - q[0]), 1)))
    dst = np.float32([[0, 0], [wpx, 0], [wpx, height], [0, height]])
    M = cv2.getPerspectiveTransform(q, dst)
    return cv2.warpPerspective(image, M, (wpx, height))
