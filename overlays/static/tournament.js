// Shared by /rep and /td: command forms that post to the core and show its refusals in
// the form, naming the field; selects of seats and players kept current from the view;
// clock text. The compliance view never carries a hole card, so neither do these pages.

export const $ = (id) => document.getElementById(id);
let counter = 0;

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

export function timeOfDay(ms) {
  return ms ? new Date(ms).toLocaleTimeString("en-GB", { hour12: false }) : "";
}

export function words(code) {
  return String(code || "").replaceAll("_", " ");
}

// Field values by their data-kind: int, minutes (to ms), list (comma separated), seats,
// bool (checkbox), pairs ("name, number" per line), payouts ("1, 450000" or "10-12, 18500"
// per line), logos ("company, place, width, height" per line), draws ("player card" per line).
const KINDS = {
  int: (v) => (/^-?[\d,]+$/.test(v.trim()) ? Number(v.replace(/,/g, "")) : v.trim()),
  minutes: (v) => (/^[+-]?\d+(\.\d+)?$/.test(v.trim()) ? Math.round(Number(v) * 60000) : v.trim()),
  list: (v) => v.split(",").map((x) => x.trim()).filter(Boolean),
  seats: (v) => v.split(/[\s,]+/).filter(Boolean).map(Number),
  pairs: (v) => lines(v).map((l) => { const [name, n] = splitLast(l); return [name, KINDS.int(n || "")]; }),
  payouts: (v) => lines(v).map((l) => {
    const [places, amount] = l.split(/\s*,\s*/, 2);
    const [first, last] = places.split("-").map((x) => Number(x.trim()));
    return { first, last: last || first, amount: KINDS.int(amount || "") };
  }),
  logos: (v) => lines(v).map((l) => {
    const [company, place, width, height] = l.split(/\s*,\s*/);
    return { company, place: (place || "").replace(/\s+/g, "_"), width_cm: Number(width || 0), height_cm: Number(height || 0) };
  }),
  draws: (v) => lines(v).map((l) => { const parts = l.split(/[\s,]+/); return [parts.slice(0, -1).join(" "), parts.at(-1)]; }),
};

function lines(v) {
  return v.split("\n").map((l) => l.trim()).filter(Boolean);
}

function splitLast(line) {
  const i = line.lastIndexOf(",");
  return i < 0 ? [line, ""] : [line.slice(0, i).trim(), line.slice(i + 1).trim()];
}

export function formBody(form) {
  const body = { type: form.dataset.type };
  for (const input of form.querySelectorAll("[name]:not(button)")) {
    const kind = input.dataset.kind || "text";
    if (input.type === "checkbox") { body[input.name] = input.checked; continue; }
    const raw = input.value;
    if (!raw.trim() && !input.dataset.keepEmpty) continue; // optional and left blank
    body[input.name] = kind === "text" ? raw.trim() : KINDS[kind](raw);
  }
  return body;
}

function labelOf(form, field) {
  const root = String(field || "").split(/[.[]/)[0];
  if (!root || root === "type") return { input: null, text: "" }; // the command as a whole
  const input = root && form.querySelector(`[name="${root}"]`);
  const label = input && (input.closest("label") || form.querySelector(`label[for="${input.id}"]`));
  return { input, text: label ? label.dataset.label || label.firstChild.textContent.trim() : root };
}

// POST one command; resolves to {ok, data}. Never throws: a network failure is a refusal too.
export async function post(table, body) {
  body.id = `${document.body.dataset.desk}-${Date.now()}-${counter++}`;
  try {
    const res = await fetch(`/api/v1/tables/${encodeURIComponent(table)}/commands`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin",
    });
    return { ok: res.ok, data: await res.json() };
  } catch (err) {
    return { ok: false, data: { field: null, message: "The server did not answer: check the dashboard before sending it again." } };
  }
}

export function say(box, ok, message, field) {
  clearTimeout(box.fade);
  box.replaceChildren();
  box.className = `form-msg ${ok ? "ok" : "error"}`;
  if (field) box.append(el("strong", "field", field), document.createTextNode(" "));
  box.append(document.createTextNode(message));
  if (ok) box.fade = setTimeout(() => box.replaceChildren(), 6000); // a refusal stays until it is fixed
}

