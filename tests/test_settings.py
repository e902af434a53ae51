"""Show file checks: every rule gets a test, named after the rule."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import pytest

from broadcast.settings import (
    ROLES,
    ConfigError,
    Level,
    Person,
    load_show,
    parse_show,
)

CONFIG = Path(__file__).resolve().parent.parent / "config"


def seat(n: int, pid: str, chips: int = 30000, **extra) -> dict:
    return {"seat": n, "id": pid, "name": f"Player {pid}", "country": "GB", "chips": chips, **extra}


BASE = {
    "show": {"name": "Test Show", "delay": 30},
    "levels": [{"small_blind": 100, "big_blind": 200, "ante": 200, "minutes": 30}],
    "tables": [
        {"id": "tv", "name": "TV Table", "seats": [seat(1, "a"), seat(2, "b"), seat(3, "c")]},
        {"id": "outer", "name": "Outer", "delay": 5, "seats": [seat(1, "d"), seat(2, "e")]},
    ],
    "people": [
        {"name": "Sam", "role": "dealer", "token": "dealer-token-0123456789"},
        {"name": "Ruth", "role": "rep", "token": "rep-token-0123456789"},
    ],
}


def to_toml(data: dict, prefix: str = "") -> str:
    """Just enough of a TOML writer for show files, so tests state changes as dicts."""

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)  # a JSON string is a valid TOML basic string
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)  # int, float, nan, inf

    def is_aot(v) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict) and not is_aot(v)]
    for k, v in data.items():
        if isinstance(v, dict):
            lines += [f"[{prefix}{k}]", to_toml(v, f"{prefix}{k}.")]
    for k, v in data.items():
        if is_aot(v):
            for item in v:
                lines += [f"[[{prefix}{k}]]", to_toml(item, f"{prefix}{k}.")]
    return "\n".join(lines)


def show_with(change) -> str:
    data = copy.deepcopy(BASE)
    change(data)
    return to_toml(data)


def refused(change) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_show(show_with(change))
    return info.value


# --- files that ship ---------------------------------------------------------------


def test_demo_show_loads_with_one_tv_table_of_six():
    show = load_show(CONFIG / "demo.toml")
    tv = show.table("tv")
    assert [t.id for t in show.tables] == ["tv"]
    assert len(tv.seats) == 6
    assert all(20_000 <= s.player.chips <= 60_000 for s in tv.seats)
    assert len({s.player.country for s in tv.seats}) >= 4
    assert len(show.levels) == 10
    assert all(level.ante > 0 for level in show.levels), "big blind antes throughout"
    assert tv.delay == 10.0
    assert (show.host, show.port) == ("127.0.0.1", 8080)
    assert show.people == (), "the demo generates its tokens"


def test_example_show_sets_every_key():
    raw = tomllib.loads((CONFIG / "example.toml").read_text())
    assert set(raw["show"]) == {"name", "delay", "host", "port", "redis_url", "allow_unsafe_redis", "open_onair", "short_all_ins",
                                "watch_delay"}
    assert set(raw["redis"]) == {"ca_file", "cert_file", "key_file", "core_user", "overlay_user", "cardcam_user"}
    assert all(set(t) == {"id", "name", "delay", "game", "seats", "tv_rules"} for t in raw["tables"])
    assert set(raw["compliance"]) == {"halt_at", "hidden_camera", "organiser", "approved_operators",
                                      "forbidden_operators", "unauthorised_satellites", "clock_seconds",
                                      "clock_countdown", "short_level_clock_seconds", "short_level_clock_countdown",
                                      "short_level_minutes", "clock_tie_ms"}
    assert set(raw["field"]) == {"entries", "players_left", "chips_in_play", "prize_pool", "payouts"}
    assert {k for p in raw["field"]["payouts"] for k in p} == {"first", "last", "amount"}
    assert all(set(s) == {"seat", "id", "name", "country", "chips", "bio"} for t in raw["tables"] for s in t["seats"])
    show = load_show(CONFIG / "example.toml")
    assert [t.id for t in show.tables] == ["tv", "outer"]
    assert sorted(p.role for p in show.people) == sorted(ROLES)
    assert all(p.token.startswith("EXAMPLE-") for p in show.people), "example tokens look fake"


# --- what a good file gives ----------------------------------------------------------


def test_table_delay_falls_back_to_the_show_delay():
    show = parse_show(show_with(lambda d: None))
    assert show.table("tv").delay == 30.0
    assert show.table("outer").delay == 5.0


def test_defaults_for_optional_keys():
    show = parse_show(show_with(lambda d: None))
    assert (show.host, show.port, show.redis_url) == ("127.0.0.1", 8080, None)
    assert show.allow_unsafe_redis is False and show.open_onair is True
    assert show.table("tv").game == "nlhe"
    assert show.levels == (Level(100, 200, 200, 30),)


def test_seats_come_back_in_seat_order():
    def shuffle(d):
        d["tables"][0]["seats"] = [seat(7, "a"), seat(2, "b"), seat(4, "c")]

    assert [s.seat for s in parse_show(show_with(shuffle)).table("tv").seats] == [2, 4, 7]


def test_unknown_table_id_names_the_known_ones():
    show = parse_show(show_with(lambda d: None))
    with pytest.raises(KeyError, match="tv, outer"):
        show.table("feature")


def test_a_person_printed_in_a_log_does_not_show_the_token():
    person = Person("Sam", "dealer", "dealer-token-0123456789")
    assert "dealer-token" not in repr(person)


def test_config_error_reads_as_key_and_reason():
    error = ConfigError("tables[0].seats[2].chips", "must be a whole number of chips above zero")
    assert str(error) == "config key 'tables[0].seats[2].chips': must be a whole number of chips above zero"


# --- every refusal ------------------------------------------------------------------


def _set(path: str, value):
    """A change that sets data[a][b]... = value, path like 'tables.0.seats.2.chips'."""

    def change(d):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        for p in parents:
            d = d[p]
        d[last] = value

    return change


def _drop(path: str):
    def change(d):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        for p in parents:
            d = d[p]
        del d[last]

    return change


CHIPS = "must be a whole number of chips above zero"

REFUSALS = [
    # (name, change, key, words in the reason)
    ("chips zero", _set("tables.0.seats.2.chips", 0), "tables[0].seats[2].chips", CHIPS),
    ("chips negative", _set("tables.0.seats.2.chips", -5), "tables[0].seats[2].chips", CHIPS),
    ("chips as text", _set("tables.0.seats.2.chips", "lots"), "tables[0].seats[2].chips", CHIPS),
    ("chips fractional", _set("tables.0.seats.2.chips", 1.5), "tables[0].seats[2].chips", CHIPS),
    ("chips true", _set("tables.0.seats.2.chips", True), "tables[0].seats[2].chips", CHIPS),
    ("chips missing", _drop("tables.0.seats.2.chips"), "tables[0].seats[2].chips", "is missing"),
    ("unknown seat key", _set("tables.0.seats.0.stack", 5), "tables[0].seats[0].stack", "not a setting"),
    ("unknown top key", _set("extras", 1), "extras", "not a setting"),
    ("misspelt show key", _set("show.dealy", 3), "show.dealy", "did you mean 'delay'"),
    ("unknown level key", _set("levels.0.big_blnd", 3), "levels[0].big_blnd", "did you mean 'big_blind'"),
    ("unknown person key", _set("people.0.pin", "1"), "people[0].pin", "not a setting"),
    ("show missing", _drop("show"), "show", "is missing"),
    ("show not a section", _set("show", "x"), "show", "must be a [show] section"),
    ("show name missing", _drop("show.name"), "show.name", "is missing"),
    ("show name empty", _set("show.name", " "), "show.name", "must not be empty"),
    ("show name a number", _set("show.name", 5), "show.name", "must be text"),
    ("show delay missing", _drop("show.delay"), "show.delay", "is missing"),
    ("show delay negative", _set("show.delay", -1), "show.delay", "zero or more"),
    ("show delay nan", _set("show.delay", float("nan")), "show.delay", "zero or more"),
    ("show delay text", _set("show.delay", "30"), "show.delay", "seconds"),
    ("table delay negative", _set("tables.1.delay", -0.5), "tables[1].delay", "zero or more"),
    ("port zero", _set("show.port", 0), "show.port", "1 to 65535"),
    ("port too big", _set("show.port", 65536), "show.port", "1 to 65535"),
    ("port text", _set("show.port", "8080"), "show.port", "1 to 65535"),
    ("host empty", _set("show.host", ""), "show.host", "must not be empty"),
    ("redis url without scheme", _set("show.redis_url", "localhost:6379"), "show.redis_url", "redis://"),
    ("unsafe redis flag as text", _set("show.allow_unsafe_redis", "yes"), "show.allow_unsafe_redis", "true or false"),
    ("open onair flag as number", _set("show.open_onair", 1), "show.open_onair", "true or false"),
    ("levels missing", _drop("levels"), "levels", "is missing"),
    ("levels empty", _set("levels", []), "levels", "at least one"),
    ("levels not sections", _set("levels", [1, 2]), "levels[0]", "[[levels]] section"),
    ("small blind above big", _set("levels.0.small_blind", 300), "levels[0].small_blind", "bigger than the big blind"),
    ("small blind zero", _set("levels.0.small_blind", 0), "levels[0].small_blind", CHIPS),
    ("big blind zero", _set("levels.0.big_blind", 0), "levels[0].big_blind", CHIPS),
    ("ante negative", _set("levels.0.ante", -1), "levels[0].ante", "0 for no ante"),
    ("minutes zero", _set("levels.0.minutes", 0), "levels[0].minutes", "minutes above zero"),
    ("tables missing", _drop("tables"), "tables", "is missing"),
    ("tables empty", _set("tables", []), "tables", "at least one"),
    ("tables not a list", _set("tables", "tv"), "tables", "list of [[tables]]"),
    ("table id with a space", _set("tables.0.id", "tv table"), "tables[0].id", "letters, digits"),
    ("table id twice", _set("tables.1.id", "tv"), "tables[1].id", "used twice"),
    ("table name missing", _drop("tables.0.name"), "tables[0].name", "is missing"),
    ("game unknown", _set("tables.0.game", "stud"), "tables[0].game", "nlhe"),
    ("seats missing", _drop("tables.0.seats"), "tables[0].seats", "is missing"),
    ("one seated player", _set("tables.1.seats", [seat(1, "d")]), "tables[1].seats", "at least 2 seated players"),
    ("seat number twice", _set("tables.0.seats.2.seat", 1), "tables[0].seats[2].seat", "seat 1 is already taken"),
    ("seat zero", _set("tables.0.seats.0.seat", 0), "tables[0].seats[0].seat", "from 1 to 10"),
    ("seat eleven", _set("tables.0.seats.0.seat", 11), "tables[0].seats[0].seat", "from 1 to 10"),
    ("player id twice at one table", _set("tables.0.seats.1.id", "a"), "tables[0].seats[1].id", "already used"),
    ("player id twice across tables", _set("tables.1.seats.0.id", "b"), "tables[1].seats[0].id", "table 'tv' seat 2"),
    ("player id with a slash", _set("tables.0.seats.0.id", "a/b"), "tables[0].seats[0].id", "letters, digits"),
    ("country lower case", _set("tables.0.seats.0.country", "gb"), "tables[0].seats[0].country", "capitals: 'GB'"),
    ("country not iso", _set("tables.0.seats.0.country", "UK"), "tables[0].seats[0].country", "ISO 3166"),
    ("country three letters", _set("tables.0.seats.0.country", "GBR"), "tables[0].seats[0].country", "ISO 3166"),
    ("bio a number", _set("tables.0.seats.0.bio", 7), "tables[0].seats[0].bio", "must be text"),
    ("role unknown", _set("people.1.role", "boss"), "people[1].role", "dealer, rep, td"),
    ("token short", _set("people.0.token", "short-token"), "people[0].token", "at least 16"),
    ("token with a space", _set("people.0.token", "dealer token 0123456789"), "people[0].token", "letters, digits"),
    ("token twice", _set("people.1.token", "dealer-token-0123456789"), "people[1].token", "same token as people[0]"),
    ("person name missing", _drop("people.0.name"), "people[0].name", "is missing"),
]


@pytest.mark.parametrize("change, key, words", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refused(change, key, words):
    error = refused(change)
    assert error.key == key
    assert words in error.reason
    assert str(error).startswith(f"config key {key!r}: ")


def test_a_duplicate_token_is_not_echoed_in_the_error():
    error = refused(_set("people.1.token", "dealer-token-0123456789"))
    assert "dealer-token" not in str(error)


def test_invalid_toml_gives_the_line(tmp_path):
    path = tmp_path / "show.toml"
    path.write_text('[show]\nname = "x"\ndelay = \n')
    with pytest.raises(ConfigError) as info:
        load_show(path)
    assert info.value.key == "file"
    assert "line 3" in info.value.reason and str(path) in info.value.reason


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_show(tmp_path / "nope.toml")
    assert info.value.key == "file" and "no show file" in info.value.reason


def test_folder_instead_of_file(tmp_path):
    with pytest.raises(ConfigError, match="is a folder"):
        load_show(tmp_path)


def test_file_that_is_not_text(tmp_path):
    path = tmp_path / "show.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_show(path)


def test_compliance_settings_name_the_key_when_wrong():
    base = (CONFIG / "demo.toml").read_text()
    with pytest.raises(ConfigError) as err:
        parse_show(base + '\n[compliance]\nhalt_at = "later"\n')
    assert err.value.key == "compliance.halt_at"
    with pytest.raises(ConfigError) as err:
        parse_show(base + '\n[compliance]\napproved_operators = "Acme"\n')
    assert err.value.key == "compliance.approved_operators"


def test_called_clock_allowance_defaults_to_the_rule_book_and_may_only_be_shortened():
    base = (CONFIG / "demo.toml").read_text()
    rules = parse_show(base).compliance
    assert (rules.clock_seconds, rules.clock_countdown) == (50, 10)  # "50 second time limit ... 10 second countdown"
    assert (rules.short_level_clock_seconds, rules.short_level_clock_countdown, rules.short_level_minutes) == (25, 5, 20)
    assert rules.clock_tie_ms == 1000
    rehearsal = parse_show(base + "\n[compliance]\nclock_seconds = 5\nclock_countdown = 2\nclock_tie_ms = 0\n").compliance
    assert (rehearsal.clock_seconds, rehearsal.clock_countdown, rehearsal.clock_tie_ms) == (5, 2, 0)
    for key, value in (("clock_seconds", 60), ("clock_countdown", 11), ("short_level_clock_seconds", 30),
                       ("short_level_clock_countdown", -1), ("clock_tie_ms", "1s"), ("clock_seconds", True)):
        with pytest.raises(ConfigError) as err:
            parse_show(base + f"\n[compliance]\n{key} = {value if not isinstance(value, str) else repr(value)}\n"
                       .replace("True", "true"))
        assert err.value.key == f"compliance.{key}"


def test_short_all_ins_is_a_show_setting_default_tda_and_a_bad_value_names_the_key():
    from broadcast.service import opening_event

    show = parse_show(show_with(lambda d: None))
    assert {t.short_all_ins for t in show.tables} == {"tda"}
    single = parse_show(show_with(lambda d: d["show"].update(short_all_ins="single")))
    assert opening_event(single.tables[0], single.levels).short_all_ins == "single"
    with pytest.raises(ConfigError) as info:
        parse_show(show_with(lambda d: d["show"].update(short_all_ins="robert")))
    assert info.value.key == "show.short_all_ins" and "several short all-ins" in str(info.value)


def test_payouts_come_from_the_show_file_checked_like_the_tds_field_data():
    """Rule book issue: "Payouts come from the config, or from the TD's field data after a deal"."""
    def field(**extra):
        return lambda d: d.update(field={"entries": 96, "players_left": 6, "prize_pool": 96000, **extra})

    show = parse_show(show_with(field(payouts=[{"first": 1, "amount": 30000}, {"first": 2, "last": 6, "amount": 10000}])))
    assert show.field_data["payouts"] == [{"first": 1, "last": 1, "amount": 30000}, {"first": 2, "last": 6, "amount": 10000}]
    assert parse_show(show_with(lambda d: None)).field_data is None  # optional

    too_much = refused(field(payouts=[{"first": 1, "amount": 90000}, {"first": 2, "amount": 9000}]))
    assert too_much.key == "field.payouts" and "exceed the prize pool (96,000)" in str(too_much)
    overlap = refused(field(payouts=[{"first": 1, "last": 3, "amount": 1}, {"first": 3, "amount": 1}]))
    assert overlap.key == "field.payouts" and "overlap at place 3" in str(overlap)
    assert refused(field(players_left=97)).key == "field.players_left"
    assert refused(field(payouts=[{"first": 0, "amount": 1}])).key == "field.payouts[0].first"
    assert refused(field(payouts=[{"first": 1, "amount": "lots"}])).key == "field.payouts[0].amount"
    assert "did you mean 'entries'" in str(refused(lambda d: d.update(field={"entrys": 5})))
