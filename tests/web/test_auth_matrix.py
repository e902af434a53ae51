"""DESIGN.md's auth matrix, one test per cell, against a real show over HTTP.

Callers: every role with its token in the ``Authorization`` header and (separately)
in the login cookie, no token, a wrong token, a malformed header, and every role's
token put in the URL as ``?token=`` (which must not authenticate: it counts as no
token). Endpoints: the feeds and pages and API calls that exist today.

The expectations are written from DESIGN.md here, not imported from the code's
``MATRIX``, so a drift between the two fails a test:

* allowed -> success (WebSocket upgrade, 200);
* no token, or a URL token only, on a protected endpoint -> 401 (a page redirects
  to ``/login`` instead);
* a wrong token -> 401 everywhere;
* a valid token of the wrong role -> 403;
* ``secure`` with no secure person configured -> 403 for everyone.

Every test also checks that nothing the server logged holds a token.
"""

from __future__ import annotations

import logging

import aiohttp
import pytest
import pytest_asyncio

from broadcast.store import keys
from tests.conftest import TOKENS, start_show

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = "open"
ROLES = ("dealer", "rep", "td", "graphics", "commentator", "secure", "camera", "viewer")
WRONG = "wrong-token-not-issued-to-anyone-42"
COOKIE = "tvtable_session"

# DESIGN.md's matrix, the rows that exist as endpoints today: who may use them.
ALLOWED = {
    "public": {OPEN, "dealer", "rep", "td", "graphics", "commentator", "secure", "viewer"},
    "commentary": {"graphics", "commentator", "secure"},
    "live": {"dealer", "rep", "td", "secure"},  # feed and dealer console (rep, td, secure read)
    "dealer_commands": {"dealer"},
    "tournament_controls": {"td"},  # rep may only read them
    "card_entry": {"secure"},  # the secure card room: card entry and correction
    "compliance": {"dealer", "rep", "td", "secure"},
    "secure": {"secure"},
}

# (test id, matrix row, kind, path with {t} for the table)
ENDPOINTS = [
    ("ws-public", "public", "ws", "/ws/v1/public?table={t}"),
    ("page-overlay-table", "public", "page", "/overlay/table?table={t}"),
    ("state-public", "public", "get", "/api/v1/tables/{t}/state?view=public"),
    ("ws-commentary", "commentary", "ws", "/ws/v1/commentary?table={t}"),
    ("state-commentary", "commentary", "get", "/api/v1/tables/{t}/state?view=commentary"),
    ("ws-live", "live", "ws", "/ws/v1/live?table={t}"),
    ("page-console", "live", "page", "/console?table={t}"),
    ("state-live", "live", "get", "/api/v1/tables/{t}/state?view=live"),
    ("post-dealer-command", "dealer_commands", "post", "/api/v1/tables/{t}/commands"),
    ("post-level-change", "tournament_controls", "post", "/api/v1/tables/{t}/commands"),
    ("post-card-entry", "card_entry", "post", "/api/v1/tables/{t}/commands"),
    ("ws-compliance", "compliance", "ws", "/ws/v1/compliance?table={t}"),
    ("ws-secure", "secure", "ws", "/ws/v1/secure?table={t}"),
    ("state-secure", "secure", "get", "/api/v1/tables/{t}/state?view=secure"),
]
SECURE_ENDPOINTS = [e for e in ENDPOINTS if e[1] == "secure"]
CARD_ENTRY = next(e for e in ENDPOINTS if e[1] == "card_entry")

# What each command endpoint cell posts. None of them changes what a later cell sees:
# with no hand in progress, undo and hole cards get a ruling (422), and level 1 is level 1.
BODIES = {
    "post-dealer-command": {"type": "undo", "reason": "auth matrix"},
    "post-level-change": {"type": "set_level", "level": 1},
    "post-card-entry": {"type": "hole_cards", "seat": 1, "cards": ["As", "Kd"]},
}

# (caller id, how the credential travels, role behind it)
CALLERS = (
    [("no-token", "none", OPEN), ("wrong-token", "wrong", None), ("malformed-header", "basic", None)]
    + [(f"header-{r}", "header", r) for r in ROLES]
    + [(f"cookie-{r}", "cookie", r) for r in ROLES]
    + [(f"url-token-{r}", "url", r) for r in ROLES]
)


def expected(row: str, how: str, role: str | None, *, secure_on: bool = True) -> int:
    """The status DESIGN.md asks for: 200 (success), 401 or 403."""
    if row in ("secure", "card_entry") and not secure_on:
        return 403
    if how in ("wrong", "basic"):
        return 401
    effective = OPEN if how in ("none", "url") else role  # a URL token is no token
    if effective in ALLOWED[row]:
        return 200
    return 401 if effective == OPEN else 403


def credentials(how: str, role: str | None) -> tuple[dict, dict]:
    """(headers, extra query) for a caller."""
    if how == "header":
        return {"Authorization": f"Bearer {TOKENS[role]}"}, {}
    if how == "cookie":
        return {"Cookie": f"{COOKIE}={TOKENS[role]}"}, {}
    if how == "wrong":
        return {"Authorization": f"Bearer {WRONG}"}, {}
    if how == "basic":
        return {"Authorization": f"Basic {TOKENS['dealer']}"}, {}
    if how == "url":
        return {}, {"token": TOKENS[role]}
    return {}, {}


