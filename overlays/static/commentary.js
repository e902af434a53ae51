// The commentary desk. Everything here is delayed: the page follows the commentary feed
// and asks the server only about the released stream (stats, finished hands, outs). A hole
// card appears only when the feed carries it, i.e. once the releaser put it on air.
import { cardEl, cardText, chips, follow } from "./cards.js";

const root = document.getElementById("commentary");
const table = root.dataset.table;
const $ = (id) => document.getElementById(id);
const boot = JSON.parse($("boot").textContent);
const api = (path) => `/api/v1/tables/${encodeURIComponent(table)}${path}`;

let view = boot.view;
let stats = boot.stats;
let hands = boot.hands;
let notes = boot.notes || {};
let rawOuts = { seq: null, outs: null }; // outs counting the muck, for the view at seq
let notePlayer = null;
let openHand = null;

const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function pctText(p, digits = 1) {
  return p === null || p === undefined ? "–" : `${Number(p).toFixed(digits)}%`;
}

function seatOf(v, seat) {
  return v.seats.find((s) => s.seat === Number(seat));
}

function nameOf(v, seat) {
  const s = seatOf(v, seat);
  return s ? s.name : `Seat ${seat}`;
}

function winners(v) {
  const won = {};
  for (const pot of (v.results && v.results.pots) || []) {
    for (const [seat, amount] of Object.entries(pot.winners)) won[seat] = (won[seat] || 0) + amount;
  }
  return won;
}

function known(cards) {
  return (cards || []).length > 0 && cards.every((c) => c && c !== "??");
}

// -- what the actor faces ------------------------------------------------------------------
export function facing(v) {
  if (!v || v.hand === null || v.hand_complete || v.actor === null || v.actor === undefined) return null;
  const s = seatOf(v, v.actor);
  if (!s) return null;
  const top = Math.max(0, ...v.seats.map((x) => x.bet || 0));
  const toCall = Math.min(top - (s.bet || 0), s.stack);
  if (toCall <= 0) return { seat: s.seat, name: s.name, toCall: 0 };
  const pot = v.pot; // every chip in the middle, bets in front included
  return { seat: s.seat, name: s.name, toCall, pot, odds: pot / toCall, needs: (100 * toCall) / (pot + toCall) };
}

function equityOf(v, seat) {
  const e = v && v.equity;
  if (!e || !e.exact || !e.seats) return null;
  const x = e.seats[String(seat)];
  return x === undefined ? null : x;
}

// -- render: hand strip, spotlight, seats ---------------------------------------------------
function renderStrip(v) {
  $("hand").textContent = v && v.hand !== null ? v.hand : "–";
  $("street").textContent = !v || v.hand === null ? "–" : v.hand_complete ? "Complete" : (STREET[v.street] || "–");
  $("level").textContent = v ? v.level : "–";
  const b = v && v.blinds;
  $("blinds").textContent = b ? `${chips(b.small_blind)}/${chips(b.big_blind)}${b.ante ? ` · ante ${chips(b.ante)}` : ""}` : "";
  const won = v ? Object.values(winners(v)).reduce((a, x) => a + x, 0) : 0;
  $("pot").textContent = chips(v && v.hand_complete ? won : v ? v.pot : 0);
  const pots = (v && v.pots) || [];
  $("side-pots").textContent = pots.length > 1 ? pots.map((p, i) => `${i ? `side ${i}` : "main"} ${chips(p.amount)}`).join(" · ") : "";
  const cards = ((v && v.board) || []).map((c) => cardEl(c, "big"));
  while (cards.length < 5) cards.push(el("span", "card big slot"));
  $("board").replaceChildren(...cards);
}

