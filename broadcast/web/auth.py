"""Who may see what: DESIGN.md's auth matrix, bearer tokens and the login cookie.

Each token belongs to one named person with one role. No token, or a wrong one, is
401; a valid token of the wrong role is 403. ``secure`` is accepted only in a header
or a cookie, never in a URL, and is refused outright when nobody holds that role.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from aiohttp import web

COOKIE = "tvtable_session"
OPEN = "open"

# The matrix, one row per endpoint or feed: the roles that may use it.
MATRIX: dict[str, frozenset[str]] = {
    "public": frozenset({OPEN, "dealer", "rep", "td", "graphics", "commentator", "secure", "viewer"}),
    "commentary": frozenset({"graphics", "commentator", "secure"}),
    "live": frozenset({"dealer", "rep", "td", "secure"}),
    "dealer_commands": frozenset({"dealer"}),
    "compliance": frozenset({"dealer", "rep", "td", "secure"}),
    "rep_commands": frozenset({"rep", "td"}),
    "td_read": frozenset({"rep", "td"}),
    "td_commands": frozenset({"td"}),
    "graphics_controls": frozenset({"graphics"}),
    "control": frozenset({OPEN, "dealer", "rep", "td", "graphics", "commentator", "secure", "viewer"}),
    "secure": frozenset({"secure"}),
    "ingest": frozenset({"camera"}),
}

FEED_ROWS = {
    "public": "public",
    "commentary": "commentary",
    "live": "live",
    "compliance": "compliance",
    "secure": "secure",
    "control": "control",
}


@dataclass(frozen=True)
class Caller:
    """The person behind a request (``role == "open"`` for no credentials)."""

    name: str
    role: str


class Denied(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Gate:
    """Resolves tokens to people and applies the matrix."""

    def __init__(self, people, *, open_onair: bool = True) -> None:
        self.by_token = {p.token: p for p in people}
        self.open_onair = open_onair
        self.secure_on = any(p.role == "secure" for p in people)

    def _person(self, token: str):
        # Compare every token in constant time: no timing hint about which one is close.
        found = None
        for known, person in self.by_token.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = person
        return found

    def caller(self, request: web.Request) -> Caller | None:
        """The caller, ``open`` if no credentials, None if the credentials are wrong."""
        header = request.headers.get("Authorization", "")
        token = ""
        if header.lower().startswith("bearer "):
            token = header[7:].strip()
        elif header:
            return None
        if not token:
            token = request.cookies.get(COOKIE, "")
        if not token:
            return Caller("anonymous", OPEN)
        person = self._person(token)
        return Caller(person.name, person.role) if person else None

    def check(self, request: web.Request, row: str) -> Caller:
        """The caller if the matrix lets them use ``row``; raises ``Denied`` (401/403) if not."""
        if row == "secure" and not self.secure_on:
            raise Denied(403, "the secure card room is off: no person with the secure role is configured")
        caller = self.caller(request)
        if caller is None:
            raise Denied(401, "that token is not valid: log in again or ask the show's producer for yours")
        allowed = MATRIX[row]
        if caller.role == OPEN:
            if OPEN in allowed and (self.open_onair or row not in ("public",)):
                return caller
            raise Denied(401, "log in first: this page needs a token")
        if caller.role not in allowed:
            raise Denied(403, f"the {caller.role} role cannot use {row.replace('_', ' ')}")
        return caller

    def login(self, token: str) -> Caller | None:
        person = self._person(token.strip())
        return Caller(person.name, person.role) if person else None
