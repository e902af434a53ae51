// The secure card room: one audited socket brings the core's secure view, the camera
// reads and frame crops, the alerts and camera health; entries and resolutions are
// POSTed back (the login cookie is HttpOnly and SameSite=Strict).
import { cardEl, cardText } from "./cards.js";

const root = document.getElementById("cardroom");
const table = root.dataset.table;
const nCards = Number(root.dataset.cards);
const $ = (id) => document.getElementById(id);
const info = JSON.parse($("room-info").textContent);

const state = { view: null, reads: {}, alerts: [], cameras: [] };
const dirty = new Set(); // seats whose inputs the secure person is editing
let counter = 0;

const LIGHT = { none: "not shown", some: "partly shown", all: "shown" };
const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };
const CARD = /^([2-9TJQKA][cdhs]|\?\?)$/;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function tile(seat) {
  return root.querySelector(`.tile[data-seat="${seat}"]`);
}

function seatLabel(seat) {
  return seat === "board" ? "board" : `seat ${seat}`;
}

function normalise(text) {
  const t = (text || "").trim();
  if (!t || t === "?" || t === "??") return "??";
  const rank = t[0].toUpperCase() === "1" && t.length === 3 ? "T" : t[0].toUpperCase();
  const suit = t[t.length - 1].toLowerCase();
  return rank + suit;
}

function cardsLine(dd, cards, confidence) {
  dd.replaceChildren();
  if (!cards || !cards.length) {
    dd.append(el("span", "none", "–"));
    return;
  }
  cards.forEach((code, i) => {
    const wrap = el("span", "read-card");
    wrap.append(cardEl(code, "mini"));
    if (confidence && code !== "??") wrap.append(el("span", "conf", `${Math.round((confidence[i] || 0) * 100)}%`));
    dd.append(wrap);
  });
}

function recorded(seat) {
  const v = state.view;
  if (!v || !v.seats) return null;
  const row = v.seats.find((s) => s.seat === seat);
  if (!row || !row.dealt_in) return null;
  return row.hole_cards;
}

function openAlertSeats() {
  const seats = new Set();
  for (const a of state.alerts) if (!a.resolved) a.seats.forEach((s) => seats.add(String(s)));
  return seats;
}

function cameraOf(seat) {
  const label = seatLabel(seat);
  return state.cameras.find((c) => (c.seats || []).includes(label));
}

function renderTile(seat) {
  const t = tile(seat);
  if (!t) return;
  const read = state.reads[String(seat)];
  if (seat === "board") t.hidden = !read && !cameraOf("board");
  const light = (read && read.light) || "none";
  const lightEl = t.querySelector(".light");
  lightEl.className = `light ${light}`;
  lightEl.dataset.light = light;
  lightEl.textContent = LIGHT[light];
  cardsLine(t.querySelector(".camera-read .cards-line"), read ? read.cards : null, read ? read.confidence : null);
  if (read && read.impossible) t.querySelector(".camera-read .cards-line").append(el("span", "flag", "impossible read"));
  const frameLine = t.querySelector(".frame-read .cards-line");
  if (frameLine) {
    if (read && read.frame) {
      const f = read.frame;
      frameLine.textContent = f.shown ? `${f.cards.map(cardText).join(" ")} · ${f.faces} face${f.faces === 1 ? "" : "s"}` : "nothing shown";
    } else frameLine.textContent = "–";
  }
  const cam = cameraOf(seat);
  const camState = t.querySelector(".cam-state");
  const down = cam && ["down", "ended", "stopped"].includes(cam.status);
  camState.textContent = cam ? (down ? `Camera ${cam.camera} ${cam.status}${cam.reason ? ": " + cam.reason : ""}` : `${cam.camera}`) : "";
  camState.className = `cam-state ${down ? "down" : ""}`;
  t.classList.toggle("camera-down", Boolean(down));
  t.querySelector(".no-frame").textContent = cam ? (down ? "No picture" : "Waiting for a frame") : "No camera on this seat";
  const rec = t.querySelector(".recorded .cards-line");
  if (!rec) return;
  const cards = recorded(Number(seat));
  if (cards) cardsLine(rec, cards, null);
  else rec.replaceChildren(el("span", "none", state.view && state.view.hand ? "not dealt in" : "no hand"));
  const inputs = [...t.querySelectorAll(".card-input")];
  if (!dirty.has(String(seat))) inputs.forEach((inp, i) => { inp.value = cards && cards[i] && cards[i] !== "??" ? cards[i] : ""; });
  const known = (read ? read.cards : []).filter((c) => c !== "??");
  const mismatch = cards && known.some((c) => !cards.includes(c));
  t.classList.toggle("mismatch", Boolean(mismatch));
  t.classList.toggle("alerted", openAlertSeats().has(String(seat)));
  t.classList.toggle("out", Boolean(state.view && state.view.hand && !cards));
}