function renderSpotlight(v) {
  const spot = $("spotlight");
  let kind = "idle", main = "", sub = "";
  const odds = $("pot-odds");
  odds.hidden = true;
  if (!v) {
    main = "Nothing on air yet";
    sub = "The desk fills in as the delayed feed releases the table.";
  } else if (v.hand === null) {
    main = "Between hands";
    sub = "Waiting for the next deal to air.";
  } else if (v.hand_complete) {
    kind = "done";
    const won = winners(v);
    main = `Hand ${v.hand} complete`;
    sub = Object.entries(won).map(([seat, amount]) => `${nameOf(v, seat)} wins ${chips(amount)}`).join(" · ");
  } else {
    const f = facing(v);
    if (f && f.toCall > 0) {
      kind = "turn";
      main = `${f.name} faces ${chips(f.toCall)}`;
      sub = `Seat ${f.seat} to act · ${chips(f.toCall)} to call into a pot of ${chips(f.pot)}`;
      odds.hidden = false;
      $("po-call").textContent = chips(f.toCall);
      $("po-odds").textContent = `${f.odds.toFixed(1)} : 1`;
      $("po-needs").textContent = pctText(f.needs);
      const eq = equityOf(v, f.seat);
      const verdict = odds.querySelector(".verdict");
      verdict.classList.remove("good", "short");
      if (eq === null) {
        $("po-has").textContent = "–";
        verdict.title = "equity shows once every live hand is known";
      } else {
        $("po-has").textContent = pctText(eq);
        verdict.classList.add(eq >= f.needs ? "good" : "short");
        verdict.title = eq >= f.needs ? "the price is right: equity covers the call" : "short of the price";
      }
    } else if (f) {
      kind = "turn";
      main = `${f.name} to act`;
      sub = `Seat ${f.seat} · may check`;
    } else {
      main = `Hand ${v.hand} · ${STREET[v.street] || ""}`;
      const live = v.seats.filter((s) => s.in_hand);
      sub = v.equity && v.equity.exact ? "Every live hand is known: the board runs out." : `${live.length} players in the hand`;
    }
  }
  spot.className = `spotlight ${kind}`;
  $("spot-main").textContent = main;
  $("spot-sub").textContent = sub;
}

function outsFor(v, seat) {
  const trueOuts = v && v.equity && v.equity.outs ? v.equity.outs[String(seat)] : undefined;
  if (trueOuts === undefined) return null;
  const raw = rawOuts.seq === v.seq && rawOuts.outs ? rawOuts.outs[String(seat)] : null;
  const all = raw || trueOuts;
  return { trueOuts, all, mucked: all.filter((c) => !trueOuts.includes(c)) };
}

