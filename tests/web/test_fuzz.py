"""Bad input: a seeded fuzzer throws more than 10,000 malformed or hostile inputs at a
real show (real aiohttp server, real Redis) and checks how the house answers.

Inputs: dealer/floor/secure commands (wrong types, huge and non-finite numbers, unknown
seats and types, deep nesting, invalid UTF-8, oversized bodies, wrong and missing
tokens, replayed command ids in bursts), camera frames (corrupt and mutated JPEGs, wrong
content types, bad camera ids and capture times, oversized frames), socket connections
with hostile query strings, and junk messages on open sockets.

For every answer: no 5xx, no traceback text. After every batch: the journal grew by
exactly the seqs of the commands the core accepted (refused input changes nothing), the
frames queued for the worker are exactly the frames answered 202, and ``/healthz`` still
answers. At the end the core's state equals a fresh replay of its journal.

``TVTABLE_FUZZ_SEED`` picks another seed; a failure prints the inputs that caused it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import string
import time
from pathlib import Path

import aiohttp

from broadcast.store import keys
from broadcast.web.ingest import MAX_FRAME_BYTES
from cardcam import cameras as names
from tests.conftest import TOKENS
from tests.web.test_ingest import jpeg

SEED = int(os.environ.get("TVTABLE_FUZZ_SEED", "7"))
ROUNDS = 55           # batches; each batch mixes every kind of input
BATCH = 190           # inputs per batch, sent concurrently (a burst)
TRACEBACK_MARKS = ("Traceback (most recent call last)", "File \"/")

ENGINE_TYPES = ["start_hand", "hole_cards", "board", "fold", "check", "call", "bet", "raise", "allin", "muck", "chips",
                "conditional", "misdeal", "penalty", "kill_hand", "undo", "set_level", "seat_player", "move_player",
                "remove_player", "away", "four_card_flop", "hold_for_review"]
COMPLIANCE_TYPES = ["surrender_devices", "return_devices", "override_device_gate", "device_found", "cards_shown",
                    "declare_blind", "clear_halt", "refuse_cards", "camera_check", "clear_camera_check", "log_violation",
                    "rule_violation", "escort_out", "escort_in", "open_deal_talk", "report_deal", "close_deal_talk",
                    "inspect_logos", "declare_sponsor", "call_clock", "set_field_data", "start_level_clock"]
FIELDS = ["seat", "amount", "cards", "button", "chips", "declared", "text", "reason", "player", "kind", "count", "level",
          "items", "seats", "board", "alert", "violation", "payouts", "logos", "note", "source", "hand", "burn", "draw",
          "stack", "name", "country", "out_of_turn", "chips_removed", "company", "code"]
FEEDS = ["public", "commentary", "live", "compliance", "secure", "control", "cardcam", "nope", "", "PUBLIC", "..%2f..",
         "public%00", "ünïcödé", "x" * 300]
ROLES_OR_JUNK = [TOKENS["dealer"], TOKENS["td"], TOKENS["rep"], TOKENS["secure"], TOKENS["viewer"], TOKENS["camera"],
                 "", "not-a-token", "x" * 5000, TOKENS["dealer"] + " ", "\t"]


def junk_scalar(rng: random.Random):
    return rng.choice([
        None, True, False, 0, -1, 1, 4, 5, 9, 10, 99, -(2 ** 63), 2 ** 63, 2 ** 200, 10 ** 300, 1.5, -0.0, 1e308,
        float("nan"), float("inf"), float("-inf"), "", " ", "1", "4", "1,000", "-5", "٣", "²", "9" * 5000, "seat 4",
        "As", "Ah Kd", "??", "XX", "AsAs", "\u0000", "\ud800", "<script>alert(1)</script>", "'; DROP TABLE seats; --",
        "a" * rng.choice([10, 1000, 100_000]), "🂡", [], {}, [1, 2], ["As", "Kd"], ["As", "As"], ["??", "??"],
        {"seat": 1}, [[[]]], rng.randint(-10 ** 6, 10 ** 6), rng.random() * 1e6,
    ])


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def hostile_command(rng: random.Random, known_ids: list[str]) -> tuple[str, bytes | str, dict]:
    """One command body (already encoded or raw) and its headers. Returns (label, body, headers)."""
    token = rng.choice(ROLES_OR_JUNK[:4]) if rng.random() < 0.85 else rng.choice(ROLES_OR_JUNK)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    roll = rng.random()
    if roll < 0.55:
        kind = rng.choice(ENGINE_TYPES + COMPLIANCE_TYPES + [junk_scalar(rng), "FOLD", "raise ", "drop_table"])
        if rng.random() < 0.6:  # mostly the right desk, so the input reaches the parser and the rules
            desk = "rep" if kind in COMPLIANCE_TYPES else "td" if kind in ("set_level", "penalty", "seat_player") else "dealer"
            headers["Authorization"] = f"Bearer {TOKENS[desk]}"
        body: dict = {"type": kind}
        for key in rng.sample(FIELDS, rng.randint(0, 5)):
            body[key] = junk_scalar(rng)
        if rng.random() < 0.3:
            body["id"] = rng.choice([junk_scalar(rng), f"fz-{rng.random()}", *(known_ids[-3:] or ["fz"])])
        text = json.dumps(body, allow_nan=True)
        return "command", text, headers
    if roll < 0.62:
        return "not an object", json.dumps(junk_scalar(rng)), headers
    if roll < 0.67:
        return "deep nesting", rng.choice([nested(rng.choice([500, 5000, 100_000])),
                                           '{"type": "conditional", "seat": 1, "text": ' + nested(20_000) + "}"]), headers
    if roll < 0.72:
        raw = json.dumps({"type": "fold", "seat": 1}).encode()
        cut = rng.randrange(len(raw))
        return "invalid utf-8", raw[:cut] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]) + raw[cut:], headers
    if roll < 0.76:
        return "huge number", '{"type": "raise", "seat": 1, "amount": ' + "9" * rng.choice([4400, 20_000]) + "}", headers
    if roll < 0.79:
        return "truncated json", json.dumps({"type": "bet", "seat": 2, "amount": 400})[: rng.randint(0, 20)], headers
    if roll < 0.82:
        headers["Content-Type"] = rng.choice(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                              "image/jpeg", ""])
        return "wrong content type", "type=fold&seat=1", headers
    if roll < 0.84:
        return "oversized body", '{"type": "conditional", "seat": 1, "text": "' + "x" * (2 * 1024 * 1024 + 10) + '"}', headers
    if roll < 0.90:
        if rng.random() < 0.5:
            headers.pop("Authorization")
        else:
            headers["Authorization"] = rng.choice(["Basic Zm9vOmJhcg==", "Bearer", "bearer ", "Token x", "Bearer " + "y" * 8000])
        return "no or bad token", json.dumps({"type": "fold", "seat": 1}), headers
    # Replays: a command id already used, sent again with another body.
    cid = rng.choice(known_ids) if known_ids else "fz-replayed"
    return "replayed id", json.dumps({"type": rng.choice(["fold", "start_hand", "undo", "check"]), "seat": rng.randint(0, 9),
                                      "id": cid}), headers


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        i = rng.randrange(len(b)) if b else 0
        if op < 0.4 and b:
            b[i] = rng.randrange(256)
        elif op < 0.6:
            del b[i:i + rng.randint(1, 50)]
        elif op < 0.8:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        else:
            b[i:i] = b"\xff" + bytes([rng.choice([0xC0, 0xC2, 0xDA, 0xD9, 0xD8, 0xFF, 0x00, 0x01])]) + b"\x00\x00"
    return bytes(b)


def hostile_frame(rng: random.Random, good: bytes) -> tuple[str, str, bytes, dict]:
    """(label, camera id, body, headers) of one frame post."""
    camera = "cam-fz"
    headers = {"Authorization": f"Bearer {TOKENS['camera']}", "Content-Type": "image/jpeg"}
    roll = rng.random()
    if roll < 0.5:
        label, body = "mutated jpeg", mutate(rng, good)
    elif roll < 0.6:
        label, body = "random bytes", bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    elif roll < 0.65:
        label, body = "good frame", good
    elif roll < 0.72:
        label, body = "bad camera id", good
        camera = rng.choice(["..", "a" * 65, "cam%201", "cam;rm", "ünï", "%00", "cam.1", "-" * 64 + "x"])
    elif roll < 0.8:
        label, body = "wrong content type", good
        headers["Content-Type"] = rng.choice(["text/plain", "application/json", "image/png", "", "image/jpeg, text/html"])
    elif roll < 0.88:
        label, body = "bad capture time", good
        headers["X-Capture-Time"] = rng.choice(["-1", "1e12", "9" * 40, "now", "٣٣", "0x10", " 12"])
    elif roll < 0.9:
        label, body = "oversized frame", good[:-2] + b"\x00" * (MAX_FRAME_BYTES + 10) + b"\xff\xd9"
    elif roll < 0.95:
        label, body = "no or bad token", good
        headers["Authorization"] = rng.choice(["", f"Bearer {TOKENS['dealer']}", f"Bearer {TOKENS['secure']}", "Bearer nope"])
    else:
        label, body = "huge dimensions", good.replace(b"\xff\xc0\x00\x11\x08\x00\x30\x00\x40", b"\xff\xc0\x00\x11\x08\xff\xff\xff\xff")
    return label, camera, body, headers


def hostile_socket(rng: random.Random, table: str) -> tuple[str, str, dict]:
    """(label, path and query, headers) of one socket connection attempt."""
    feed = rng.choice(FEEDS[:6]) if rng.random() < 0.7 else rng.choice(FEEDS)
    query = {"table": table if rng.random() < 0.8 else rng.choice(["", "nope", "../x", "t" * 500, "%ff", "\u202e"])}
    if rng.random() < 0.6:
        query["after"] = rng.choice(["0", "1", "-1", "1.5", "1e3", "abc", "", "²", "٣", "9" * 5000, "9" * 30, " 1"])
    if rng.random() < 0.2:
        query[rng.choice(["token", "secure", "view"])] = rng.choice([TOKENS["secure"], TOKENS["dealer"], "x"])
    token = rng.choice(ROLES_OR_JUNK + [None, None, None])
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    from urllib.parse import quote

    qs = "&".join(f"{k}={quote(v, safe='%')}" for k, v in query.items())
    return "socket", f"/ws/v1/{quote(feed, safe='%')}?{qs}", headers


GRAPHICS_TYPES = ["show", "hide", "hide_all", "restore", "hide_cards", "show_cards", "lower_third", "clear_lower_third",
                  "slate", "trim", "refresh", "take"]
READS = ["state", "stats", "hands", "hands/1", "hands/x", "hands/99999999999999999999", "outs", "clock", "onair.json",
         "onair.xml", "graphics", "compliance/audit.csv"]


def hostile_other(rng: random.Random, table: str) -> tuple[str, str, str, bytes | None, dict]:
    """(label, method, path, body, headers) for the other desks' APIs: graphics commands,
    commentators' notes, and reads with junk in the path and the query."""
    role = rng.choice(["graphics", "commentator", "td", "dealer", "viewer"])
    headers = {"Authorization": f"Bearer {TOKENS[role]}", "Content-Type": "application/json", "Accept": "application/json"}
    roll = rng.random()
    if roll < 0.45:
        body: dict = {"type": rng.choice(GRAPHICS_TYPES + [junk_scalar(rng)])}
        for key in rng.sample(["element", "seat", "player", "title", "text", "show", "slate", "seconds", "page", "commands"],
                              rng.randint(0, 4)):
            body[key] = junk_scalar(rng) if rng.random() < 0.8 else [{"type": "show", "element": junk_scalar(rng)}]
        data = json.dumps(body).encode() if rng.random() < 0.9 else rng.choice([b"\xff", nested(5000).encode()])
        return "graphics command", "POST", f"/api/v1/tables/{table}/graphics", data, headers
    if roll < 0.6:
        player = rng.choice(["p-ann", "x" * 300, "%ff", "..", "p-nobody"])
        data = rng.choice([json.dumps({"text": junk_scalar(rng)}).encode(), b"\xff\xfe", nested(3000).encode()])
        return "note", "PUT", f"/api/v1/notes/{player}", data, headers
    query = (f"?view={rng.choice(['live', 'public', 'x', 'secure', 'compliance'])}&q={rng.choice(['a', '²', '9' * 5000])}"
             f"&after={rng.choice(['1', '-1', '²'])}&hand={rng.choice(['1', '0', 'x', '9' * 30])}")
    return "read", "GET", f"/api/v1/tables/{rng.choice([table, 'nope'])}/{rng.choice(READS)}{query}", None, headers