function setCrop(seat, b64) {
  const t = tile(seat);
  if (!t || !b64) return;
  const img = t.querySelector("img.crop");
  img.src = `data:image/jpeg;base64,${b64}`;
  img.hidden = false;
  t.querySelector(".no-frame").hidden = true;
}

function renderAll() {
  for (const s of info.seats) renderTile(s.seat);
  renderTile("board");
  renderAlerts();
  renderCameras();
}

function renderHead() {
  const v = state.view;
  if (!v) return;
  $("hand").textContent = v.hand || "–";
  $("street").textContent = v.hand_complete ? "Complete" : (STREET[v.street] || "–");
  const board = $("board");
  board.replaceChildren(...(v.board || []).map((c) => cardEl(c, "mini")));
  if (!(v.board || []).length) board.append(el("span", "none", "–"));
}

function alertText(a) {
  const seats = a.seats.map(seatLabel).join(" and ");
  if (a.kind === "duplicate") return [`read at ${seats}`, a.card];
  if (a.kind === "impossible") return [`${seats}: more cards read than dealt`, null];
  if (a.kind === "board") return [`was recorded at ${seats} but is on the board; that card was cleared`, a.card];
  return [`${a.kind} at ${seats}`, a.card];
}

function renderAlerts() {
  const list = $("alert-list");
  list.replaceChildren();
  const shown = state.alerts.filter((a) => !a.resolved).concat(state.alerts.filter((a) => a.resolved).slice(-3));
  $("alerts").hidden = shown.length === 0;
  for (const a of shown) {
    const li = el("li", `alert ${a.kind} ${a.resolved ? "resolved" : "open"}`);
    li.dataset.alert = a.id;
    const [text, card] = alertText(a);
    const what = el("div", "what");
    if (card) what.append(cardEl(card, "mini"));
    what.append(el("span", "text", text));
    li.append(what);
    const thumbs = el("div", "thumbs");
    for (const s of a.seats) {
      const src = tile(s) && tile(s).querySelector("img.crop");
      if (src && !src.hidden) {
        const img = el("img", "thumb");
        img.src = src.src;
        img.alt = `${seatLabel(s)} frame`;
        thumbs.append(img);
      }
    }
    li.append(thumbs);
    const actions = el("div", "alert-actions");
    if (a.resolved) {
      actions.append(el("span", "resolved-by", `Resolved by ${a.resolved.by}: ${a.resolved.how}`));
    } else {
      if (a.kind === "duplicate") {
        for (const s of a.seats) {
          if (s === "board") continue;
          const b = el("button", "small keep", `Seat ${s} has it`);
          b.type = "button";
          b.dataset.keep = s;
          b.addEventListener("click", () => resolve(a, s));
          actions.append(b);
        }
      }
      const d = el("button", "small secondary dismiss", "Checked · dismiss");
      d.type = "button";
      d.addEventListener("click", () => resolve(a, null));
      actions.append(d);
    }
    li.append(actions);
    list.append(li);
  }
  for (const s of info.seats) tile(s.seat).classList.toggle("alerted", openAlertSeats().has(String(s.seat)));
}

function renderCameras() {
  const body = $("cameras").querySelector("tbody");
  body.replaceChildren();
  $("camera-count").textContent = state.cameras.length
    ? `${state.cameras.filter((c) => c.status === "live").length} / ${state.cameras.length} live` : "–";
  if (!state.cameras.length) {
    const tr = el("tr", "empty");
    const td = el("td", null, "No camera has reported yet.");
    td.colSpan = 6;
    tr.append(td);
    body.append(tr);
    return;
  }
  for (const c of state.cameras) {
    const tr = el("tr", `cam ${c.status}`);
    tr.dataset.camera = c.camera;
    const st = el("td", "status");
    st.append(el("span", `pill ${c.status}`, c.status), el("span", "reason", c.reason || ""));
    const stats = c.stats || {};
    tr.append(el("td", "name", c.camera), el("td", null, (c.seats || []).join(", ")), st,
      el("td", "num", String(stats.processed ?? "–")), el("td", "num", String(stats.dropped ?? "–")),
      el("td", "num", stats.ms ? String(Math.round(stats.ms)) : "–"));
    body.append(tr);
  }
}

