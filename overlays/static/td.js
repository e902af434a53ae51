// Tournament controls: the compliance feed in, TD commands out. The level clock counts
// down on the page from the server's last reading (Redis TIME); every change is a command
// the core rules on, and a refusal is shown in the form that sent it, naming the field.
import { chips, follow } from "./cards.js";
import {
  $, clockText, el, feedStatus, fillSelects, levelReading, renderCalled, ticker, timeOfDay, wireForm, wireForms, words,
} from "./tournament.js";

const root = $("td");
const table = root.dataset.table;
const canAct = root.dataset.canAct === "yes";
const levels = JSON.parse($("levels").textContent);
let decisionsShown = null;

function renderClock(v, elapsed) {
  const lc = levelReading(v.clock, elapsed, levels.map((lv) => lv.minutes));
  const time = $("clock-time");
  $("clock-level").textContent = `Level ${lc.level}`;
  time.textContent = lc.on_break ? clockText(lc.break_remaining_ms) : clockText(lc.remaining_ms);
  time.className = `time${lc.on_break ? " break" : !lc.running ? " paused" : ""}`;
  $("clock-state").textContent = !lc.started ? "not started" : lc.on_break ? "break" : lc.running ? "running" : "paused";
  const lv = levels[lc.level - 1];
  $("blinds-now").textContent = lv ? `Blinds ${chips(lv.small_blind)} / ${chips(lv.big_blind)}, big blind ante ${chips(lv.ante)} · ${lv.minutes} minutes` : "";
  for (const row of document.querySelectorAll("#structure tbody tr")) row.classList.toggle("current", Number(row.dataset.level) === lc.level);
  renderCalled(v.called_clock, elapsed);
}

function renderField(f) {
  $("f-entries").textContent = chips(f.entries);
  $("f-left").textContent = chips(f.players_left);
  $("f-average").textContent = chips(f.average_stack);
  $("f-chips").textContent = chips(f.chips_in_play);
  $("f-pool").textContent = chips(f.prize_pool);
  const rows = (id, items, none) => {
    const body = $(id).querySelector("tbody");
    body.replaceChildren();
    for (const [a, b] of items) {
      const tr = el("tr");
      tr.append(el("td", "", a), el("td", "num", b));
      body.append(tr);
    }
    if (!items.length) { const tr = el("tr"); const td = el("td", "muted", none); td.colSpan = 2; tr.append(td); body.append(tr); }
  };
  rows("payouts", f.payouts.map((p) => [p.first === p.last ? `${p.first}` : `${p.first}–${p.last}`, chips(p.amount)]), "No payouts entered.");
  rows("wearers", f.wearers.map(([company, n]) => [company, chips(n)]), "No logo counts entered.");
}

function renderDecisions(v) {
  const open = v.violations;
  const signature = JSON.stringify([open.map((x) => x.violation), canAct]);
  if (signature === decisionsShown) return;
  decisionsShown = signature;
  const box = $("decisions");
  box.replaceChildren();
  if (!open.length) { box.append(el("p", "muted", "Nothing awaits a decision.")); return; }
  for (const x of open) {
    const card = el("div", "decision");
    card.dataset.violation = x.violation;
    card.append(el("div", "what", `Violation ${x.violation}: ${x.player}, ${x.label}. Proposed: ${words(x.proposed)}${x.count ? ` ×${x.count}` : ""}`));
    card.append(el("div", "rule", `${x.rule}${x.consequence ? ` · ${x.consequence}` : ""} · logged by ${x.by} at ${timeOfDay(x.at_ms)}${x.note ? ` · ${x.note}` : ""}`));
    if (canAct) {
      const forms = $("ruling-tpl").content.cloneNode(true);
      for (const input of forms.querySelectorAll('[name="violation"]')) input.value = x.violation;
      const confirm = forms.querySelector("form.confirm");
      confirm.querySelector('[name="kind"]').value = x.proposed;
      confirm.querySelector('[name="count"]').value = x.count;
      confirm.querySelector(".confirm-btn").textContent = `Confirm ${words(x.proposed)}`;
      for (const form of forms.querySelectorAll("form")) wireForm(form, table);
      card.append(forms);
    }
    box.append(card);
  }
}

const tick = ticker(renderClock);

function render(v) {
  $("hand").textContent = v.hand ?? "–";
  $("stage").textContent = v.final_table ? "Final table" : "TV table";
  const h = v.hand_for_hand;
  $("h4h").textContent = h.on ? "On" : "Off";
  $("h4h-detail").textContent = h.on ? `released ${h.released}, dealt ${h.dealt}` : "";
  // Rule "Called All-In": the table waits, hands face down, until the TD releases it.
  $("all-in-frozen").hidden = !h.all_in_frozen;
  if ($("release-all-in")) $("release-all-in").disabled = !h.all_in_frozen;
  renderField(v.field);
  renderDecisions(v);
  fillSelects(v);
  tick(v);
}

render(JSON.parse($("first-view").textContent));
if (canAct) {
  wireForms(document.querySelector(".forms"), table);
  $("csv-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (file) $("csv-form").querySelector('[name="csv"]').value = await file.text();
  });
}
follow("compliance", table, render, feedStatus);
