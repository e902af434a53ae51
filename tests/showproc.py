"""Helpers for tests that run ``tvtable demo`` as a real subprocess.

* ``DemoProc``: start (or resume) the demo, wait until it answers, SIGKILL it, stop it.
* ``FeedRecorder``: follow one WebSocket feed across restarts (resuming with
  ``?after=SEQ``) and keep every message with its local arrival time.
* ``HttpDealer``: a second, seeded dealer that plays over the public HTTP API with
  client-chosen command ids, remembers which commands were acknowledged, and retries
  a command whose outcome was unknown (the process died) with the same id.
* ``read_show``: the journal and the delayed streams, read from the show's Redis.
* Checks shared by the crash and acceptance tests, each returning a list of problems.

Local time and Redis ``TIME`` are the same clock here: the show runs on this machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from broadcast.engine.cards import DECK
from broadcast.compliance.events import event_from_dict  # hand and compliance events share the journal
from broadcast.engine.table import TableState, apply
from broadcast.store import keys
from broadcast.store.journal import LATE_MS
from broadcast.views.projections import live_view

TVTABLE = str(Path(sys.executable).with_name("tvtable"))
TABLE = "tv"  # the demo show's table
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def now_ms() -> float:
    return time.time() * 1000.0


# -- the process -------------------------------------------------------------------------
class DemoProc:
    """``tvtable demo`` on a data dir; ``start()`` again with ``resume=True`` after a kill."""

    def __init__(self, data_dir: Path, *, delay: float, port: int | None = None, seconds: int = 3600,
                 extra: tuple[str, ...] = ()) -> None:
        self.data_dir = Path(data_dir)
        self.extra = tuple(extra)  # more ``tvtable demo`` options, e.g. ("--frames-only",)
        self.delay = delay
        self.port = port or free_port()
        self.seconds = seconds
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-demo.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def redis_url(self) -> str:
        return f"unix://{self.data_dir / 'run' / 'redis.sock'}"

    def start(self, *, resume: bool = False) -> None:
        cmd = [TVTABLE, "demo", "--seconds", str(self.seconds), "--delay", str(self.delay),
               "--port", str(self.port), "--data-dir", str(self.data_dir), *self.extra]
        if resume:
            cmd.append("--resume")
        env = {k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")}
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== start {self.starts} ({'resume' if resume else 'fresh'}) =====\n".encode())
            log.flush()
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=env, start_new_session=True)
        self.starts += 1

    async def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as s:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise AssertionError(f"tvtable demo exited with {self.proc.returncode}:\n{self.log_tail()}")
                try:
                    async with s.get(self.url + "/healthz", timeout=aiohttp.ClientTimeout(total=1)) as r:
                        if r.status == 200:
                            return
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"tvtable demo did not answer within {timeout} s:\n{self.log_tail()}")
                await asyncio.sleep(0.05)

    def redis_pid(self) -> int | None:
        try:
            return int((self.data_dir / "run" / "redis.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    async def kill(self, *, redis_follows: bool = True) -> None:
        """SIGKILL the service, then wait for its embedded Redis to go (parent-death signal).

        ``redis_follows=False`` when the Redis under the data dir is not the service's own
        (a fault test restarted it): it stays up."""
        assert self.proc is not None
        rpid = self.redis_pid() if redis_follows else None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait)
        if rpid is not None:
            deadline = time.monotonic() + 10
            while _alive(rpid) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert not _alive(rpid), f"the embedded Redis (pid {rpid}) outlived its SIGKILLed parent"

    async def stop(self, timeout: float = 20.0) -> int:
        """Ctrl-C: the show stops cleanly. Returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGINT)
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.proc.wait), timeout)
        except asyncio.TimeoutError:
            sockets = subprocess.run(["ss", "-tanp"], capture_output=True, text=True).stdout
            open_here = "\n".join(line for line in sockets.splitlines() if f":{self.port} " in line)
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait)
            raise AssertionError(f"tvtable demo did not stop on Ctrl-C within {timeout} s; connections on its port:\n"
                                 f"{open_here or '(none)'}\n{self.log_tail()}")

    def ensure_dead(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def tokens(self) -> dict[str, str]:
        return tomllib.loads((self.data_dir / "tokens.toml").read_text())["tokens"]

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-n:])

    def audit_verify(self) -> tuple[int, dict | str]:
        out = subprocess.run([TVTABLE, "audit", "verify", "--data-dir", str(self.data_dir), "--json"],
                             capture_output=True, text=True, timeout=60, env={k: v for k, v in os.environ.items() if not k.startswith("TVTABLE_")})
        try:
            return out.returncode, json.loads(out.stdout)
        except json.JSONDecodeError:
            return out.returncode, out.stdout + out.stderr


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is gone for our purpose
    except (OSError, IndexError):
        return False


