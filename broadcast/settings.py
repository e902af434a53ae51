"""Show config: read a show file (TOML) and check every key in it.

A show file describes one broadcast: the tables with their seats and players, the
level structure, the broadcast delay, where the service listens, which Redis it uses
and the people who may log in. ``load_show(path)`` returns a frozen ``Show``, or raises
``ConfigError`` naming the exact key and what is wrong with it, so that a floor person
can fix the file without reading Python.

Error tree::

    ConfigError    a key in the show file (or the file itself) is wrong: .key, .reason

The file looks like this (``config/example.toml`` sets and explains every key)::

    [show]
    name = "Main Event Day 2"
    delay = 30                    # seconds, the default for every table
    host = "127.0.0.1"            # optional
    port = 8080                   # optional
    redis_url = "redis://..."     # optional; default is the embedded Redis
    allow_unsafe_redis = false    # optional
    open_onair = true             # optional
    watch_delay = 15              # optional: extra seconds on /watch, for viewers' stream lag
    short_all_ins = "tda"         # optional: "tda" (several short all-ins making a full raise
                                  # reopen the betting) or "single" (only one full raise does)

    [redis]                       # optional: a show on several machines
    ca_file = "/etc/tvtable/tls/ca.crt"     # TLS (rediss://): the CA that signed Redis's certificate
    cert_file = "..."             # optional client certificate and key, both or neither
    key_file = "..."
    core_user = "tvt-core"        # one ACL user per process kind; each one's password comes
    overlay_user = "tvt-overlay"  # from TVTABLE_REDIS_PASSWORD_<KIND> (never from this file)
    cardcam_user = "tvt-cardcam"

    [[levels]]
    small_blind = 100
    big_blind = 200
    ante = 200                    # big blind ante; 0 for none
    minutes = 60

    [[tables]]
    id = "tv"
    name = "TV Table"
    delay = 30                    # optional, falls back to show.delay
    game = "nlhe"                 # optional: "nlhe" or "plo"

      [[tables.seats]]
      seat = 1
      id = "p-ann-lee"            # stable player id, unique across the show
      name = "Ann Lee"
      country = "GB"              # ISO 3166 alpha-2
      chips = 45000
      bio = "..."                 # optional

    [[people]]                    # optional; see broadcast.tokens
    name = "Sam Ortiz"
    role = "dealer"
    token = "..."                 # at least 16 characters
"""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ROLES = ("dealer", "rep", "td", "graphics", "commentator", "secure", "camera", "viewer")
GAMES = ("nlhe", "plo")
MIN_TOKEN_LENGTH = 16
MAX_SEATS = 10

# ISO 3166-1 alpha-2, officially assigned codes (copied from Debian's iso-codes so the
# check works on machines without that package), plus XK: Kosovo has no official code
# yet, but "XK" is what federations and flag sets use, and players from there do play.
COUNTRIES = frozenset(
    """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN
    BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
    DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL
    GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM
    JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME
    MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP
    NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD
    SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
    TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW XK
    """.split()
)

# Table and player ids end up in URLs (?table=tv), Redis keys and hand histories, so
# they stay short and plain.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
# Tokens travel in an HTTP header and a cookie: no spaces, quotes, commas or semicolons.
_TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]+")
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


class ConfigError(Exception):
    """A key in the show file, or the file itself, is wrong.

    ``key`` is the dotted path of the key (``tables[0].seats[2].chips``, or ``file``
    for the file as a whole) and ``reason`` says what is wrong in poker-room words.
    Print ``str(error)`` to the operator; it is meant to be read, not debugged.
    """

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(key, reason)
        self.key = key
        self.reason = reason

    def __str__(self) -> str:
        return f"config key {self.key!r}: {self.reason}"


@dataclass(frozen=True)
class Player:
    """A player with a stable id (kept across tables and days), shown on air."""

    id: str
    name: str
    country: str  # ISO 3166 alpha-2, e.g. "GB"
    chips: int
    bio: str = ""


@dataclass(frozen=True)
class Seat:
    """A seat number (1..10) and the player in it."""

    seat: int
    player: Player


@dataclass(frozen=True)
class Level:
    """One level of the structure; ``ante`` is a big blind ante (0 for none)."""

    small_blind: int
    big_blind: int
    ante: int
    minutes: int


@dataclass(frozen=True)
class TableConfig:
    """One table: its id, its on-air name, its delay in seconds and its seats."""

    id: str
    name: str
    delay: float
    seats: tuple[Seat, ...]
    game: str = "nlhe"
    # The TV-table rules (devices surrendered, logos checked, cards to the camera) are
    # enforced here. An outer feature table sets ``tv_rules = false``.
    tv_rules: bool = True
    short_all_ins: str = "tda"  # see TableOpened.short_all_ins


