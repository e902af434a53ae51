"""The commentary desk in a real browser: a commentator logs in through /login, watches
three hands go through the delay, and never sees a hole card before its release; once
released, the desk shows the cards, exact equities, outs and true outs, pot odds, the
action history, per-player stats, a searchable hand history and private notes.
Saves docs/commentary.png (1600x1000).

Cards come from the secure card room (TOKENS["secure"]), the actions from the dealer.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import aiohttp
import pytest

from broadcast.equity import equity
from tests.browser.conftest import DOCS, stop_show
from tests.conftest import TOKENS, start_show

pytestmark = pytest.mark.browser

DELAY = 3  # seconds; long enough to hold a released state on screen for the screenshot
GLYPH = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}

# Hand 1 (button 1): Di opens, Ann 3-bets all-in, Di calls; Ann's queens hold.
HOLE1 = {1: ["Qs", "Qd"], 2: ["7h", "2d"], 3: ["9s", "4h"], 4: ["Ac", "Kd"]}
BOARD1 = [["Jh", "8s", "3c"], ["5d"], ["2h"]]
# Hand 2 (button 2): Ann opens, Cy 3-bets, everyone folds.
HOLE2 = {1: ["Js", "Tc"], 2: ["4c", "4d"], 3: ["Kh", "Ks"], 4: ["8h", "3d"]}
# Hand 3 (button 3): Bo opens, Cy calls, Di 3-bets, Cy calls; flop: Di bets, Cy (flush and
# straight draw) faces it; the muck holds three of Cy's outs (Kc, Th, 5s).
HOLE3 = {1: ["Th", "5s"], 2: ["Kc", "Qh"], 3: ["9c", "8c"], 4: ["As", "Ad"]}
FLOP3, TURN3, RIVER3 = ["7c", "6d", "2c"], ["3h"], ["Jd"]


def shown_forms(card: str) -> list[str]:
    rank = "10" if card[0] == "T" else card[0]
    return [card, f"{rank}{GLYPH[card[1]]}", f"{card[0]}{GLYPH[card[1]]}"]


class Desk:
    """Dealer commands and card-room entries over HTTP, as the real desks send them."""

    def __init__(self, server, session: aiohttp.ClientSession) -> None:
        self.server, self.session = server, session
        self.base = f"{server.url}/api/v1/tables/{server.table}"

    async def send(self, command: dict, *, role: str = "dealer") -> dict:
        headers = {"Authorization": f"Bearer {TOKENS[role]}"}
        async with self.session.post(f"{self.base}/commands", json=command, headers=headers) as r:
            body = await r.json()
        assert r.status == 200, (command, body)
        return body

    async def act(self, kind: str, seat: int, **extra) -> dict:
        return await self.send({"type": kind, "seat": seat, **extra})

    async def deal(self, hole: dict[int, list[str]]) -> None:
        await self.send({"type": "start_hand"})
        for seat, cards in hole.items():  # the card room, never the dealer
            await self.send({"type": "hole_cards", "seat": seat, "cards": cards, "source": "camera"}, role="secure")

    async def get(self, path: str, role: str = "commentator") -> tuple[int, dict]:
        async with self.session.get(f"{self.server.url}{path}", headers={"Authorization": f"Bearer {TOKENS[role]}"}) as r:
            return r.status, await r.json()


@pytest.fixture
async def desk_show(tmp_path):
    server, runner = await start_show(tmp_path, delay=DELAY)
    try:
        yield server
    finally:
        await stop_show(server, runner)


async def text_of(page, selector: str) -> str:
    return (await page.inner_text(selector)).strip()


async def test_commentator_sees_cards_equity_outs_and_stats_only_after_release(desk_show, browser):
    show = desk_show
    errors: list[str] = []
    frames: list[tuple[float, dict]] = []
    context = await browser.new_context(viewport={"width": 1600, "height": 1000})
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda payload: frames.append((time.monotonic(), json.loads(payload))) if "/ws/v1/commentary" in ws.url else None))

    async with aiohttp.ClientSession() as session:
        desk = Desk(show, session)

        # No cookie: the desk sends the commentator to the login form, and back.
        await page.goto(f"{show.url}/commentary?table={show.table}")
        assert "/login" in page.url
        await page.fill("#token", TOKENS["commentator"])
        await page.click("button[type=submit]")
        await page.wait_for_url(f"**/commentary?table={show.table}")
        await page.wait_for_selector('body[data-feed="up"]')
        assert (await text_of(page, ".who")).lower() == "commentator person commentator"

        ended: dict[int, float] = {}  # when the command that ends each hand live was sent

        # Hand 1: Di opens, Ann moves in, Di calls; the board runs out.
        await desk.deal(HOLE1)
        await desk.act("raise", 4, amount=600)
        await desk.act("allin", 1)
        await desk.act("fold", 2)
        await desk.act("fold", 3)
        await desk.act("call", 4)
        for cards in BOARD1[:-1]:
            await desk.send({"type": "board", "cards": cards})
        ended[1] = time.monotonic()
        await desk.send({"type": "board", "cards": BOARD1[-1]})

        # Hand 2: Ann opens, Cy 3-bets, all fold.
        await desk.deal(HOLE2)
        await desk.act("raise", 1, amount=500)
        await desk.act("fold", 2)
        await desk.act("raise", 3, amount=1600)
        await desk.act("fold", 4)
        ended[2] = time.monotonic()
        await desk.act("fold", 1)

        # Hand 3 up to the flop, then the table waits: the hand is live.
        await desk.deal(HOLE3)
        await desk.act("raise", 2, amount=500)
        await desk.act("call", 3)
        await desk.act("raise", 4, amount=1800)
        await desk.act("fold", 1)
        await desk.act("fold", 2)
        await desk.act("call", 3)
        await desk.send({"type": "board", "cards": FLOP3})

        # While the flop is in the delay: a private note, kept on the server for this person.
        await page.click("#note-players [data-player='p-cy']")
        await page.fill("#note-text", "Flatted the 3-bet last time with a draw. Ask about the Dublin win.")
        await page.click("#note-save")
        await page.wait_for_function("() => document.getElementById('note-status').textContent === 'Saved'", timeout=5_000)

        # The flop airs D seconds later while hand 3 is still live: no hole card anywhere.
        await page.wait_for_function(
            "() => document.getElementById('hand').textContent === '3' && "
            "document.querySelector('#board [data-card=\"7c\"]') !== null", timeout=10_000, polling=50)
        assert set(await page.eval_on_selector_all(".hole-cards [data-card]", "els => els.map((e) => e.dataset.card)")) == {"??"}
        text = await page.inner_text("body")
        html = await page.content()
        for cards in HOLE3.values():
            for card in cards:
                for form in shown_forms(card):
                    assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", text), form
                    assert f'"{form}"' not in html and f">{form}<" not in html, form
        assert await page.locator(".eq-num").count() == 0
        assert await page.locator(".outs-row").count() == 0
        for _, message in frames:
            if message.get("hand") == 3:
                assert all(set(s["hole_cards"]) <= {"??"} for s in message["seats"]), message["seq"]
                assert message.get("equity") is None
        # The hand list and stats are released data too: hand 3 is not in them.
        status, listed = await desk.get(f"/api/v1/tables/{show.table}/hands")
        assert status == 200 and [h["hand"] for h in listed["hands"]] == [2, 1]
        status, one = await desk.get(f"/api/v1/tables/{show.table}/hands/3")
        assert status == 404

        # Hand 3 goes on: Di bets; Cy thinks; then it all goes in and the board runs out.
        await desk.act("bet", 4, amount=2400)
        await asyncio.sleep(1.8)
        await desk.act("allin", 3)
        await desk.act("call", 4)
        await desk.send({"type": "board", "cards": TURN3})
        ended[3] = time.monotonic()
        await desk.send({"type": "board", "cards": RIVER3})

        # The bet airs once hand 3 has ended live, so with its cards: Cy faces 2,400.
        await page.wait_for_selector("#pot-odds:not([hidden])", timeout=10_000)
        await page.wait_for_selector(".outs-row .raw", timeout=2_000)  # outs counting the muck arrived
        DOCS.mkdir(exist_ok=True)
        await page.screenshot(path=str(DOCS / "commentary.png"))
        snap = await page.evaluate("""() => ({
            main: document.getElementById('spot-main').textContent,
            call: document.getElementById('po-call').textContent,
            odds: document.getElementById('po-odds').textContent,
            needs: document.getElementById('po-needs').textContent,
            has: document.getElementById('po-has').textContent,
            cards: [...document.querySelectorAll('#seats tbody tr')].map((tr) =>
                [...tr.querySelectorAll('.hole-cards [data-card]')].map((c) => c.dataset.card).join('')),
            equity: [...document.querySelectorAll('#seats tbody tr')].map((tr) => tr.querySelector('.eq-num')?.textContent || ''),
            outsRow: document.querySelector('.outs-row .count').textContent,
            outsRaw: document.querySelector('.outs-row .raw').textContent,
            dead: [...document.querySelectorAll('.outs-row .card.dead')].map((c) => c.dataset.card),
            history: [...document.querySelectorAll('#history li')].map((li) => li.textContent),
        })""")
        assert snap["main"] == "Cy Diaz faces 2,400"
        assert snap["call"] == "2,400" and snap["odds"] == "2.9 : 1" and snap["needs"] == "25.8%"
        assert snap["cards"] == ["Th5s", "KcQh", "9c8c", "AsAd"]
        exact = equity([HOLE3[3], HOLE3[4]], FLOP3, HOLE3[1] + HOLE3[2])  # the muck is dead
        assert snap["equity"] == ["", "", f"{exact.equities[0] * 100:.1f}%", f"{exact.equities[1] * 100:.1f}%"]
        assert snap["has"] == snap["equity"][2]
        assert snap["outsRow"] == "12 true outs" and snap["outsRaw"] == "15 counting the muck"
        assert sorted(snap["dead"]) == ["5s", "Kc", "Th"]
        assert snap["history"][:3] == ["Pre-flop", "Bo Chenraise to 500", "Cy Diazcall 500"]
        assert snap["history"][-2:] == ["Flop7♣6♦2♣", "Di Ekbet 2,400"]

        # No feed message showed a hand's cards before that hand had ended live.
        for arrived, message in frames:
            if any(c != "??" for s in message.get("seats", []) for c in s.get("hole_cards", [])):
                assert arrived > ended[message["hand"]], message["seq"]

        # Hand 3 completes on air; the stats and the hand list take it in.
        await page.wait_for_function("() => document.getElementById('spot-main').textContent === 'Hand 3 complete'",
                                     timeout=10_000, polling=50)
        await page.wait_for_function("() => document.getElementById('stats-note').textContent === '3 hands on air'",
                                     timeout=5_000, polling=50)
        status, stats = await desk.get(f"/api/v1/tables/{show.table}/stats")
        assert status == 200
        by = {p["name"]: p for p in stats["players"]}
        fields = ("hands", "vpip", "pfr", "preflop_decisions", "three_bets", "three_bet_chances", "showdowns", "saw_flop",
                  "won_at_showdown")
        assert {n: tuple(p[f] for f in fields) for n, p in by.items()} == {
            "Ann Lee": (3, 2, 2, 3, 1, 1, 1, 1, 1),
            "Bo Chen": (3, 1, 1, 3, 0, 1, 0, 0, 0),
            "Cy Diaz": (3, 2, 1, 3, 1, 2, 1, 1, 0),
            "Di Ek": (3, 2, 2, 3, 1, 1, 2, 2, 1),
        }
        row = page.locator("#stats tbody tr", has_text="Di Ek")
        assert [await c.inner_text() for c in await row.locator("td.stat b").all()] == ["67", "67", "100", "100", "50"]

        # The hand history: searchable, and a hand opens to its actions.
        await page.fill("#hand-search", "AA")
        await page.wait_for_function("() => [...document.querySelectorAll('#hands .hand-item')].map((e) => e.dataset.hand).join() === '3'",
                                     timeout=5_000, polling=50)
        await page.fill("#hand-search", "qq showdown")
        await page.wait_for_function("() => [...document.querySelectorAll('#hands .hand-item')].map((e) => e.dataset.hand).join() === '1'",
                                     timeout=5_000, polling=50)
        await page.fill("#hand-search", "")
        await page.wait_for_function("() => document.querySelectorAll('#hands .hand-item').length === 3", timeout=5_000, polling=50)
        await page.click("#hands .hand-item[data-hand='2'] .hand-head")
        await page.wait_for_selector("#hands .hand-item[data-hand='2'] .hand-detail:not([data-loading])")
        detail = await page.inner_text("#hands .hand-item[data-hand='2'] .hand-detail")
        assert "Cy Diaz" in detail and "raise to 1,600" in detail

        # The note survives a reload (it is on the server), and nobody else sees it.
        await page.reload()
        await page.wait_for_selector('body[data-feed="up"]')
        await page.click("#note-players [data-player='p-cy']")
        assert await page.input_value("#note-text") == "Flatted the 3-bet last time with a draw. Ask about the Dublin win."
        assert await page.locator("#seats tr[data-seat='3'] .has-note").count() == 1
        status, mine = await desk.get("/api/v1/notes")
        assert status == 200 and mine["notes"]["p-cy"]["text"].startswith("Flatted the 3-bet")
        status, theirs = await desk.get("/api/v1/notes", role="graphics")
        assert status == 200 and theirs["notes"] == {}
    assert errors == []
    await context.close()


async def test_commentary_endpoints_follow_the_matrix(desk_show):
    """Row ``commentary``: graphics, commentator, secure; no token 401; other roles 403."""
    table = desk_show.table
    paths = ["/commentary?table={t}", "/api/v1/tables/{t}/stats", "/api/v1/tables/{t}/hands",
             "/api/v1/tables/{t}/outs?seq=1", "/api/v1/notes"]
    async with aiohttp.ClientSession() as session:
        for path in paths:
            url = desk_show.url + path.format(t=table)
            for role, token in TOKENS.items():
                async with session.get(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                                       allow_redirects=False) as r:
                    allowed = role in ("graphics", "commentator", "secure")
                    assert r.status in ((200, 404) if allowed else (403,)), (path, role, r.status)
            async with session.get(url, headers={"Accept": "application/json"}, allow_redirects=False) as r:
                assert r.status == 401, (path, r.status)
        async with session.put(f"{desk_show.url}/api/v1/notes/p-ann", json={"text": "x"},
                               headers={"Authorization": f"Bearer {TOKENS['dealer']}"}) as r:
            assert r.status == 403
        async with session.put(f"{desk_show.url}/api/v1/notes/nobody", json={"text": "x"},
                               headers={"Authorization": f"Bearer {TOKENS['commentator']}"}) as r:
            assert r.status == 404
