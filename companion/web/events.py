"""The live feed of the page: a Server-Sent Events broker fed by the table.

One bounded queue per connected phone. The table calls :meth:`Broker.publish` in the
submitting thread, under its lock, so publishing never blocks: each event is serialised
once and offered to every queue; a phone whose queue is full is dropped (its stream ends,
its browser reconnects and starts again from a fresh state) rather than slowing the table.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# What the page hears. Not "rejected": it carries no reason, and whoever was refused
# already has the answer of their own request.
FORWARDED = ("state", "capture_start", "capture_end")


@dataclass(eq=False)
class Listener:
    """One connected phone: its queue of encoded events, its address and whether it was
    dropped."""

    queue: queue.Queue[bytes]
    address: str = ""
    connected_at: float = field(default_factory=time.monotonic)
    dropped: bool = False


def encode(kind: str, data: dict[str, Any], event_id: int | None = None) -> bytes:
    """One SSE message: optional ``id:``, ``event:`` and a one-line JSON ``data:``."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    body = json.dumps(data, separators=(",", ":"), default=str)
    return f"{head}event: {kind}\ndata: {body}\n\n".encode()


# Sent on a stream idle for ``keepalive_s``: the page takes a feed silent for much longer as
# one that has gone (a phone's Wi-Fi dropped without closing it).
ALIVE = encode("alive", {})


class NoPlace(Exception):
    """A phone that cannot follow the table now: the message says why."""


class Broker:
    """Fans table events out to every connected phone without ever blocking the table."""

    def __init__(
        self,
        describe: Callable[[Any], dict[str, Any]],
        *,
        queue_size: int = 64,
        max_listeners: int = 40,
        max_per_address: int = 16,
        keepalive_s: float = 15.0,
        max_age_s: float = 600.0,
    ) -> None:
        """``describe(event)`` turns a table event into the JSON the page receives."""
        self._describe = describe
        self.queue_size = queue_size
        self.max_listeners = max_listeners
        self.max_per_address = max(1, max_per_address)
        self.keepalive_s = keepalive_s
        self.max_age_s = max_age_s
        self._listeners: set[Listener] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._closed = False
        self.dropped = 0

    @property
    def listeners(self) -> int:
        """How many phones are connected now."""
        with self._lock:
            return len(self._listeners)

    def publish(self, event: Any) -> None:
        """The table's subscriber: queue ``event`` for every phone; never blocks."""
        if event.kind not in FORWARDED:
            return
        message = encode(event.kind, self._describe(event), next(self._ids))
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener.queue.put_nowait(message)
            except queue.Full:
                self._drop(listener)

    def _drop(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.discard(listener)
                listener.dropped = True
                self.dropped += 1
                log.warning("dropped a phone too slow to follow the table")

    def connect(self, address: str = "") -> Listener:
        """Register a new phone at ``address``; NoPlace when the table already has as many as
        it serves, or when that address already follows it ``max_per_address`` times.

        One address must not take every place. Its streams are woken with an ``alive`` as it
        is refused: a page reloaded again and again leaves streams the server finds closed
        only when it next writes to them, and so makes room for the page's next try.
        """
        with self._lock:
            if self._closed:
                raise NoPlace("the table is stopping: the page follows it again once it is back")
            own = [x for x in self._listeners if x.address == address]
            if len(own) < self.max_per_address and len(self._listeners) < self.max_listeners:
                listener = Listener(queue.Queue(maxsize=self.queue_size), address)
                self._listeners.add(listener)
                return listener
        if len(own) < self.max_per_address:
            raise NoPlace("too many phones are following this table: try again soon")
        for other in own:
            with contextlib.suppress(queue.Full):
                other.queue.put_nowait(ALIVE)
        raise NoPlace(f"this address already follows the table {len(own)} times:"
                      " close a page, or try again soon")

    def close(self) -> None:
        """End every phone's stream now, and take no more (the table is stopping).

        A stream waits up to ``keepalive_s`` for its next event, and the server waits for the
        threads serving streams before it stops: woken here, they end at once, so a stop or
        restart with phones open takes no seconds (the phones' browsers follow the table
        again once it answers).
        """
        with self._lock:
            self._closed = True
            listeners, self._listeners = list(self._listeners), set()
        for listener in listeners:
            listener.dropped = True
            with contextlib.suppress(queue.Full):  # a full queue wakes its stream anyway
                listener.queue.put_nowait(ALIVE)

    def disconnect(self, listener: Listener) -> None:
        """Forget a phone whose stream has ended."""
        with self._lock:
            self._listeners.discard(listener)

    def stream(self, listener: Listener, first: bytes) -> Iterator[bytes]:
        """The bytes of one phone's stream: ``first`` (the state now), then every event.

        An ``alive`` event every ``keepalive_s`` keeps proxies and phones from closing an idle
        stream, lets the server notice a phone that went away, and lets a phone notice a
        table gone out of reach (a comment, as before session 44, reached no page's script).
        The stream ends after ``max_age_s`` (the browser reconnects by itself) so no thread
        is held forever.
        """
        try:
            yield b"retry: 2000\n\n" + first
            while not listener.dropped:
                if time.monotonic() - listener.connected_at > self.max_age_s:
                    return
                try:
                    yield listener.queue.get(timeout=self.keepalive_s)
                except queue.Empty:
                    yield ALIVE
        finally:
            self.disconnect(listener)
