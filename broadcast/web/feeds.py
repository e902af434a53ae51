"""Socket fan-out: every client has its own bounded queue, so one slow client is
dropped instead of stalling the others. Each message is encoded once, then shared."""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field

from aiohttp import WSCloseCode, web

log = logging.getLogger("tvtable.feeds")

QUEUE_SIZE = 256


@dataclass(eq=False)
class Client:
    ws: web.WebSocketResponse
    feed: str
    table: str
    who: str
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False
    last_id: str = ""  # the stream id of the last message queued (public/commentary)


class Hub:
    """Subscribers per (feed, table); ``publish`` never awaits a client."""

    def __init__(self) -> None:
        self.clients: dict[tuple[str, str], set[Client]] = {}
        self.sockets: weakref.WeakSet = weakref.WeakSet()
        self.dropped: dict[tuple[str, str], int] = {}  # clients dropped for being slow, per (feed, table)

    def subscribe(self, client: Client) -> None:
        self.clients.setdefault((client.feed, client.table), set()).add(client)
        self.sockets.add(client.ws)

    def unsubscribe(self, client: Client) -> None:
        self.clients.get((client.feed, client.table), set()).discard(client)

    def count(self, feed: str, table: str) -> int:
        return len(self.clients.get((feed, table), ()))

    def publish(self, feed: str, table: str, text: str, stream_id: str = "") -> None:
        """Queue one encoded message for every subscriber; drop those who are full."""
        for client in list(self.clients.get((feed, table), ())):
            try:
                client.queue.put_nowait((stream_id, text))
            except asyncio.QueueFull:
                self.drop(client)

    def drop(self, client: Client) -> None:
        if client.dropped:
            return
        client.dropped = True
        self.unsubscribe(client)
        self.dropped[(client.feed, client.table)] = self.dropped.get((client.feed, client.table), 0) + 1
        log.warning("%s feed, table %s: %s is too slow and was disconnected", client.feed, client.table, client.who)
        asyncio.get_running_loop().create_task(
            client.ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too slow: reconnect with ?after=SEQ")
        )

    async def pump(self, client: Client) -> None:
        """Send queued messages to one client until it goes away."""
        while not client.dropped:
            stream_id, text = await client.queue.get()
            if stream_id and client.last_id and _older_or_same(stream_id, client.last_id):
                continue  # already sent as part of the snapshot or backlog
            if stream_id:
                client.last_id = stream_id
            await client.ws.send_str(text)

    async def close_all(self) -> None:
        for ws in list(self.sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutting down")


def _older_or_same(a: str, b: str) -> bool:
    """Compare Redis stream ids ``ms-n``."""
    am, an = (int(x) for x in a.split("-"))
    bm, bn = (int(x) for x in b.split("-"))
    return (am, an) <= (bm, bn)
