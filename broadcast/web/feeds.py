"""Socket fan-out for thousands of viewers.

Each message is encoded once, as a complete WebSocket frame, and written straight into
every subscriber's socket: no per-client queue, task or wake-up per message. A client
joins in two steps: while its snapshot (or ``?after=`` backlog) is being sent, new
messages wait in its small ``pending`` list; then ``pump`` flushes them (skipping those
the backlog already held) and from then on ``publish`` writes to it directly.

A viewer that cannot keep up is dropped, never waited for: when the oldest message
still sitting in its send buffer is more than ``SLOW_AFTER_S`` seconds old, or the
buffer holds more than ``MAX_BEHIND_BYTES``, it is disconnected with "try again later"
and can resume with ``?after=SEQ``. The others' frames were already written by then.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, web

log = logging.getLogger("tvtable.feeds")

QUEUE_SIZE = 256  # messages a joining client may have waiting behind its snapshot
SLOW_AFTER_S = 5.0  # a client whose oldest unsent message is older than this is dropped
MAX_BEHIND_BYTES = 4 * 1024 * 1024  # ... or whose send buffer holds more than this
# The kernel's send buffer per feed socket. Left to autotune it grows to megabytes on a
# fast link, hiding a stalled viewer for minutes; 64 KiB still carries far more than a
# feed's few KB a second at any sane round trip.
SOCKET_SEND_BUFFER = 64 * 1024


def frame(text: str) -> bytes:
    """One unmasked, unfragmented WebSocket text frame (RFC 6455 §5.2), as a server sends it.

    Sent with RSV1 clear, it is an uncompressed message even where permessage-deflate was
    agreed (RFC 7692 §6), so the same bytes serve every client."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + payload


@dataclass(eq=False)
class Client:
    ws: web.WebSocketResponse
    feed: str
    table: str
    who: str
    dropped: bool = False
    last_id: str = ""  # the stream id of the last message the snapshot or backlog held (public/commentary)
    live: bool = False  # False while the snapshot is being sent: messages wait in ``pending``
    pending: list = field(default_factory=list)  # (stream_id, frame) published before going live
    transport: Any = None
    written: int = 0  # bytes this hub has written to the socket
    unsent: deque = field(default_factory=deque)  # (written after that frame, when), while the buffer is not empty


class Hub:
    """Subscribers per (feed, table); ``publish`` never awaits a client."""

    def __init__(self) -> None:
        self.clients: dict[tuple[str, str], set[Client]] = {}
        self.sockets: weakref.WeakSet = weakref.WeakSet()
        self.dropped: dict[tuple[str, str], int] = {}  # clients dropped for being slow, per (feed, table)

    def subscribe(self, client: Client) -> None:
        """Add a client whose socket is prepared; it gets messages once ``pump`` runs."""
        self.clients.setdefault((client.feed, client.table), set()).add(client)
        self.sockets.add(client.ws)

    def unsubscribe(self, client: Client) -> None:
        """Forget a client (its socket closed or it was dropped)."""
        self.clients.get((client.feed, client.table), set()).discard(client)

    def count(self, feed: str, table: str) -> int:
        """How many clients follow this feed of this table."""
        return len(self.clients.get((feed, table), ()))

    def publish(self, feed: str, table: str, text: str, stream_id: str = "") -> None:
        """Write one message to every subscriber at once; drop those too far behind."""
        clients = self.clients.get((feed, table))
        if not clients:
            return
        data = frame(text)
        now = time.monotonic()
        for client in list(clients):
            if client.live:
                self._write(client, data, now)
            elif len(client.pending) < QUEUE_SIZE:
                client.pending.append((stream_id, data))
            else:
                self.drop(client)  # its snapshot has not gone out while QUEUE_SIZE messages came

    def _write(self, client: Client, data: bytes, now: float) -> None:
        if client.ws.closed:
            return  # closing: nothing may follow the close frame
        transport = client.transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        client.written += len(data)
        behind = transport.get_write_buffer_size()
        if not behind:
            if client.unsent:
                client.unsent.clear()
            return  # the usual case: the kernel took it all
        unsent = client.unsent
        unsent.append((client.written, now))
        sent = client.written - behind
        while unsent and unsent[0][0] <= sent:
            unsent.popleft()  # that frame has left the buffer
        if behind > MAX_BEHIND_BYTES or (unsent and now - unsent[0][1] > SLOW_AFTER_S):
            self.drop(client)

    async def pump(self, client: Client) -> None:
        """Take a client live after its snapshot: send what came meanwhile, then every
        message as it is published. (A coroutine so callers may run it as a task.)"""
        if client.dropped or client.live:
            return
        # aiohttp has no public way to write an encoded frame: its writer's transport is the socket.
        client.transport = client.ws._writer.transport if client.ws._writer is not None else None  # noqa: SLF001
        sock = client.transport.get_extra_info("socket") if client.transport is not None else None
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_SEND_BUFFER)
            except OSError:
                pass  # the system's default buffer: a stalled viewer is noticed later, nothing worse
        now = time.monotonic()
        pending, client.pending = client.pending, []
        client.live = True
        for stream_id, data in pending:
            if stream_id and client.last_id and _older_or_same(stream_id, client.last_id):
                continue  # already sent as part of the snapshot or backlog
            self._write(client, data, now)
            if client.dropped:
                return

    def drop(self, client: Client) -> None:
        """Disconnect a client that fell behind, with 1013 "try again later"."""
        if client.dropped:
            return
        client.dropped = True
        client.pending.clear()
        self.unsubscribe(client)
        self.dropped[(client.feed, client.table)] = self.dropped.get((client.feed, client.table), 0) + 1
        log.warning("%s feed, table %s: %s is too slow and was disconnected", client.feed, client.table, client.who)
        asyncio.get_running_loop().create_task(self._close_slow(client))

    @staticmethod
    async def _close_slow(client: Client) -> None:
        try:
            await asyncio.wait_for(client.ws.close(code=WSCloseCode.TRY_AGAIN_LATER,
                                                   message=b"too slow: reconnect with ?after=SEQ"), 15)
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            if client.transport is not None and not client.transport.is_closing():
                client.transport.abort()  # it never read its close frame: free the buffer now

    async def close_all(self) -> None:
        """Close every socket (the server is stopping)."""
        for ws in list(self.sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutting down")


def _older_or_same(a: str, b: str) -> bool:
    """Compare Redis stream ids ``ms-n``."""
    am, an = (int(x) for x in a.split("-"))
    bm, bn = (int(x) for x in b.split("-"))
    return (am, an) <= (bm, bn)
