// The graphics desk: live controls on the control feed, a preview of the next state, the
// open on-air pages, hotkeys and audited overrides. It holds no game data of its own: the
// monitors are the on-air page itself (delayed).
import { follow } from "./cards.js";

const boot = JSON.parse(document.getElementById("boot").textContent);
const table = boot.table;
const $ = (id) => document.getElementById(id);
const api = (path) => `/api/v1/tables/${encodeURIComponent(table)}${path}`;
const desk = { control: null, pending: [], pages: [] };
window.tvgraphics = desk;

function toast(message, bad = true) {
  const t = $("toast");
  t.textContent = message;
  t.classList.toggle("bad", bad);
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

async function post(body, query = "") {
  const res = await fetch(api(`/graphics${query}`), {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({ message: `the server answered ${res.status}` }));
  if (!res.ok) throw new Error(answer.field ? `${answer.field}: ${answer.message}` : answer.message);
  return answer;
}

// Live, unless "preview first" is armed: then the change waits in the preview until take.
async function send(command, { always = false } = {}) {
  try {
    if ($("arm").checked && !always) {
      const next = [...desk.pending, command];
      const answer = await post({ type: "take", commands: next }, "?preview=1"); // checked before it is queued
      desk.pending = next;
      showPreview(answer.control);
      drawPending();
      return;
    }
    await post(command);
  } catch (err) {
    toast(err.message);
  }
}

function showPreview(control) {
  $("preview").contentWindow.postMessage({ type: "tvtable-preview", control }, location.origin);
  $("preview-note").textContent = desk.pending.length ? `${desk.pending.length} change(s) waiting for take` : "same as program";
}

function describe(c) {
  const bits = [c.type.replace(/_/g, " ")];
  for (const k of ["element", "seat", "slate", "title", "seconds"]) if (c[k] !== undefined && c[k] !== null && c[k] !== "") bits.push(String(c[k]).replace(/_/g, " "));
  return bits.join(" ");
}

function drawPending() {
  $("pending").replaceChildren(...desk.pending.map((c) => Object.assign(document.createElement("li"), { textContent: describe(c) })));
  $("take").disabled = $("clear-pending").disabled = !desk.pending.length;
}

async function take() {
  if (!desk.pending.length) return;
  const commands = desk.pending;
  desk.pending = [];
  drawPending();
  try {
    await post({ type: "take", commands });
  } catch (err) {
    desk.pending = commands;
    drawPending();
    toast(err.message);
  }
}

function clearPending() {
  desk.pending = [];
  drawPending();
  if (desk.control) showPreview(desk.control);
}

// -- the control feed: what is on air now -------------------------------------------------
function onControl(c) {
  if (!c || c.type !== "control") return;
  desk.control = c;
  for (const b of document.querySelectorAll(".toggle")) b.setAttribute("aria-pressed", String(!!c.visible[b.dataset.element]));
  for (const b of document.querySelectorAll(".seat-toggle")) {
    b.setAttribute("aria-pressed", String((c.hidden_cards || []).includes(Number(b.dataset.seat))));
  }
  for (const b of document.querySelectorAll(".slate-btn")) b.setAttribute("aria-pressed", String((c.slate || "") === b.dataset.slate));
  document.body.classList.toggle("panic-on", !!c.hide_all);
  if (document.activeElement !== $("trim")) $("trim").value = (c.trim_ms || 0) / 1000;
  $("last-change").textContent = c.rev > 0 ? `Change ${c.rev}${c.by ? ` by ${c.by}` : ""}${c.hide_all ? " · ALL HIDDEN" : ""}` : "No change yet";
  if (!desk.pending.length) showPreview(c);
}

// -- open on-air pages ------------------------------------------------------------------
async function pollPages() {
  try {
    const res = await fetch(api("/graphics"), { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const { pages } = await res.json();
    desk.pages = pages;
    const rows = pages.map((p) => {
      const tr = document.createElement("tr");
      tr.dataset.page = p.id;
      const since = new Date(p.since).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
      for (const text of [p.page, p.url, since]) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
      const btn = Object.assign(document.createElement("button"), { className: "small refresh", textContent: "Refresh" });
      btn.addEventListener("click", () => send({ type: "refresh", page: p.id }, { always: true }));
      const td = document.createElement("td");
      td.append(btn);
      tr.append(td);
      return tr;
    });
    if (!rows.length) rows.push(Object.assign(document.createElement("tr"), { className: "none", innerHTML: '<td colspan="4">No on-air page is open.</td>' }));
    $("pages").replaceChildren(...rows);
  } catch (_) { /* the next poll tries again */ }
}

// -- controls ---------------------------------------------------------------------------
function toggle(element) {
  const on = desk.control && desk.control.visible[element];
  send({ type: on ? "hide" : "show", element });
}
function toggleSeat(seat) {
  const hidden = desk.control && (desk.control.hidden_cards || []).includes(seat);
  send({ type: hidden ? "show_cards" : "hide_cards", seat });
}

for (const b of document.querySelectorAll(".toggle")) b.addEventListener("click", () => toggle(b.dataset.element));
for (const b of document.querySelectorAll(".seat-toggle")) b.addEventListener("click", () => toggleSeat(Number(b.dataset.seat)));
for (const b of document.querySelectorAll(".slate-btn")) b.addEventListener("click", () => send({ type: "slate", slate: b.dataset.slate || null }));
$("panic").addEventListener("click", () => send({ type: "hide_all" }, { always: true })); // panic never waits for a take
$("restore").addEventListener("click", () => send({ type: "restore" }, { always: true }));
$("take").addEventListener("click", take);
$("clear-pending").addEventListener("click", clearPending);
$("arm").addEventListener("change", () => { if (!$("arm").checked) clearPending(); });
$("refresh-all").addEventListener("click", () => send({ type: "refresh", page: "all" }, { always: true }));
$("trim-set").addEventListener("click", () => send({ type: "trim", seconds: Number($("trim").value) }));

const players = Object.fromEntries(boot.players.map((p) => [p.id, p]));
$("lt-player").addEventListener("change", () => {
  const p = players[$("lt-player").value];
  $("lt-title").value = p ? p.name : "";
  $("lt-text").value = p ? p.bio : "";
});
$("lt-up").addEventListener("click", () => send({ type: "lower_third", player: $("lt-player").value, title: $("lt-title").value, text: $("lt-text").value }));
$("lt-down").addEventListener("click", () => send({ type: "clear_lower_third" }));

// Overrides are correcting events in the journal (engine commands, audited with the person):
// between hands only, and on air after the delay like every other fact.
async function correct(command) {
  const res = await fetch(api("/commands"), {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(command),
  });
  const answer = await res.json().catch(() => ({ message: `the server answered ${res.status}` }));
  if (!res.ok) throw new Error(answer.field ? `${answer.field}: ${answer.message}` : answer.message);
}

for (const row of document.querySelectorAll("tr[data-player]")) {
  row.querySelector(".ov-apply").addEventListener("click", async () => {
    const player = row.dataset.player;
    const name = row.querySelector(".ov-name").value.trim();
    const chipsText = row.querySelector(".ov-chips").value.trim();
    if (!name && !chipsText) return toast("type a name on air or a chip count first");
    try {
      if (name) await correct({ type: "display_name", player, name });
      if (chipsText) await correct({ type: "chip_count", player, stack: Number(chipsText), reason: $("ov-reason").value.trim() || "chip count at the break" });
      row.querySelector(".ov-name").value = "";
      row.querySelector(".ov-chips").value = "";
      toast(`${players[player].name}: corrected in the journal; on air after the delay`, false);
    } catch (err) {
      toast(err.message);
    }
  });
}

// Hotkeys: digits toggle elements, Shift+digit hides a seat's cards, Esc panics,
// Enter takes, P arms the preview, L takes the lower third down. Not while typing.
const byKey = Object.fromEntries(boot.elements.map((e) => [e.key, e.id]));
document.addEventListener("keydown", (ev) => {
  if (ev.target.closest("input, textarea, select") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const digit = ev.code.startsWith("Digit") ? ev.code.slice(5) : null;
  if (ev.key === "Escape") send({ type: desk.control && desk.control.hide_all ? "restore" : "hide_all" }, { always: true });
  else if (digit && ev.shiftKey) toggleSeat(digit === "0" ? 10 : Number(digit));
  else if (digit && byKey[digit]) toggle(byKey[digit]);
  else if (ev.key === "Enter") take();
  else if (ev.key.toLowerCase() === "p") { $("arm").checked = !$("arm").checked; $("arm").dispatchEvent(new Event("change")); }
  else if (ev.key.toLowerCase() === "l") send({ type: "clear_lower_third" });
  else return;
  ev.preventDefault();
});

$("preview").addEventListener("load", () => { if (desk.control) showPreview(desk.control); });
follow("control", table, onControl, (up) => {
  document.body.dataset.feed = up ? "up" : "down";
  $("feed-state").querySelector(".label").textContent = up ? "Live controls" : "Reconnecting…";
});
pollPages();
setInterval(pollPages, 2000);

// The monitors show the 1920x1080 page scaled to their width.
const scaler = new ResizeObserver((entries) => {
  for (const e of entries) e.target.style.setProperty("--scale", String(e.contentRect.width / 1920));
});
for (const screen of document.querySelectorAll(".screen")) scaler.observe(screen);
