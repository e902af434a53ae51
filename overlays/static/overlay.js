// The on-air table: first paint from the server, then the delayed public feed.
import { cardEl, chips, flag, follow } from "./cards.js";

const stage = document.getElementById("stage");
const table = stage.dataset.table;
window.tvtable = { views: 0, last: null };

function render(view) {
  if (!view || view.type !== "view") return;
  window.tvtable.views += 1;
  window.tvtable.last = view;
  document.getElementById("pot").textContent = chips(view.pot);
  const board = document.getElementById("board");
  board.replaceChildren(...view.board.map(cardEl));
  const b = view.blinds;
  document.getElementById("blinds").textContent = b
    ? `Level ${view.level} · ${chips(b.small_blind)}/${chips(b.big_blind)} ante ${chips(b.ante)}` : "";
  const winners = {};
  for (const pot of (view.results && view.results.pots) || []) {
    for (const [seat, amount] of Object.entries(pot.winners)) winners[seat] = (winners[seat] || 0) + amount;
  }
  const seats = document.getElementById("seats");
  seats.replaceChildren(...view.seats.filter((s) => s.dealt_in || s.stack > 0).map((s) => {
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = s.seat;
    if (view.actor === s.seat) el.classList.add("actor");
    if (s.dealt_in && !s.in_hand && !view.hand_complete) el.classList.add("folded");
    const bb = b && b.big_blind ? (s.stack / b.big_blind).toFixed(1) : "";
    const name = document.createElement("div");
    name.className = "name";
    name.innerHTML = `<span class="flag"></span><span class="player"></span>`;
    name.querySelector(".flag").textContent = flag(s.country);
    name.querySelector(".player").textContent = s.name + (s.button ? " Ⓓ" : "");
    const hole = document.createElement("div");
    hole.className = "hole";
    hole.replaceChildren(...(s.hole_cards || []).map(cardEl));
    const stack = document.createElement("div");
    stack.innerHTML = `<span class="stack"></span><span class="bb"></span>`;
    stack.querySelector(".stack").textContent = chips(s.stack);
    stack.querySelector(".bb").textContent = bb ? `${bb} BB` : "";
    const act = document.createElement("div");
    act.className = "action";
    if (winners[s.seat]) {
      act.innerHTML = `<span class="won"></span>`;
      act.querySelector(".won").textContent = `wins ${chips(winners[s.seat])}`;
    } else if (s.last_action) {
      const a = s.last_action;
      if (a.all_in) act.classList.add("allin");
      act.textContent = a.all_in ? "all-in" : (["bet", "raise", "call"].includes(a.action) ? `${a.action} ${chips(a.amount)}` : a.action);
    }
    el.append(name, hole, stack, act);
    return el;
  }));
}

const first = JSON.parse(document.getElementById("first-view").textContent);
if (first) render(first);
follow("public", table, render, (up) => { document.getElementById("status").hidden = up; });