@dataclass(frozen=True)
class Person:
    """Someone who may log in: a name for the audit log, one role and one token."""

    name: str
    role: str
    # repr=False: a Person printed in a log line or a traceback must not leak its token.
    token: str = field(repr=False)


@dataclass(frozen=True)
class ComplianceSettings:
    """The ``[compliance]`` section: how the TV-table rules are applied at this show."""

    halt_at: str = "turn"  # HALT PLAY at an unshown seat's turn, or "first_action" of the hand
    hidden_camera: bool = True  # the final table has the hidden camera
    organiser: str = "Pokerfest"
    approved_operators: tuple[str, ...] = ()
    forbidden_operators: tuple[str, ...] = ()
    unauthorised_satellites: tuple[str, ...] = ()
    # "Calling for Clock": the rule book's 50 s then a 10 s countdown, and 25 s then 5 s at
    # levels of ``short_level_minutes`` or less. A rehearsal may shorten them, never lengthen.
    clock_seconds: int = 50
    clock_countdown: int = 10
    short_level_clock_seconds: int = 25
    short_level_clock_countdown: int = 5
    short_level_minutes: int = 20
    clock_tie_ms: int = 1000  # an action this close after the countdown is a tie: the player's


SERVICE_KINDS = ("core", "overlay", "cardcam")


@dataclass(frozen=True)
class RedisSettings:
    """The ``[redis]`` section: TLS files and one ACL user name per process kind.

    Passwords are not here: each kind reads its own from ``TVTABLE_REDIS_PASSWORD_<KIND>``.
    """

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    users: tuple[tuple[str, str], ...] = ()  # (kind, ACL user name); empty: the URL's user (or default)

    def user(self, kind: str) -> str | None:
        """The ACL user name of a process kind, or None when the show sets none."""
        return dict(self.users).get(kind)


@dataclass(frozen=True)
class Show:
    """A whole show file, checked."""

    name: str
    tables: tuple[TableConfig, ...]
    levels: tuple[Level, ...]
    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None
    allow_unsafe_redis: bool = False
    open_onair: bool = True
    people: tuple[Person, ...] = ()
    compliance: "ComplianceSettings" = field(default_factory=lambda: ComplianceSettings())
    cardcam: Any = None  # cardcam.cameras.CardcamSettings: [cardcam] and [[cameras]]
    watch_delay: float = 0.0  # extra seconds on /watch, on top of each table's delay
    redis: RedisSettings = field(default_factory=RedisSettings)
    # ``[field]``: a new table's opening field data (entries, prize pool, payouts), in the
    # form of the TD's ``field_data`` command; later the TD's own field data replaces it.
    field_data: Mapping[str, Any] | None = None

    def table(self, id: str) -> TableConfig:
        """Return the table with this id; raise ``KeyError`` naming the known ids."""
        for table in self.tables:
            if table.id == id:
                return table
        known = ", ".join(t.id for t in self.tables)
        raise KeyError(f"no table {id!r} in this show (tables: {known})")


def load_show(path: str | os.PathLike[str]) -> Show:
    """Read and check the show file at ``path``.

    Raises ``ConfigError`` with key ``file`` when the file is missing, unreadable or
    not valid TOML (the reason gives the line), and with the exact key otherwise.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise ConfigError("file", f"no show file at {os.fspath(path)}: check the path") from None
    except IsADirectoryError:
        raise ConfigError("file", f"{os.fspath(path)} is a folder, not a show file") from None
    except OSError as e:
        raise ConfigError("file", f"cannot read {os.fspath(path)}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(
            "file", f"{os.fspath(path)} is not UTF-8 text (bad byte at offset {e.start})"
        ) from None
    return parse_show(text, source=os.fspath(path))


def parse_show(text: str, *, source: str = "show file") -> Show:
    """Check a show file given as TOML text; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib's message ends with "(at line N, column M)", which is what the
        # operator needs to find the typo.
        raise ConfigError("file", f"{source} is not valid TOML: {e}") from None
    return _read_show(data)


# --- reading ---------------------------------------------------------------------

_MISSING: Any = object()


