// The extra on-air graphics (leaderboard, payout ladder, elimination, deal, lower third,
// slates) and the graphics desk's controls applied to the page. The data is the delayed
// public view; the controls arrive live. Shared by the on-air page and the desk's preview.
import { chips } from "./cards.js";

// Before the first control message: the table graphics are up, the extras wait.
export const DEFAULT_CONTROL = {
  type: "control", rev: -1, hide_all: false, hidden_cards: [], lower_third: null, slate: null, trim_ms: 0, refresh: {},
  visible: { player_bars: true, board: true, pot: true, clock: true, leaderboard: false, payouts: false,
             elimination: false, deal: false, lower_third: false, slate: false },
};

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The view as the air shows it: the hidden seats' cards as ?? (the same rule as the
// server's onair data). Names and chip counts the desk corrected come in the view itself.
export function withControls(view, control) {
  const hidden = new Set(((control || DEFAULT_CONTROL).hidden_cards) || []);
  const seats = view.seats.map((s) => (hidden.has(s.seat) ? { ...s, hole_cards: (s.hole_cards || []).map(() => "??") } : s));
  return { ...view, seats };
}

export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
}

function places(p) {
  return p.first === p.last ? ordinal(p.first) : `${ordinal(p.first)}–${ordinal(p.last)}`;
}

export function leaderboardRows(view) {
  const seats = view.seats.filter((s) => s.stack > 0);
  const fieldChips = (view.tournament && view.tournament.chips_in_play) || 0;
  const total = fieldChips || seats.reduce((sum, s) => sum + s.stack, 0);
  return seats.slice().sort((a, b) => b.stack - a.stack || a.seat - b.seat)
    .map((s, i) => ({ rank: i + 1, name: s.name, stack: s.stack, percent: total ? (100 * s.stack) / total : 0 }));
}

function leaderboard(view) {
  const rows = leaderboardRows(view).slice(0, 10);
  $("leaderboard").hidden = !rows.length;
  $("lb-rows").replaceChildren(...rows.map((r) => {
    const li = el("li");
    li.append(el("span", "rank", String(r.rank)), el("span", "who", r.name), el("span", "amount", chips(r.stack)),
      el("span", "pct", `${r.percent.toFixed(r.percent >= 10 ? 1 : 2)}%`));
    return li;
  }));
}

function payouts(view) {
  const t = view.tournament || {};
  const left = t.players_left || 0;
  let rows = (t.payouts || []).slice().sort((a, b) => a.first - b.first);
  if (left) rows = rows.filter((p) => p.first <= left);
  rows = rows.slice(-8); // the pay jumps nearest the next elimination
  $("payouts").hidden = !rows.length;
  const items = rows.map((p) => {
    const li = el("li");
    if (left && p.first <= left && left <= p.last) li.classList.add("next");
    li.append(el("span", "who", places(p)), el("span", "amount", chips(p.amount)));
    return li;
  });
  $("pay-rows").replaceChildren(...items);
  const foot = $("payouts").querySelector(".field") || el("span", "field");
  foot.textContent = left ? `${chips(left)} left${t.entries ? ` of ${chips(t.entries)}` : ""}${t.prize_pool ? ` · prize pool ${chips(t.prize_pool)}` : ""}` : "";
  if (!foot.parentNode) $("payouts").append(foot);
}

function elimination(view) {
  const list = (view.tournament && view.tournament.eliminated) || [];
  const e = list[list.length - 1];
  $("elimination").hidden = !e;
  if (!e) return;
  $("elim-name").textContent = e.name;
  // A tie (hand-for-hand, or equal stacks) says so; a disqualification has no place.
  $("elim-place").textContent = e.place ? `${ordinal(e.place)} place${e.tied > 1 ? " (tied)" : ""}` : "Disqualified";
  $("elim-prize").textContent = e.prize ? chips(e.prize) : "";
  $("elim-by").textContent = e.eliminated_by && e.eliminated_by.length ? `Eliminated by ${e.eliminated_by.join(" & ")}` : "";
}

function deal(view) {
  const list = (view.tournament && view.tournament.deals) || [];
  const d = list[list.length - 1];
  $("deal").hidden = !d;
  if (!d) return;
  $("deal-text").textContent = d.text;
  $("deal-rows").replaceChildren(...(d.payouts || []).map((p) => {
    const li = el("li");
    li.append(el("span", "who", p.name), el("span", "amount", chips(p.amount)));
    return li;
  }));
}

function lowerThird(control) {
  const lt = control && control.lower_third;
  $("lower-third").hidden = !lt;
  if (!lt) return;
  $("lt-title").textContent = lt.title;
  $("lt-text").textContent = lt.text || "";
}

export function renderExtras(view) {
  leaderboard(view);
  payouts(view);
  elimination(view);
  deal(view);
  placeLowerThird();
}

// The lower third sits just above the player bars when they are up.
function placeLowerThird() {
  const rail = $("rail");
  const up = rail && !rail.classList.contains("off") && rail.offsetHeight > 0;
  $("lower-third").style.bottom = up ? `calc(var(--safe-y) + ${rail.offsetHeight + 16}px)` : "";
}

// Show or hide each element: the desk's toggles, unless this page's playout picked its
// own graphic(s); the panic "hide all" and a played-out page hide everything.
export function controlled(control, local) {
  const c = control || DEFAULT_CONTROL;
  const shown = (name) => (local.only ? local.only.has(name) : !!(c.visible || {})[name]);
  for (const node of document.querySelectorAll("[data-el]")) {
    let on = shown(node.dataset.el);
    if (node.dataset.slate) on = on && c.slate === node.dataset.slate;
    node.classList.toggle("off", !on);
  }
  $("table-panel").classList.toggle("off", !shown("pot") && !shown("board"));
  document.body.classList.toggle("hide-all", !!c.hide_all);
  document.body.classList.toggle("played-out", !local.playing);
  document.body.classList.toggle("break-up", shown("slate") && c.slate === "break");
  lowerThird(c);
  placeLowerThird();
}
