"""Why ``dudo serve`` does not start, and whether systemd should try it again.

Each is raised with a message that names what is wrong and what to do; ``status`` is the exit
status: 2 for a mistake in the configuration (systemd does not start the table again until it
is mended), 1 for a cause that can pass by itself (systemd tries again).
"""

from __future__ import annotations


class StartError(Exception):
    """A configuration problem that stops the companion at start, with a clear message
    (exit status 2: systemd does not start it again until the config is mended)."""

    status = 2


class HeldElsewhere(StartError):
    """Another table holds the data directory: exit status 1, so that systemd tries again
    (it may be the service's own last run, stuck ending in a camera driver or on the card;
    one started by hand beside the service lets it start once it stops)."""

    status = 1


class CannotListenYet(StartError):
    """The address or port cannot be taken now (the network not up yet, the port still held
    by the last run): exit status 1, so that systemd tries again."""

    status = 1


class CannotWriteYet(StartError):
    """No journal can be made now (the card is full, or fails to write): exit status 1, so
    that systemd tries again once space is freed."""

    status = 1

