// The dealer console: live feed in, commands out. It shows what is legal, but the
// dealer can always enter what physically happened; the engine rules on it. The live
// feed never carries a hole card, so this page never holds one.
import { actionText, cardEl, chips, follow } from "./cards.js";
import { renderCalled, ticker } from "./tournament.js";

const root = document.getElementById("console");
const table = root.dataset.table;
const canAct = root.dataset.canAct === "yes";
const $ = (id) => document.getElementById(id);
let view = JSON.parse($("first-view").textContent);
let pinnedSeat = null; // a seat the dealer picked by hand; otherwise the seat to act
let counter = 0;

const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };
const BOARD_STREET = { 0: "flop", 3: "turn", 4: "river" };
const CAMERA = { all: "read", some: "partly read", none: "not read" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function seatName(v, seat) {
  const s = v.seats.find((x) => x.seat === seat);
  return s ? s.name : `seat ${seat}`;
}

function winners(v) {
  const won = {};
  for (const pot of (v.results && v.results.pots) || []) {
    for (const [seat, amount] of Object.entries(pot.winners)) won[seat] = (won[seat] || 0) + amount;
  }
  return won;
}

function currentSeat(v) {
  if (pinnedSeat !== null) return pinnedSeat;
  return v.legal ? v.legal.seat : null;
}

function renderBanner(v) {
  const banner = $("banner");
  let kind = "idle", main = "", sub = "";
  if (v.hand === null) {
    main = "Ready to deal";
    sub = "Start hand 1 when the cards are in the air.";
  } else if (v.hand_complete) {
    kind = "done";
    main = `Hand ${v.hand} complete`;
    sub = Object.entries(winners(v)).map(([seat, amount]) => `${seatName(v, Number(seat))} wins ${chips(amount)}`).join(" · ")
      || "Start the next hand when the cards are in the air.";
  } else if (v.frozen) {
    // Hand-for-hand, rule "Called All-In": nothing more happens until the TD releases the hand.
    kind = "hold";
    main = "Called all-in: hold the hand";
    sub = "Hand-for-hand: hands stay face down, no board, until the TD releases it.";
  } else if (v.legal && (v.halt || []).includes(v.legal.seat)) {
    kind = "hold";
    main = `HALT PLAY · Seat ${v.legal.seat} · ${seatName(v, v.legal.seat)}`;
    sub = "Hold the action: the cards were not shown to the camera. Enter what happens anyway.";
  } else if (v.legal) {
    kind = "turn";
    const l = v.legal;
    main = `Seat ${l.seat} · ${seatName(v, l.seat)} to act`;
    const parts = [];
    if (l.call) parts.push(`${chips(l.call)} to call`); else parts.push("may check");
    const range = l.raise || l.bet;
    if (range) parts.push(`${l.raise ? "raise to" : "bet"} ${chips(range[0])} – ${chips(range[1])}`);
    else if (l.call) parts.push("no raise possible");
    sub = parts.join(" · ");
  } else if (v.needs_board) {
    kind = "deal";
    main = `Deal the ${BOARD_STREET[v.board.length] || "board"}`;
    sub = `${v.needs_board} card${v.needs_board > 1 ? "s" : ""}, then enter ${v.needs_board > 1 ? "them" : "it"} under Cards.`;
  } else if (v.awaiting_cards && v.awaiting_cards.length) {
    kind = "deal";
    main = "Showdown: enter the tabled cards";
    sub = `Seat ${v.awaiting_cards.join(", ")}`;
  } else {
    main = `Hand ${v.hand}`;
  }
  banner.className = `banner ${kind}`;
  $("banner-main").textContent = main;
  $("banner-sub").textContent = sub;
}

// The called clock counts down from the server's reading (Redis TIME) in the view, plus the
// time since it arrived on this PC's monotonic clock: never from the PC's wall clock.
const tickClock = ticker((v, elapsed) => renderCalled(v.hand_complete ? null : v.called_clock, elapsed));
let clockView = null; // the view the clock counts from: a re-render of the same view must not restart it

function renderFacts(v) {
  $("hand").textContent = v.hand ?? "–";
  $("street").textContent = v.hand === null ? "–" : v.hand_complete ? "Complete" : (STREET[v.street] || "–");
  $("level").textContent = v.level;
  const b = v.blinds;
  $("blinds").textContent = b ? `${chips(b.small_blind)}/${chips(b.big_blind)}${b.ante ? ` · ante ${chips(b.ante)}` : ""}` : "";
  $("pot").textContent = chips(v.pot);
  const board = $("board");
  const cards = v.board.map((c) => cardEl(c, "mini"));
  while (cards.length < 5) cards.push(el("span", "card mini slot"));
  board.replaceChildren(...cards);
}

function renderSeats(v) {
  const won = winners(v);
  const picked = currentSeat(v);
  $("seats").querySelector("tbody").replaceChildren(...v.seats.map((s) => {
    const tr = el("tr");
    tr.dataset.seat = s.seat;
    const folded = s.last_action && s.last_action.action === "fold";
    if (!v.hand_complete && v.actor === s.seat) tr.classList.add("actor");
    if (folded || (s.dealt_in && !s.in_hand && !v.hand_complete)) tr.classList.add("folded");
    if (!s.dealt_in && v.hand !== null) tr.classList.add("sitting-out");
    if (won[s.seat]) tr.classList.add("winner");
    if (canAct && picked === s.seat) tr.classList.add("picked");

    const seatCell = el("td", "num seat-no");
    seatCell.append(el("span", "n", s.seat));
    if (s.button && v.hand !== null) seatCell.append(el("span", "dealer", "D"));
    const player = el("td", "player");
    player.append(el("span", "name", s.name));
    if (s.country) player.append(el("span", "country", s.country.toUpperCase()));
    const stack = el("td", "num stack", chips(s.stack));
    const bet = el("td", "num bet", s.bet ? chips(s.bet) : "");
    const last = el("td", "last");
    if (won[s.seat]) last.append(el("span", "badge win", `wins ${chips(won[s.seat])}`));
    else if (s.last_action) last.append(el("span", `badge ${s.last_action.all_in ? "allin" : s.last_action.action}`, actionText(s.last_action)));
    else if (!s.dealt_in && !s.stack) last.append(el("span", "badge fold", "out"));
    const camera = el("td", "camera");
    if (s.dealt_in) {
      const lights = el("span", `lights ${s.cards_seen || "none"}`);
      lights.append(...(s.hole_cards || []).map(() => cardEl("??", "mini")));
      camera.append(lights, el("span", "camera-label", CAMERA[s.cards_seen] || ""));
    }
    tr.append(seatCell, player, stack, bet, last, camera);
    if (canAct) tr.addEventListener("click", () => pickSeat(s.seat));
    return tr;
  }));
}

function renderRulings(v) {
  const list = v.rulings || [];
  $("rulings").hidden = list.length === 0;
  $("rulings-list").replaceChildren(...list.map((r) => {
    const li = el("li", r.flagged ? "flagged" : "");
    li.append(el("strong", "", `Seat ${r.seat} · ${r.rule}`), el("span", "", r.note));
    return li;
  }));
}

function renderControls(v) {
  const legal = v.legal;
  const seat = currentSeat(v);
  const dealt = v.seats.filter((s) => s.dealt_in && v.hand !== null && !v.hand_complete);
  $("seat-picker").replaceChildren(...dealt.map((s) => {
    const b = el("button", "seat-btn");
    b.type = "button";
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(seat === s.seat));
    b.dataset.seat = s.seat;
    if (legal && legal.seat === s.seat) b.classList.add("to-act");
    if (!s.in_hand) b.classList.add("out");
    b.append(el("span", "n", s.seat), el("span", "who", s.name.split(" ")[0]));
    b.addEventListener("click", () => pickSeat(s.seat));
    return b;
  }));
  const ooT = $("out-of-turn");
  const off = legal && seat !== null && seat !== legal.seat;
  ooT.closest("label").classList.toggle("attention", Boolean(off));
  if (!off) ooT.checked = false;

  const mine = legal && legal.seat === seat;
  $("call-amount").textContent = mine && legal.call ? chips(legal.call) : "";
  $("allin-amount").textContent = mine && legal.allin ? chips(legal.allin) : "";
  const range = mine ? (legal.raise || legal.bet) : null;
  $("range").textContent = !legal ? "\u00a0" : range
    ? `Legal: ${legal.raise ? "raise to" : "bet"} ${chips(range[0])} – ${chips(range[1])}`
    : mine ? "Legal: no raise possible (call or fold)" : `Seat ${legal.seat} is to act`;
  $("amount").placeholder = range ? chips(range[0]) : "chips";

  // Suggest, never restrict: what is legal is lit; every button still sends.
  const on = {
    fold: mine && legal.fold, check: mine && legal.check, call: mine && Boolean(legal.call),
    bet: mine && Boolean(legal.bet), raise: mine && Boolean(legal.raise), allin: mine,
    // A hand-for-hand all-in frozen for the TD: nothing is lit until it is released.
    board: !v.frozen && v.needs_board > 0, four_card_flop: !v.frozen && v.needs_board === 3,
    hole_cards: !v.frozen && (v.awaiting_cards || []).length > 0,
    start_hand: v.hand === null || v.hand_complete, undo: v.hand !== null && !v.hand_complete,
  };
  for (const btn of document.querySelectorAll("button[data-cmd]")) {
    btn.classList.toggle("legal", Boolean(on[btn.dataset.cmd]));
  }
  $("board-btn").textContent = v.needs_board ? `Deal ${BOARD_STREET[v.board.length] || "board"}` : "Deal board";
  $("board-cards").placeholder = v.needs_board === 3 ? "Flop, e.g. Ah Kd 7c" : v.needs_board ? `${BOARD_STREET[v.board.length] === "turn" ? "Turn" : "River"}, e.g. 9s` : "Board, e.g. Ah Kd 7c";

  const show = $("show-seat");
  const wanted = show.value;
  const waiting = v.awaiting_cards || [];
  const seats = v.seats.filter((s) => s.dealt_in);
  show.replaceChildren(...seats.map((s) => {
    const o = el("option", "", `Seat ${s.seat}${waiting.includes(s.seat) ? " · showing" : ""}`);
    o.value = s.seat;
    return o;
  }));
  if (waiting.length && !waiting.includes(Number(wanted))) show.value = String(waiting[0]);
  else if (wanted) show.value = wanted;
}

