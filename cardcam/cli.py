"""``cardcam`` command line: recognize, calibrate, build-model.

Hook into a parent argparse CLI with ``add_parser(subparsers)``; each subcommand sets
``func`` (call it with the parsed namespace; it returns an exit code).
Standalone: ``python -m cardcam ...``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("cardcam", help="camera card reader",
                              description="Read hole cards from camera frames.")
    sub = p.add_subparsers(dest="cardcam_command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("recognize", help="read cards in image files",
                       description="Read the cards in each image. With --json, print one JSON "
                                   "object per line; every listed card is an assertion.")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.add_argument("--cards", type=int, default=2, metavar="N",
                   help="hole cards in the game (2 hold'em, 4 Omaha; default 2)")
    r.add_argument("--deck", "--profile", dest="profile", metavar="PROFILE",
                   help="deck profile from `cardcam calibrate`")
    r.add_argument("--model", metavar="FILE", help="model file (default: var/cardcam/model.npz)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(func=cmd_recognize)

    c = sub.add_parser("calibrate", help="learn a deck from 52 images",
                       description="Learn the deck in use from 52 images named like As.png, "
                                   "Td.png (photos or renders of single cards).")
    c.add_argument("--images", required=True, metavar="DIR")
    c.add_argument("--out", required=True, metavar="PROFILE")
    c.add_argument("--frames", type=int, default=160, help="synthetic frames to train on")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=cmd_calibrate)

    b = sub.add_parser("build-model", help="build the generic model from the aisleriot decks",
                       description="Render Debian's aisleriot decks and train the generic "
                                   "card-index model (progress on stderr).")
    b.add_argument("--out", metavar="FILE", help="default: var/cardcam/model.npz")
    b.add_argument("--frames", type=int, default=None, help="synthetic frames per deck")
    b.add_argument("--workers", type=int, default=None)
    b.add_argument("--json", action="store_true", help="machine-readable output")
    b.set_defaults(func=cmd_build_model)
    return p


def cmd_recognize(args) -> int:
    import cv2
    import numpy as np

    from .model import get_model
    from .recognize import recognize
    if args.cards < 1 or args.cards > 7:
        print("error: --cards must be between 1 and 7", file=sys.stderr)
        return 2
    model = get_model(Path(args.model) if args.model else None)
    profile = None
    if args.profile:
        from .calibrate import load_profile
        try:
            profile = load_profile(args.profile)
        except (OSError, ValueError, KeyError) as e:
            print(f"error: cannot load profile {args.profile}: {e}", file=sys.stderr)
            return 2
    rc = 0
    for path in args.images:
        data = None
        try:
            data = np.fromfile(path, np.uint8)
        except OSError as e:
            err = str(e)
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
        if img is None:
            err = err if data is None else "not a decodable image"
            rc = 1
            if args.json:
                print(json.dumps({"image": path, "error": err}), flush=True)
            else:
                print(f"{path}: error: {err}", file=sys.stderr)
            continue
        read = recognize(img, args.cards, model=model, profile=profile)
        if args.json:
            print(json.dumps({
                "image": path,
                "shown": read.shown,
                "faces": read.faces,
                "cards": [{"card": h.card, "confidence": h.confidence, "box": list(h.box)}
                          for h in read.hits],
                "ms": round(read.ms, 2),
            }), flush=True)
        else:
            shown = f"shown ({read.faces} face{'s' if read.faces != 1 else ''})" if read.shown \
                else "not shown"
            print(f"{path}: {' '.join(read.cards)}  {shown}  {read.ms:.0f} ms", flush=True)
    return rc


def cmd_calibrate(args) -> int:
    from .calibrate import calibrate
    try:
        prof = calibrate(args.images, args.out, frames=args.frames)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"profile": args.out, **prof.info}))
    else:
        print(f"profile written to {args.out}: {prof.info}")
    return 0


def cmd_build_model(args) -> int:
    from .model import build, default_model_path
    kw = {}
    if args.frames:
        kw["frames_per_deck"] = args.frames
    try:
        m = build(Path(args.out) if args.out else None, workers=args.workers, **kw)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.out or str(default_model_path())
    if args.json:
        print(json.dumps({"model": out, **m.info}))
    else:
        print(f"model written to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m",
                                     description="TV Table camera card reader")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_parser(sub)
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "cardcam":
        argv = ["cardcam"] + argv  # `python -m cardcam recognize ...`
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)
