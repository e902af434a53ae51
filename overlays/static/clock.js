// On-air clocks: the level clock (or the break) and a called clock, run on from the reading
// in the latest delayed view. Air time is the Redis server's time minus the delay (and the
// desk's trim), never the PC's own clock: the page measures its offset to the server.
const sync = { offset: 0, delay: 0, ok: false, minutes: [] };

async function syncClock(table) {
  try {
    const t0 = Date.now();
    const res = await fetch(`/api/v1/tables/${encodeURIComponent(table)}/clock`, { headers: { Accept: "application/json" } });
    const t1 = Date.now();
    if (!res.ok) return;
    const body = await res.json();
    sync.offset = body.server_ms - (t0 + t1) / 2; // the request's midpoint: half the round trip each way
    sync.delay = body.delay_ms;
    if (Array.isArray(body.level_minutes)) sync.minutes = body.level_minutes;
    sync.ok = true;
  } catch (_) { /* keep the last offset; try again at the next sync */ }
}

export function mmss(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

// Milliseconds of air time since the view's event (0 until the page knows the server's time).
function elapsed(view, trimMs) {
  if (!sync.ok) return 0;
  return Math.max(0, Date.now() + sync.offset - sync.delay - trimMs - view.ts);
}

// The level clock ``since`` ms of air time after the reading ``c`` (as the view carried it),
// run on as the server runs it: a break ends into the level it interrupted, and a level that
// runs out rolls into the next by the structure's ``minutes`` (the last one stops at 0:00).
// So a level that ends between two released views never sits at 0:00 on air.
export function onAirLevel(c, since, minutes = []) {
  if (!c || !c.started) return null;
  let run = c.running ? since : 0;
  if (c.on_break) {
    if (run < c.break_remaining_ms) return { level: c.level, on_break: true, ms: c.break_remaining_ms - run };
    run -= c.break_remaining_ms;
  }
  let level = c.level;
  let ms = c.remaining_ms - run;
  while (ms <= 0 && level < minutes.length) ms += minutes[level++] * 60000;
  return { level, on_break: false, ms: Math.max(0, ms) };
}

export function startClocks({ table, view, trim }) {
  const left = document.getElementById("clock-left");
  const called = document.getElementById("called-clock");
  function tick() {
    const v = view();
    const t = (v && v.tournament) || {};
    const c = t.clock;
    const since = v ? elapsed(v, trim()) : 0;
    const lc = onAirLevel(c, since, sync.minutes);
    const text = !lc ? "" : lc.on_break ? `Break ${mmss(lc.ms)}` : mmss(lc.ms);
    left.textContent = text;
    left.classList.toggle("break", !!(lc && lc.on_break));
    if (lc) left.dataset.level = lc.level; else delete left.dataset.level;
    const cc = t.called_clock;
    const total = cc && v && !v.hand_complete ? cc.total_ms - since : 0;
    called.textContent = total > 0 ? `Clock · Seat ${cc.seat} · ${Math.ceil(total / 1000)}` : "";
    called.classList.toggle("countdown", total > 0 && total <= ((cc && cc.total_ms - (cc.phase === "time" ? cc.remaining_ms : 0)) || 0));
    window.tvtable.clock = { text, level: lc && lc.level, called: called.textContent, synced: sync.ok, offset: sync.offset };
  }
  syncClock(table).then(tick);
  setInterval(() => syncClock(table), 60_000);
  setInterval(tick, 250);
}
