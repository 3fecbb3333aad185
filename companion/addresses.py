"""Where the table's page is: the addresses a phone can open, the one the join QR code shows,
and the one the table itself asks to know that its page answers."""

from __future__ import annotations

import socket

from companion.config import Config


def page_addresses(config: Config) -> list[str]:
    """The addresses a phone can open, the most useful first."""
    joined = join_address(config)
    addresses = [joined] if joined else []
    if config.host in ("0.0.0.0", "::", ""):  # every interface: its names too
        addresses.append(f"http://{socket.gethostname()}.local:{config.port}/")
        # waitress takes IPv6 alone on "::" (IPV6_V6ONLY): no IPv4 address answers there.
        local = "[::1]" if config.host == "::" else "127.0.0.1"
        addresses.append(f"http://{local}:{config.port}/")
    return addresses


def ipv6_only(config: Config) -> bool:
    """Whether the page answers on IPv6 alone (``host = "::"``: waitress's every address)."""
    return config.host == "::"


def join_address(config: Config) -> str | None:
    """The address the join QR code shows: the one the page is bound to, else this machine's
    on its network; None where it has no route out (a table that is its own access point),
    and the page then shows the address the phone asked by: a ``.local`` name is not opened
    by every phone (older Androids)."""
    if config.host not in ("0.0.0.0", "::", ""):
        return f"http://{_url_host(config.host)}:{config.port}/"
    if ipv6_only(config):
        return None  # the phone's own address for the page (an IPv4 one would not answer)
    lan = _lan_address()
    return f"http://{lan}:{config.port}/" if lan else None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _lan_address() -> str | None:
    """This machine's address on its network (no packet is sent: UDP connect only routes)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def local_url(config: Config) -> str:
    """The address of the state on this machine, by which the table sees its page answer."""
    host = config.host
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://{_url_host(host)}:{config.port}/api/state"

