"""The tournament's address: the URL printed on every table card (``new --url``).

The server answers to the host name in that URL as to its own (a request naming any other host is still
refused: DNS rebinding). ``new`` checks from this computer that the tables can reach the server there, and says
what the director should do when they cannot: a name that does not resolve, one that resolves to another
machine, or an address only this computer can open.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


class AddressError(ValueError):
    """A ``--url`` that is not an http:// address with a host."""


def parse(url: str) -> tuple[str, int]:
    """(host name, port) of ``url``; AddressError unless it is http:// or https:// with a host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise AddressError(f"--url {url}: not an address ({exc}); give e.g. http://192.168.1.20:8780") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressError(f"--url {url}: give the address the tables will open, e.g. http://192.168.1.20:8780")
    return parts.hostname.lower(), port or (443 if parts.scheme == "https" else 80)


def host_of(url: str | None) -> str | None:
    """The host name the tables send in their requests' Host header for ``url`` (None: no usable URL)."""
    try:
        return parse(url)[0] if url else None
    except AddressError:
        return None


def lan_address() -> str | None:
    """This computer's address on its default route (no packet is sent), or None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the route
            return s.getsockname()[0]
        except OSError:
            return None


def _is_mine(address: str) -> bool:
    """Whether ``address`` belongs to this computer: only then can a socket be bound to it."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((address, 0))
            return True
        except OSError:
            return False


def _resolve(host: str) -> list[str]:
    try:
        return sorted({info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})
    except (OSError, UnicodeError):
        return []


def warnings_for(url: str) -> list[str]:
    """What stops the tables reaching the server at ``url`` as seen from this computer; empty if nothing does.
    Raises AddressError for a URL that is not one."""
    from assistant.display.app import own_names

    host, port = parse(url)
    mine = lan_address()
    instead = f"http://{mine or 'THIS_COMPUTERS_IP'}:{port}"
    out = []
    if url.strip().lower().startswith("https:"):
        out.append(f"{url}: mahj tournament serve speaks plain HTTP; use http:// unless a proxy in front of it "
                   "serves HTTPS")
    addresses = _resolve(host)
    if not addresses:
        fix = (f"this computer must announce that name on the network (mDNS: Avahi on Linux, built into macOS and "
               f"Windows) and be called {host.removesuffix('.local')!r}" if host.endswith(".local") else
               f"name {host} after this computer's address ({mine or 'see ip addr'}) in the hall router's DNS")
        out.append(f"{host} does not resolve on this computer, so the tables may not find the server there: {fix}; "
                   f"or make the cards with this computer's address: --url {instead}")
    elif host in own_names():
        pass  # this computer's own name: it may resolve to loopback here (127.0.1.1) and to its address elsewhere
    elif all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
        out.append(f"{host} is this computer's loopback address: only this computer can open it, not the tables' "
                   f"phones or cameras; make the cards with its address on the hall's network: --url {instead}")
    elif not any(_is_mine(a) for a in addresses):
        fix = "" if addresses == [host] else f", or point {host} at this one ({mine or 'see ip addr'})"
        named = host if addresses == [host] else f"{host} resolves to {', '.join(addresses)}, which"
        out.append(f"{named} is not this computer: run mahj tournament serve on that machine{fix}, or make the "
                   f"cards with this computer's address: --url {instead}")
    return out