class _Section:
    """One TOML table being read. Unknown keys are refused up front, because a
    misspelt key ("big_blnd") is the real mistake, not the "missing" one it causes."""

    def __init__(self, data: Any, path: str, known: tuple[str, ...], what: str) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(path, f"must be a {what} section")
        self.data = data
        self.path = path
        for name in data:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"did you mean {close[0]!r}?" if close else "known keys here: " + ", ".join(known)
                raise ConfigError(self.key(name), f"is not a setting we know ({hint})")

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def has(self, name: str) -> bool:
        return name in self.data

    def get(self, name: str, default: Any) -> Any:
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            raise ConfigError(self.key(name), "is missing")
        return default

    def text(self, name: str, default: Any = _MISSING, *, empty_ok: bool = False) -> str:
        value = self.get(name, default)
        if not isinstance(value, str):
            raise ConfigError(self.key(name), "must be text in quotes")
        if not empty_ok and not value.strip():
            raise ConfigError(self.key(name), "must not be empty")
        return value

    def whole(self, name: str, low: int, high: int | None, reason: str, default: Any = _MISSING) -> int:
        value = self.get(name, default)
        # bool is an int in Python; "chips = true" is a mistake, not 1 chip.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(self.key(name), reason)
        if value < low or (high is not None and value > high):
            raise ConfigError(self.key(name), reason)
        return value

    def seconds(self, name: str, default: Any = _MISSING) -> float:
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ConfigError(self.key(name), "must be a number of seconds, zero or more (e.g. 30)")
        return float(value)

    def flag(self, name: str, default: bool) -> bool:
        value = self.get(name, default)
        if not isinstance(value, bool):
            raise ConfigError(self.key(name), "must be true or false (no quotes)")
        return value

    def sections(self, name: str, known: tuple[str, ...], what: str, *, required: bool) -> list[_Section]:
        value = self.get(name, _MISSING if required else [])
        if not isinstance(value, list):
            raise ConfigError(self.key(name), f"must be a list of {what} sections")
        return [_Section(item, f"{self.key(name)}[{i}]", known, what) for i, item in enumerate(value)]


def _read_show(data: dict[str, Any]) -> Show:
    top = _Section(data, "", ("show", "levels", "tables", "people", "compliance", "cardcam", "cameras", "redis", "field"),
                   "top")
    show = _Section(top.get("show", _MISSING), "show", (
        "name", "delay", "host", "port", "redis_url", "allow_unsafe_redis", "open_onair", "watch_delay",
        "short_all_ins",
    ), "[show]")
    name = show.text("name")
    delay = show.seconds("delay")
    host = show.text("host", "127.0.0.1")
    port = show.whole("port", 1, 65535, "must be a port number from 1 to 65535", 8080)
    redis_url = None
    if show.has("redis_url"):
        redis_url = show.text("redis_url")
        if not redis_url.startswith(_REDIS_SCHEMES):
            raise ConfigError("show.redis_url", "must be a Redis address like redis://host:6379/0, "
                              "rediss://host:6380/0 or unix:///path/to/redis.sock")
    short_all_ins = show.text("short_all_ins", "tda")
    if short_all_ins not in ("tda", "single"):
        raise ConfigError("show.short_all_ins", 'must be "tda" (several short all-ins that together make a full raise '
                          'reopen the betting) or "single" (only one full raise reopens it)')
    tables = _read_tables(top, delay, short_all_ins)
    # The hole-card cameras are checked by the card reader's own module (it knows sources
    # and regions); imported here lazily because it imports this module.
    from cardcam.cameras import read_cardcam

    return Show(
        name=name,
        tables=tables,
        cardcam=read_cardcam(data, tables),
        levels=_read_levels(top),
        host=host,
        port=port,
        redis_url=redis_url,
        allow_unsafe_redis=show.flag("allow_unsafe_redis", False),
        open_onair=show.flag("open_onair", True),
        people=_read_people(top),
        compliance=_read_compliance(top),
        watch_delay=show.seconds("watch_delay", 0.0),
        redis=_read_redis(top, redis_url),
        field_data=_read_field(top),
    )


FIELD_KEYS = ("entries", "players_left", "chips_in_play", "prize_pool", "payouts")


def _read_field(top: _Section) -> dict[str, Any] | None:
    """``[field]`` and its ``[[field.payouts]]`` (first, last, amount), checked by the very
    rules the TD's ``field_data`` command is checked by."""
    if not top.has("field"):
        return None
    sec = _Section(top.get("field", {}), "field", FIELD_KEYS, "[field]")
    data: dict[str, Any] = {name: sec.whole(name, 0, None, "must be a whole number, 0 or more", 0)
                            for name in FIELD_KEYS if name != "payouts"}
    data["payouts"] = [{"first": p.whole("first", 1, None, "must be a finishing place, 1 or more"),
                        "last": p.whole("last", 1, None, "must be a finishing place, 1 or more",
                                        p.get("first", 1)),
                        "amount": p.whole("amount", 0, None, "must be a whole amount of money, 0 or more")}
                       for p in sec.sections("payouts", ("first", "last", "amount"), "[[field.payouts]]", required=False)]
    from .compliance.field import from_show_file
    from .engine.errors import Refusal

    try:
        from_show_file(data, at_ms=0)
    except Refusal as refusal:
        raise ConfigError(f"field.{refusal.field or 'payouts'}", refusal.reason) from None
    return data