# -- following a feed --------------------------------------------------------------------
@dataclass
class FeedRecorder:
    """Follows ``/ws/v1/<feed>`` through restarts; ``messages`` holds (arrival ms, message)."""

    base_ws: str
    feed: str
    headers: dict = field(default_factory=dict)
    table: str = TABLE
    messages: list[tuple[float, dict]] = field(default_factory=list)
    connects: int = 0
    _stop: bool = False
    _task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self._stop = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def last(self) -> dict | None:
        return self.messages[-1][1] if self.messages else None

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as session:
            while not self._stop:
                url = f"{self.base_ws}/ws/v1/{self.feed}?table={self.table}"
                if self.feed in ("public", "commentary") and self.messages:
                    url += f"&after={self.messages[-1][1]['seq']}"
                try:
                    async with session.ws_connect(url, headers=self.headers, heartbeat=None) as ws:
                        self.connects += 1
                        async for msg in ws:
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                break
                            self.messages.append((now_ms(), json.loads(msg.data)))
                except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                    pass
                await asyncio.sleep(0.05)


# -- a dealer over HTTP ------------------------------------------------------------------
@dataclass
class Sent:
    id: str
    command: dict
    status: int | None = None  # None: outcome unknown (the connection broke)
    body: Any = None
    tries: int = 0


class HttpDealer:
    """Plays the table over ``POST /commands`` (with ids) from the live view, seeded.

    It plays alongside the demo's own dealer (both get refusals when they race, which is
    fine) and keeps the show moving if that one stops. ``sent`` has every command and its
    outcome; a command whose outcome was unknown is retried with the same id once the
    service answers again.
    """

    def __init__(self, proc: DemoProc, token: str, rng, *, pace: tuple[float, float] = (0.1, 0.4), undo_rate: float = 0.12) -> None:
        self.proc = proc
        self.headers = {"Authorization": f"Bearer {token}"}
        self.rng = rng
        self.pace = pace
        self.undo_rate = undo_rate
        self.sent: list[Sent] = []
        self._stop = False
        self._task: asyncio.Task | None = None
        self._dealt: dict[int, set[str]] = {}
        self.error: str | None = None  # a traceback if the dealer itself broke
        self.idle: dict[str, int] = {}  # why it had nothing to do, and how often

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._guarded())

    async def _guarded(self) -> None:
        try:
            await self._run()
        except Exception:  # noqa: BLE001 - kept for the test to show
            import traceback

            self.error = traceback.format_exc()

    async def stop(self) -> None:
        self._stop = True
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    @property
    def acknowledged(self) -> list[Sent]:
        return [s for s in self.sent if s.status == 200]

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as session:
            while not self._stop:
                await asyncio.sleep(self.rng.uniform(*self.pace))
                for pending in [s for s in self.sent if s.status is None and s.tries < 4]:
                    await self._post(session, pending)  # same id: at most once, whatever happened
                try:
                    async with session.get(f"{self.proc.url}/api/v1/tables/{TABLE}/state?view=live", headers=self.headers,
                                           timeout=aiohttp.ClientTimeout(total=2)) as r:
                        if r.status != 200:
                            continue
                        view = await r.json()
                except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
                    continue
                command = self._choose(view)
                if command is None:
                    why = "tournament over" if view.get("hand") is None or view.get("hand_complete") else (
                        f"in hand {view.get('hand')}, street {view.get('street')}, nothing legal")
                    self.idle[why] = self.idle.get(why, 0) + 1
                else:
                    sent = Sent(id=f"t-{uuid.UUID(int=self.rng.getrandbits(128)).hex[:16]}", command=command)
                    self.sent.append(sent)
                    await self._post(session, sent)

    async def _post(self, session: aiohttp.ClientSession, sent: Sent) -> None:
        sent.tries += 1
        try:
            async with session.post(f"{self.proc.url}/api/v1/tables/{TABLE}/commands", json={**sent.command, "id": sent.id},
                                    headers=self.headers, timeout=aiohttp.ClientTimeout(total=5)) as r:
                body = await r.json()
                sent.status, sent.body = r.status, body
            if 400 <= sent.status < 500 and self._dealt and isinstance(sent.command.get("cards"), list):
                # Refused: those cards were never dealt, and a long hand must not run out of deck.
                self._dealt[max(self._dealt)].difference_update(sent.command["cards"])
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
            sent.status = None

    def _cards(self, view: dict, n: int) -> list[str]:
        used = set(view.get("board") or []) | self._dealt.setdefault(view["hand"], set())
        pool = [c for c in DECK if c not in used]
        cards = self.rng.sample(pool, n)
        self._dealt[view["hand"]].update(cards)
        return cards

    def _choose(self, view: dict) -> dict | None:
        rng = self.rng
        if view.get("hand") is None or view.get("hand_complete"):
            live = [s["seat"] for s in view["seats"] if s["stack"] > 0]
            if len(live) < 2:
                return None
            return {"type": "start_hand", **({} if view.get("button") else {"button": rng.choice(live)})}
        if view.get("awaiting_cards"):
            seat = rng.choice(view["awaiting_cards"])
            return {"type": "hole_cards", "seat": seat, "cards": self._cards(view, 2), "source": "camera"}
        unseen = [s["seat"] for s in view["seats"] if s.get("dealt_in") and s.get("cards_seen") == "none"]
        if unseen and rng.random() < 0.3:
            return {"type": "hole_cards", "seat": rng.choice(unseen), "cards": self._cards(view, 2), "source": "camera"}
        if view.get("needs_board"):
            return {"type": "board", "cards": self._cards(view, view["needs_board"])}
        legal = view.get("legal")
        if not legal:
            return None
        if rng.random() < self.undo_rate:
            return {"type": "undo", "reason": "test: mis-key"}
        seat, roll = legal["seat"], rng.random()
        key = "raise" if legal.get("raise") else ("bet" if legal.get("bet") else None)
        if roll < 0.04:
            return {"type": "allin", "seat": seat}
        if roll < 0.25 and key:
            low, high = legal[key]
            return {"type": key, "seat": seat, "amount": rng.choice([low, low, min(high, low * 2)])}
        if roll < 0.5 and legal.get("fold"):
            return {"type": "fold", "seat": seat}
        return {"type": "check" if legal.get("check") else "call", "seat": seat}


