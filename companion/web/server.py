"""The page's HTTP server: waitress, set up as the table runs it.

``create(app, host, port)`` is the server ``dudo serve`` runs and ``python -m
companion.web.bench`` measures: waitress with limits fit for a table of phones (threads,
connections, what it holds for a phone that does not read), at most ``most`` connections
from one address, and a main loop that rests while a thread sends a phone its output.
"""

from __future__ import annotations

import logging
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel

logger = logging.getLogger(__name__)

# Threads for waitress: each live page (SSE stream) holds one; ~60 phones plus the actions.
SERVER_THREADS = 100
# Connections waitress keeps open: a phone opening the page holds about six, kept for the
# next request, and its live page one. At waitress's own 100, fifteen phones opening the page
# together took them all, and the table answered nobody until the idle ones were closed, two
# minutes later; those now close after a minute idle (a live page speaks every 15 s).
CONNECTION_LIMIT = 500
# The most of them one address may hold (a phone's browser opens about six, and one for each
# page it follows): one laptop's requests it never finishes took all 500, and no phone was
# answered while it went on (session 78).
CONNECTIONS_PER_ADDRESS = 100
IDLE_CONNECTION_S = 60
# What waitress holds for a phone that does not read (asleep, in a pocket) before the
# answer's writer waits: past it, the live page's queue fills and the phone is let go (see
# companion.web.events). At waitress's own 16 MB (past 1 MB in a file in /tmp) sixty-four
# such phones had the table at 581 MB, held after they went.
OUTPUT_HELD_BYTES = 256 * 1024


def create(app: Any, host: str, port: int, *, threads: int = SERVER_THREADS,
           most: int = CONNECTIONS_PER_ADDRESS) -> Any:
    """waitress's server for ``app``, bound to ``host:port`` (its errors as waitress raises
    them: OSError, ValueError for a host that does not resolve)."""
    # waitress would take a body of up to 1 GB, spooled to the card: past the app's own
    # limit (answered in JSON), it is cut off here.
    server = create_server(
        app, host=host, port=port, threads=threads, ident="dudo",
        max_request_body_size=1024 * 1024, connection_limit=CONNECTION_LIMIT,
        channel_timeout=IDLE_CONNECTION_S, outbuf_high_watermark=OUTPUT_HELD_BYTES,
    )
    server.channel_class = SendingChannel
    return within_limit_per_address(server, most)


class SendingChannel(HTTPChannel):
    """waitress's connection, not woken again and again while a thread sends its output.

    The thread answering a request (or following the table for a phone) sends what it writes
    itself, holding the connection's output lock. waitress's main loop took the connection
    as one with output to send, could not take the lock, and went round again at once: while
    the threads of 50 phones sent a state, it span at a whole core (30,000 rounds a second),
    holding Python's lock from the very threads sending, and the last phone heard the state
    100-300 ms after the bid (``python -m companion.web.bench``, session 79: p99 125 ms
    before, 5 ms after). The loop now leaves such a connection to its thread, which wakes
    the loop once it lets go of the lock if anything is left for the loop to send (a phone
    reading slower than the table speaks).
    """

    def writable(self) -> bool:
        if self.requests and self.total_outbufs_len and not (
                self.will_close or self.close_when_flushed):
            if not self.outbuf_lock.acquire(blocking=False):
                return False  # its thread is sending it now
            self.outbuf_lock.release()
        return bool(super().writable())

    def write_soon(self, data: bytes) -> int:
        written: int = super().write_soon(data)
        if self.total_outbufs_len:  # left for the loop to send: wake it, the lock now free
            self.server.pull_trigger()
        return written


def within_limit_per_address(server: Any, most: int) -> Any:
    """``server`` (waitress's), closing at once a connection from an address that already
    holds ``most`` of its connections; the first refused of each address is logged."""
    accept, refused = server.accept, set()

    def accept_within_limit() -> Any:
        taken = accept()
        if taken is None:
            return None
        conn, addr = taken
        host = addr[0] if isinstance(addr, tuple) else addr
        held = sum(1 for channel in list(server.active_channels.values())
                   if isinstance(channel.addr, tuple) and channel.addr[0] == host)
        if held < most:
            refused.discard(host)
            return taken
        if host not in refused:
            refused.add(host)
            logger.warning("%s holds %d of the page's connections: its next ones are closed"
                           " until it lets some go", host, held)
        conn.close()
        return None

    server.accept = accept_within_limit
    return server


def close(server: Any) -> None:
    """Let go of the page's port and waitress's threads (a start stopped after it was taken,
    or the server stopped)."""
    server.task_dispatcher.shutdown()
    server.close()