function render(v) {
  if (!v || v.type !== "view") return;
  const turnChanged = !view || !v.legal || !view.legal || view.legal.seat !== v.legal.seat || view.hand !== v.hand;
  if (turnChanged && v.seq !== view.seq) pinnedSeat = null;
  view = v;
  renderBanner(v);
  renderFacts(v);
  if (v !== clockView) { clockView = v; tickClock(v); }
  renderSeats(v);
  renderRulings(v);
  if (canAct) renderControls(v);
}

function pickSeat(seat) {
  pinnedSeat = view.legal && view.legal.seat === seat ? null : seat;
  render(view);
}

// "Ah Kd 7c", "AhKd7c", "ah,kd", "10h" -> ["Ah", "Kd", "7c"]
function cardsFrom(text) {
  const compact = text.replace(/10/g, "T").replace(/[^0-9a-zA-Z?]/g, "");
  return compact.match(/.{1,2}/g) || [];
}

// "1,200", "1200", "1.2k", "12k" -> 1200 / 12000; anything else goes to the engine as typed.
function amountFrom(text) {
  const t = text.trim().toLowerCase().replace(/[,\s]/g, "");
  if (!t) return undefined;
  const m = t.match(/^(\d+(?:\.\d+)?)(k|m)?$/);
  if (!m) return t;
  return Math.round(Number(m[1]) * (m[2] === "k" ? 1000 : m[2] === "m" ? 1000000 : 1));
}

