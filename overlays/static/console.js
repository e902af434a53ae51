// The dealer console: live feed in, commands out. It shows what is legal, but the
// dealer can always enter what physically happened; the engine rules on it.
import { chips, follow } from "./cards.js";

const root = document.getElementById("console");
const table = root.dataset.table;
const canAct = root.dataset.canAct === "yes";
let view = JSON.parse(document.getElementById("first-view").textContent);
let counter = 0;

function render(v) {
  if (!v || v.type !== "view") return;
  view = v;
  document.getElementById("hand").textContent = v.hand ?? "–";
  document.getElementById("level").textContent = v.level;
  const b = v.blinds;
  document.getElementById("blinds").textContent = b ? `${chips(b.small_blind)}/${chips(b.big_blind)} ante ${chips(b.ante)}` : "";
  document.getElementById("pot").textContent = chips(v.pot);
  document.getElementById("board").textContent = v.board.join(" ") || "–";
  const turn = document.getElementById("turn");
  if (v.legal) turn.textContent = `Action on seat ${v.legal.seat}`;
  else if (v.needs_board) turn.textContent = `Deal the ${v.board.length ? (v.board.length === 3 ? "turn" : "river") : "flop"}`;
  else if (v.awaiting_cards.length) turn.textContent = `Showdown: enter the tabled cards of seat ${v.awaiting_cards.join(", ")}`;
  else turn.textContent = v.hand_complete || v.hand === null ? "Between hands" : "";
  const body = document.querySelector("#seats tbody");
  body.replaceChildren(...v.seats.map((s) => {
    const tr = document.createElement("tr");
    if (v.actor === s.seat) tr.classList.add("actor");
    if (s.dealt_in && !s.in_hand) tr.classList.add("folded");
    const a = s.last_action;
    const cells = [
      s.seat + (s.button ? " Ⓓ" : ""), s.name, chips(s.stack), s.bet ? chips(s.bet) : "",
      a ? (a.all_in ? "all-in " + chips(a.amount) : `${a.action}${a.amount && a.action !== "fold" && a.action !== "check" ? " " + chips(a.amount) : ""}`) : "",
    ];
    for (const text of cells) { const td = document.createElement("td"); td.textContent = text; tr.append(td); }
    const light = document.createElement("td");
    if (s.dealt_in) light.innerHTML = `<span class="light ${s.cards_seen}"></span>${s.cards_seen}`;
    tr.append(light);
    return tr;
  }));
  if (!canAct) return;
  const legal = v.legal;
  if (legal) {
    document.getElementById("act-seat").value = legal.seat;
    document.getElementById("call-amount").textContent = legal.call ? chips(legal.call) : "";
    const range = legal.raise || legal.bet;
    document.getElementById("range").textContent = range ? `${legal.raise ? "raise to" : "bet"} ${chips(range[0])} – ${chips(range[1])}` : "no raise possible";
    if (range && !document.getElementById("amount").value) document.getElementById("amount").placeholder = range[0];
  } else {
    document.getElementById("range").textContent = "";
    document.getElementById("call-amount").textContent = "";
  }
  // Suggest, never restrict: what is legal is highlighted; anything can be entered.
  for (const btn of document.querySelectorAll("button[data-cmd]")) {
    const c = btn.dataset.cmd;
    const on = (c === "start_hand" && (v.hand === null || v.hand_complete)) || (c === "board" && v.needs_board > 0) ||
      (c === "hole_cards" && v.awaiting_cards.length > 0) || (legal && ((c === "fold" && legal.fold) || (c === "check" && legal.check) ||
      (c === "call" && legal.call) || (c === "raise" && legal.raise) || (c === "bet" && legal.bet) || c === "allin"));
    btn.classList.toggle("suggested", Boolean(on));
  }
}

function cardsFrom(text) {
  return text.replace(/[,\s]+/g, "").match(/.{1,2}/g) || [];
}

async function send(cmd) {
  const body = { type: cmd, id: `console-${Date.now()}-${counter++}` };
  const seat = Number(document.getElementById("act-seat").value);
  if (["fold", "check", "call", "bet", "raise", "allin"].includes(cmd)) body.seat = seat;
  if (cmd === "bet" || cmd === "raise") body.amount = Number(document.getElementById("amount").value || document.getElementById("amount").placeholder);
  if (cmd === "board") body.cards = cardsFrom(document.getElementById("board-cards").value);
  if (cmd === "hole_cards") {
    body.seat = Number(document.getElementById("show-seat").value);
    body.cards = cardsFrom(document.getElementById("show-cards").value);
  }
  const msg = document.getElementById("message");
  try {
    const res = await fetch(`/api/v1/tables/${encodeURIComponent(table)}/commands`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin",
    });
    const data = await res.json();
    msg.className = res.ok ? "ok" : "error";
    msg.textContent = res.ok ? `${cmd.replace("_", " ")} recorded` : data.message;
    if (res.ok) { document.getElementById("amount").value = ""; document.getElementById("board-cards").value = ""; }
  } catch (err) {
    msg.className = "error";
    msg.textContent = "the server did not answer; the command may not be recorded. Check the table before re-entering.";
  }
}

render(view);
if (canAct) {
  for (const btn of document.querySelectorAll("button[data-cmd]")) btn.addEventListener("click", () => send(btn.dataset.cmd));
}
follow("live", table, render);