// Every <form class="cmd" data-type=...> posts its fields; a refusal marks the named field.
export function wireForms(root, table) {
  for (const form of root.querySelectorAll("form.cmd")) wireForm(form, table);
}

export function wireForm(form, table) {
  let box = form.querySelector(".form-msg");
  if (!box) { box = el("div", "form-msg"); box.setAttribute("role", "status"); form.append(box); }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
    const body = formBody(form);
    if (ev.submitter && ev.submitter.name) body[ev.submitter.name] = JSON.parse(ev.submitter.value);
    const { ok, data } = await post(table, body);
    if (ok) {
      say(box, true, form.dataset.done || "Recorded.");
      for (const input of form.querySelectorAll("input[name]:not([type=checkbox]):not([data-keep]), textarea[name]")) input.value = "";
      return;
    }
    const { input, text } = labelOf(form, data.field);
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
    say(box, false, data.message || "refused", text ? `${text}:` : "");
  });
}

// Keep every <select data-fill="seats|players"> listing the table as it is now.
export function fillSelects(view) {
  for (const select of document.querySelectorAll("select[data-fill]")) {
    const kind = select.dataset.fill;
    const want = view.seats.map((s) => kind === "seats" ? [String(s.seat), `Seat ${s.seat} · ${s.name}`] : [s.player, `${s.name} (seat ${s.seat})`]);
    const have = [...select.options].map((o) => [o.value, o.textContent]);
    if (JSON.stringify(want) === JSON.stringify(have)) continue;
    const keep = select.value;
    select.replaceChildren(...want.map(([value, text]) => { const o = el("option", "", text); o.value = value; return o; }));
    if (want.some(([v]) => v === keep)) select.value = keep;
  }
}

export function feedStatus(up) {
  document.body.dataset.feed = up ? "up" : "down";
  document.querySelector("#feed-state .label").textContent = up ? "Live" : "Reconnecting…";
}

// The level clock and the called clock, counted down on this page from the last reading
// (the server computed it from Redis TIME; the page adds only the seconds since it came).
export function ticker(render) {
  let received = performance.now();
  let view = null;
  const tick = () => { if (view) render(view, performance.now() - received); };
  setInterval(tick, 250);
  return (v) => { view = v; received = performance.now(); tick(); };
}

// ``minutes``: the structure's minutes per level, so a level runs into the next on the page
// as it does on the server (the last level stops at zero).
export function levelReading(clock, elapsed, minutes = []) {
  const running = clock.running && clock.started;
  if (clock.on_break) return { ...clock, break_remaining_ms: Math.max(0, clock.break_remaining_ms - (running ? elapsed : 0)) };
  let level = clock.level, remaining = clock.remaining_ms - (running ? elapsed : 0);
  while (remaining <= 0 && level < minutes.length) remaining += minutes[level++] * 60000;
  return { ...clock, level, remaining_ms: Math.max(0, remaining) };
}

export function calledReading(called, elapsed) {
  if (!called) return null;
  const total = Math.max(0, called.total_ms - elapsed);
  const inTime = called.phase === "time" ? called.remaining_ms - elapsed : 0;
  if (inTime > 0) return { ...called, phase: "time", left: inTime, total };
  return total > 0 ? { ...called, phase: "countdown", left: total, total } : { ...called, phase: "expired", left: 0, total: 0 };
}

// The called clock's box (ids called, called-seat, called-left), the same on /rep and /td.
export function renderCalled(called, elapsed) {
  const reading = calledReading(called, elapsed);
  $("called").hidden = !reading;
  if (!reading) return;
  $("called").className = `fact called ${reading.phase}`;
  $("called-seat").textContent = `Seat ${reading.seat}`;
  $("called-left").textContent = reading.phase === "expired" ? "time"
    : `${reading.phase === "countdown" ? "countdown " : ""}${Math.ceil(reading.left / 1000)} s`;
}
