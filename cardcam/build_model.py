"""Build the generic card-index model: ``python -m cardcam.build_model [--out FILE]``.

Renders Debian's aisleriot decks (``gnome-cards-data``, via ``rsvg-convert``), makes
synthetic training frames, trains the classifiers and writes ``var/cardcam/model.npz``.
Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .model import build, default_model_path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardcam.build_model", description=__doc__)
    p.add_argument("--out", help=f"default: {default_model_path()}")
    p.add_argument("--frames", type=int, default=None, help="synthetic frames per deck")
    p.add_argument("--workers", type=int, default=None)
    a = p.parse_args(argv)
    kw = {"frames_per_deck": a.frames} if a.frames else {}
    build(Path(a.out) if a.out else None, workers=a.workers, **kw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