function renderSeats(v) {
  const won = v ? winners(v) : {};
  const f = v ? facing(v) : null;
  const rows = (v ? v.seats : []).map((s) => {
    const tr = el("tr");
    tr.dataset.seat = s.seat;
    const folded = s.last_action && s.last_action.action === "fold";
    if (v.hand !== null && !v.hand_complete && v.actor === s.seat) tr.classList.add("actor");
    if (folded || (s.dealt_in && !s.in_hand && !v.hand_complete)) tr.classList.add("folded");
    if (!s.dealt_in && v.hand !== null) tr.classList.add("sitting-out");
    if (won[s.seat]) tr.classList.add("winner");

    const seatCell = el("td", "num seat-no");
    seatCell.append(el("span", "n", s.seat));
    if (s.button && v.hand !== null) seatCell.append(el("span", "dealer", "D"));

    const player = el("td", "player");
    const nameBtn = el("button", "name-btn", s.name);
    nameBtn.type = "button";
    nameBtn.title = "Notes on this player";
    nameBtn.addEventListener("click", () => pickNote(s.player));
    player.append(nameBtn);
    if (s.country) player.append(el("span", "country", s.country.toUpperCase()));
    if (notes[s.player]) player.append(el("span", "has-note", "note"));

    const cards = el("td", "hole");
    if (s.dealt_in) {
      const wrap = el("span", "hole-cards");
      wrap.append(...(s.hole_cards || []).map((c) => cardEl(c, "mid")));
      cards.append(wrap);
    }

    const eqCell = el("td", "equity");
    const eq = equityOf(v, s.seat);
    if (eq !== null && !v.hand_complete) {
      const best = Math.max(...Object.values(v.equity.seats));
      const bar = el("span", `eq-bar${eq === best ? " lead" : ""}`);
      const fill = el("span", "fill");
      fill.style.width = `${Math.max(1.5, eq)}%`;
      bar.append(fill);
      eqCell.append(bar, el("span", "eq-num", pctText(eq)));
    } else if (v.equity && v.equity.exact === false && s.in_hand && !v.hand_complete) {
      eqCell.append(el("span", "eq-none", "no exact figure"));
      eqCell.title = v.equity.note || "";
    } else {
      eqCell.append(el("span", "eq-none", s.dealt_in && s.in_hand && !v.hand_complete ? "–" : ""));
    }

    const outsCell = el("td", "num outs-n");
    const o = !v.hand_complete && s.in_hand ? outsFor(v, s.seat) : null;
    if (o && o.trueOuts.length) {
      outsCell.append(el("b", "", o.all.length));
      if (o.mucked.length) outsCell.append(el("span", "true", ` · ${o.trueOuts.length} true`));
    } else if (o) {
      outsCell.append(el("span", "ahead", eq !== null ? "ahead" : ""));
    }

    const stack = el("td", "num stack");
    stack.append(el("span", "", chips(s.stack)));
    const bb = v.blinds && v.blinds.big_blind;
    if (bb) stack.append(el("span", "bb", `${(s.stack / bb).toFixed(1)} bb`));
    const bet = el("td", "num bet", s.bet ? chips(s.bet) : "");
    const last = el("td", "last");
    if (won[s.seat]) last.append(el("span", "badge win", `wins ${chips(won[s.seat])}`));
    else if (f && f.seat === s.seat && f.toCall > 0) last.append(el("span", "badge facing", `faces ${chips(f.toCall)}`));
    else if (s.last_action) {
      const a = s.last_action;
      last.append(el("span", `badge ${a.all_in ? "allin" : a.action}`, a.all_in ? `all-in ${chips(a.amount)}` : actionWord(a)));
    }
    else if (!s.dealt_in && !s.stack) last.append(el("span", "badge fold", "out"));
    tr.append(seatCell, player, cards, eqCell, outsCell, stack, bet, last);
    return tr;
  });
  $("seats").classList.toggle("plo", Boolean(v && v.game === "plo"));
  $("seats").querySelector("tbody").replaceChildren(...rows);
}

function actionWord(a) {
  if (a.all_in) return a.action === "call" ? `call, all-in ${chips(a.amount)}` : `all-in ${chips(a.amount)}`;
  if (a.action === "raise") return `raise to ${chips(a.amount)}`;
  if (a.action === "bet" || a.action === "call") return `${a.action} ${chips(a.amount)}`;
  return a.action;
}

