"""The graphics control state: what the graphics operator has on air, applied at once.

Pure (no clock, no I/O). The on-air data is delayed; these controls are not. Every
on-air page applies the latest ``ControlState`` on top of the delayed public view:

- which graphics are up (player bars, board, pot, clock, leaderboard, payouts,
  elimination, deal, lower third, slate) and the panic "hide all";
- "hide seat N's cards";
- the lower third (a player's name and bio, edited by the operator);
- the slate ("break", "hand for hand");
- the operator's extra delay trim: it may add to the table's delay, never remove it;
- page refresh requests (one page, or all).

The desk's manual overrides (a player's display name, chips counted at a break) are not
here: they are correcting events in the journal (engine commands ``display_name`` and
``chip_count``, allowed to the graphics role), so they air with the delay like all data.

``apply_command(state, data, players)`` checks one command from the graphics desk and
returns the next state; a malformed command raises ``BadControl`` naming the field.
A ``take`` applies a batch of commands at once (the preview's "take").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from ..compliance.branding import sponsor_badge
from ..engine.errors import BadCommand

ELEMENTS = ("player_bars", "board", "pot", "clock", "leaderboard", "payouts", "elimination", "deal",
            "lower_third", "slate")
# The table graphics are up by default; the extra graphics wait for the operator.
DEFAULT_VISIBLE = frozenset({"player_bars", "board", "pot", "clock"})
SLATES = ("break", "hand_for_hand")
MAX_TRIM_S = 600  # ten minutes of extra delay is already a rehearsal, not a show
MAX_TITLE = 60
MAX_TEXT = 160
MAX_BATCH = 50
SEATS = range(1, 11)
COMMANDS = ("show", "hide", "hide_all", "restore", "hide_cards", "show_cards", "lower_third", "clear_lower_third",
            "slate", "trim", "refresh", "take")


class BadControl(BadCommand):
    """A graphics command the desk must fix: ``field`` names what, the message says why."""

    code = "bad_control"


@dataclass(frozen=True)
class LowerThird:
    """A name strap: ``player`` is a stable player id, or empty for free text."""

    title: str
    text: str = ""
    player: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"title": self.title, "text": self.text, "player": self.player}


@dataclass(frozen=True)
class ControlState:
    """The graphics desk's state. ``rev`` counts the changes; pages ignore older revisions."""

    rev: int = 0
    visible: frozenset[str] = DEFAULT_VISIBLE
    hide_all: bool = False
    hidden_cards: frozenset[int] = frozenset()
    lower_third: LowerThird | None = None
    slate: str | None = None
    trim_ms: int = 0
    refresh: tuple[tuple[str, int], ...] = ()  # page id (or "all") -> how many refreshes asked
    by: str = ""  # the person behind the last change

    def to_dict(self) -> dict[str, Any]:
        """The wire form on the ``control`` feed."""
        return {
            "rev": self.rev,
            "visible": {name: name in self.visible for name in ELEMENTS},
            "hide_all": self.hide_all,
            "hidden_cards": sorted(self.hidden_cards),
            "lower_third": self.lower_third.to_dict() if self.lower_third else None,
            "slate": self.slate,
            "trim_ms": self.trim_ms,
            "refresh": dict(self.refresh),
            "by": self.by,
        }


def from_dict(data: Mapping[str, Any]) -> ControlState:
    """Rebuild a state from its wire form (the latest entry of the control stream)."""
    lt = data.get("lower_third")
    return ControlState(
        rev=int(data.get("rev", 0)),
        visible=frozenset(k for k, v in (data.get("visible") or {}).items() if v and k in ELEMENTS),
        hide_all=bool(data.get("hide_all")),
        hidden_cards=frozenset(int(s) for s in data.get("hidden_cards") or ()),
        lower_third=LowerThird(lt["title"], lt.get("text", ""), lt.get("player", "")) if lt else None,
        slate=data.get("slate"),
        trim_ms=int(data.get("trim_ms", 0)),
        refresh=tuple((str(k), int(v)) for k, v in (data.get("refresh") or {}).items()),  # in the order first asked
        by=str(data.get("by", "")),
    )


@dataclass(frozen=True)
class Roster:
    """What the checks need to know about the table: players by id, with the name on air
    and the bio from the show file."""

    players: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # id -> (name, bio)


def _element(data: Mapping[str, Any]) -> str:
    name = data.get("element")
    if name not in ELEMENTS:
        raise BadControl(f"element must be one of {', '.join(ELEMENTS)}", field="element")
    return name


def _seat(data: Mapping[str, Any]) -> int:
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in SEATS:
        raise BadControl("seat must be a seat number from 1 to 10", field="seat")
    return seat


