"""The on-air table in a real browser: hole cards appear only once their hand has ended
live and the delay has passed; names and stacks follow the socket without a reload; an
action undone within the delay never reaches the page. Saves docs/overlay-table.png."""

from __future__ import annotations

import json
import time

import pytest

from tests.browser.conftest import DOCS

pytestmark = pytest.mark.browser

DELAY_MS = 2000
HOLE = {1: ["Qc", "Qd"], 2: ["As", "Kd"], 3: ["7h", "7s"], 4: ["Jc", "Tc"]}

# Runs before any page script: records, with the page's clock, every card and every
# action tag that is ever put into a player bar, so nothing that flashed by is missed.
WATCH = """
window.__seen = { cards: [], tags: [] };
new MutationObserver((records) => {
  const at = Date.now();
  for (const r of records) for (const node of r.addedNodes) {
    if (node.nodeType !== 1) continue;
    const rows = node.matches('.player') ? [node] : [...node.querySelectorAll('.player')];
    for (const row of rows) {
      for (const c of row.querySelectorAll('[data-card]')) window.__seen.cards.push({ at, seat: Number(row.dataset.seat), card: c.dataset.card });
      const tag = row.querySelector('.tag');
      if (tag && tag.textContent) window.__seen.tags.push({ at, seat: Number(row.dataset.seat), text: tag.textContent });
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


class FeedGate:
    """Stands between the page and the server's public feed (Playwright's WebSocket route).

    Everything the server sends still reaches the page, in order and never earlier; ``hold``
    keeps views after a seq back until ``open``, so the test can look at a released state for
    as long as it needs, however slow the machine, without racing the next street's release."""

    def __init__(self) -> None:
        self.limit: int | None = None
        self.held: list[tuple[object, str | bytes]] = []
        self.passed = 0  # messages that went through (proves the page's feed runs through the gate)

    async def install(self, page) -> None:
        await page.route_web_socket("**/ws/v1/public?**", self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: self._offer(ws, message))

    def _offer(self, ws, message: str | bytes) -> None:
        seq = json.loads(message).get("seq")
        if self.limit is not None and (self.held or (isinstance(seq, int) and seq > self.limit)):
            self.held.append((ws, message))
        else:
            self.passed += 1
            ws.send(message)

    def hold(self, after_seq: int) -> None:
        """Views of later seqs wait at the gate."""
        self.limit = after_seq

    def open(self) -> None:
        self.limit = None
        held, self.held = self.held, []
        for ws, message in held:
            self.passed += 1
            ws.send(message)


async def wait_for_view(page, condition: str, timeout: float = 10_000):
    """Wait until the page's latest view satisfies ``condition`` (a JS expression on ``v``)."""
    await page.wait_for_function(f"(() => {{ const v = window.tvtable && window.tvtable.last; return !!v && ({condition}); }})()",
                                 timeout=timeout, polling=50)