function describe(body) {
  const who = body.seat ? `Seat ${body.seat} ` : "";
  switch (body.type) {
    case "start_hand": return "Start hand";
    case "undo": return "Undo last action";
    case "board": return `Board ${body.cards.join(" ")}`;
    case "hole_cards": return `Seat ${body.seat} tabled cards`;
    case "chips": return `${who}pushed ${body.chips.map(chips).join(" + ")}${body.declared ? ` (“${body.declared}”)` : ""}`;
    case "misdeal": return "Misdeal";
    case "hidden_chips": return `Seat ${body.seat} hidden chips ${chips(body.amount || 0)}`;
    case "winner": return `Seat ${body.seat} wins (cards unread)`;
    case "refuse_to_show": return `Seat ${body.seat} refuses to show: 5-second countdown`;
    case "away": return `Seat ${body.seat} away at the deal`;
    case "four_card_flop": return `Four-card flop ${body.cards.join(" ")}`;
    case "hold_for_review": return `Hold seat ${(body.seats || []).join(", ")} for review`;
    case "raise": return `${who}raise to ${body.amount !== undefined ? chips(body.amount) : "?"}`;
    case "bet": return `${who}bet ${body.amount !== undefined ? chips(body.amount) : "?"}`;
    default: return `${who}${body.type === "allin" ? "all-in" : body.type}${body.out_of_turn ? " (out of turn)" : ""}`;
  }
}

function log(text, ok, detail) {
  const li = el("li", ok ? "ok" : "error");
  li.append(el("time", "", new Date().toLocaleTimeString("en-GB")), el("span", "what", text));
  if (detail) li.append(el("span", "detail", detail));
  const list = $("log");
  list.querySelector(".empty")?.remove();
  list.prepend(li);
  while (list.children.length > 12) list.lastChild.remove();
}

function say(text, ok, retry) {
  const msg = $("message");
  msg.className = `message ${ok ? "ok" : "error"}`;
  msg.replaceChildren(el("span", "", text));
  if (retry) {
    const b = el("button", "secondary small", retry.label);
    b.type = "button";
    b.addEventListener("click", retry.run);
    msg.append(b);
  }
}