async def call(session: aiohttp.ClientSession, server, kind: str, path: str, headers: dict, query: dict,
               body: dict | None = None) -> tuple[int, str]:
    """Use one endpoint; returns (status, Location header or ""). A command that got
    past the gate and was ruled on (200 accepted or 422 refused by the rules) is 200."""
    url = server.url + path.format(t=server.table)
    if query:
        url += ("&" if "?" in url else "?") + "&".join(f"{k}={v}" for k, v in query.items())
    if kind == "ws":
        ws_url = url.replace("http", "ws", 1)
        try:
            ws = await session.ws_connect(ws_url, headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=2))
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, ""
        await ws.close()
        return 200, ""
    if kind == "post":
        async with session.post(url, json=body, headers=headers, allow_redirects=False) as r:
            await r.read()
            return (200 if r.status == 422 else r.status), r.headers.get("Location", "")
    async with session.get(url, headers=headers, allow_redirects=False) as r:
        await r.read()
        return r.status, r.headers.get("Location", "")


def check(kind: str, want: int, status: int, location: str) -> None:
    if kind == "page" and want == 401:
        # A browser page answers "log in first" with a redirect to the login page.
        assert status == 302 and location.startswith("/login"), (status, location)
    elif kind == "ws" and want == 200:
        assert status == 200  # upgraded
    else:
        assert status == want


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory):
    srv, runner = await start_show(tmp_path_factory.mktemp("authmatrix"), delay=1.0, secure=True)
    yield srv
    await runner.cleanup()
    await srv.runtime.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server_no_secure(tmp_path_factory):
    srv, runner = await start_show(tmp_path_factory.mktemp("authmatrix-nosecure"), delay=1.0, secure=False)
    yield srv
    await runner.cleanup()
    await srv.runtime.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def session():
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as s:
        yield s


SECRETS = [*TOKENS.values(), WRONG]


@pytest.fixture(autouse=True)
def no_token_in_logs(caplog):
    """Whatever a test made the server log (any logger, any level) holds no token."""
    caplog.set_level(logging.DEBUG)
    yield
    for record in caplog.records:
        text = f"{record.getMessage()} {record.args!r} {record.exc_text or ''} {record.pathname}"
        for token in SECRETS:
            assert token not in text, f"a token leaked into the {record.name} log: {record.getMessage()!r}"


@pytest.mark.parametrize("caller,how,role", CALLERS, ids=[c[0] for c in CALLERS])
@pytest.mark.parametrize("endpoint,row,kind,path", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
async def test_matrix_cell(server, session, endpoint, row, kind, path, caller, how, role, request):
    headers, query = credentials(how, role)
    status, location = await call(session, server, kind, path, headers, query, BODIES.get(endpoint))
    check(kind, expected(row, how, role), status, location)


@pytest.mark.parametrize("caller,how,role", CALLERS, ids=[c[0] for c in CALLERS])
@pytest.mark.parametrize("endpoint,row,kind,path", SECURE_ENDPOINTS, ids=[e[0] for e in SECURE_ENDPOINTS])
async def test_secure_is_refused_when_nobody_holds_the_role(server_no_secure, session, endpoint, row, kind, path, caller, how, role):
    headers, query = credentials(how, role)
    status, location = await call(session, server_no_secure, kind, path, headers, query, BODIES.get(endpoint))
    assert expected(row, how, role, secure_on=False) == 403
    check(kind, 403, status, location)


@pytest.mark.parametrize("caller,how,role", CALLERS, ids=[c[0] for c in CALLERS])
async def test_card_entry_is_refused_when_secure_is_off(server_no_secure, session, caller, how, role, request):
    """Nobody enters cards when the secure card room is off (401 or 403, never a ruling)."""
    _, row, kind, path = CARD_ENTRY
    headers, query = credentials(how, role)
    status, _ = await call(session, server_no_secure, kind, path, headers, query, BODIES["post-card-entry"])
    assert status in (401, 403)


async def test_a_refused_dealer_command_changes_nothing(server, session):
    """A 403 or 401 on the command endpoint must not append anything to the journal."""
    before = server.core.state.seq
    for headers in ({"Authorization": f"Bearer {TOKENS['rep']}"}, {"Authorization": f"Bearer {WRONG}"}, {}):
        async with session.post(f"{server.url}/api/v1/tables/{server.table}/commands?token={TOKENS['dealer']}",
                                json={"type": "start_hand", "button": 1}, headers=headers) as r:
            assert r.status in (401, 403)
    assert server.core.state.seq == before


async def test_the_secure_feed_works_for_secure_and_is_audited_without_tokens(server, session):
    headers = {"Authorization": f"Bearer {TOKENS['secure']}"}
    async with session.ws_connect(server.ws_url("secure"), headers=headers) as ws:
        first = await ws.receive_json(timeout=5)
        assert first["feed"] == "secure"
    entries = await server.runtime.redis.xrange(keys.audit())
    assert any(b"secure" in f[b"a"] for _, f in entries)
    everything = b" ".join(f[b"a"] for _, f in entries)
    for token in SECRETS:
        assert token.encode() not in everything