def _read_redis(top: _Section, url: str | None) -> RedisSettings:
    if not top.has("redis"):
        return RedisSettings()
    sec = _Section(top.get("redis", {}), "redis", (
        "ca_file", "cert_file", "key_file", *(f"{kind}_user" for kind in SERVICE_KINDS),
    ), "[redis]")
    files = {name: sec.text(name) if sec.has(name) else None for name in ("ca_file", "cert_file", "key_file")}
    if (files["cert_file"] is None) != (files["key_file"] is None):
        missing = "key_file" if files["key_file"] is None else "cert_file"
        raise ConfigError(sec.key(missing), "a client certificate needs both cert_file and key_file")
    if any(files.values()) and url is not None and not url.startswith("rediss://"):
        raise ConfigError("show.redis_url", "TLS files are set in [redis]: use a rediss:// address")
    users = []
    for kind in SERVICE_KINDS:
        name = f"{kind}_user"
        if sec.has(name):
            value = sec.text(name)
            if not _ID.fullmatch(value):
                raise ConfigError(sec.key(name), "a Redis user name must be letters, digits, - or _, like \"tvt-core\"")
            users.append((kind, value))
    return RedisSettings(**files, users=tuple(users))


def _read_compliance(top: _Section) -> ComplianceSettings:
    if not top.has("compliance"):
        return ComplianceSettings()
    sec = _Section(top.get("compliance", {}), "compliance", (
        "halt_at", "hidden_camera", "organiser", "approved_operators", "forbidden_operators", "unauthorised_satellites",
        *CLOCK_KEYS,
    ), "[compliance]")
    halt_at = sec.text("halt_at", "turn")
    if halt_at not in ("turn", "first_action"):
        raise ConfigError(sec.key("halt_at"), 'must be "turn" (HALT PLAY when the action reaches an unshown seat) '
                          'or "first_action" (at the hand\'s first action while any seat is unshown)')
    lists = {}
    for name in ("approved_operators", "forbidden_operators", "unauthorised_satellites"):
        value = sec.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(sec.key(name), "must be a list of company names, like [\"Acme Poker\"]")
        lists[name] = tuple(v.strip() for v in value)
    clock = {name: sec.whole(name, low, high, reason, getattr(ComplianceSettings, name))
             for name, (low, high, reason) in CLOCK_KEYS.items()}
    return ComplianceSettings(halt_at=halt_at, hidden_camera=sec.flag("hidden_camera", True),
                              organiser=sec.text("organiser", "Pokerfest"), **lists, **clock)


# The called clock's keys: (lowest, highest, the reason a value is refused). The rule book's
# allowance is the most a show may give; a rehearsal may shorten it so a test need not wait.
CLOCK_KEYS = {
    "clock_seconds": (1, 50, "must be whole seconds from 1 to 50 (the rule book's clock is 50 s, then the countdown)"),
    "clock_countdown": (0, 10, "must be whole seconds from 0 to 10 (the rule book's countdown is 10 s)"),
    "short_level_clock_seconds": (1, 25, "must be whole seconds from 1 to 25 (at levels of 20 minutes or less the "
                                         "rule book's clock is 25 s)"),
    "short_level_clock_countdown": (0, 5, "must be whole seconds from 0 to 5 (at short levels the rule book's "
                                          "countdown is 5 s)"),
    "short_level_minutes": (1, None, "must be whole minutes, 1 or more (the rule book: 20)"),
    "clock_tie_ms": (0, 5000, "must be whole milliseconds from 0 to 5000 (a tie between the countdown and the "
                              "action goes to the player)"),
}


def _read_levels(top: _Section) -> tuple[Level, ...]:
    levels = []
    for lv in top.sections("levels", ("small_blind", "big_blind", "ante", "minutes"), "[[levels]]", required=True):
        chips = "must be a whole number of chips above zero"
        sb = lv.whole("small_blind", 1, None, chips)
        bb = lv.whole("big_blind", 1, None, chips)
        if sb > bb:
            raise ConfigError(lv.key("small_blind"), f"the small blind ({sb:,}) is bigger than the big blind ({bb:,})")
        ante = lv.whole("ante", 0, None, "must be a whole number of chips, 0 for no ante")
        minutes = lv.whole("minutes", 1, None, "must be a whole number of minutes above zero")
        levels.append(Level(sb, bb, ante, minutes))
    if not levels:
        raise ConfigError("levels", "the structure needs at least one [[levels]] entry")
    return tuple(levels)


