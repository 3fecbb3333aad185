"""What the table tells systemd: READY=1 once its page answers, then WATCHDOG=1 for as long
as the table is alive (:mod:`companion.notify` says it; nothing without systemd)."""

from __future__ import annotations

import logging
import time
import urllib.request
from typing import TYPE_CHECKING

from companion import notify
from companion.addresses import local_url
from companion.config import Config

if TYPE_CHECKING:
    from companion.table import Table

logger = logging.getLogger(__name__)

# How long the page may take to answer before READY=1 is given up (and said in the log).
READY_TIMEOUT_S = 60.0


def say_ready(config: Config, watchdog: Watchdog) -> None:
    """READY=1 once the page answers a request, then start the watchdog's pings."""
    url = local_url(config)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                answered = response.status == 200
        except OSError:
            answered = False
        if answered:  # said once the request's connection is closed: nothing left to do here
            notify.notify("READY=1")
            logger.info("the page answers at %s: ready", url)
            watchdog.start()
            return
        time.sleep(0.1)
    logger.error("the page did not answer at %s within %.0f s", url, READY_TIMEOUT_S)


def alive(table: Table) -> bool:
    """Whether the table is alive, for systemd's watchdog: its lock can be taken in 1 s, and
    its camera answers, or hangs only while the players type a reveal in.

    A camera hung in a capture (Picamera2's ``capture_array`` is known to wait for ever at
    times) answers again only in a new process: once the players have typed that reveal in,
    the watchdog goes unanswered and systemd restarts the table, its game kept as ever.
    """
    if not table.healthy(timeout=1.0):
        return False
    if table.camera_stuck() and table.state()["phase"] != "reveal":
        logger.error("the camera has not answered since a reveal's picture: only a restart"
                     " gets it back (systemd's watchdog restarts the table; the game is kept)")
        return False
    return True


class Watchdog:
    """WATCHDOG=1 every ``$WATCHDOG_USEC/4`` while the table is ``alive``."""

    def __init__(self, table: Table) -> None:
        interval = notify.watchdog_interval()
        self._dog = notify.Watchdog(lambda: alive(table), interval) if interval else None

    def start(self) -> None:
        """Start the pings (none where systemd set no watchdog)."""
        if self._dog is not None:
            self._dog.start()

    def stop(self) -> None:
        """Stop the pings."""
        if self._dog is not None:
            self._dog.stop()
