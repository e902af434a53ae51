"""``cardcam`` command line: run, recognize, calibrate, build-model.

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

    w = sub.add_parser("run", help="read the show's cameras and post card reads to the core",
                       description="Read the cameras listed in the show file's [[cameras]] and post "
                                   "confirmed card reads to each table's inbox, through the show's "
                                   "Redis. Starts one worker process per camera group; with --group, "
                                   "runs only that group (e.g. on another machine).")
    w.add_argument("--config", required=True, metavar="FILE", help="the show's TOML file (with [[cameras]])")
    w.add_argument("--group", default=None, help="run only this camera group in this process")
    w.add_argument("--redis", default=None, metavar="URL",
                   help="the show's Redis (or TVTABLE_REDIS_URL, or show.redis_url; default: the "
                        "embedded Redis of a show running with the same --data-dir)")
    w.add_argument("--data-dir", default="var", help="the running show's data dir (default ./var)")
    w.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="vision processes per group (default: one per camera, at most one per core)")
    w.add_argument("--threads", action="store_true", help="do the vision in threads instead of processes")
    w.add_argument("--model", metavar="FILE", help="model file (default: var/cardcam/model.npz)")
    w.add_argument("--seconds", type=float, default=0, help="stop after N seconds (default: run until Ctrl-C)")
    w.add_argument("--check", action="store_true", help="check the config, print the camera plan and exit")
    w.add_argument("--json", action="store_true", help="machine-readable output (with --check)")
    w.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    w.set_defaults(func=cmd_run)
    return p


def _file_problem(path: str, e: OSError) -> str:
    """What is wrong with an image file, in plain words (no errno, no traceback)."""
    import errno
    return {errno.ENOENT: "no such file", errno.EISDIR: "a folder, not an image file",
            errno.EACCES: "not allowed to read this file"}.get(e.errno, f"cannot read the file ({e.strerror})")


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
            err = _file_problem(path, e)
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
        if img is None:
            if data is not None:
                err = "empty file (0 bytes)" if not data.size else \
                    "not a readable image (corrupt, cut short, or not a JPEG/PNG)"
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


def _plan(settings) -> dict:
    return {"k": settings.k, "n": settings.n, "groups": {
        g: [{"camera": c.id, "table": c.table, "kind": c.kind, "seats": [r.label for r in c.regions]} for c in cams]
        for g, cams in settings.groups().items()}}


def _redis_url(args, show) -> str | None:
    import os

    url = args.redis or os.environ.get("TVTABLE_REDIS_URL") or show.redis_url
    if url:
        return url
    from broadcast.store.embedded import EmbeddedRedis

    embedded = EmbeddedRedis(Path(args.data_dir))
    return embedded.url if embedded.socket_path.exists() else None


def cmd_run(args) -> int:
    import logging

    from broadcast.settings import ConfigError

    from .cameras import load
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)-7s %(name)-18s %(message)s", datefmt="%H:%M:%S")
    try:
        show, settings = load(args.config)
    except ConfigError as e:
        print(f"tvtable: {e}", file=sys.stderr)
        return 2
    groups = settings.groups()
    if not groups:
        print(f"tvtable: {args.config} has no [[cameras]]: nothing to read", file=sys.stderr)
        return 2
    if args.group is not None and args.group not in groups:
        print(f"tvtable: no camera group {args.group!r} in {args.config} (groups: {', '.join(groups)})",
              file=sys.stderr)
        return 2
    if args.check:
        plan = _plan(settings)
        if args.json:
            print(json.dumps(plan))
        else:
            for g, cams in plan["groups"].items():
                print(f"group {g}:")
                for c in cams:
                    print(f"  {c['camera']:<16} {c['kind']:<8} table {c['table']}: {', '.join(c['seats'])}")
        return 0
    url = _redis_url(args, show)
    if url is None:
        print(f"tvtable: no show is running under {args.data_dir}: start `tvtable serve` first, or pass "
              "--redis URL", file=sys.stderr)
        return 2
    wanted = [args.group] if args.group is not None else list(groups)
    if len(wanted) == 1:
        return _run_one(args, show, settings, wanted[0], url)
    return _supervise(args, wanted, url)


def _run_one(args, show, settings, group: str, url: str) -> int:
    import asyncio

    from .worker import run_group
    try:
        return asyncio.run(_until_signalled(run_group(show, settings, group, url, jobs=args.jobs,
                                                      model_path=args.model, seconds=args.seconds,
                                                      threads=args.threads)))
    except KeyboardInterrupt:
        return 0
    except (OSError, ConnectionError) as e:
        print(f"tvtable: cannot reach the show's Redis: {e}", file=sys.stderr)
        return 1


async def _until_signalled(run) -> int:
    """Run one group's worker; SIGTERM (``cardcam run`` stopping its groups, ``docker stop``)
    or Ctrl-C stops it cleanly. The process owns its signals here, not ``run_group``: inside
    a show, the show's own handlers must stay in charge. Ctrl-C by our handler too, since a
    worker started in the background by a script inherits SIGINT ignored."""
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
    except (NotImplementedError, RuntimeError, ValueError):
        pass
    try:
        return await run
    except asyncio.CancelledError:
        return 0


def _group_main(argv: list[str]) -> None:
    """Entry point of one group's process (spawned by ``_supervise``)."""
    raise SystemExit(main(argv))


def _supervise(args, groups: list[str], url: str) -> int:
    """One process per camera group; a process that dies is restarted with backoff."""
    import multiprocessing
    import signal
    import time

    def stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)  # a service manager stops us with SIGTERM: stop the groups too
    signal.signal(signal.SIGINT, stop)  # Ctrl-C, even where a script's `&` left it ignored
    ctx = multiprocessing.get_context("spawn")
    base = ["cardcam", "run", "--config", args.config, "--redis", url]
    if args.jobs:
        base += ["--jobs", str(args.jobs)]
    if args.threads:
        base.append("--threads")
    if args.model:
        base += ["--model", args.model]
    if args.verbose:
        base.append("-v")
    procs: dict[str, object] = {}
    restarts = {g: 0 for g in groups}
    next_start = {g: 0.0 for g in groups}
    stop_at = time.monotonic() + args.seconds if args.seconds else None
    try:
        while stop_at is None or time.monotonic() < stop_at:
            for g in groups:
                p = procs.get(g)
                if p is not None and p.is_alive():
                    continue
                if p is not None:
                    restarts[g] += 1
                    wait = min(30.0, 0.5 * 2 ** min(restarts[g], 6))
                    print(f"tvtable: camera group {g} stopped (exit {p.exitcode}); restarting in {wait:g} s",
                          file=sys.stderr)
                    next_start[g] = time.monotonic() + wait
                    procs[g] = None
                if time.monotonic() >= next_start[g]:
                    proc = ctx.Process(target=_group_main, args=(base + ["--group", g],), name=f"cardcam {g}")
                    proc.start()
                    procs[g] = proc
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs.values():
            if p is not None and p.is_alive():
                p.terminate()
        for p in procs.values():
            if p is not None:
                p.join(10)
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