def _read_tables(top: _Section, show_delay: float, short_all_ins: str = "tda") -> tuple[TableConfig, ...]:
    tables: list[TableConfig] = []
    player_at: dict[str, str] = {}  # player id -> where they sit, for the duplicate message
    for t in top.sections("tables", ("id", "name", "delay", "game", "seats", "tv_rules"), "[[tables]]", required=True):
        tid = _read_id(t, "id", "table")
        if any(other.id == tid for other in tables):
            raise ConfigError(t.key("id"), f"table id {tid!r} is used twice; every table needs its own id")
        name = t.text("name")
        delay = t.seconds("delay", show_delay)
        game = t.text("game", "nlhe")
        if game not in GAMES:
            raise ConfigError(t.key("game"), "must be \"nlhe\" (no-limit hold'em) or \"plo\" (pot-limit Omaha)")
        seats: list[Seat] = []
        known = ("seat", "id", "name", "country", "chips", "bio")
        for s in t.sections("seats", known, "[[tables.seats]]", required=True):
            number = s.whole("seat", 1, MAX_SEATS, f"must be a seat number from 1 to {MAX_SEATS}")
            taken = next((x for x in seats if x.seat == number), None)
            if taken:
                raise ConfigError(s.key("seat"), f"seat {number} is already taken by {taken.player.name}")
            pid = _read_id(s, "id", "player")
            pname = s.text("name")
            if pid in player_at:
                raise ConfigError(s.key("id"), f"player id {pid!r} is already used for {player_at[pid]}; "
                                  "every player needs their own id")
            player_at[pid] = f"{pname} at table {tid!r} seat {number}"
            country = s.text("country")
            if country not in COUNTRIES:
                hint = f" (write it in capitals: {country.upper()!r})" if country.upper() in COUNTRIES else ""
                raise ConfigError(s.key("country"), "must be a two-letter ISO 3166 country code, "
                                  f"like \"GB\" or \"DE\"{hint}")
            chips = s.whole("chips", 1, None, "must be a whole number of chips above zero")
            bio = s.text("bio", "", empty_ok=True)
            seats.append(Seat(number, Player(pid, pname, country, chips, bio)))
        if len(seats) < 2:
            raise ConfigError(t.key("seats"), f"a table needs at least 2 seated players; this one has {len(seats)}")
        seats.sort(key=lambda x: x.seat)
        tables.append(TableConfig(tid, name, delay, tuple(seats), game, t.flag("tv_rules", True), short_all_ins))
    if not tables:
        raise ConfigError("tables", "the show needs at least one [[tables]] entry")
    return tuple(tables)


def _read_people(top: _Section) -> tuple[Person, ...]:
    people: list[Person] = []
    token_owner: dict[str, str] = {}
    for p in top.sections("people", ("name", "role", "token"), "[[people]]", required=False):
        name = p.text("name")
        role = p.text("role")
        if role not in ROLES:
            raise ConfigError(p.key("role"), f"{role!r} is not a role; roles are: {', '.join(ROLES)}")
        token = p.text("token")
        problem = token_problem(token)
        if problem:
            raise ConfigError(p.key("token"), problem)
        # Never echo the token itself: error messages end up in logs and chat.
        if token in token_owner:
            raise ConfigError(p.key("token"), f"is the same token as {token_owner[token]}; "
                              "every person needs their own token")
        token_owner[token] = f"{p.path} ({name}, {role})"
        people.append(Person(name, role, token))
    return tuple(people)


def token_problem(token: str) -> str | None:
    """Say what is wrong with ``token`` (too short, odd characters), or None if it is usable.

    The answer never contains the token, only its length.
    """
    if len(token) < MIN_TOKEN_LENGTH:
        return (f"is {len(token)} characters; a token needs at least {MIN_TOKEN_LENGTH} "
                "so that it cannot be guessed")
    if not _TOKEN.fullmatch(token):
        return "may only use letters, digits and - _ . ~ + / = (it is sent in a header and a cookie)"
    return None


def _read_id(section: _Section, name: str, what: str) -> str:
    value = section.text(name)
    if not _ID.fullmatch(value):
        raise ConfigError(section.key(name), f"a {what} id must be letters, digits, - or _ "
                          "(at most 64, starting with a letter or digit), like \"tv\" or \"p-ann-lee\"")
    return value
