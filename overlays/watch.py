"""/watch: the viewers' companion page, delayed, with an extra delay for stream lag."""

from __future__ import annotations

from aiohttp import web


def setup(app: web.Application) -> None:
    """Register this module's routes (filled in by its issue's work)."""