async def hole_cards_in_dom(page) -> dict[int, list[str]]:
    return await page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.player')].map(
        (row) => [row.dataset.seat, [...row.querySelectorAll('.hole [data-card]')].map((c) => c.dataset.card)]))""")


async def test_on_air_table_reveals_hole_cards_only_after_the_hand_and_the_delay(show, dealer, browser):
    page = await browser.new_page(viewport={"width": 1920, "height": 1080})
    navigations, loads = [], []
    page.on("framenavigated", lambda frame: frame == page.main_frame and navigations.append(frame.url))
    page.on("load", lambda _: loads.append(time.time()))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.add_init_script(WATCH)
    gate = FeedGate()
    await gate.install(page)
    await page.goto(f"{show.url}/overlay/table?table={show.table}")
    await page.wait_for_function("window.tvtable !== undefined")

    # Transparent on-air page at 1920x1080.
    assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert await page.evaluate("[document.getElementById('stage').offsetWidth, document.getElementById('stage').offsetHeight]") == [1920, 1080]

    # Pre-flop. The dealer mis-keys Di's raise (1,200 instead of 800) and undoes it at
    # once, well within the delay.
    await dealer.send({"type": "start_hand", "button": 1})
    for seat, cards in HOLE.items():
        await dealer.send({"type": "hole_cards", "seat": seat, "cards": cards})
    mistake = await dealer.act("raise", 4, amount=1200)
    undone_seq = mistake["seqs"][0]
    await dealer.send({"type": "undo", "reason": "mis-key"})
    await dealer.act("raise", 4, amount=800)

    # Di's raise airs after the delay while the hand is live: every hole card is hidden,
    # and names and stacks have followed the socket.
    await wait_for_view(page, "v.hand === 1 && v.seats[3].last_action && v.seats[3].last_action.action === 'raise'")
    assert await hole_cards_in_dom(page) == {"1": ["??", "??"], "2": ["??", "??"], "3": ["??", "??"], "4": ["??", "??"]}
    rail = await page.inner_text("#rail")
    for name in ("ANN LEE", "BO CHEN", "CY DIAZ", "DI EK"):
        assert name in rail.upper()
    stacks = await page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('.player')].map((r) => [r.dataset.seat, r.querySelector('.stack').textContent]))")
    assert stacks == {"1": "20,000", "2": "29,900", "3": "24,600", "4": "39,200"}
    assert await page.inner_text("#pot") == "1,300"
    assert await page.inner_text('.player[data-seat="4"] .tag') == "RAISE\n800"

    # Ann folds, Bo and Cy call. On the flop Bo moves all in, Cy calls all in, Di folds.
    # The dealer runs the board out at once, so the hand ends live well before Di's fold
    # has aired (D = 2 s): the all-in airs with the cards up and the equities. The gate
    # keeps the turn and the river back until the test has looked at the all-in.
    await dealer.act("fold", 1)
    await dealer.act("call", 2)
    await dealer.act("call", 3)
    await dealer.board("Qs", "Jd", "4c")
    await dealer.act("allin", 2)
    await dealer.act("call", 3)
    all_in_seq = (await dealer.act("fold", 4))["seqs"][-1]
    gate.hold(after_seq=all_in_seq)
    await dealer.send({"type": "board", "cards": ["2h"]})
    ended_after = time.time() * 1000  # the river ends the hand live
    await dealer.send({"type": "board", "cards": ["3d"]})
    live = await dealer.live()
    assert live["hand_complete"] is True and live["seq"] > all_in_seq

    await wait_for_view(page, f"v.seq === {all_in_seq} && v.seats[2].hole_cards[0] === '7h'")
    view = await page.evaluate("window.tvtable.last")
    assert view["board"] == ["Qs", "Jd", "4c"] and view["seats"][3]["last_action"]["action"] == "fold"
    assert not view["hand_complete"]
    await page.wait_for_selector('.player[data-seat="3"] [data-card="7h"]', timeout=5_000)
    equities = await page.eval_on_selector_all(".player .equity", "els => els.map((e) => e.textContent)")
    assert equities[1].endswith("%") and equities[2].endswith("%") and equities[0] == equities[3] == ""
    assert int(equities[1][:-1]) + int(equities[2][:-1]) in (99, 100, 101)
    DOCS.mkdir(exist_ok=True)
    await page.screenshot(path=str(DOCS / "overlay-table.png"), omit_background=True, animations="disabled")
    assert gate.passed >= 5, "the page's public feed did not run through the gate"
    gate.open()

    # The result airs after the delay: the winner and everybody's cards.
    await wait_for_view(page, "v.hand === 1 && v.hand_complete")
    assert await hole_cards_in_dom(page) == {str(s): c for s, c in HOLE.items()}
    assert await page.get_attribute('.player[data-seat="3"]', "class") == "player winner"
    assert await page.inner_text('.player[data-seat="3"] .tag') == "WINS\n50,600"
    assert await page.inner_text("#pot") == "50,600"
    faces = await page.eval_on_selector_all(
        "#board [data-card]", "els => els.map((e) => e.dataset.card + ' ' + e.querySelector('.rank').textContent + e.querySelector('.suit').textContent)")
    assert faces == ["Qs Q\u2660", "Jd J\u2666", "4c 4\u2663", "2h 2\u2665", "3d 3\u2666"]

    history = await page.evaluate("window.tvtable.history")
    seen = await page.evaluate("window.__seen")

    # Never early: every view arrived at least D after its event; no hole card was ever
    # received or drawn before the hand ended live.
    assert len(history) >= 8
    for entry in history:
        view = entry["view"]
        assert entry["at"] >= view["ts"] + DELAY_MS - 50, (entry["at"] - view["ts"], view["seq"])
        for seat in view["seats"]:
            if any(c != "??" for c in seat["hole_cards"]):
                assert entry["at"] >= ended_after, ("hole card received before the hand ended live", view["seq"])
    revealed = [c for c in seen["cards"] if c["card"] != "??"]
    assert revealed, "the hole cards were never drawn"
    assert min(c["at"] for c in revealed) >= ended_after

    # The undone raise never aired: no view of its sequence, no raise to 1,200 in any view
    # or on screen.
    assert all(entry["view"]["seq"] != undone_seq for entry in history)
    for entry in history:
        for seat in entry["view"]["seats"]:
            assert not (seat["last_action"] and seat["last_action"]["amount"] == 1200), entry["view"]["seq"]
    assert [t["text"] for t in seen["tags"] if t["seat"] == 4 and "Raise" in t["text"]]
    assert not [t for t in seen["tags"] if "1,200" in t["text"]]

    assert errors == []
    # One page load: everything above came over the socket.
    assert len(navigations) == 1 and len(loads) == 1
    assert await page.evaluate("performance.getEntriesByType('navigation').length") == 1

