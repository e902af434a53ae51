// /watch: the delayed public view, held back a further watch_delay on the server, drawn
// for a phone. The graphics desk's live controls (hidden cards, names) apply on top, as
// on air. window.tvtable keeps what the page received, for tests.
import { cardEl, chips } from "./cards.js";
import { withControls } from "./extras.js";

const main = document.getElementById("watch");
const table = main.dataset.table;
const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };
window.tvtable = { views: 0, last: null, history: [], control: null };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function actionTag(seat, won, over) {
  const a = seat.last_action;
  if (won) return ["win", `Wins ${chips(won)}`];
  if (a && a.all_in) return ["allin", `All-in ${chips(a.amount)}`];
  if (a && ["bet", "call"].includes(a.action)) return [a.action, `${a.action} ${chips(a.amount)}`];
  if (a && a.action === "raise") return ["raise", `Raise to ${chips(a.amount)}`];
  if (a && ["check", "fold"].includes(a.action)) return [a.action, a.action];
  if (!over && seat.bet) return ["blind", `Blind ${chips(seat.bet)}`];
  return ["", ""];
}

function playerRow(view, seat, winners) {
  const over = view.hand_complete || view.hand === null;
  const row = el("li", "player");
  row.dataset.seat = seat.seat;
  const folded = (seat.last_action && seat.last_action.action === "fold") || (seat.dealt_in && !seat.in_hand && !over);
  row.classList.toggle("folded", !!folded);
  row.classList.toggle("actor", !over && view.actor === seat.seat);
  row.classList.toggle("winner", !!winners[seat.seat]);
  row.classList.toggle("out", !seat.dealt_in && seat.stack <= 0);

  const hole = el("div", "hole");
  const cards = view.hand !== null && seat.dealt_in ? seat.hole_cards || [] : [];
  hole.classList.toggle("plo", cards.length > 2);
  hole.append(...cards.map((c) => cardEl(c)));

  const who = el("div", "who");
  if (seat.button && view.hand !== null) who.append(el("span", "dealer", "D"));
  who.append(el("span", "name", seat.name));
  if (seat.country) who.append(el("span", "country", seat.country.toUpperCase()));

  const stackLine = el("div", "stack-line");
  stackLine.append(el("span", "stack", chips(seat.stack)));
  const bb = view.blinds && view.blinds.big_blind;
  if (bb && seat.stack > 0) stackLine.append(document.createTextNode(` · ${(seat.stack / bb).toFixed(seat.stack / bb >= 100 ? 0 : 1)} BB`));

  const eq = el("div", "eq");
  const share = !over && !folded && view.equity && view.equity.exact && view.equity.seats ? view.equity.seats[seat.seat] : undefined;
  if (share !== undefined) {
    eq.textContent = `${Math.round(share)}%`;
    const bar = el("span", "eq-bar");
    bar.style.width = `${Math.max(0, Math.min(100, share))}%`;
    row.append(bar);
  }
  const [kind, text] = actionTag(seat, winners[seat.seat], over);
  const tag = el("div", `tag ${kind}`.trim(), text);
  row.append(hole, who, eq, stackLine, tag);
  return row;
}

let received = null;

function paint() {
  if (!received) return;
  const view = withControls(received, window.tvtable.control);
  main.classList.remove("empty");
  document.getElementById("waiting").textContent = "";
  document.getElementById("hand-no").textContent = view.hand ? `Hand ${view.hand}` : "Between hands";
  const b = view.blinds;
  document.getElementById("blinds").textContent = b
    ? `${chips(b.small_blind)}/${chips(b.big_blind)}${b.ante ? ` · ante ${chips(b.ante)}` : ""}` : "";
  const board = document.getElementById("board");
  const cards = (view.board || []).map((c) => cardEl(c));
  const slots = view.hand !== null && !view.hand_complete ? Math.max(0, 5 - cards.length) : 0;
  board.replaceChildren(...cards, ...Array.from({ length: slots }, () => el("span", "slot")));
  // Once the hand is over the chips have gone to the winners: show what the pot was.
  const won = ((view.results && view.results.pots) || []).reduce((sum, p) => sum + p.amount, 0);
  document.getElementById("pot").textContent = chips(view.hand_complete && won ? won : view.pot);
  document.getElementById("street").textContent = view.hand !== null && !view.hand_complete ? STREET[view.street] || "" : "";
  const winners = {};
  for (const pot of (view.results && view.results.pots) || []) {
    for (const [seat, amount] of Object.entries(pot.winners)) winners[seat] = (winners[seat] || 0) + amount;
  }
  document.getElementById("players").replaceChildren(...view.seats.map((s) => playerRow(view, s, winners)));
}

function render(view) {
  if (!view || view.type !== "view") return;
  const t = window.tvtable;
  t.views += 1;
  t.last = view;
  t.history.push({ at: Date.now(), view });
  if (t.history.length > 2000) t.history.splice(0, t.history.length - 2000);
  received = view;
  paint();
}

// The graphics desk may add delay (trim): the page waits that much more, never less.
const waiting = [];
function receive(view) {
  const trim = (window.tvtable.control && window.tvtable.control.trim_ms) || 0;
  if (!trim) return render(view);
  waiting.push({ due: Date.now() + trim, view });
}
setInterval(() => {
  while (waiting.length && waiting[0].due <= Date.now()) render(waiting.shift().view);
}, 100);

function socket(path, onMessage, onStatus) {
  let delay = 500;
  function open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}${path}?table=${encodeURIComponent(table)}`);
    ws.onopen = () => { delay = 500; onStatus && onStatus(true); };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = () => {
      onStatus && onStatus(false);
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }
  open();
}

const first = JSON.parse(document.getElementById("first-view").textContent);
if (first) render(first);
socket("/watch/ws", receive, (up) => { document.body.dataset.feed = up ? "up" : "down"; });
socket("/ws/v1/control", (control) => {
  if (!control || control.type !== "control") return;
  if (window.tvtable.control && window.tvtable.control.rev > control.rev) return;
  window.tvtable.control = control;
  paint();
});
