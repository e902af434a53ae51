"""Card reader accuracy and speed on synthetic hole-cam frames; prints JSON.

Per deck, on decks the model was trained on ("seen") and held-out decks ("unseen"):
* single frames: precision, recall and wrong-card rate of identified cards, "shown"
  accuracy (including card backs and empty frames), median ms per frame;
* confirmed reads: hands of several frames fused by the per-seat tracker (K of N),
  recall and wrong cards of the confirmed hands;
* latency: from the first frame in which a hand is shown to the read that confirms it
  whole, for one seat's camera at 25 fps read on one core (``--latency-hands``).

    .venv/bin/python benchmarks/cardcam_accuracy.py [--frames 40] [--hands 12] [--level moderate]

Run it with one BLAS thread (``OPENBLAS_NUM_THREADS=1``), as a vision process does.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import cv2
import numpy as np

cv2.setNumThreads(1)  # one core's work, as in a vision process (cardcam.vision.warm)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardcam import maps, synth  # noqa: E402
from cardcam.model import HOLDOUT_DECKS, get_model  # noqa: E402
from cardcam.recognize import recognize  # noqa: E402
from cardcam.tracker import SeatTracker  # noqa: E402

SEEN = ("anglo", "bellot", "dondorf", "tango")


def single_frames(deck: str, n: int, level: str, model, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    truth = right = wrong = shown_ok = 0
    ms, cpu = [], []
    by_kind: dict[str, list[float]] = {}
    for i in range(n):
        n_cards = 2 if i % 2 else 4
        f = synth.frame(rng, deck, n_cards=n_cards, level=level, p_backs=0.1, p_empty=0.1)
        t0, c0 = time.perf_counter(), time.process_time()
        r = recognize(f.image, n_cards, model=model)
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)  # steadier than wall time on a shared machine
        by_kind.setdefault(f.kind, []).append(ms[-1])
        shown_ok += r.shown == f.shown
        truth += len(f.cards)
        for c in r.identified:
            if c in f.cards:
                right += 1
            else:
                wrong += 1
    asserted = right + wrong
    return dict(frames=n, cards=truth, identified=asserted, right=right, wrong=wrong,
                precision=round(right / asserted, 4) if asserted else None,
                recall=round(right / truth, 4) if truth else None,
                wrong_rate=round(wrong / asserted, 4) if asserted else 0.0,
                shown_accuracy=round(shown_ok / n, 4),
                median_ms=round(float(np.median(ms)), 1), median_cpu_ms=round(float(np.median(cpu)), 1),
                median_ms_by_kind={k: round(float(np.median(v)), 1) for k, v in sorted(by_kind.items())})


def confirmed_hands(deck: str, hands: int, frames_per_hand: int, level: str, model,
                    seed: int, k: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    truth = right = wrong = 0
    for h in range(hands):
        n_cards = 2 if h % 2 else 4
        cards = tuple(synth.art.CARDS[i] for i in rng.choice(52, n_cards, replace=False))
        t = SeatTracker(h, n_cards, k=k, n=frames_per_hand)
        for _ in range(frames_per_hand):
            f = synth.hand_frame(rng, deck, n_cards, level=level, cards=cards)
            t.update(recognize(f.image, n_cards, model=model))
        truth += n_cards
        for c in t.state.cards:
            if c == "??":
                continue
            right += c in cards
            wrong += c not in cards
    return dict(hands=hands, frames_per_hand=frames_per_hand, k=k, cards=truth,
                right=right, wrong=wrong, recall=round(right / truth, 4) if truth else None)


def empty_frames(model, n: int, seed: int) -> dict:
    """Felt between showings (the most common hole-cam frame): how many stop at the paper
    gate, and the wall ms per frame, all and gated."""
    rng = np.random.default_rng(seed)
    ms, gated, shown = [], 0, 0
    for i in range(n):
        f = synth.empty_frame(rng, ("easy", "moderate", "hard")[i % 3])
        t0 = time.perf_counter()
        r = recognize(f.image, 2, model=model)
        ms.append((time.perf_counter() - t0) * 1000)
        gated += not maps.has_paper(f.image)
        shown += r.shown
    return dict(frames=n, stopped_at_gate=gated, taken_for_shown=shown, median_ms=round(float(np.median(ms)), 2))


def latency(deck: str, hands: int, level: str, model, seed: int, *, k: int = 3, n: int = 5,
            fps: float = 25.0, give_up_ms: float = 3000.0, after: int = 25, share: float = 1.0) -> dict:
    """Shown-to-confirmed latency of one seat at ``fps``, read on one core, and what a held
    hand costs per frame.

    The hand is held to the camera from frame 0 (capture time 0), moving a little from frame
    to frame (``synth.HeldHand``). The reader, free at time 0, reads the newest frame
    captured by then; reading takes that frame's measured CPU time, and the frames that
    arrived meanwhile are dropped, as the worker keeps only each camera's latest frame; a
    reader faster than the camera waits for its next frame (no frame is read twice). Each
    read gets the last read's track, as the worker passes it. The latency is the moment the
    read that confirms every card ends. A hand not confirmed whole within ``give_up_ms``
    counts as unconfirmed (the card room keys it). After it is confirmed, the hand is read
    ``after`` more times (still held), for the cost per frame of a hand being shown.

    ``share``: how many seats share the core, all showing hands like this one (ten seats on
    two cores: 5); each read then takes ``share`` times its CPU time.
    """
    rng = np.random.default_rng(seed)
    period = 1000.0 / fps
    done, wrong, frames_read = [], 0, []
    ms_followed, ms_searched, wrong_reads, wrong_followed, reads_total = [], [], 0, 0, 0
    wrong_list: list[dict] = []
    for h in range(hands):
        n_cards = 2 if h % 2 else 4
        cards = tuple(synth.art.CARDS[i] for i in rng.choice(52, n_cards, replace=False))
        held = synth.HeldHand(rng, deck, n_cards, level, cards=cards,
                              frames=int((give_up_ms + after * 200) / period) + 2)
        tracker = SeatTracker(h, n_cards, k=k, n=n)
        now, reads, wrong_here, track, left, last = 0.0, 0, set(), None, None, -1
        while left != 0 and (left is not None or now <= give_up_ms):
            index = min(int(now // period), len(held) - 1)  # the newest frame captured by now
            if index <= last:  # read already: the worker waits for the camera's next frame
                index = last + 1
                now = index * period
                if index >= len(held):
                    break
            last = index
            f = held.frame(index)
            c0 = time.process_time()
            read = recognize(f.image, n_cards, model=model, track=track)
            cost = (time.process_time() - c0) * 1000
            now += cost * share
            track = read.track
            reads += 1
            reads_total += 1
            (ms_followed if read.followed else ms_searched).append(cost)
            bad = [(c, p) for c, p in zip(read.cards, read.confidence) if c != "??" and c not in cards]
            wrong_reads += len(bad)
            # which wrong card, where: a held hand's frames are those of its seed, hand and
            # index, so the read can be looked at again (synth.HeldHand)
            wrong_list += [dict(hand=h, frame=index, read=c, p=round(float(p), 3), truth=list(cards),
                                followed=read.followed) for c, p in bad]
            wrong_followed += read.followed * len(bad)
            tracker.update(read, ts=index * period)
            state = tracker.state
            wrong_here |= {c for c in state.cards if c != "??" and c not in cards}
            if left is not None:
                left -= 1
            elif state.complete:
                done.append(now)
                frames_read.append(reads)
                left = after
        wrong += len(wrong_here)
    within = sum(1 for t in done if t <= 300)
    every = ms_followed + ms_searched
    return dict(hands=hands, fps=fps, k=k, n=n, confirmed=len(done), within_300ms=within,
                median_ms=round(float(np.median(done)), 1) if done else None,
                p90_ms=round(float(np.percentile(done, 90)), 1) if done else None,
                median_frames_read=float(np.median(frames_read)) if frames_read else None,
                wrong_confirmed=wrong,
                held=dict(reads=reads_total, followed=len(ms_followed), wrong_cards=wrong_reads,
                          wrong_cards_followed=wrong_followed, wrong_list=wrong_list,
                          median_cpu_ms=round(float(np.median(every)), 1) if every else None,
                          median_followed_cpu_ms=round(float(np.median(ms_followed)), 1) if ms_followed else None,
                          median_searched_cpu_ms=round(float(np.median(ms_searched)), 1) if ms_searched else None))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40, help="single frames per deck")
    p.add_argument("--hands", type=int, default=12, help="tracked hands per deck")
    p.add_argument("--latency-hands", type=int, default=6, help="hands per deck timed from shown to confirmed")
    p.add_argument("--share", type=float, default=1.0,
                   help="seats sharing one core in the latency run, all showing hands (10 seats on 2 cores: 5)")
    p.add_argument("--level", default="moderate", choices=sorted(k for k in synth.LEVELS if not k.startswith("_")))
    p.add_argument("--decks", help="comma-separated decks (default: 4 seen + the held-out ones)")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    model = get_model()
    build_s = time.perf_counter() - t0
    decks = a.decks.split(",") if a.decks else list(SEEN) + list(HOLDOUT_DECKS)
    out = dict(benchmark="cardcam_accuracy", level=a.level,
               date=time.strftime("%Y-%m-%d"), machine=dict(
                   platform=platform.platform(), cpus=os.cpu_count(),
                   python=platform.python_version()),
               model=dict(train_decks=model.info.get("decks"), holdout=model.info.get("holdout"),
                          threshold=model.threshold, build_seconds=model.info.get("seconds"),
                          load_seconds=round(build_s, 2)),
               decks={})
    totals = {"seen": [0, 0, 0, 0], "unseen": [0, 0, 0, 0]}
    all_ms, all_cpu = [], []
    latencies: list[dict] = []
    for i, d in enumerate(decks):
        kind = "unseen" if d not in (model.info.get("decks") or []) else "seen"
        s = single_frames(d, a.frames, a.level, model, 1000 + i)
        c = confirmed_hands(d, a.hands, 5, a.level, model, 2000 + i) if a.hands else None
        lat = latency(d, a.latency_hands, a.level, model, 3000 + i, share=a.share) if a.latency_hands else None
        out["decks"][d] = dict(kind=kind, single=s, confirmed=c, latency=lat)
        if lat:
            latencies.append(lat)
        tt = totals[kind]
        tt[0] += s["cards"]; tt[1] += s["right"]; tt[2] += s["wrong"]
        tt[3] += c["wrong"] if c else 0
        all_ms.append(s["median_ms"])
        all_cpu.append(s["median_cpu_ms"])
        print(f"{d}: {kind} {s}", file=sys.stderr)
    for kind, (cards, right, wrong, cwrong) in totals.items():
        if cards:
            out[kind] = dict(cards=cards, recall=round(right / cards, 4), wrong=wrong,
                             wrong_rate=round(wrong / max(right + wrong, 1), 4),
                             confirmed_wrong=cwrong)
    med = float(np.median(all_ms)) if all_ms else 0.0
    out["median_ms_per_frame"] = round(med, 1)
    out["frames_per_second_one_core"] = round(1000.0 / med, 1) if med else None
    out["median_cpu_ms_per_frame"] = round(float(np.median(all_cpu)), 1) if all_cpu else 0.0
    if latencies:
        hands = sum(x["hands"] for x in latencies)
        out["latency"] = dict(hands=hands, share=a.share, confirmed=sum(x["confirmed"] for x in latencies),
                              within_300ms=sum(x["within_300ms"] for x in latencies),
                              median_of_deck_medians_ms=round(float(np.median(
                                  [x["median_ms"] for x in latencies if x["median_ms"] is not None] or [0])), 1),
                              wrong_confirmed=sum(x["wrong_confirmed"] for x in latencies), goal_ms=300)
        out["held_hands"] = dict(reads=sum(x["held"]["reads"] for x in latencies),
                                 followed=sum(x["held"]["followed"] for x in latencies),
                                 wrong_cards=sum(x["held"]["wrong_cards"] for x in latencies),
                                 wrong_cards_followed=sum(x["held"]["wrong_cards_followed"] for x in latencies),
                                 median_of_deck_median_cpu_ms=round(float(np.median(
                                     [x["held"]["median_cpu_ms"] for x in latencies if x["held"]["median_cpu_ms"]] or [0])), 1))
    out["empty_frames"] = empty_frames(model, 200, 4000)
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