# -- what Redis holds --------------------------------------------------------------------
@dataclass
class StreamEntry:
    at_ms: int  # the stream id's time part: Redis TIME when the releaser published it
    seq: int
    msg: dict


@dataclass
class ShowData:
    journal: list  # broadcast.store.journal.Record, in seq order
    public: list[StreamEntry]
    commentary: list[StreamEntry]

    def record(self, seq: int):
        return self.journal[seq - 1]


async def read_show(redis_url: str, table: str = TABLE) -> ShowData:
    import redis.asyncio as aioredis

    from broadcast.store.journal import read_all

    client = aioredis.from_url(redis_url)
    try:
        journal = await read_all(client, table)
        streams = []
        for key in (keys.public(table), keys.commentary(table)):
            entries = []
            for entry_id, fields in await client.xrange(key):
                entries.append(StreamEntry(int(entry_id.split(b"-")[0]), int(fields[b"seq"]), json.loads(fields[b"m"])))
            streams.append(entries)
    finally:
        await client.aclose()
    assert [r.seq for r in journal] == list(range(1, len(journal) + 1)), "journal sequences are not dense from 1"
    return ShowData(journal, *streams)


async def wind_down(proc: DemoProc, dealer: HttpDealer, recorders: list[FeedRecorder], delay: float) -> ShowData:
    """Stop the play, let the last acknowledged commands reach the air, stop the
    recorders, read what Redis holds, and stop the show with Ctrl-C (it must exit 0)."""
    await dealer.stop()
    await asyncio.sleep(delay + 0.5)
    for r in recorders:
        await r.stop()
    data = await read_show(proc.redis_url)
    assert await proc.stop() == 0, proc.log_tail()
    return data


async def tear_down(proc: DemoProc, dealer: HttpDealer | None, recorders: list[FeedRecorder]) -> None:
    """Whatever happened: stop the dealer and the recorders, and kill the show if it runs."""
    if dealer is not None:
        await dealer.stop()
    for r in recorders:
        await r.stop()
    proc.ensure_dead()