def _text(data: Mapping[str, Any], key: str, limit: int, *, required: bool = False) -> str:
    value = data.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise BadControl(f"{key} must be text", field=key)
    value = " ".join(value.split())  # one line on air: no stray newlines or double spaces
    if required and not value:
        raise BadControl(f"{key} cannot be empty", field=key)
    if len(value) > limit:
        raise BadControl(f"{key} is {len(value)} characters; the graphic fits {limit}", field=key)
    return value


def _player(data: Mapping[str, Any], roster: Roster) -> str:
    pid = data.get("player")
    if not isinstance(pid, str) or pid not in roster.players:
        known = ", ".join(sorted(roster.players)) or "none"
        raise BadControl(f"player must be the id of a player at this table ({known})", field="player")
    return pid


def _lower_third(data: Mapping[str, Any], roster: Roster) -> LowerThird:
    pid = ""
    title = _text(data, "title", MAX_TITLE)
    text = _text(data, "text", MAX_TEXT)
    if data.get("player") not in (None, ""):
        pid = _player(data, roster)
        name, bio = roster.players[pid]
        # The operator may edit what the bio says; left empty, the name on air and the bio go up.
        title, text = title or name, text or bio
    if not title:
        raise BadControl("title cannot be empty: pick a player or type the name line", field="title")
    return LowerThird(title, text, pid)


MAX_REFRESH_KEYS = 64  # pages come and go; the state must not grow with every page ever opened


def _bump(pairs: tuple[tuple[str, int], ...], key: str) -> tuple[tuple[str, int], ...]:
    counts = dict(pairs)
    counts[key] = counts.get(key, 0) + 1
    # Keep "all", this page and the pages asked about most lately (dropped first: the first asked).
    others = [k for k in counts if k not in ("all", key)]
    for stale in others[: max(0, len(counts) - MAX_REFRESH_KEYS)]:
        del counts[stale]
    return tuple(counts.items())


def _one(state: ControlState, data: Any, roster: Roster) -> ControlState:
    if not isinstance(data, Mapping):
        raise BadControl("a graphics command must be a JSON object", field="body")
    kind = data.get("type")
    if kind not in COMMANDS:
        raise BadControl(f"type must be one of {', '.join(COMMANDS)}", field="type")
    if kind == "show":
        name = _element(data)
        return replace(state, visible=state.visible | {name})
    if kind == "hide":
        return replace(state, visible=state.visible - {_element(data)})
    if kind == "hide_all":
        return replace(state, hide_all=True)
    if kind == "restore":
        return replace(state, hide_all=False)
    if kind == "hide_cards":
        return replace(state, hidden_cards=state.hidden_cards | {_seat(data)})
    if kind == "show_cards":
        return replace(state, hidden_cards=state.hidden_cards - {_seat(data)})
    if kind == "lower_third":
        shown = state.visible | {"lower_third"} if data.get("show", True) else state.visible
        return replace(state, lower_third=_lower_third(data, roster), visible=shown)
    if kind == "clear_lower_third":
        return replace(state, lower_third=None, visible=state.visible - {"lower_third"})
    if kind == "slate":
        slate = data.get("slate")
        if slate not in (*SLATES, None, ""):
            raise BadControl(f"slate must be one of {', '.join(SLATES)}, or null to take it down", field="slate")
        up = state.visible | {"slate"} if slate else state.visible - {"slate"}
        return replace(state, slate=slate or None, visible=up)
    if kind == "trim":
        seconds = data.get("seconds")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= MAX_TRIM_S:
            raise BadControl(f"seconds must be from 0 to {MAX_TRIM_S}: the trim adds delay on top of the table's, "
                             "it can never take any away", field="seconds")
        return replace(state, trim_ms=int(round(seconds * 1000)))
    if kind == "refresh":
        page = data.get("page", "all")
        if not isinstance(page, str) or not 0 < len(page) <= 64 or not all(c.isalnum() or c in "-_" for c in page):
            raise BadControl("page must be the id of an open page, or \"all\"", field="page")
        return replace(state, refresh=_bump(state.refresh, page))
    # take: the preview's batch, all or nothing.
    batch = data.get("commands")
    if not isinstance(batch, list) or not batch or len(batch) > MAX_BATCH:
        raise BadControl(f"commands must be a list of 1 to {MAX_BATCH} graphics commands", field="commands")
    for i, inner in enumerate(batch):
        if isinstance(inner, Mapping) and inner.get("type") == "take":
            raise BadControl("a take cannot hold another take", field=f"commands[{i}].type")
        try:
            state = _one(state, inner, roster)
        except BadControl as exc:
            raise BadControl(f"command {i + 1}: {exc.reason}", field=f"commands[{i}].{exc.field}") from None
    return state


def apply_command(state: ControlState, data: Any, roster: Roster, *, by: str) -> ControlState:
    """The state after one graphics command by ``by``; raises ``BadControl`` naming the field."""
    after = _one(state, data, roster)
    return replace(after, rev=state.rev + 1, by=by)


