"""docs/openapi.yaml is in step with the app: every registered route is described, no
described route is missing from the app, and what it says about who may call each
route holds against a running show."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import yaml

from broadcast.views import protocol
from broadcast.web.openapi import app_routes, demo_app

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "run: python -m broadcast.web.openapi > docs/openapi.yaml"


def documented() -> dict:
    return yaml.safe_load((ROOT / "docs" / "openapi.yaml").read_text())


def test_every_route_of_the_app_is_in_openapi_yaml_and_nothing_else():
    doc = documented()
    in_yaml = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    in_app = {(method, path) for method, path, _ in app_routes(demo_app())}
    assert not in_app - in_yaml, f"routes missing from docs/openapi.yaml: {sorted(in_app - in_yaml)}; {REGENERATE}"
    assert not in_yaml - in_app, f"docs/openapi.yaml describes routes the app does not have: {sorted(in_yaml - in_app)}; {REGENERATE}"


def test_every_operation_says_who_may_call_it_and_what_comes_back():
    doc = documented()
    assert doc["openapi"].startswith("3.")
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            where = f"{method.upper()} {path}"
            assert op.get("summary"), where
            assert op.get("x-roles") and "see DESIGN.md's matrix" not in op["x-roles"], (
                f"{where}: add its desk to broadcast/web/openapi.py ROUTES; {REGENERATE}")
            assert ("security" in op) == (op["x-roles"] != ["open"]), where
            assert any(code[0] in "12" for code in op["responses"]), where
    commands = doc["components"]["schemas"]["Command"]["oneOf"]
    assert [c["properties"]["type"]["const"] for c in commands] == list(protocol.COMMAND_TYPES)
    assert doc["components"]["schemas"]["Refusal"] == protocol.REFUSAL


FILL = {"feed": "public", "camera": "cam-1", "seat": "1", "hand": "1", "player": "p-ann", "filename": "nope.css"}


async def test_routes_that_need_a_token_refuse_a_caller_without_one(show_server):
    """The yaml's ``x-roles`` against the running app: a route not open to all answers a
    caller with no token 401 (an API) or sends a page to the login form; an open one does not."""
    doc = documented()
    checked = 0
    async with aiohttp.ClientSession() as s:
        for path, ops in doc["paths"].items():
            url = show_server.url + path.format(table=show_server.table, **FILL)
            for method, op in ops.items():
                async with s.request(method.upper(), url, allow_redirects=False, data=b"{}",
                                     headers={"Accept": "application/json", "Content-Type": "application/json"}) as r:
                    open_to_all = "open" in op["x-roles"]
                    if path == "/login":
                        pass  # open, and a wrong token in the form is its 401
                    elif open_to_all:
                        assert r.status not in (401, 403), f"{method.upper()} {path} says open but answered {r.status}"
                    else:
                        assert r.status == 401 or (r.status in (302, 303) and "/login" in r.headers.get("Location", "")), (
                            f"{method.upper()} {path} says {op['x-roles']} but let a caller with no token through: {r.status}")
                    assert r.status < 500, f"{method.upper()} {path}: {r.status}"
                    checked += 1
    assert checked == sum(len(ops) for ops in doc["paths"].values()) > 30