function build(cmd) {
  const body = { type: cmd };
  if (["fold", "check", "call", "bet", "raise", "allin"].includes(cmd)) {
    const seat = currentSeat(view);
    if (seat !== null) body.seat = seat;
    if (cmd === "bet" || cmd === "raise") {
      const amount = amountFrom($("amount").value);
      if (amount !== undefined) body.amount = amount;
    }
    if ($("out-of-turn").checked) body.out_of_turn = true;
  }
  if (cmd === "chips") {
    const seat = currentSeat(view);
    if (seat !== null) body.seat = seat;
    body.chips = $("chips-pushed").value.split(/[\s,+]+/).filter(Boolean).map((x) => amountFrom(x));
    if ($("chips-declared").value) body.declared = $("chips-declared").value;
  }
  if (cmd === "board") body.cards = cardsFrom($("board-cards").value);
  if (cmd === "hole_cards") {
    body.seat = Number($("show-seat").value);
    body.cards = cardsFrom($("show-cards").value);
  }
  if (cmd === "undo" && $("reason").value.trim()) body.reason = $("reason").value.trim();
  if (cmd === "misdeal") body.reason = $("reason").value.trim();
  if (cmd === "hidden_chips") {
    const seat = currentSeat(view);
    if (seat !== null) body.seat = seat;
    body.amount = amountFrom($("hidden-amount").value);
  }
  if (cmd === "refuse_to_show" || cmd === "winner") body.seat = Number($("show-seat").value);
  if (cmd === "away") {
    const seat = currentSeat(view);
    if (seat !== null) body.seat = seat;
  }
  if (cmd === "four_card_flop") {
    body.cards = cardsFrom($("four-cards").value);
    const burn = cardsFrom($("four-burn").value);
    if (burn.length) body.burn = burn[0];
  }
  if (cmd === "hold_for_review") {
    body.seats = $("review-seats").value.split(/[\s,]+/).filter(Boolean).map(Number);
    body.reason = $("reason").value.trim() || "held for the floor's review";
  }
  return body;
}

async function send(body) {
  body.id = `console-${Date.now()}-${counter++}`;
  const what = describe(body);
  let res, data;
  try {
    res = await fetch(`/api/v1/tables/${encodeURIComponent(table)}/commands`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin",
    });
    data = await res.json();
  } catch (err) {
    say("The server did not answer: the command may not be recorded. Check the table before entering it again.", false);
    log(what, false, "no answer");
    return;
  }
  if (res.ok) {
    say(`Recorded: ${what.charAt(0).toLowerCase()}${what.slice(1)}`, true);
    log(what, true);
    for (const id of ["amount", "board-cards", "show-cards", "chips-pushed", "reason"]) $(id).value = "";
    $("out-of-turn").checked = false;
    pinnedSeat = null;
    render(view);
    return;
  }
  const message = ((data && data.message) || `refused (${res.status})`) + (data && data.rule ? ` (rule: ${data.rule})` : "");
  const retry = data && data.error === "not_your_turn" && body.seat && !body.out_of_turn
    ? { label: `Record as out of turn`, run: () => { const again = { ...body, out_of_turn: true }; delete again.id; send(again); } }
    : null;
  say(message, false, retry);
  log(what, false, message);
}

function setSize(kind) {
  const l = view.legal;
  const range = l && (l.raise || l.bet);
  if (!range) return;
  let value = range[0];
  if (kind === "max") value = range[1];
  if (kind === "pot") {
    const top = Math.max(0, ...view.seats.map((s) => s.bet || 0));
    value = l.raise ? top + view.pot + (l.call || 0) : view.pot;
  }
  $("amount").value = chips(Math.min(range[1], Math.max(range[0], value)));
}

render(view);
if (canAct) {
  for (const btn of document.querySelectorAll("button[data-cmd]")) btn.addEventListener("click", () => send(build(btn.dataset.cmd)));
  for (const btn of document.querySelectorAll("button[data-size]")) btn.addEventListener("click", () => setSize(btn.dataset.size));
  const enter = { "amount": () => send(build(view.legal && view.legal.bet ? "bet" : "raise")), "board-cards": () => send(build("board")),
    "show-cards": () => send(build("hole_cards")), "chips-pushed": () => send(build("chips")) };
  for (const [id, run] of Object.entries(enter)) {
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); run(); } });
  }
}
follow("live", table, render, (up) => {
  document.body.dataset.feed = up ? "up" : "down";
  document.querySelector("#feed-state .label").textContent = up ? "Live" : "Reconnecting…";
});