// -- outs and muck ------------------------------------------------------------------------------
function renderOuts(v) {
  const box = $("outs");
  const muck = $("muck");
  const live = v && v.hand !== null && !v.hand_complete ? v.seats.filter((s) => s.in_hand) : [];
  const items = [];
  for (const s of live) {
    const o = outsFor(v, s.seat);
    if (!o || !o.trueOuts.length) continue;
    const li = el("div", "outs-row");
    const head = el("div", "outs-head");
    head.append(el("span", "who", s.name), el("span", "count", `${o.trueOuts.length} true out${o.trueOuts.length === 1 ? "" : "s"}`));
    if (o.mucked.length) head.append(el("span", "raw", `${o.all.length} counting the muck`));
    const cards = el("div", "outs-cards");
    cards.append(...o.all.map((c) => {
      const card = cardEl(c, "mini");
      if (o.mucked.includes(c)) { card.classList.add("dead"); card.title = "in the muck: cannot come"; }
      return card;
    }));
    li.append(head, cards);
    items.push(li);
  }
  if (items.length) box.replaceChildren(...items);
  else {
    let text = "Outs show on the flop and turn once every live hand is known.";
    if (v && v.equity && v.equity.exact && live.length && (v.board.length === 3 || v.board.length === 4)) text = "Nobody is behind on this board.";
    box.replaceChildren(el("p", "empty", text));
  }
  // Known mucked cards: dead for the equity and the true outs.
  const dead = v && v.hand !== null ? v.seats.filter((s) => s.dealt_in && !s.in_hand && !v.hand_complete && known(s.hole_cards)) : [];
  muck.hidden = dead.length === 0;
  if (dead.length) {
    const row = [el("span", "k", "In the muck")];
    for (const s of dead) {
      const g = el("span", "muck-hand");
      g.append(el("span", "who", s.name.split(" ")[0]), ...s.hole_cards.map((c) => cardEl(c, "mini")));
      row.push(g);
    }
    muck.replaceChildren(...row);
  }
}

