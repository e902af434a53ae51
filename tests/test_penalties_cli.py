"""``tvtable penalties export|import``: rule "Penalties Move" across days when the next
day runs on another Redis (another machine, a new data dir)."""

from __future__ import annotations

import asyncio
import json

from broadcast.cli import main
from broadcast.settings import parse_show
from broadcast.show import ShowRuntime
from broadcast.store.journal import read_all
from tests.serving import two_tables_toml


def run_cli(*argv: str, capsys) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def test_a_penalty_not_served_tonight_is_served_the_next_day_on_a_new_redis(tmp_path, capsys):
    """Rule "Penalties Move": a two-hand penalty given at the end of the night, not served,
    is exported from day 1's Redis, imported into day 2's, and the table that seats the
    player on day 2 (from the show file) opens with the record carried."""
    show = parse_show(two_tables_toml("tv", "outer"))
    day1 = ShowRuntime(show, tmp_path / "day1", environ={})
    await day1.start()
    try:
        await day1.cores["tv"].submit({"type": "penalty", "player": "p-di", "kind": "missed_hands", "count": 2,
                                       "reason": "soft play", "rule": "Penalties"}, person="floor", role="td")
        out = tmp_path / "day1-penalties.json"
        code, said, err = await asyncio.to_thread(
            run_cli, "penalties", "export", "--data-dir", str(tmp_path / "day1"), "--out", str(out), capsys=capsys)
        assert code == 0, err
        assert "1 player record(s), 1 still owing hands" in said
        assert await day1.redis.ping()  # the live show's Redis was left running
    finally:
        await day1.stop()
    exported = json.loads(out.read_text())
    assert exported["players"]["p-di"]["hands_left"] == 2 and exported["players"]["p-di"]["table"] == "tv"

    code, said, err = await asyncio.to_thread(
        run_cli, "penalties", "import", str(out), "--data-dir", str(tmp_path / "day2"), capsys=capsys)
    assert code == 0 and "loaded 1 player record(s)" in said, err
    day2 = ShowRuntime(show, tmp_path / "day2", environ={})
    await day2.start()
    try:
        core = day2.cores["tv"]
        carried = [r.event for r in await read_all(core.redis, "tv") if r.event["type"] == "PenaltiesCarried"]
        assert [(c["player"], c["hands_left"], c["from_table"]) for c in carried] == [("p-di", 2, "tv")]
        assert core.state.ledger.hands_left("p-di") == 2
        assert [p.kind for p in core.state.ledger.history("p-di")] == ["missed_hands"]
        # Importing again keeps what day 2 holds now, unless told to replace it.
        code, said, _ = await asyncio.to_thread(
            run_cli, "penalties", "import", str(out), "--data-dir", str(tmp_path / "day2"), capsys=capsys)
        assert code == 0 and "loaded 0 player record(s); kept the records already here for 1: p-di" in said
    finally:
        await day2.stop()


def test_an_import_names_the_player_and_what_is_wrong(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tvtable-penalty-register", "version": 1,
                               "players": {"p-x": {"table": "tv", "penalties": [], "hands_left": -3}}}))
    code, _, err = run_cli("penalties", "import", str(bad), "--data-dir", str(tmp_path / "d"), capsys=capsys)
    assert code == 2 and "players.p-x" in err and "p-x" in err and "whole number of hands" in err
    assert not (tmp_path / "d").exists()  # nothing was opened, nothing was loaded
    other = tmp_path / "other.json"
    other.write_text('{"hands": []}')
    code, _, err = run_cli("penalties", "import", str(other), "--data-dir", str(tmp_path / "d"), capsys=capsys)
    assert code == 2 and "not a penalty register" in err
    other.write_bytes(b"\xff\xfe not json")
    code, _, err = run_cli("penalties", "import", str(other), "--data-dir", str(tmp_path / "d"), capsys=capsys)
    assert code == 2 and "is not JSON" in err
    code, _, err = run_cli("penalties", "export", "--data-dir", str(tmp_path / "none"), capsys=capsys)
    assert code == 2 and "no show data" in err
    assert "Traceback" not in err


def test_penalties_help(capsys):
    for argv in (["penalties", "--help"], ["penalties", "export", "--help"], ["penalties", "import", "--help"]):
        try:
            main(argv)
        except SystemExit as done:
            assert done.code == 0
        assert "usage: tvtable penalties" in capsys.readouterr().out

