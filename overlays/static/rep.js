// The rep dashboard: the compliance feed in, rep commands out. The compliance view has no
// field for a hole card, so this page never holds one: a card light is shown / blind /
// halt / waiting, and a camera check names the seat, never the card.
import { follow } from "./cards.js";
import {
  $, clockText, el, feedStatus, fillSelects, levelReading, renderCalled, ticker, timeOfDay, wireForm, wireForms, words,
} from "./tournament.js";

const root = $("rep");
const table = root.dataset.table;
const canAct = root.dataset.canAct === "yes";
const minutes = JSON.parse($("levels").textContent).map((lv) => lv.minutes);
const LIGHT = { shown: "shown", blind: "playing blind", halt: "HALT PLAY", waiting: "waiting" };
let alertsShown = null; // the alerts' signature, so a feed update never wipes a form being typed in

function cell(row, node) {
  const td = el("td");
  if (node instanceof Node) td.append(node); else td.textContent = node ?? "";
  row.append(td);
  return td;
}

function pill(kind, text, title) {
  const p = el("span", `pill ${kind}`, text);
  if (title) p.title = title;
  return p;
}

function alertForm(type, fields, label, done, extra) {
  const form = el("form", "cmd inline");
  form.dataset.type = type;
  form.dataset.done = done;
  for (const [name, value, kind] of fields) {
    const input = el("input");
    input.type = "hidden"; input.name = name; input.value = value; input.dataset.keep = "1";
    if (kind) input.dataset.kind = kind;
    form.append(input);
  }
  if (extra) form.append(extra);
  const button = el("button", "small secondary", label);
  button.type = "submit";
  form.append(button);
  wireForm(form, table);
  return form;
}

function reasonInput(placeholder) {
  const label = el("label", "inline-label");
  label.dataset.label = "Reason";
  const input = el("input");
  input.name = "reason"; input.placeholder = placeholder;
  label.append(input);
  return label;
}

function renderAlerts(v) {
  const signature = JSON.stringify([v.alerts, v.violations.map((x) => x.needs_td), canAct]);
  if (signature === alertsShown) return;
  alertsShown = signature;
  const list = $("alerts");
  list.replaceChildren();
  if (!v.alerts.length) list.append(el("li", "empty", "No alerts."));
  for (const a of v.alerts) {
    const li = el("li", `alert ${a.kind}${a.acknowledged ? " seen" : ""}`);
    li.dataset.key = a.key;
    const text = el("div", "alert-text");
    text.append(el("span", "alert-msg", a.message));
    if (a.acknowledged) text.append(el("span", "seen-by", `seen by ${a.acknowledged.by} at ${timeOfDay(a.acknowledged.at_ms)}`));
    const violation = a.kind === "violation" ? v.violations.find((x) => `violation:${x.violation}` === a.key) : null;
    if (violation && violation.needs_td) text.append(pill("td", "awaiting TD decision", violation.consequence));
    li.append(text);
    if (canAct) {
      const actions = el("div", "alert-actions");
      if (!a.acknowledged) actions.append(alertForm("acknowledge_alert", [["alert", a.key]], "Acknowledge", "Acknowledged."));
      if (a.kind === "halt") {
        const seat = a.key.split(":")[2];
        actions.append(alertForm("clear_halt", [["seat", seat, "int"]], "Clear HALT", "HALT PLAY cleared.", reasonInput("why (audited)")));
      } else if (a.kind === "camera") {
        actions.append(alertForm("clear_camera_check", [["alert", a.key.split(":")[1], "int"]], "Clear check", "Camera check cleared.",
          reasonInput("what was checked")));
      } else if (violation && !violation.needs_td) {
        actions.append(alertForm("rule_violation", [["violation", violation.violation, "int"], ["kind", violation.proposed],
          ["count", violation.count, "int"]], `Confirm ${words(violation.proposed)}`, "Ruling recorded."));
      }
      li.append(actions);
    }
    list.append(li);
  }
}

function renderBlockers(v) {
  $("blockers").textContent = v.blockers.length ? `${v.blockers.length} to clear` : "Cleared";
  $("blockers-fact").classList.toggle("warn", v.blockers.length > 0);
  $("blocker-list").replaceChildren(...v.blockers.map((b) => el("li", "blocker", b.message)));
}