async def send_other(s, show, found: Findings, label, method, path, body, headers) -> None:
    async with s.request(method, show.url + path, data=body, headers=headers) as r:
        text = await r.text(errors="replace")
        found.answer(label, f"/api/ {method} {path[:150]} {(body or b'')[:150]!r}", r.status, text)
        if TOKENS["secure"] not in headers.get("Authorization", "") and leaked(text, (body or b"").decode("utf-8", "replace")):
            found.problems.append(f"hole card in the answer to {label}: {path[:100]} -> {text[:300]!r}")


HOLE = [["As", "Kd"], ["Qh", "Jc"], ["Ts", "9d"], ["8c", "7h"]]  # dealt by the card room before the fuzzing
HOLE_CARD = re.compile(r"\b(" + "|".join(c for pair in HOLE for c in pair) + r")\b")


def leaked(text: str, sent: str) -> list[str]:
    """Hole cards in an answer that the request did not itself name (an echo reveals nothing)."""
    return [c for c in set(HOLE_CARD.findall(text)) if c not in sent]


class Findings:
    """Everything that went wrong, with the input that caused it."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.internal: list[str] = []  # 500s, judged against the server log (see core_crashes)
        self.statuses: dict[int, int] = {}
        self.sent = 0

    def answer(self, label: str, what: str, status: int, text: str) -> None:
        self.sent += 1
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status >= 500:
            self.internal.append(f"{status} for {label}: {what[:300]!r} -> {text[:300]!r}")
        for mark in TRACEBACK_MARKS:
            if mark in text:
                self.problems.append(f"traceback text for {label}: {what[:200]!r} -> {text[:300]!r}")
        if status >= 400 and what.startswith("/api/") and status not in (401, 403, 404, 405):
            try:
                body = json.loads(text)
            except ValueError:
                self.problems.append(f"{status} without a JSON error for {label}: {what[:200]!r} -> {text[:200]!r}")
                return
            if not (isinstance(body, dict) and body.get("message")):
                self.problems.append(f"{status} without a message for {label}: {what[:200]!r} -> {text[:200]!r}")


REPO = str(Path(__file__).resolve().parents[2])


def core_crashes(caplog, found: Findings) -> None:
    """Add the server's unexpected failures since the last call to the problems, as
    "where: what" lines; "where" is the deepest frame in this repository (not the library
    that raised). Any of them fails the run, wherever it is."""
    lines = []
    for record in caplog.records:
        if record.name != "tvtable.web" or not record.exc_info:
            continue
        tb, where = record.exc_info[2], "?"
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename
            if name.startswith(REPO) and "/.venv/" not in name:
                where = f"{name.removeprefix(REPO + '/')}:{tb.tb_lineno} ({tb.tb_frame.f_code.co_name})"
            tb = tb.tb_next
        what = f"{record.exc_info[0].__name__}: {str(record.exc_info[1])[:160]}"
        lines.append(f"{where}: {what}")
    caplog.clear()
    found.problems += [f"a handler crashed: {line}" for line in lines] + found.internal
    found.internal.clear()


async def journal_mark(redis, table: str) -> tuple[int, bytes | None]:
    length = await redis.xlen(keys.journal(table))
    head = await redis.hget(keys.head(table), "hash")
    return length, head


async def frames_received(redis, camera: str) -> int:
    return int(await redis.hget(names.ingest_stats_key(camera), "received") or 0)


async def send_command(s, show, found: Findings, label, body, headers, accepted: list) -> None:
    url = f"{show.url}/api/v1/tables/{show.table}/commands"
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    try:
        async with s.post(url, data=data, headers=headers) as r:
            text = await r.text(errors="replace")
            found.answer(label, f"/api/ {data[:300]!r}", r.status, text)
            if TOKENS["secure"] not in headers.get("Authorization", "") and leaked(text, data.decode("utf-8", "replace")):
                found.problems.append(f"hole card in the answer to {label}: {data[:200]!r} -> {text[:300]!r}")
            if r.status == 200:
                result = json.loads(text)
                if not result.get("duplicate"):
                    accepted.append(len(result["seqs"]))
    except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError) as exc:
        # The server may close a connection on an oversized body; anything else is a failure.
        if label != "oversized body":
            found.problems.append(f"connection lost for {label}: {data[:200]!r}: {exc!r}")
        else:
            found.sent += 1


async def send_frame(s, show, found: Findings, label, camera, body, headers, frames: list) -> None:
    url = f"{show.url}/api/v1/cardcam/{camera}/frames"
    try:
        async with s.post(url, data=body, headers=headers) as r:
            text = await r.text(errors="replace")
            found.answer(label, f"/api/ frame {camera} {headers} {body[:60]!r}", r.status, text)
            if r.status == 202:
                frames.append(camera)
    except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError) as exc:
        if label != "oversized frame":
            found.problems.append(f"connection lost for frame {label}: {exc!r}")
        else:
            found.sent += 1


async def open_socket(s, show, found: Findings, label, path, headers, rng: random.Random) -> None:
    url = show.url.replace("http", "ws", 1) + path
    try:
        async with s.ws_connect(url, headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=2)) as ws:
            found.answer(label, path, 101, "")
            # A few junk messages: clients only listen, so the server ignores them.
            for _ in range(rng.randint(0, 3)):
                if rng.random() < 0.5:
                    await ws.send_str(rng.choice(['{"type":"fold","seat":1}', "x" * 70_000, "\u0000", "{", "[]"]))
                else:
                    await ws.send_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))))
                found.sent += 1
            msg = await ws.receive(timeout=2)
            live = path.startswith(("/ws/v1/live?", "/ws/v1/compliance?", "/ws/v1/control?"))
            if msg.type == aiohttp.WSMsgType.TEXT and live and leaked(msg.data, ""):
                found.problems.append(f"hole card on a live feed {path[:100]}: {msg.data[:300]}")
            if msg.type == aiohttp.WSMsgType.TEXT:
                for mark in TRACEBACK_MARKS:
                    if mark in msg.data:
                        found.problems.append(f"traceback text on socket {path[:200]}: {msg.data[:200]}")
    except aiohttp.WSServerHandshakeError as exc:
        found.answer(label, path, exc.status, exc.message or "")
    except asyncio.TimeoutError:
        pass  # a socket with nothing new to say: fine


async def camera_socket(s, show, found: Findings, rng: random.Random, good: bytes, n: int) -> None:
    """One camera socket carrying ``n`` junk messages; it must stay open and keep answering."""
    url = show.url.replace("http", "ws", 1) + "/ws/v1/cardcam/cam-fzws"  # its own camera: frames it gets through are not answered
    async with s.ws_connect(url, headers={"Authorization": f"Bearer {TOKENS['camera']}"}) as ws:
        for _ in range(n):
            if rng.random() < 0.3:
                await ws.send_str(rng.choice(["hello", "{}", "\u0000" * 10]))
            else:
                await ws.send_bytes(mutate(rng, good))
            found.sent += 1
        await ws.send_str("still there?")
        while True:
            msg = await ws.receive(timeout=5)
            if msg.type != aiohttp.WSMsgType.TEXT:
                found.problems.append(f"camera socket closed after junk: {msg.type} {msg.data!r} {msg.extra!r}")
                return
            body = json.loads(msg.data)
            for mark in TRACEBACK_MARKS:
                if mark in msg.data:
                    found.problems.append(f"traceback text on the camera socket: {msg.data[:200]}")
            if body.get("error") == "not_a_frame":
                return  # it answered our last text message: the socket survived everything before it


async def raw_http(show, found: Findings, rng: random.Random) -> None:
    """Garbage below HTTP: the server answers 4xx or closes, and goes on serving."""
    host, port = show.url.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host.removeprefix("http://"), int(port))
    request = rng.choice([
        b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /api/v1/tables/x/commands HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        b"POST /api/v1/tables/x/commands HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(40),
        b"GET /healthz HTTP/9.9\r\n\r\n",
    ])
    writer.write(request)
    try:
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 5)
        rest = await asyncio.wait_for(reader.read(4096), 2)
    except (ConnectionError, asyncio.TimeoutError):
        line, rest = b"", b""
    finally:
        writer.close()
    found.sent += 1
    if line:
        status = int(line.split()[1]) if len(line.split()) > 1 and line.split()[1].isdigit() else 0
        found.answer("raw http", repr(request[:80]), status, rest.decode("latin-1"))


async def test_ten_thousand_hostile_inputs_get_clear_4xx_and_change_nothing(show_server, caplog):
    show = show_server
    caplog.set_level(logging.ERROR, logger="tvtable.web")
    rng = random.Random(SEED)
    redis = show.runtime.redis
    good = jpeg()
    for camera in ("cam-fz", "cam-fzws"):
        await redis.set(names.alive_key(camera), "fuzz", ex=600)  # as if a worker read this camera
    found = Findings()
    started = time.monotonic()
    connector = aiohttp.TCPConnector(limit=48)
    known_ids: list[str] = []
    async with aiohttp.ClientSession(connector=connector) as s:
        # A hand in progress, with hole cards entered by the card room: refused input must
        # not move it, and nothing the fuzzer sees may carry them.
        dealer = {"Authorization": f"Bearer {TOKENS['dealer']}"}
        for i, cmd in enumerate([{"type": "start_hand", "button": 1, "id": "fz-start"}]):
            async with s.post(f"{show.url}/api/v1/tables/{show.table}/commands", json=cmd, headers=dealer) as r:
                assert r.status == 200, await r.text()
            known_ids.append(cmd["id"])
        for seat in (1, 2, 3, 4):
            async with s.post(f"{show.url}/api/v1/tables/{show.table}/commands",
                              json={"type": "hole_cards", "seat": seat, "cards": HOLE[seat - 1]},
                              headers={"Authorization": f"Bearer {TOKENS['secure']}"}) as r:
                assert r.status == 200, await r.text()

        for round_no in range(ROUNDS):
            before = await journal_mark(redis, show.table)
            frames_before = await frames_received(redis, "cam-fz")
            accepted: list[int] = []
            frames: list[str] = []
            jobs = []
            for _ in range(BATCH):
                roll = rng.random()
                if roll < 0.56:
                    jobs.append(send_command(s, show, found, *hostile_command(rng, known_ids), accepted))
                elif roll < 0.64:
                    jobs.append(send_other(s, show, found, *hostile_other(rng, show.table)))
                elif roll < 0.9:
                    jobs.append(send_frame(s, show, found, *hostile_frame(rng, good), frames))
                elif roll < 0.995:
                    jobs.append(open_socket(s, show, found, *hostile_socket(rng, show.table), random.Random(rng.random())))
                else:
                    jobs.append(raw_http(show, found, random.Random(rng.random())))
            if round_no % 10 == 0:
                jobs.append(camera_socket(s, show, found, random.Random(rng.random()), good, 60))
            if round_no % 5 == 1:
                # A burst of one command id: it is applied at most once.
                cid = f"fz-burst-{round_no}"
                known_ids.append(cid)
                body = json.dumps({"type": "undo", "id": cid})
                jobs += [send_command(s, show, found, "burst of one id", body, dealer | {"Content-Type": "application/json"},
                                      accepted) for _ in range(30)]
            await asyncio.gather(*jobs)
            core_crashes(caplog, found)

            assert not found.problems, f"seed {SEED}, round {round_no}:\n" + "\n".join(found.problems[:30])
            after = await journal_mark(redis, show.table)
            grown = after[0] - before[0]
            assert grown == sum(accepted), (
                f"round {round_no}: the journal grew by {grown} but the core accepted {sum(accepted)} events\n"
                + "\n".join(found.problems[:20]))
            if not accepted:
                assert after == before, f"round {round_no}: refused input moved the journal head"
            assert show.core.state.seq == after[0], "the core's state and its journal disagree"
            assert await frames_received(redis, "cam-fz") - frames_before == len(frames), (
                f"round {round_no}: refused frames reached the worker's queue")
            async with s.get(f"{show.url}/healthz") as r:
                assert r.status == 200, f"round {round_no}: the service stopped answering: {r.status}"

        # The public feed still serves a fresh client after all that.
        async with s.ws_connect(show.ws_url("public")) as ws:
            first = json.loads((await ws.receive(timeout=5)).data)
            assert "seq" in first

    elapsed = time.monotonic() - started
    print(f"seed {SEED}: {found.sent} hostile inputs in {elapsed:.1f} s; answers {sorted(found.statuses.items())}")
    assert found.sent >= 10_000
    assert not any(code >= 500 for code in found.statuses), found.statuses
    assert found.statuses.get(200, 0) + found.statuses.get(202, 0) > 0, "nothing was ever accepted: the fuzzer is too blunt"

    # The core's state is exactly a replay of its journal: refused input left no trace in memory.
    from broadcast.service import TableCore

    fresh = TableCore(redis, show.core.config, show.core.levels, show.core.journal.key, delay_s=1.0,
                      compliance_config=show.core.rules)
    await fresh.open()
    assert fresh.view("secure") == show.core.view("secure")
    replayed, kept = fresh.view("compliance"), show.core.view("compliance")
    replayed.pop("now_ms", None), kept.pop("now_ms", None)  # the rep's clock, not state
    assert replayed == kept


def test_the_fuzzer_is_seeded():
    """The same seed gives the same inputs, so a failure can be replayed."""
    a = [hostile_command(random.Random(3), []) for _ in range(3)]
    b = [hostile_command(random.Random(3), []) for _ in range(3)]
    assert a == b
    assert all(ch in string.printable for ch in a[0][0])