async function loadRawOuts(v) {
  if (!v || !v.equity || !v.equity.outs || rawOuts.seq === v.seq) return;
  const seq = v.seq;
  try {
    const res = await fetch(api(`/outs?seq=${seq}`), { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const data = await res.json();
    rawOuts = { seq, outs: data.outs };
    if (view && view.seq === seq) { renderSeats(view); renderOuts(view); }
  } catch { /* keep the true outs on screen */ }
}

// -- history ----------------------------------------------------------------------------------
function historyItems(entries, seats, named) {
  const items = [];
  let street = null;
  const open = (name, cards) => {
    const li = el("li", "street");
    li.append(el("span", "street-name", STREET[name] || name));
    if (cards) li.append(...cards.map((c) => cardEl(c, "mini")));
    items.push(li);
  };
  for (const e of entries) {
    if (e.cards && e.street && !e.action) { open(e.street, e.cards); street = e.street; continue; }
    if (street === null) { open("preflop"); street = "preflop"; }
    const li = el("li", `act ${e.all_in ? "allin" : e.action}`);
    li.append(el("span", "who", named(e.seat)), el("span", "what", actionWord(e)));
    items.push(li);
  }
  return items;
}

function renderHistory(v) {
  const list = $("history");
  const entries = (v && v.history) || [];
  $("history-hand").textContent = v && v.hand !== null ? `hand ${v.hand}` : "";
  if (!entries.length) { list.replaceChildren(el("li", "empty", v && v.hand !== null ? "Blinds and antes posted. No action yet." : "No action yet.")); return; }
  list.replaceChildren(...historyItems(entries, v.seats, (seat) => nameOf(v, seat)));
  list.scrollTop = list.scrollHeight;
}

// -- stats --------------------------------------------------------------------------------------
function statCell(p, count, chances) {
  const td = el("td", "num stat");
  if (p === null || p === undefined) { td.append(el("span", "none", "–")); td.title = "no chance yet"; return td; }
  td.append(el("b", "", `${Math.round(p)}`), el("span", "pc", "%"));
  td.title = `${count} of ${chances}`;
  td.append(el("span", "frac", `${count}/${chances}`));
  return td;
}

function renderStats() {
  const hands = stats ? stats.hands : 0;
  $("stats-note").textContent = `${hands} hand${hands === 1 ? "" : "s"} on air`;
  // A chip-count leaderboard: most chips first.
  const rows = ((stats && stats.players) || []).slice().sort((a, b) => a.rank - b.rank).map((p) => {
    const tr = el("tr");
    tr.dataset.player = p.player;
    const who = el("td", "player");
    const btn = el("button", "name-btn", p.name);
    btn.type = "button";
    btn.addEventListener("click", () => pickNote(p.player));
    who.append(el("span", "rank", p.rank), btn);
    const chipsCell = el("td", "num chips");
    chipsCell.append(el("b", "", chips(p.chips)));
    if (p.big_blinds !== null && p.big_blinds !== undefined) chipsCell.append(el("span", "sub", `${Math.round(p.big_blinds)} bb · ${p.share_pct}%`));
    tr.append(who, chipsCell, el("td", "num hands-n", p.hands),
      statCell(p.vpip_pct, p.vpip, p.preflop_decisions), statCell(p.pfr_pct, p.pfr, p.preflop_decisions),
      statCell(p.three_bet_pct, p.three_bets, p.three_bet_chances), statCell(p.wtsd_pct, p.showdowns, p.saw_flop),
      statCell(p.wsd_pct, p.won_at_showdown, p.showdowns));
    return tr;
  });
  $("stats").querySelector("tbody").replaceChildren(...rows);
}

async function refreshStats() {
  try {
    const [s, h] = await Promise.all([
      fetch(api("/stats"), { headers: { Accept: "application/json" } }),
      fetch(api(`/hands?q=${encodeURIComponent($("hand-search").value)}`), { headers: { Accept: "application/json" } }),
    ]);
    if (s.ok) { stats = await s.json(); renderStats(); renderNotePlayers(); }
    if (h.ok) { hands = await h.json(); renderHands(); }
  } catch { /* the last figures stay up */ }
}

// -- hand history -------------------------------------------------------------------------------
function handLine(h) {
  const byseat = Object.fromEntries(h.players.map((p) => [p.seat, p]));
  const li = el("li", "hand-item");
  li.dataset.hand = h.hand;
  const head = el("button", "hand-head");
  head.type = "button";
  head.setAttribute("aria-expanded", String(openHand === h.hand));
  const win = h.winners.map((s) => byseat[s].name).join(", ");
  head.append(el("span", "no", `#${h.hand}`), el("span", "res", `${win} wins ${chips(h.pot)}`));
  if (h.showdown) head.append(el("span", "tag sd", "showdown"));
  const board = el("span", "hand-board");
  board.append(...h.board.map((c) => cardEl(c, "micro")));
  head.append(board);
  const who = el("div", "hand-players");
  for (const p of h.players.filter((p) => !p.folded || p.won || p.vpip)) {
    const g = el("span", `hp${p.won ? " won" : ""}${p.folded ? " folded" : ""}`);
    g.append(el("span", "nm", p.name.split(" ")[0]));
    if (known(p.cards)) {
      const cd = el("span", "cd");
      cd.append(...p.cards.map((c) => el("span", `tc ${c[1]}`, cardText(c))));
      g.append(cd);
    }
    who.append(g);
  }
  head.addEventListener("click", () => toggleHand(h.hand));
  li.append(head, who);
  if (openHand === h.hand) {
    const detail = el("ol", "history hand-detail");
    detail.dataset.loading = "yes";
    li.append(detail);
    fetch(api(`/hands/${h.hand}`), { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((full) => {
        if (!full) return;
        const names = Object.fromEntries(full.players.map((p) => [p.seat, p.name]));
        detail.replaceChildren(...historyItems(full.actions, full.players, (seat) => names[seat] || `Seat ${seat}`));
        delete detail.dataset.loading;
      })
      .catch(() => {});
  }
  return li;
}

function renderHands() {
  const list = $("hands");
  const data = hands || { hands: [], total: 0, matched: 0 };
  const q = $("hand-search").value.trim();
  $("hands-note").textContent = q ? `${data.matched} of ${data.total}` : `${data.total} finished`;
  if (!data.hands.length) {
    list.replaceChildren(el("li", "empty", q ? "No finished hand matches." : "Finished hands appear here once they have aired."));
    return;
  }
  list.replaceChildren(...data.hands.map(handLine));
}

function toggleHand(n) {
  openHand = openHand === n ? null : n;
  renderHands();
}

let searchTimer = null;
$("hand-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = $("hand-search").value;
    try {
      const res = await fetch(api(`/hands?q=${encodeURIComponent(q)}`), { headers: { Accept: "application/json" } });
      if (res.ok && q === $("hand-search").value) { hands = await res.json(); renderHands(); }
    } catch { /* keep the list */ }
  }, 150);
});

// -- notes ----------------------------------------------------------------------------------------
function players() {
  if (stats && stats.players && stats.players.length) return stats.players.map((p) => ({ id: p.player, name: p.name }));
  return view ? view.seats.map((s) => ({ id: s.player, name: s.name })) : [];
}

function renderNotePlayers() {
  const list = players();
  if (notePlayer === null && list.length) notePlayer = list[0].id;
  $("note-players").replaceChildren(...list.map((p) => {
    const b = el("button", "note-player", p.name.split(" ")[0]);
    b.type = "button";
    b.setAttribute("role", "tab");
    b.dataset.player = p.id;
    b.setAttribute("aria-selected", String(p.id === notePlayer));
    if (notes[p.id]) b.classList.add("has");
    b.title = p.name;
    b.addEventListener("click", () => pickNote(p.id));
    return b;
  }));
}

let dirty = false;
function pickNote(player) {
  if (dirty) saveNote();
  notePlayer = player;
  const note = notes[player];
  $("note-text").value = note ? note.text : "";
  const p = players().find((x) => x.id === player);
  $("note-text").placeholder = p ? `Notes on ${p.name}: reads, history, stories to tell…` : "";
  $("note-status").textContent = note ? `Saved ${new Date(note.updated).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" })}` : "";
  dirty = false;
  renderNotePlayers();
}

async function saveNote() {
  if (notePlayer === null) return;
  const player = notePlayer;
  const text = $("note-text").value;
  dirty = false;
  $("note-status").textContent = "Saving…";
  try {
    const res = await fetch(`/api/v1/notes/${encodeURIComponent(player)}`, {
      method: "PUT", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ text }),
    });
    const data = await res.json();
    if (!res.ok) { $("note-status").textContent = data.message || "Not saved"; dirty = player === notePlayer; return; }
    if (data.note) notes[player] = data.note; else delete notes[player];
    if (player === notePlayer && !dirty) $("note-status").textContent = data.note ? "Saved" : "Cleared";
    renderNotePlayers();
    if (view) renderSeats(view);
  } catch {
    dirty = player === notePlayer;
    $("note-status").textContent = "Not saved: the server did not answer";
  }
}

