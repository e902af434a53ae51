// The on-air table: first paint from the server's snapshot, then the delayed public feed.
// Only released (delayed) data ever reaches this page; hole cards arrive once their hand
// has ended live. window.tvtable keeps what the page received, for tests and operators.
import { cardEl, chips, follow } from "./cards.js";

const stage = document.getElementById("stage");
const table = stage.dataset.table;
const HISTORY_LIMIT = 5000;
window.tvtable = { views: 0, last: null, history: [] };

let shown = new Set(); // cards on screen after the last render: only new ones turn over
let showing = new Set();

function card(key, code) {
  const k = `${key}:${code}`;
  showing.add(k);
  return cardEl(code, code !== "??" && !shown.has(k) ? "fresh" : "");
}

const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function tagFor(seat, won, handOver) {
  const tag = el("div", "tag");
  const put = (kind, label, amount) => {
    tag.classList.add(kind);
    tag.append(document.createTextNode(label));
    if (amount) tag.append(el("small", "", chips(amount)));
  };
  const a = seat.last_action;
  if (won) put("win", "Wins", won);
  else if (a && a.all_in) put("allin", "All-in", a.amount);
  else if (a && a.action === "raise") put("raise", "Raise", a.amount);
  else if (a && a.action === "bet") put("bet", "Bet", a.amount);
  else if (a && a.action === "call") put("call", "Call", a.amount);
  else if (a && a.action === "check") put("check", "Check");
  else if (a && a.action === "fold") put("fold", "Fold");
  else if (!handOver && seat.bet) put("call", "Blind", seat.bet);
  return tag;
}

function playerRow(view, seat, winners) {
  const over = view.hand_complete;
  const row = el("div", "player");
  row.dataset.seat = seat.seat;
  const folded = (seat.last_action && seat.last_action.action === "fold") || (seat.dealt_in && !seat.in_hand && !over);
  if (folded) row.classList.add("folded");
  if (!over && view.actor === seat.seat) row.classList.add("actor");
  if (winners[seat.seat]) row.classList.add("winner");

  const hole = el("div", "hole");
  if (view.hand !== null && seat.dealt_in) hole.append(...(seat.hole_cards || []).map((c) => card(`seat${seat.seat}`, c)));

  const info = el("div", "info");
  const nameLine = el("div", "name-line");
  if (seat.button && view.hand !== null) nameLine.append(el("span", "dealer", "D"));
  nameLine.append(el("span", "name", seat.name));
  if (seat.country) nameLine.append(el("span", "country", seat.country.toUpperCase()));
  const stackLine = el("div", "stack-line");
  stackLine.append(el("span", "stack", chips(seat.stack)));
  const bb = view.blinds && view.blinds.big_blind;
  if (bb && seat.stack > 0) stackLine.append(el("span", "bb", `${(seat.stack / bb).toFixed(seat.stack / bb >= 100 ? 0 : 1)} BB`));
  info.append(nameLine, stackLine);

  const eq = el("div", "equity");
  const share = !over && !folded && view.equity && view.equity.exact && view.equity.seats ? view.equity.seats[seat.seat] : undefined;
  if (share !== undefined) {
    eq.textContent = `${Math.round(share)}%`;
    const bar = el("span", "eq-bar");
    bar.style.width = `${Math.max(0, Math.min(100, share))}%`;
    row.append(bar);
  }
  row.append(hole, info, eq, tagFor(seat, winners[seat.seat], over || view.hand === null));
  return row;
}

// A long name steps down a size or two instead of being cut.
function fitNames() {
  for (const name of document.querySelectorAll("#rail .name")) {
    name.classList.remove("long", "longer");
    for (const size of ["long", "longer"]) {
      if (name.scrollWidth <= name.clientWidth) break;
      name.classList.add(size);
    }
  }
}

function render(view) {
  if (!view || view.type !== "view") return;
  const t = window.tvtable;
  t.views += 1;
  t.last = view;
  t.history.push({ at: Date.now(), view });
  if (t.history.length > HISTORY_LIMIT) t.history.splice(0, t.history.length - HISTORY_LIMIT);
  stage.classList.remove("empty");
  showing = new Set();

  document.getElementById("hand-no").textContent = view.hand ? `Hand ${view.hand}` : "";
  const b = view.blinds;
  document.getElementById("blinds").textContent = b
    ? `Level ${view.level} · ${chips(b.small_blind)}/${chips(b.big_blind)}${b.ante ? ` · Ante ${chips(b.ante)}` : ""}` : "";

  const winners = {};
  for (const pot of (view.results && view.results.pots) || []) {
    for (const [seat, amount] of Object.entries(pot.winners)) winners[seat] = (winners[seat] || 0) + amount;
  }
  const rail = document.getElementById("rail");
  const seats = view.seats.filter((s) => s.dealt_in || s.stack > 0);
  rail.classList.toggle("dense", seats.length > 7);
  rail.classList.toggle("plo", seats.some((s) => (s.hole_cards || []).length > 2));
  rail.replaceChildren(...seats.map((s) => playerRow(view, s, winners)));
  fitNames();

  const panel = document.getElementById("table-panel");
  panel.hidden = view.hand === null;
  const awarded = ((view.results && view.results.pots) || []).reduce((sum, p) => sum + p.amount, 0);
  document.getElementById("pot").textContent = chips(view.hand_complete ? awarded : view.pot);
  document.getElementById("street").textContent = view.hand_complete ? "Result" : (STREET[view.street] || "");
  const board = document.getElementById("board");
  const cards = view.board.map((c) => card("board", c));
  while (cards.length < 5) cards.push(el("span", "slot"));
  board.replaceChildren(...cards);
  shown = showing;
}

document.fonts.ready.then(fitNames);
const first = JSON.parse(document.getElementById("first-view").textContent);
if (first) render(first);
follow("public", table, render, (up) => { document.body.dataset.feed = up ? "up" : "down"; });
