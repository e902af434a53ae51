"""/graphics (role graphics): the graphics operator's controls, applied at once on the control feed."""

from __future__ import annotations

from aiohttp import web


def setup(app: web.Application) -> None:
    """Register this module's routes (filled in by its issue's work)."""