# -- checks (each returns a list of problems; empty is good) -----------------------------
def cards_outside_board(msg: Any, key: str | None = None) -> set[str]:
    """Every card anywhere in a message except the board (and board deals in the history)."""
    if key == "board":
        return set()
    if isinstance(msg, dict):
        if "street" in msg and "cards" in msg and "seat" not in msg:
            return set()  # a board deal in the commentary history
        out: set[str] = set()
        for k, v in msg.items():
            out |= cards_outside_board(v, k)
        return out
    if isinstance(msg, list):
        out = set()
        for v in msg:
            out |= cards_outside_board(v, key)
        return out
    return {msg} if isinstance(msg, str) and CARD.match(msg) else set()


# Fields computed from hole cards: they reveal them as surely as the cards do.
DERIVED = ("equity",)


def reveals(msg: dict) -> set[str]:
    """What in a message gives hole cards away: the cards themselves (anywhere but the
    board) and any field computed from them."""
    return cards_outside_board(msg) | {k for k in DERIVED if msg.get(k)}


def hole_cards(msg: dict) -> set[str]:
    return {c for s in msg.get("seats") or [] for c in s.get("hole_cards") or [] if c != "??"}


def hand_ended_at(data: ShowData) -> dict[int, int]:
    """Hand number -> ts (Redis ms) of its HandEnded event in the journal."""
    return {r.event["hand"]: r.ts for r in data.journal if r.event["type"] == "HandEnded"}


def release_times(data: ShowData) -> dict[int, int]:
    """seq -> the earliest time it may air: release_n = max(release_{n-1}, ts_n + D_n)."""
    out, last = {}, 0
    for r in data.journal:
        last = max(last, r.ts + r.delay_ms)
        out[r.seq] = last
    return out


def check_live_messages(messages: list[tuple[float, dict]]) -> list[str]:
    """Never a hole card (nor any card but the board) on the live feed."""
    problems = []
    for _, msg in messages:
        leaked = reveals(msg)
        if leaked:
            problems.append(f"live message seq {msg.get('seq')} reveals {sorted(leaked)}")
        if any(c != "??" for s in msg.get("seats") or [] for c in s.get("hole_cards") or []):
            problems.append(f"live message seq {msg.get('seq')} has a hole card")
    return problems


def check_live_matches_journal(messages: list[tuple[float, dict]], data: ShowData) -> list[str]:
    """Everything the live feed showed is still in the journal: replaying the journal to
    each message's seq gives exactly the view that was shown (nothing acknowledged lost)."""
    from broadcast.compliance import state as compliance
    from broadcast.compliance.clock import read_called_clock
    from broadcast.compliance.config import ComplianceConfig
    from broadcast.compliance.facts import facts_from_table

    wanted = {msg["seq"] for _, msg in messages}
    tv_rules = any("halt" in msg for _, msg in messages)  # the demo's TV table plays under the TV-table rules
    views: dict[int, dict] = {}
    state, rules, config = TableState(), compliance.ComplianceState(), ComplianceConfig()
    for r in data.journal:
        event = event_from_dict(r.event)
        state = apply(state, event, seq=r.seq)
        rules = compliance.apply(rules, event, seq=r.seq, ts=r.ts)
        if r.seq in wanted:
            views[r.seq] = live_view(state, ts=r.ts)
            called = rules.called_clock  # the console's called clock, read at that event's time
            views[r.seq]["called_clock"] = (read_called_clock(called, r.ts).to_dict() | {"deadline_ms": called.deadline_ms}
                                            if called else None)
            if tv_rules:  # what the console holds and what blocks the deal, replayed as well
                facts = facts_from_table(state)
                views[r.seq]["halt"] = list(compliance.hold(rules, facts, config))
                views[r.seq]["deal_blockers"] = [b.message for b in compliance.deal_in_blockers(rules, facts, config)]
                views[r.seq]["frozen"] = compliance.frozen(rules, facts)
    problems = []
    for _, msg in messages:
        if msg["seq"] not in views:
            problems.append(f"live showed seq {msg['seq']}, which the journal (head {len(data.journal)}) does not hold")
        elif _norm(views[msg["seq"]]) != _norm(msg):
            want = _norm(views[msg["seq"]])
            diff = {k: (msg.get(k), want.get(k)) for k in set(want) | set(msg) if msg.get(k) != want.get(k)}
            problems.append(f"live showed seq {msg['seq']} differently from what the journal replays to: "
                            f"{json.dumps(diff)[:400]}")
    return problems


def _norm(view: dict) -> dict:
    return json.loads(json.dumps(view))