function message(seat, text, kind) {
  const t = tile(seat);
  if (!t) return;
  const m = t.querySelector(".tile-msg");
  m.textContent = text;
  m.className = `tile-msg ${kind || ""}`;
}

async function post(path, body) {
  const r = await fetch(`${path}?table=${encodeURIComponent(table)}`, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  let data = {};
  try { data = await r.json(); } catch (e) { data = { message: `HTTP ${r.status}` }; }
  return [r.ok, data];
}

async function enter(seat) {
  const t = tile(seat);
  const cards = [...t.querySelectorAll(".card-input")].map((i) => normalise(i.value));
  const bad = cards.findIndex((c) => !CARD.test(c));
  if (bad >= 0) {
    message(seat, `Card ${bad + 1} is not a card: rank then suit, like As, Td or ?? when unknown`, "error");
    return;
  }
  counter += 1;
  const [ok, data] = await post("/secure/cards/cards", { seat, cards, id: `room-${Date.now()}-${counter}` });
  if (ok) {
    dirty.delete(String(seat));
    message(seat, "Recorded", "ok");
  } else {
    message(seat, data.message || "Refused", "error");
  }
}

async function resolve(alert, keep) {
  const body = { alert: alert.id };
  if (keep !== null) body.keep = keep;
  const [ok, data] = await post("/secure/cards/resolve", body);
  const seat = keep ?? alert.seats.find((s) => s !== "board");
  if (seat !== undefined) message(seat, ok ? (keep !== null ? "Card kept here; the other seats were corrected" : "Alert dismissed") : (data.message || "Refused"), ok ? "ok" : "error");
}

function wire() {
  for (const s of info.seats) {
    const t = tile(s.seat);
    const form = t.querySelector("form.entry");
    form.addEventListener("submit", (ev) => { ev.preventDefault(); enter(s.seat); });
    form.addEventListener("input", () => dirty.add(String(s.seat)));
    t.querySelector(".use-camera").addEventListener("click", () => {
      const read = state.reads[String(s.seat)];
      const rec = recorded(s.seat) || [];
      const cards = (read ? read.cards : []).slice(0, nCards);
      [...t.querySelectorAll(".card-input")].forEach((inp, i) => {
        const c = cards[i] && cards[i] !== "??" ? cards[i] : (rec[i] && rec[i] !== "??" && !cards.includes(rec[i]) ? rec[i] : "");
        inp.value = c;
      });
      dirty.add(String(s.seat));
    });
  }
}

function onMessage(m) {
  if (m.type === "snapshot") {
    state.view = m.view;
    state.reads = m.seats || {};
    state.alerts = m.alerts || [];
    state.cameras = m.cameras || [];
    for (const [seat, b64] of Object.entries(m.crops || {})) setCrop(seat, b64);
    renderHead();
    renderAll();
  } else if (m.type === "core") {
    state.view = m.view;
    renderHead();
    for (const s of info.seats) renderTile(s.seat);
  } else if (m.type === "seat") {
    if (m.read) state.reads[m.seat] = m.read; else delete state.reads[m.seat];
    if (m.crop) setCrop(m.seat, m.crop);
    renderTile(m.seat === "board" ? "board" : Number(m.seat));
  } else if (m.type === "alerts") {
    state.alerts = m.alerts || [];
    renderAlerts();
  } else if (m.type === "health") {
    state.cameras = m.cameras || [];
    renderCameras();
    for (const s of info.seats) renderTile(s.seat);
    renderTile("board");
  }
}

function connect() {
  let delay = 500;
  function open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/secure/cards/ws?table=${encodeURIComponent(table)}`);
    ws.onopen = () => {
      delay = 500;
      document.body.dataset.feed = "up";
      $("feed-state").querySelector(".label").textContent = "Live";
    };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = () => {
      document.body.dataset.feed = "down";
      $("feed-state").querySelector(".label").textContent = "Reconnecting…";
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }
  open();
}

wire();
connect();
