"""/rep and /td: the tournament rep's compliance dashboard and the TD's tournament controls."""

from __future__ import annotations

from aiohttp import web


def setup(app: web.Application) -> None:
    """Register this module's routes (filled in by its issue's work)."""
