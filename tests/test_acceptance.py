"""Issue 2's acceptance list, against a real ``tvtable demo --delay 5`` subprocess.

For about 20 s of play we follow the ``public`` (open), ``commentary`` (commentator)
and ``live`` (dealer) feeds, then check:

* ``live`` never carries a hole card (nor any card but the board);
* nothing on ``public`` or ``commentary`` arrives, or is published, before ``ts + 5 s``;
* no hole card on ``public`` or ``commentary`` before its hand ended live;
* ``secure`` is refused (403) with no secure person configured, and no secure token
  was generated;
* the auth matrix, on the running process;
* after a SIGKILL and a restart, ``tvtable audit verify`` passes.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import aiohttp
import pytest

from tests.showproc import (
    TABLE,
    DemoProc,
    FeedRecorder,
    check_arrivals,
    check_card_format,
    check_cards_dealt_once,
    check_live_matches_journal,
    check_live_messages,
    check_stream,
    read_show,
)
from tests.web.test_auth_matrix import BODIES, ENDPOINTS, call, check, expected

DELAY = 5.0
PLAY = 20.0


async def _secure_refusals(proc: DemoProc, tokens: dict[str, str]) -> list[str]:
    problems = []
    attempts = {
        "no token": {},
        "dealer token": {"Authorization": f"Bearer {tokens['dealer']}"},
        "made-up token": {"Authorization": "Bearer secure-0123456789abcdef0123"},
        "cookie": {"Cookie": f"tvtable_session={tokens['viewer']}"},
    }
    async with aiohttp.ClientSession() as s:
        for who, headers in attempts.items():
            try:
                ws = await s.ws_connect(f"{proc.ws}/ws/v1/secure?table={TABLE}", headers=headers)
                await ws.close()
                problems.append(f"secure feed opened for {who}")
            except aiohttp.WSServerHandshakeError as exc:
                if exc.status != 403:
                    problems.append(f"secure feed for {who}: {exc.status}, not 403")
            async with s.get(f"{proc.url}/api/v1/tables/{TABLE}/state?view=secure", headers=headers) as r:
                if r.status != 403:
                    problems.append(f"secure state for {who}: {r.status}, not 403")
    return problems


async def _auth_matrix(proc: DemoProc, tokens: dict[str, str]) -> list[str]:
    """Every cell (secure off) against the real process, with the tokens it generated."""
    server = SimpleNamespace(url=proc.url, table=TABLE)
    callers = [("none", None, {}, {}), ("wrong", None, {"Authorization": "Bearer not-a-token-of-this-show-000"}, {})]
    callers += [("header", r, {"Authorization": f"Bearer {t}"}, {}) for r, t in tokens.items()]
    callers += [("url", r, {}, {"token": t}) for r, t in tokens.items()]
    problems = []
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as s:
        for name, row, kind, path in ENDPOINTS:
            for how, role, headers, query in callers:
                want = expected(row, how, role or "open", secure_on=False)
                if row == "card_entry":
                    status, _ = await call(s, server, kind, path, headers, query, BODIES[name])
                    if status not in (401, 403):
                        problems.append(f"{name} as {how} {role or ''}: got {status}, not refused")
                    continue
                status, location = await call(s, server, kind, path, headers, query, BODIES.get(name))
                try:
                    check(kind, want, status, location)
                except AssertionError:
                    problems.append(f"{name} as {how} {role or ''}: got {status}, DESIGN.md says {want}")
    return problems


@pytest.mark.slow
async def test_demo_with_delay_5_meets_the_acceptance_list(tmp_path):
    proc = DemoProc(tmp_path / "show", delay=DELAY)
    recorders: list[FeedRecorder] = []
    try:
        proc.start()
        await proc.wait_ready()
        started = time.monotonic()
        tokens = proc.tokens()
        assert "secure" not in tokens, "a secure token was generated"
        public = FeedRecorder(proc.ws, "public")
        commentary = FeedRecorder(proc.ws, "commentary", {"Authorization": f"Bearer {tokens['commentator']}"})
        live = FeedRecorder(proc.ws, "live", {"Authorization": f"Bearer {tokens['dealer']}"})
        recorders = [public, commentary, live]
        for r in recorders:
            r.start()

        secure_problems = await _secure_refusals(proc, tokens)
        matrix_problems = await _auth_matrix(proc, tokens)
        await asyncio.sleep(max(0.0, PLAY - (time.monotonic() - started)))
        for r in recorders:
            await r.stop()
        data = await read_show(proc.redis_url)

        # SIGKILL mid-show, restart on the same data, stop, and the chain still verifies.
        await proc.kill()
        proc.start(resume=True)
        await proc.wait_ready()
        await asyncio.sleep(1.0)
        assert await proc.stop() == 0, proc.log_tail()
    finally:
        for r in recorders:
            await r.stop()
        proc.ensure_dead()
    code, report = proc.audit_verify()

    assert not secure_problems, secure_problems
    assert not matrix_problems, "\n".join(matrix_problems)
    assert code == 0 and report["ok"], report
    assert {r.delay_ms for r in data.journal} == {int(DELAY * 1000)}
    assert len(live.messages) > 10 and len(public.messages) > 3 and len(commentary.messages) > 3, proc.log_tail()

    problems = []
    problems += check_live_messages(live.messages)
    problems += check_live_matches_journal(live.messages, data)
    for name, rec, entries in (("public", public, data.public), ("commentary", commentary, data.commentary)):
        problems += check_arrivals(name, rec.messages, data)
        problems += check_stream(name, entries, data)
    for name, rec in (("public", public), ("commentary", commentary), ("live", live)):
        problems += check_card_format(name, [m for _, m in rec.messages])
    problems += check_cards_dealt_once(data)
    assert not problems, "\n".join(problems[:40])