def describe(data: Mapping[str, Any]) -> str:
    """One audit line for a command (never a hole card: graphics commands carry none)."""
    kind = data.get("type")
    if kind == "take":
        return "take: " + "; ".join(describe(c) for c in data.get("commands", []) if isinstance(c, Mapping))
    bits = [str(kind)]
    for key in ("element", "seat", "slate", "seconds", "page", "player", "title"):
        if key in data and data[key] not in (None, ""):
            bits.append(f"{key}={data[key]}")
    return " ".join(bits)


# -- the on-air data with the controls applied ----------------------------------------------
def with_controls(view: Mapping[str, Any], control: Mapping[str, Any]) -> dict[str, Any]:
    """The delayed view as the air shows it: the hidden seats' cards as ``??``."""
    hidden = set(control.get("hidden_cards") or ())
    seats = []
    for seat in view.get("seats", []):
        row = dict(seat)
        if row["seat"] in hidden:
            row["hole_cards"] = ["??"] * len(row.get("hole_cards") or ())
        seats.append(row)
    return {**view, "seats": seats}


def leaderboard(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Chip counts, biggest first, each with its share of the chips in play (of the field
    when the TD entered it, else of this table)."""
    seats = [s for s in view.get("seats", []) if s.get("stack", 0) > 0]
    field_chips = (view.get("tournament") or {}).get("chips_in_play") or 0
    total = field_chips or sum(s["stack"] for s in seats)
    rows = sorted(seats, key=lambda s: (-s["stack"], s["seat"]))
    return [{"rank": i, "seat": s["seat"], "player": s.get("player", ""), "name": s["name"], "country": s.get("country", ""),
             "stack": s["stack"], "percent": round(100 * s["stack"] / total, 2) if total else 0.0}
            for i, s in enumerate(rows, start=1)]


def onair(view: Mapping[str, Any] | None, control: Mapping[str, Any], *, table: str) -> dict[str, Any]:
    """Flat on-air data for polling data sources (vMix, Ross, Viz): delayed, controls applied."""
    visible = {k: bool(v) and not control.get("hide_all") for k, v in (control.get("visible") or {}).items()}
    base = {"table": table, "control_rev": control.get("rev", 0), "hide_all": bool(control.get("hide_all")),
            "visible": visible, "slate": control.get("slate"), "lower_third": control.get("lower_third"),
            "trim_ms": int(control.get("trim_ms") or 0)}
    if not view or view.get("type") != "view":
        return {**base, "on_air": False, "seq": 0, "ts": None, "hand": None, "hand_complete": False,
                "message": "nothing has been released yet"}
    v = with_controls(view, control)
    tour = v.get("tournament") or {}
    bb = (v.get("blinds") or {}).get("big_blind") or 0
    seats = [{"seat": s["seat"], "name": s["name"], "country": s.get("country", ""), "stack": s["stack"],
              "big_blinds": round(s["stack"] / bb, 1) if bb else None, "bet": s.get("bet", 0),
              "in_hand": s.get("in_hand", False), "button": s.get("button", False),
              "hole_cards": list(s.get("hole_cards") or ()), "sponsor": s.get("sponsor"),
              "action": (s.get("last_action") or {}).get("action", ""),
              "equity": ((v.get("equity") or {}).get("seats") or {}).get(str(s["seat"]))}
             for s in v["seats"]]
    return {**base, "on_air": True, "seq": v["seq"], "ts": v["ts"], "hand": v["hand"],
            "hand_complete": v["hand_complete"], "level": v.get("level"), "blinds": v.get("blinds"),
            "street": v.get("street"), "pot": v.get("pot", 0), "board": list(v.get("board") or ()), "seats": seats,
            "leaderboard": leaderboard(v), "players_left": tour.get("players_left"), "entries": tour.get("entries"),
            "prize_pool": tour.get("prize_pool"), "payouts": tour.get("payouts", []),
            "eliminations": tour.get("eliminated", []), "deals": tour.get("deals", [])}


def sponsor_badges(rules: Any, config: Any, players: tuple[str, ...]) -> dict[str, str]:
    """Each player's sponsor badge for the player bars, from the compliance state at the same cut.

    A badge airs only when the player's branding complies with the rule book ("Branded Logos"):
    a rep has checked the logos, the sponsor is declared (or is the organiser) and no limit is
    broken. A player in breach, or not checked yet, gets none. Without the show's compliance
    settings (``config`` None) nothing can be judged, so nothing airs."""
    if rules is None or config is None:
        return {}
    badges = {}
    for player in players:
        badge = sponsor_badge(rules.branding, config, rules.field, player, players)
        if badge:
            badges[player] = badge
    return badges
