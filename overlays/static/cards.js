// Shared helpers for pages: card faces, chip amounts, flags. No build step.
const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

export function chips(n) {
  return Number(n || 0).toLocaleString("en-US");
}

export function cardEl(code) {
  const el = document.createElement("span");
  if (!code || code === "??") {
    el.className = "card unknown";
    el.textContent = "??";
    el.dataset.card = "??";
    return el;
  }
  el.className = `card ${code[1]}`;
  el.textContent = `${code[0] === "T" ? "10" : code[0]}${SUITS[code[1]] || code[1]}`;
  el.dataset.card = code;
  return el;
}

export function flag(country) {
  if (!country || country.length !== 2) return "";
  const base = 0x1f1e6;
  return String.fromCodePoint(...[...country.toUpperCase()].map((c) => base + c.charCodeAt(0) - 65));
}

// A socket that resumes with ?after=SEQ and keeps the last state on screen while down.
export function follow(feed, table, onView, onStatus) {
  let last = null;
  let delay = 500;
  function open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const after = last === null ? "" : `&after=${last}`;
    const ws = new WebSocket(`${proto}://${location.host}/ws/v1/${feed}?table=${encodeURIComponent(table)}${after}`);
    ws.onopen = () => { delay = 500; onStatus && onStatus(true); };
    ws.onmessage = (ev) => {
      const view = JSON.parse(ev.data);
      if (typeof view.seq === "number") last = view.seq;
      onView(view);
    };
    ws.onclose = () => {
      onStatus && onStatus(false);
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }
  open();
}
