// The on-air table: first paint from the server's snapshot, then the delayed public feed,
// with the graphics desk's live controls (control feed) applied on top at once.
// Only released (delayed) data ever reaches this page; hole cards arrive once their hand
// has ended live. window.tvtable keeps what the page received, for tests and operators.
// Playout: OBS (starts by itself), CasparCG (play/stop/next/update) and SPX-GC
// (SPXGCTemplateDefinition, runTemplateUpdate, runAnimationIN/OUT): see playout.js.
import { cardEl, chips, follow } from "./cards.js";
import { controlled, renderExtras, withControls } from "./extras.js";
import { setupPlayout } from "./playout.js";
import { startClocks } from "./clock.js";

const stage = document.getElementById("stage");
const table = stage.dataset.table;
const HISTORY_LIMIT = 5000;
const params = new URLSearchParams(location.search);
window.tvtable = { views: 0, last: null, history: [], control: null };

// A skin folder's stylesheet (?skin=NAME -> /static/skins/NAME.css) overrides the CSS variables.
const skin = params.get("skin");
if (skin && /^[a-z0-9-]{1,40}$/.test(skin)) {
  document.head.append(Object.assign(document.createElement("link"), { rel: "stylesheet", href: `/static/skins/${skin}.css` }));
}

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
  if (seat.playing_blind && !over && (seat.hole_cards || []).every((c) => c === "??")) {
    hole.classList.add("blind");
    hole.append(el("span", "blind-label", "Playing blind"));
  }

  const info = el("div", "info");
  const nameLine = el("div", "name-line");
  if (seat.button && view.hand !== null) nameLine.append(el("span", "dealer", "D"));
  nameLine.append(el("span", "name", seat.name));
  if (seat.country) nameLine.append(el("span", "country", seat.country.toUpperCase()));
  const stackLine = el("div", "stack-line");
  stackLine.append(el("span", "stack", chips(seat.stack)));
  const bb = view.blinds && view.blinds.big_blind;
  if (bb && seat.stack > 0) stackLine.append(el("span", "bb", `${(seat.stack / bb).toFixed(seat.stack / bb >= 100 ? 0 : 1)} BB`));
  // The sponsor badge: the server sends one only while the player's branding complies.
  if (seat.sponsor) stackLine.append(el("span", "sponsor", seat.sponsor));
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

let received = null; // the latest delayed view, before the desk's overrides

function render(raw) {
  if (!raw || raw.type !== "view") return;
  const t = window.tvtable;
  t.views += 1;
  t.last = raw;
  t.history.push({ at: Date.now(), view: raw });
  if (t.history.length > HISTORY_LIMIT) t.history.splice(0, t.history.length - HISTORY_LIMIT);
  received = raw;
  paint();
}

// Draw the latest view with the desk's overrides (hidden cards, names, counted chips).
function paint() {
  if (!received) return;
  const view = withControls(received, window.tvtable.control);
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
  renderExtras(view);
}

// The operator's delay trim: each view waits trim_ms more before it airs (never less).
const waiting = [];
let timer = null;
function receive(view) {
  const trim = (window.tvtable.control && window.tvtable.control.trim_ms) || 0;
  if (!trim && !waiting.length) return render(view);
  waiting.push({ due: Date.now() + trim, view });
  drain();
}
function drain() {
  clearTimeout(timer);
  while (waiting.length && waiting[0].due <= Date.now()) render(waiting.shift().view);
  if (waiting.length) timer = setTimeout(drain, Math.max(10, waiting[0].due - Date.now()));
}

const playout = setupPlayout({ params, apply: () => applyControl() });

function applyControl() {
  controlled(window.tvtable.control, playout.local);
  paint();
}

function onControl(control) {
  if (!control || control.type !== "control") return;
  const previous = window.tvtable.control;
  if (previous && previous.rev > control.rev && !params.has("preview")) return; // an old revision
  window.tvtable.control = control;
  if (previous && previous.trim_ms > (control.trim_ms || 0)) {
    for (const w of waiting) w.due = Math.min(w.due, Date.now() + (control.trim_ms || 0));
  }
  drain();
  playout.refreshCheck(control);
  applyControl();
}

document.fonts.ready.then(fitNames);
const first = JSON.parse(document.getElementById("first-view").textContent);
applyControl();
if (first) render(first);
follow("public", table, receive, (up) => { document.body.dataset.feed = up ? "up" : "down"; });
playout.followControl(table, onControl);
startClocks({ table, view: () => received, trim: () => (window.tvtable.control && window.tvtable.control.trim_ms) || 0 });