function renderSeats(v) {
  const body = $("seats").querySelector("tbody");
  body.replaceChildren();
  for (const s of v.seats) {
    const tr = el("tr");
    tr.dataset.seat = s.seat;
    if (s.cards === "halt") tr.className = "halt";
    cell(tr, String(s.seat)).className = "num seat-no";
    const who = el("div", "player");
    who.append(el("span", "name", s.name), el("span", "pid", s.player));
    cell(tr, who);

    const dev = el("div", "stack");
    dev.append(pill(s.devices === "surrendered" ? "ok" : s.devices === "override" ? "warn" : "bad", words(s.devices)));
    for (const h of s.surrendered) {
      const what = h.items.length ? h.items.join(", ") : "declared none";
      dev.append(el("span", "detail", `${what} → ${h.rep}${h.bag ? `, bag ${h.bag}` : ""}, ${timeOfDay(h.at_ms)}`));
    }
    if (s.override) dev.append(el("span", "detail", `override by ${s.override.by}: ${s.override.reason}`));
    cell(tr, dev).className = "devices";

    const light = el("span", `light ${s.cards || "none"}`);
    light.setAttribute("aria-hidden", "true");
    const cards = el("span", "cards-cell");
    cards.append(light, el("span", "", s.cards ? LIGHT[s.cards] : "not in a hand"));
    cell(tr, cards).className = `cards ${s.cards || ""}`;

    const pen = el("div", "stack");
    for (const p of s.penalties) pen.append(el("span", "", `${words(p.kind)}${p.count ? ` ×${p.count}` : ""}${p.reason ? ` (${p.reason})` : ""}`));
    if (s.hands_to_sit_out) pen.append(pill("warn", `sits out ${s.hands_to_sit_out} hand${s.hands_to_sit_out > 1 ? "s" : ""}`));
    if (s.open_violations.length) pen.append(pill("bad", `${s.open_violations.length} open`));
    if (!pen.childNodes.length) pen.append(el("span", "muted", "none"));
    cell(tr, pen);

    const brand = el("div", "stack");
    brand.append(pill(s.branding.compliant ? "ok" : "bad", s.branding.compliant ? "compliant" : "breach"));
    for (const b of s.branding.breaches) brand.append(el("span", "detail", b.message));
    if (s.branding.badge) brand.append(el("span", "detail", `on air: ${s.branding.badge}`));
    cell(tr, brand);

    cell(tr, s.escort ? pill("warn", `out with ${s.escort.escort}${s.escort.where ? `, ${s.escort.where}` : ""}`) : el("span", "muted", "at the table"));
    body.append(tr);
  }
}

function renderCompanies(v) {
  const body = $("companies").querySelector("tbody");
  body.replaceChildren();
  if (!v.companies.length) { const tr = el("tr"); cell(tr, "No logos recorded yet.").colSpan = 4; body.append(tr); }
  for (const c of v.companies) {
    const tr = el("tr");
    cell(tr, c.exempt ? `${c.company} (organiser)` : c.company);
    const over = c.tv_table_limit !== null && c.tv_table.length > c.tv_table_limit;
    cell(tr, `${c.tv_table.length}${c.tv_table_limit !== null ? ` / ${c.tv_table_limit}` : ""}`).className = over ? "over" : "";
    const fieldOver = c.field_limit !== null && c.field > c.field_limit;
    cell(tr, `${c.field}${c.field_limit !== null ? ` / ${c.field_limit}` : ""}`).className = fieldOver ? "over" : "";
    cell(tr, [...c.keep_tv_table, ...c.keep_field].join(", ") || (over ? "to decide" : "–"));
    body.append(tr);
  }
}

function renderEscorts(v) {
  const out = $("escorts-out");
  out.replaceChildren(...v.escorts.out.map((e) => el("li", "out", `${e.player} out with ${e.escort}${e.where ? ` (${e.where})` : ""} since ${timeOfDay(e.out_ms)}`)));
  if (!v.escorts.out.length) out.append(el("li", "muted", "Everyone is at the table."));
  const body = $("trips").querySelector("tbody");
  body.replaceChildren();
  for (const t of [...v.escorts.trips].reverse()) {
    const tr = el("tr");
    cell(tr, t.player); cell(tr, t.escort); cell(tr, timeOfDay(t.out_ms)); cell(tr, timeOfDay(t.in_ms));
    body.append(tr);
  }
}

function renderDealTalk(v) {
  const p = $("deal-talk");
  p.className = `deal-talk${v.deal_talk ? " open" : ""}`;
  p.textContent = v.deal_talk ? `Deal talk open since ${timeOfDay(v.deal_talk.since_ms)}, ${v.deal_talk.rep} present.` : "No deal talk open.";
}

function renderAudit(v) {
  const body = $("audit").querySelector("tbody");
  body.replaceChildren();
  for (const a of [...v.audit].reverse()) {
    const tr = el("tr");
    cell(tr, timeOfDay(a.at_ms)).className = "when";
    cell(tr, `${a.by} (${a.role})`);
    cell(tr, a.what);
    cell(tr, a.why || "").className = "why";
    body.append(tr);
  }
  if (!v.audit.length) { const tr = el("tr"); cell(tr, "No decisions yet.").colSpan = 4; body.append(tr); }
}

function renderClocks(v, elapsed) {
  const lc = levelReading(v.clock, elapsed, minutes);
  $("level").textContent = lc.level;
  $("level-left").textContent = !lc.started ? "clock not started" : lc.on_break ? `break ${clockText(lc.break_remaining_ms)}`
    : `${clockText(lc.remaining_ms)}${lc.running ? "" : " paused"}${lc.hand_for_hand ? " · hand-for-hand" : ""}`;
  renderCalled(v.called_clock, elapsed);
}

const tick = ticker(renderClocks);

function render(v) {
  $("hand").textContent = v.hand ?? "–";
  $("stage").textContent = v.final_table ? "Final table" : "TV table";
  $("all-in-frozen").hidden = !v.hand_for_hand.all_in_frozen; // hand-for-hand: the table waits for the TD
  renderAlerts(v);
  renderBlockers(v);
  renderSeats(v);
  renderCompanies(v);
  renderEscorts(v);
  renderDealTalk(v);
  renderAudit(v);
  fillSelects(v);
  tick(v);
}

render(JSON.parse($("first-view").textContent));
if (canAct) wireForms(document.querySelector(".forms"), table);
follow("compliance", table, render, feedStatus);