def check_acknowledged(dealer: HttpDealer, data: ShowData) -> list[str]:
    """Every command acknowledged with 200 is in the journal at the seqs it was given,
    and no command id was applied twice."""
    problems = []
    by_id: dict[str, list[int]] = {}
    for r in data.journal:
        if r.command_id:
            by_id.setdefault(r.command_id, []).append(r.seq)
    for sent in dealer.acknowledged:
        seqs = sent.body["seqs"]
        if by_id.get(sent.id) != seqs:
            problems.append(f"command {sent.id} {sent.command} was acknowledged as seqs {seqs} but the journal has {by_id.get(sent.id)}")
    for cid, seqs in by_id.items():
        if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            problems.append(f"command id {cid} was applied more than once: seqs {seqs}")
    return problems


def check_stream(name: str, entries: list[StreamEntry], data: ShowData) -> list[str]:
    """A delayed stream as Redis holds it: never early (Redis time at publication), never a
    seq twice except a hole-card reveal, never a hole card before its hand ended live."""
    problems = []
    due, ended = release_times(data), hand_ended_at(data)
    prev: StreamEntry | None = None
    count: dict[int, int] = {}
    for e in entries:
        rec = data.record(e.seq) if 0 < e.seq <= len(data.journal) else None
        if rec is None:
            problems.append(f"{name}: seq {e.seq} is not in the journal")
            continue
        if e.msg["seq"] != e.seq or e.msg["ts"] != rec.ts:
            problems.append(f"{name}: entry for seq {e.seq} carries seq {e.msg['seq']} ts {e.msg['ts']} (journal ts {rec.ts})")
        if e.at_ms < rec.ts + rec.delay_ms or e.at_ms < due[e.seq]:
            problems.append(f"{name}: seq {e.seq} published at {e.at_ms}, before ts+D {rec.ts + rec.delay_ms} / release {due[e.seq]}")
        shown = reveals(e.msg)
        hand = e.msg.get("hand")
        if shown and (hand not in ended or e.at_ms < ended[hand]):
            problems.append(f"{name}: seq {e.seq} shows cards {sorted(shown)} of hand {hand} before it ended live")
        count[e.seq] = count.get(e.seq, 0) + 1
        if prev is not None:
            if e.seq < prev.seq:
                problems.append(f"{name}: seq {e.seq} published after seq {prev.seq}")
            elif e.seq == prev.seq:
                if _mask(e.msg) != _mask(prev.msg):
                    a, b = _mask(prev.msg), _mask(e.msg)
                    diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
                    problems.append(f"{name}: seq {e.seq} published twice, and not as a hole-card reveal: "
                                    f"{json.dumps(diff)[:400]}")
                elif not hole_cards(e.msg) > hole_cards(prev.msg):
                    problems.append(f"{name}: seq {e.seq} published twice, {EMPTY_REVEAL}")
        prev = e
    problems += [f"{name}: seq {s} published {n} times" for s, n in count.items() if n > 2]
    return problems


# A seq aired twice must be a hole-card reveal (DelayLine.due): the same message again would be noise.
EMPTY_REVEAL = "the second time revealing nothing (an empty reveal)"
BOARD_IN_WORDS = "board cards not in the two-character form"
DEALT_TWICE = "dealt twice in one hand"


def check_card_format(name: str, messages: list[dict]) -> list[str]:
    """DESIGN.md: cards are two characters (``As``), ``??`` when unknown."""
    problems = []
    for msg in messages:
        bad_board = [c for c in msg.get("board") or [] if not CARD.match(str(c))]
        bad_hole = [c for s in msg.get("seats") or [] for c in s.get("hole_cards") or [] if c != "??" and not CARD.match(str(c))]
        if bad_board or bad_hole:
            problems.append(f"{name}: seq {msg.get('seq')} has {BOARD_IN_WORDS if bad_board else 'hole cards in a bad form'}: "
                            f"{(bad_board or bad_hole)[:2]}")
    return problems[:3]  # the first few say it all


def check_cards_dealt_once(data: ShowData) -> list[str]:
    """No card twice in one hand: the board (corrected) and each seat's last known cards."""
    undone = {r.event["undone_seq"] for r in data.journal if r.event["type"] == "ActionUndone"}
    hands: dict[int, tuple[list[str], dict[int, list[str]]]] = {}
    for r in data.journal:
        e = r.event
        if e["type"] == "BoardDealt" and r.seq not in undone:
            hands.setdefault(e["hand"], ([], {}))[0].extend(e["cards"])
        elif e["type"] == "HoleCardsSet":
            hands.setdefault(e["hand"], ([], {}))[1][e["seat"]] = [c for c in e["cards"] if c != "??"]
    problems = []
    for hand, (board, hole) in hands.items():
        cards = board + [c for cs in hole.values() for c in cs]
        twice = sorted({c for c in cards if cards.count(c) > 1})
        if twice:
            problems.append(f"hand {hand}: {twice} {DEALT_TWICE} (board {board})")
    return problems


