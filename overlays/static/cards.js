// Shared helpers for pages: card faces, chip amounts, feeds. No build step.
export const SUIT_SYMBOL = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
export const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_NAME = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

export function chips(n) {
  return Number(n || 0).toLocaleString("en-US");
}

// "A face card": <span class="card s" data-card="As"><b class="rank">A</b><i class="suit">♠</i></span>.
// Unknown or hidden cards ("??") are a card back, data-card="??".
export function cardEl(code, extra = "") {
  const el = document.createElement("span");
  if (!code || code === "??") {
    el.className = `card back ${extra}`.trim();
    el.dataset.card = "??";
    el.setAttribute("aria-label", "hidden card");
    return el;
  }
  const rank = RANK_NAME[code[0]] || code[0];
  const suit = code[1];
  el.className = `card face ${suit} ${extra}`.trim();
  el.dataset.card = code;
  el.setAttribute("aria-label", `${rank} of ${SUIT_NAME[suit] || suit}`);
  const r = document.createElement("b");
  r.className = "rank";
  r.textContent = rank;
  const s = document.createElement("i");
  s.className = "suit";
  s.textContent = SUIT_SYMBOL[suit] || suit;
  el.append(r, s);
  return el;
}

// Text form for desks: "A♠ K♦".
export function cardText(code) {
  if (!code || code === "??") return "??";
  return `${RANK_NAME[code[0]] || code[0]}${SUIT_SYMBOL[code[1]] || code[1]}`;
}

export function actionText(a) {
  if (!a) return "";
  if (a.all_in) return "all-in";
  if (["bet", "raise", "call"].includes(a.action)) return `${a.action === "raise" ? "raise to" : a.action} ${chips(a.amount)}`;
  return a.action;
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
