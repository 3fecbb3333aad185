"""sd_notify without a dependency: tell systemd the companion is ready, alive, or stopping.

systemd passes ``$NOTIFY_SOCKET`` to a ``Type=notify`` service: a Unix datagram socket (a
leading ``@`` names one in the abstract namespace). Every function here is a no-op without
it, so the same code runs under systemd, in a terminal and in the tests.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping

logger = logging.getLogger(__name__)


def _address(environ: Mapping[str, str]) -> str | None:
    path = environ.get("NOTIFY_SOCKET")
    if not path:
        return None
    if path.startswith("@"):
        # The abstract namespace: a leading NUL byte instead of the '@'.
        return "\0" + path[1:]
    return path


def notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send one notification (``READY=1``, ``WATCHDOG=1``, ...); False when not under systemd.

    A failure to send is logged, never raised: a lost notification must not stop the table.
    """
    address = _address(os.environ if environ is None else environ)
    if address is None:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as err:
        logger.warning("sd_notify %r to %r failed: %s", message, address, err)
        return False
    return True


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between two ``WATCHDOG=1``: a quarter of ``$WATCHDOG_USEC`` (one check missed
    by a slow write to the card is not a hang: three in a row are); None without a watchdog.

    ``$WATCHDOG_PID``, when set, must be this process (systemd's rule for who may ping).
    """
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    if not usec or _address(env) is None:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None
    try:
        interval = int(usec) / 1_000_000 / 4
    except ValueError:
        logger.warning("WATCHDOG_USEC=%r is not a number of microseconds: no watchdog", usec)
        return None
    return interval if interval > 0 else None


class Watchdog:
    """A thread that sends ``WATCHDOG=1`` every interval while ``healthy()`` says so.

    When ``healthy()`` returns False (or raises) the ping is skipped, so systemd's watchdog
    fires and restarts the service: a table whose lock is stuck is not alive.
    """

    def __init__(
        self,
        healthy: Callable[[], bool],
        interval: float,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.healthy = healthy
        self.interval = interval
        self._environ = environ
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)

    def start(self) -> None:
        """Start pinging (the first ping is sent at once)."""
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                alive = self.healthy()
            except Exception:
                logger.exception("watchdog: the health check failed")
                alive = False
            if alive:
                notify("WATCHDOG=1", self._environ)
            else:
                logger.error("watchdog: the table is not healthy; not pinging systemd")
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        """Stop pinging and wait for the thread."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