def _mask(msg: dict) -> dict:
    out = json.loads(json.dumps(msg))
    for k in DERIVED:
        out.pop(k, None)  # a reveal brings what is computed from the cards, too
    for s in out.get("seats") or []:
        s["hole_cards"] = ["??" if c != "??" else c for c in s.get("hole_cards") or []]
    return out


def check_arrivals(name: str, messages: list[tuple[float, dict]], data: ShowData) -> list[str]:
    """Messages as a viewer received them: none before ts + D, no card before its hand
    ended live, and each one is something the releaser published."""
    problems = []
    ended = hand_ended_at(data)
    published = {json.dumps(e.msg, sort_keys=True) for e in (data.public if name == "public" else data.commentary)}
    for arrived, msg in messages:
        rec = data.record(msg["seq"]) if 0 < msg["seq"] <= len(data.journal) else None
        if rec is None:
            problems.append(f"{name}: received seq {msg['seq']}, not in the journal")
            continue
        if arrived < msg["ts"] + rec.delay_ms:
            problems.append(f"{name}: seq {msg['seq']} arrived {msg['ts'] + rec.delay_ms - arrived:.1f} ms before ts + D")
        shown = reveals(msg)
        hand = msg.get("hand")
        if shown and (hand not in ended or arrived < ended[hand]):
            problems.append(f"{name}: seq {msg['seq']} showed cards {sorted(shown)} of hand {hand} before it ended live")
        if json.dumps(msg, sort_keys=True) not in published:
            problems.append(f"{name}: received a message for seq {msg['seq']} that was never published")
    return problems


def check_no_gaps(name: str, messages: list[tuple[float, dict]], data: ShowData) -> list[str]:
    """A client that resumes with ``?after=SEQ`` misses nothing: every entry published on
    the stream after the first one it received, up to the last one it received, reached it."""
    entries = data.public if name == "public" else data.commentary
    received = {json.dumps(m, sort_keys=True) for _, m in messages}
    published = [json.dumps(e.msg, sort_keys=True) for e in entries]
    hits = [i for i, text in enumerate(published) if text in received]
    if not hits:
        return [f"{name}: the client received nothing that was published"] if messages else []
    missing = [entries[i] for i in range(hits[0], hits[-1] + 1) if published[i] not in received]
    if not missing:
        return []
    return [f"{name}: a resuming client never received seqs {[e.seq for e in missing[:20]]} ({len(missing)} entries, "
            f"published from {missing[0].at_ms} to {missing[-1].at_ms} ms)"]


def check_undos(entries: list[StreamEntry], data: ShowData, *, margin_ms: int = LATE_MS) -> tuple[list[str], int]:
    """An entry undone within D never airs. Returns (problems, number of such undos).

    ``margin_ms`` covers the gap between stamping an event's ts and appending it: the journal
    refuses an append that comes later than ``LATE_MS`` after its stamp.
    """
    # What aired under each seq, other than a hole-card reveal. A reveal airs under the
    # release cursor, "the corrected view through seq N", and N may be a record that was
    # undone (so skipped): it shows the same table as the message before it, with cards.
    aired: set[int] = set()
    for before, entry in zip([None, *entries], entries):
        if before is None or before.seq > entry.seq or table_cut(before.msg) != table_cut(entry.msg):
            aired.add(entry.seq)
    problems, within = [], 0
    for r in data.journal:
        if r.event["type"] != "ActionUndone":
            continue
        target = data.record(r.event["undone_seq"])
        if r.ts + margin_ms < target.ts + target.delay_ms:
            within += 1
            if target.seq in aired:
                problems.append(f"seq {target.seq} ({target.event['type']}) was undone by seq {r.seq} "
                                f"{target.ts + target.delay_ms - r.ts} ms before its release, yet it aired")
    return problems, within


def table_cut(msg: dict) -> tuple:
    """The table an on-air message shows, without the hole cards and what they decide (the
    equities): a hole-card reveal shows the same cut as the message before it."""
    seats = [{k: v for k, v in row.items() if k != "hole_cards"} for row in msg.get("seats") or []]
    return json.dumps([seats, *(msg.get(k) for k in ("board", "pots", "pot", "actor", "street", "button", "results"))],
                      sort_keys=True)
