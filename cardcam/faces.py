"""Card faces seen without reading an index: the "cards shown" signal's last resort.

Glare or a thumb can stop every index of a shown hand from being read; the hand must
still count as shown.  A card face is a card-sized, solid paper region with glyph-like
ink on it; card backs (patterned, not paper) and felt do not qualify.
"""
from __future__ import annotations

import cv2
import numpy as np

from .maps import Analysis


def face_regions(a: Analysis) -> list[dict]:
    """Card-sized paper regions of analysis ``a``: box, area, solidity (area over its
    convex hull's) and the share of ink inside the hull."""
    W, H = a.frame or (a.paper.shape[1], a.paper.shape[0])  # the whole frame's, also for a part of it
    paper8 = a.paper.astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(paper8, connectivity=8)
    out = []
    min_area = 0.006 * H * W
    for j in range(1, n):
        x, y, w, h, area = stats[j]
        if area < min_area:
            continue
        blob = (lab[y:y + h, x:x + w] == j)
        filled_mask = blob.astype(np.uint8)
        cnts, _ = cv2.findContours(filled_mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull_area = sum(cv2.contourArea(cv2.convexHull(c)) for c in cnts)
        solidity = area / max(hull_area, 1.0)
        # ink inside the blob's hull, on paper
        ink = a.ink[y:y + h, x:x + w]
        fill = np.zeros_like(filled_mask)
        cv2.drawContours(fill, [cv2.convexHull(c) for c in cnts], -1, 1, -1)
        inside = fill.astype(bool)
        ink_frac = float(ink[inside].mean()) if inside.any() else 0.0
        out.append(dict(box=(int(x), int(y), int(w), int(h)), area=int(area),
                        solidity=float(solidity), ink=ink_frac))
    return out


def face_count(a: Analysis) -> int:
    """Card faces from paper regions alone (when no index could be read, e.g. glare)."""
    return sum(1 for f in face_regions(a) if f["solidity"] > 0.75 and 0.01 < f["ink"] < 0.5)