$("note-text").addEventListener("input", () => { dirty = true; $("note-status").textContent = "Unsaved"; });
$("note-text").addEventListener("blur", () => { if (dirty) saveNote(); });
$("note-save").addEventListener("click", saveNote);
$("note-text").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); saveNote(); } });

// -- the feed -------------------------------------------------------------------------------------
function render(v) {
  renderStrip(v);
  renderSpotlight(v);
  renderSeats(v || { seats: [], hand: null });
  renderOuts(v);
  renderHistory(v);
}

let lastKey = null;
function onView(v) {
  if (!v || v.type !== "view") return;
  const before = view;
  view = v;
  render(v);
  loadRawOuts(v);
  // A finished hand (or a new one) changes the stats, the chips and the hand list.
  const key = `${v.hand}:${v.hand_complete}`;
  if (key !== lastKey && (v.hand_complete || (before && before.hand !== v.hand))) refreshStats();
  lastKey = key;
}

render(view);
renderStats();
renderHands();
pickNote(players().length ? players()[0].id : null);
if (view) { lastKey = `${view.hand}:${view.hand_complete}`; loadRawOuts(view); }
follow("commentary", table, onView, (up) => {
  document.body.dataset.feed = up ? "up" : "down";
  document.querySelector("#feed-state .label").textContent = up ? "Connected" : "Reconnecting…";
});
