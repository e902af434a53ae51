// Playout compatibility: the same page runs unchanged in OBS, CasparCG and SPX-GC.
//
// - OBS browser source: the page starts by itself (?autoplay=0 waits for play()).
// - CasparCG HTML template: global play(), stop(), next() and update(data); update takes
//   JSON or CasparCG's <templateData> XML and selects the graphic ("graphic" or f0:
//   "table", or element names such as "leaderboard", comma-separated; next() steps
//   through several). Game data still comes over the socket.
// - SPX-GC: window.SPXGCTemplateDefinition, runTemplateUpdate() (reads the #f0 field SPX
//   fills in), runAnimationIN() and runAnimationOUT().
//
// The page also announces itself on the control feed, so the graphics desk sees it and
// can refresh it, and reloads when the desk asks.
import { DEFAULT_CONTROL } from "./extras.js";

const GRAPHICS = Object.keys(DEFAULT_CONTROL.visible);
const ITEMS = [
  { text: "Table (desk controls)", value: "table" },
  { text: "Chip leaderboard", value: "leaderboard" },
  { text: "Payout ladder", value: "payouts" },
  { text: "Elimination", value: "elimination" },
  { text: "Deal", value: "deal" },
  { text: "Lower third", value: "lower_third" },
  { text: "Slate", value: "slate" },
  { text: "Player bars", value: "player_bars" },
];

// CasparCG's <templateData><componentData id="f0"><data id="text" value="..."/></componentData>...
export function parseTemplateData(data) {
  if (data === null || data === undefined || data === "") return {};
  if (typeof data === "object") return data;
  const text = String(data).trim();
  if (text.startsWith("<")) {
    const doc = new DOMParser().parseFromString(text, "application/xml");
    if (doc.querySelector("parsererror")) throw new Error("update: the <templateData> XML is not well formed");
    const out = {};
    for (const c of doc.querySelectorAll("componentData")) {
      const d = c.querySelector("data");
      if (c.id && d) out[c.id] = d.getAttribute("value") ?? d.textContent;
    }
    return out;
  }
  return JSON.parse(text);
}

function pick(spec) {
  const names = String(spec || "table").split(",").map((s) => s.trim()).filter(Boolean);
  if (!names.length || names.includes("table")) return [];
  const unknown = names.filter((n) => !GRAPHICS.includes(n));
  if (unknown.length) throw new Error(`update: no graphic ${unknown.join(", ")} (graphics: table, ${GRAPHICS.join(", ")})`);
  return names;
}

export function setupPlayout({ params, apply }) {
  const local = { playing: params.get("autoplay") !== "0", only: null, cycle: [], index: 0, data: {} };
  const preview = params.has("preview");

  function select(names) {
    local.cycle = names;
    local.index = 0;
    local.only = names.length ? new Set([names[0]]) : null;
  }

  function configure(options) {
    local.data = { ...local.data, ...options };
    const spec = options.graphic ?? options.f0;
    if (spec !== undefined) select(pick(spec));
  }

  if (params.get("graphic")) configure({ graphic: params.get("graphic") });

  const api = {
    play() { local.playing = true; apply(); },
    stop() { local.playing = false; apply(); },
    next() {
      if (local.cycle.length > 1) {
        local.index = (local.index + 1) % local.cycle.length;
        local.only = new Set([local.cycle[local.index]]);
      }
      apply();
    },
    update(data) { configure(parseTemplateData(data)); apply(); },
  };
  Object.assign(window, api);

  window.SPXGCTemplateDefinition = {
    description: "TV Table on-air graphics (delayed data, live desk controls)",
    playserver: "OVERLAY", playchannel: "1", playlayer: "7", webplayout: "7", steps: "1", out: "manual",
    uicolor: "2", dataformat: "json",
    DataFields: [{ field: "f0", ftype: "dropdown", title: "Graphic", value: "table", items: ITEMS }],
  };
  window.runTemplateUpdate = () => {
    const f0 = document.getElementById("f0");
    configure({ f0: f0 && f0.textContent.trim() ? f0.textContent.trim() : "table" });
    apply();
  };
  window.runAnimationIN = api.play;
  window.runAnimationOUT = api.stop;
  window.tvtable.playout = local;

  // -- the control feed: live, with hellos so the desk sees this page -----------------
  let id = null;
  try {
    id = sessionStorage.getItem("tvtable-page") || crypto.randomUUID();
    sessionStorage.setItem("tvtable-page", id);
  } catch (_) {
    id = `p${Math.random().toString(36).slice(2, 12)}`;
  }
  window.tvtable.pageId = id;
  let baseline = null;

  function hello(ws) {
    if (ws.readyState !== WebSocket.OPEN) return;
    const page = params.get("name") || (local.cycle.length ? local.cycle.join("+") : "table");
    ws.send(JSON.stringify({ type: "hello", id, page, url: location.pathname + location.search }));
  }

  return {
    local,
    // Reload when the desk asks this page (or every page) to refresh.
    refreshCheck(control) {
      if (preview) return;
      const r = control.refresh || {};
      const now = { all: r.all || 0, mine: r[id] || 0 };
      if (baseline && (now.all > baseline.all || now.mine > baseline.mine)) location.reload();
      baseline = now;
    },
    followControl(table, onControl) {
      if (preview) {
        // The desk's preview: the pending state comes from the desk page, not the feed.
        window.addEventListener("message", (ev) => {
          if (ev.origin === location.origin && ev.data && ev.data.type === "tvtable-preview") onControl(ev.data.control);
        });
        return;
      }
      let delay = 500;
      let beat = null;
      const open = () => {
        const proto = location.protocol === "https:" ? "wss" : "ws";
        const ws = new WebSocket(`${proto}://${location.host}/ws/v1/control?table=${encodeURIComponent(table)}`);
        ws.onopen = () => { delay = 500; hello(ws); beat = setInterval(() => hello(ws), 15000); };
        ws.onmessage = (ev) => onControl(JSON.parse(ev.data));
        ws.onclose = () => { clearInterval(beat); setTimeout(open, delay); delay = Math.min(delay * 2, 8000); };
      };
      open();
    },
  };
}
