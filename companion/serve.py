"""``dudo serve``: the running companion (table, journal, camera, panel, page) behind waitress.

``dudo serve --sim`` is the embedded default a laptop can run: gpiozero's mock pins with the
virtual panel on the page, and a simulated camera that renders the dice the simulated cups
rolled. Without ``--sim`` it runs the real table: the camera and frame source of the config's
``[camera]`` table, the panel of its ``[pins]`` table on the default pin factory.

A missing camera or failing GPIO does not stop the companion: the page says so and still
works (reveals are then typed in by hand; a camera missing at start is tried again at each
call, and reads the reveals from the first call that finds it). Under systemd it says
READY=1 once its page answers, pings the watchdog while the table is healthy and says
STOPPING=1 on the way out.

What it opens has a module of its own: the data directory held by one table alone
(:mod:`companion.hold`), the journal (:mod:`companion.kept_journal`), the camera and reader
(:mod:`companion.camera`), the page's addresses (:mod:`companion.addresses`), what it tells
systemd (:mod:`companion.watchdog`); why a start fails, in :mod:`companion.start_errors`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import hmac
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import notify
from companion.addresses import ipv6_only, join_address, page_addresses
from companion.camera import open_camera
from companion.config import Config, load_config
from companion.hold import held_by, hold, holder
from companion.kept_journal import KeptJournal, open_journal
from companion.sim import SimulatedCups
from companion.start_errors import CannotListenYet, HeldElsewhere, StartError
from companion.table import Table
from companion.watchdog import Watchdog, say_ready

logger = logging.getLogger(__name__)

SSE_MAX_CLIENTS = 64


@dataclass
class Companion:
    """Everything ``dudo serve`` built, so it can be closed in order."""

    table: Table
    pin: str
    camera: Any = None
    cups: SimulatedCups | None = None
    panel: Any = None
    driver: Any = None


def serve_command(args: argparse.Namespace) -> int:
    """Run the companion until SIGTERM or Ctrl-C; 2 on a configuration error."""
    handler = logging.StreamHandler()
    handler.setFormatter(log_format(os.environ))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.captureWarnings(True)  # a library's warnings (gpiozero's) as log lines, with a priority
    _few_malloc_arenas()
    try:
        config = load_config(
            args.config, host=args.host, port=args.port, pin=args.pin, data=args.data
        )
    except ValueError as err:
        print(f"dudo serve: {err}", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        page = _Page(config, stack)
        try:
            companion = build(config, sim=args.sim, seed=args.seed, stack=stack,
                              listen=page.listen)
            server = page.serve(companion)
        except StartError as err:
            print(f"dudo serve: {err}", file=sys.stderr)
            return err.status

        def stop(signum: int, frame: object) -> None:
            page.close_feeds()  # else waitress waits 10 s for the threads serving them
            raise SystemExit(0)  # waitress's loop closes the server cleanly on SystemExit

        for signum in (signal.SIGTERM, signal.SIGINT):
            previous = signal.signal(signum, stop)
            stack.callback(signal.signal, signum, previous)
        stack.callback(lambda: notify.notify("STOPPING=1"))
        _announce(config, companion, sim=args.sim)
        watchdog = Watchdog(companion.table)
        stack.callback(watchdog.stop)
        threading.Thread(
            target=say_ready, args=(config, watchdog), name="ready", daemon=True
        ).start()
        companion.table.resume_reveal()  # resumed in the middle of a reveal: the cups are up
        logger.info("serving on %s:%d", config.host, config.port)
        server.run()  # returns on SIGTERM / Ctrl-C (waitress closes on SystemExit)
    logger.info("stopped")
    return 0


class _JournaldFormat(logging.Formatter):
    """A log line as journald reads it: its priority first (``<3>`` an error, so that
    ``journalctl -p err`` finds it), and no time (journald keeps its own)."""

    PRIORITIES = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6}

    def format(self, record: logging.LogRecord) -> str:
        # journald takes each line as an entry of its own: a traceback's lines, the reason on
        # its last, each carry the priority too (else `-p warning` showed its first line only).
        prefix = f"<{self.PRIORITIES.get(record.levelno, 7)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def log_format(environ: Mapping[str, str]) -> logging.Formatter:
    """How the table's log lines are written: for journald under systemd (which says so in
    ``JOURNAL_STREAM``), else with their time, to a terminal or a file."""
    if environ.get("JOURNAL_STREAM"):
        return _JournaldFormat("%(levelname)s %(name)s: %(message)s")
    return logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")


def _few_malloc_arenas() -> None:
    """Have glibc's malloc keep two arenas, not one per thread that reads a picture: an evening
    of sixty simulated games took the table to 443 MB with its default (eight per core), 192
    MB with two (a Pi 3 has 1 GB). Before any thread starts; nothing where the C library is
    another (musl) or says no."""
    import ctypes

    arena_max = -8  # M_ARENA_MAX, malloc.h
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(arena_max, 2)


def build(
    config: Config, *, sim: bool, seed: int | None, stack: ExitStack,
    listen: Callable[[], object] | None = None,
) -> Companion:
    """Open the camera, journal, table, cups and panel; each is closed by ``stack``.

    Everything that can be checked is, before the data directory is made or written: every
    table of the config is read, the directory looked at for another table holding it, and
    ``listen`` (``dudo serve``'s) takes the page's address and port. A mistake in one stops
    the start with nothing created, nor the directory itself.
    """
    pin = config.pin or f"{secrets.randbelow(10_000):04d}"
    pins, gpio_fault = _read_pin_map(config)
    camera, reader, camera_fault, reopen = open_camera(config, sim=sim, seed=seed)
    if camera is not None:
        stack.callback(camera.close)
    if reopen is not None:
        stack.callback(reopen.close)  # the camera it opens at a call, if it does
    data = Path(config.data)
    other = holder(data)
    if other is not None:  # said before its port is tried: one beside it has the same config
        raise HeldElsewhere(held_by(other, data))
    if listen is not None:
        listen()
    hold(data, stack)
    journal, journal_faults = open_journal(data)
    kept = KeptJournal(data, journal)
    stack.callback(kept.close)

    table = Table(journal=journal, camera=camera, reader=reader, reopen=reopen,
                  cups_up_s=config.table.cups_up_s)
    stack.callback(table.close)
    if "journal" in journal_faults:  # read-only: writable again once the card has room
        kept.retry(table)
    companion = Companion(table=table, pin=pin, camera=camera)
    for name, fault in journal_faults.items():
        table.set_fault(name, fault)
    if camera_fault:
        table.set_fault("camera", camera_fault)
    if sim and camera is not None:
        companion.cups = SimulatedCups(table, camera, seed=_cups_seed(data, seed))
        stack.callback(companion.cups.close)
    if pins is not None:
        panel, driver, gpio_fault = _open_panel(table, pins, sim=sim)
        if panel is not None:
            stack.callback(panel.close)
        companion.panel, companion.driver = panel, driver
    if gpio_fault:
        table.set_fault("gpio", gpio_fault)
    return companion


def _read_pin_map(config: Config) -> tuple[Any, str | None]:
    """The config's pin map, or (None, why the panel cannot be used); StartError if wrong."""
    try:
        from hardware.pins import pin_map_from_config

        pins = pin_map_from_config(config.path)
        for caution in pins.cautions():
            logger.warning("pin map: %s", caution)
        return pins, None
    except ValueError as err:
        raise StartError(str(err)) from err
    except ImportError as err:
        return None, f"the table's buttons and lights cannot be used ({err})"


def _open_panel(table: Table, pins: Any, *, sim: bool) -> tuple[Any, Any, str | None]:
    """The panel (and, with ``--sim``, its mock-pin driver) and the fault of any output left
    out of it, or (None, None, the fault)."""
    from hardware.pins import PinFault

    try:
        from hardware.panel import Panel

        if sim:
            from hardware.pins import with_every_input
            from hardware.sim import MockPanelDriver, mock_pin_factory

            panel = Panel(table, with_every_input(pins), pin_factory=mock_pin_factory())
            return panel, MockPanelDriver(panel), _left_out(panel)
        panel = Panel(table, pins)
        return panel, None, _left_out(panel)
    except Exception as err:
        if isinstance(err, PinFault):  # named already (no GPIO library, a pin in use): no trace
            logger.error("the panel's GPIO did not start: %s", err)
        else:
            logger.exception("the panel's GPIO did not start")
        return (
            None,
            None,
            (f"the table's buttons and lights are not working ({err}): play from this page"),
        )


def _left_out(panel: Any) -> str | None:
    """What the page says of the panel's inputs and outputs that could not be set up, if
    any: every one of them."""
    failed = [*panel.controls.failed, *panel.signals.failed]
    if not failed:
        return None
    return (f"part of the table's panel is not working ({'; '.join(map(str, failed))}): its"
            " other buttons and lights are")


class _Page:
    """The page's server: its address and port taken before the data directory is made (a
    host name that does not resolve, a port below 1024 or one in use stops the start with
    nothing written), the web app put behind them once the table is built."""

    def __init__(self, config: Config, stack: ExitStack) -> None:
        self._config, self._stack = config, stack
        self._app: Any = None
        self._server: Any = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        # Called by waitress only once it runs, after serve() put the app here.
        return self._app(environ, start_response)

    def listen(self) -> None:
        """Take the page's address and port (StartError if they cannot be)."""
        from companion.web import server

        self._server = _create_server(self, self._config)
        self._stack.callback(server.close, self._server)

    def serve(self, companion: Companion) -> Any:
        """The server, the web app of ``companion``'s table behind it."""
        self._app = _web_app(companion, self._config)
        return self._server

    def close_feeds(self) -> None:
        """End every phone's live feed now (the table is stopping)."""
        if self._app is not None:
            self._app.extensions["dudo"].broker.close()


def _web_app(companion: Companion, config: Config) -> Any:
    """The web app of the table (its session key and sessions kept in the data directory)."""
    from companion.web import create_app

    return create_app(
        companion.table,
        {
            "TABLE_PIN": companion.pin,
            "SECRET_KEY": _secret_key(config.data),
            "SESSIONS_FILE": Path(config.data) / "sessions.json",
            "SIM_DRIVER": companion.driver,
            "SIM_CUPS": companion.cups,
            "NEW_GAME": {
                "rules": config.table.rules,
                "options": dict(config.table.options),
                "players": list(config.table.players),
            },
            "PUBLIC_URL": lambda: join_address(config),
            "SSE_MAX_CLIENTS": SSE_MAX_CLIENTS,
        },
    )


def _create_server(app: Any, config: Config) -> Any:
    """The waitress server for ``app``, bound to its port (StartError if it cannot be)."""
    from companion.web import server

    try:
        return server.create(app, config.host, config.port)
    except PermissionError as err:  # a port below 1024: trying again will not help
        raise StartError(
            f"cannot listen on {config.host}:{config.port}: {err.strerror} (a port below 1024"
            " needs privileges the service does not have: set [server] port, e.g. 8080)"
        ) from err
    except OSError as err:
        # Tried again (the address may come up later, or the port be let go): say by whom.
        held = (" (another program holds it, `ss -ltnp` names it: stop it, or set [server]"
                " port)" if err.errno == errno.EADDRINUSE else
                f" ({config.host} is no address of this machine, not yet at least: if it is"
                " not to be, set [server] host to one of its addresses, or 0.0.0.0 for every"
                " one; tried again meanwhile)" if err.errno == errno.EADDRNOTAVAIL else "")
        raise CannotListenYet(
            f"cannot listen on {config.host}:{config.port}: {err.strerror}{held}"
        ) from err
    except ValueError as err:  # waitress: a host name that does not resolve
        # waitress says only "Invalid host/port specified."; the resolver's own words are
        # in the error it caught.
        why = err.__context__
        if isinstance(why, socket.gaierror) and why.errno == socket.EAI_AGAIN:
            # The name server not reached (at boot, before the network is up): not a mistake.
            raise CannotListenYet(f"cannot listen on {config.host}:{config.port}: {config.host}"
                                  f" cannot be looked up yet ({why.strerror})") from err
        said = (f"{config.host} does not resolve ({why.strerror}): set [server] host (or"
                " --host) to this machine's address or name, or 0.0.0.0 for every address"
                if isinstance(why, socket.gaierror) else str(err))
        raise StartError(f"cannot listen on {config.host}:{config.port}: {said}") from err


def _secret_key(data: Path) -> bytes:
    """The session key kept in the data directory, so phones stay signed in across restarts."""
    path = Path(data) / "session.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
    except OSError as err:
        logger.warning("cannot keep the session key in %s (%s): phones sign in again", path, err)
    return key


def _cups_seed(data: Path, seed: int | None) -> int:
    """The simulated cups' seed: ``--seed``, else one kept with the data directory (drawn from
    its session key), so that a table started again finds the same dice under the cups (a
    fresh one rolled them anew: a restart in the middle of a reveal changed the dice shown)."""
    if seed is not None:
        return seed
    kept = hmac.new(_secret_key(data), b"the simulated cups", hashlib.sha256).digest()
    return int.from_bytes(kept[:16], "big")


def _announce(config: Config, companion: Companion, *, sim: bool) -> None:
    """Print where the page is and the PIN (the first thing a newcomer needs)."""
    mode = "the simulated table (mock pins, simulated camera)" if sim else "the table"
    lines = [f"dudo serve: {mode}; open the page and enter the PIN to play"]
    lines += [f"  page: {address}" for address in page_addresses(config)]
    if ipv6_only(config):  # before, its IPv4 addresses were printed, none of them answering
        lines.append('  note: [server] host "::" takes IPv6 addresses only: a phone on IPv4'
                     ' cannot open the page (host = "0.0.0.0" takes every IPv4 address)')
    # systemd's journal is read by more than root (the adm group): a PIN of the config stays
    # in the config; a random one must be told, or no phone could ever take control.
    under_systemd = bool(os.environ.get("INVOCATION_ID") or os.environ.get("NOTIFY_SOCKET"))
    if under_systemd and config.pin:
        lines.append("  PIN:  the one set in the config or with --pin (kept out of the log)")
    else:
        lines.append(f"  PIN:  {companion.pin}")
    lines.append(f"  data: {config.data}")
    # Which camera reads the reveals (a `source = "sim"` left from trying calibration read an
    # empty glass at every reveal of the real table, and nothing said which camera it was).
    camera = getattr(companion.camera, "name", None)
    if camera == "sim" and not sim:
        lines.append("  camera: sim, the simulator ([camera] source): it shows no real dice")
    elif camera is not None:
        lines.append(f"  camera: {camera}")
    for name, message in companion.table.state().get("faults", {}).items():
        lines.append(f"  fault ({name}): {message}")
    if _printed("\n".join(lines)) and sys.stdout.isatty():
        # A phone's camera opens the page from the terminal (not in systemd's journal).
        with contextlib.suppress(ImportError, OSError):
            from companion.web.qr import qr_text

            print(qr_text(page_addresses(config)[0]), flush=True)


def _printed(text: str) -> bool:
    """Whether ``text`` went to the standard output; where that takes nothing (closed, a full
    disk) it goes to the log on stderr instead, and the table is served all the same."""
    if sys.stdout is None:  # started with `>&-`
        why = "it is closed"
    else:
        try:
            print(text, flush=True)
            return True
        except OSError as err:
            why = err.strerror or str(err)
    logger.warning("the standard output takes nothing (%s):\n%s", why, text)
    return False
