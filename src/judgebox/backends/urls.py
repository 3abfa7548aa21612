"""The backends a server URL names: ``judgebox://`` endpoints, http(s) base URLs and SandboxFusion
``/run_code`` URLs (the rules are :mod:`judgebox.backends.registry`'s docstring).

The registry imports this module only for such an address, so the HTTP client (httpx) and the wire schemas
(pydantic) load when a server is named, never for the embedded judge or Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from judgebox.backend import Backend
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.client import Client, ClientError, DeadlineExceeded, ServerUnavailable, balance
from judgebox.errors import UnknownAddress

EXPECTED = "expected 'local' or None, judgebox://host:port, ray://[host:port] or http(s)://host:port[/run_code]"
ServerBackend = Callable[..., Backend]  # the registry's judgebox:// backend class, made with the URLs


def check(address: str | Sequence[str]) -> None:
    """UnknownAddress unless ``address`` is one or several server URLs of one known scheme."""
    _urls_and_scheme(address)


def make(address: str | Sequence[str], options: dict[str, Any],
         server_backend: ServerBackend) -> tuple[Backend | RunCodeServer, bool]:
    """The backend of a server address, and whether it is known for what it is (False: a /run_code server
    that could not be asked whether it is a judgebox)."""
    urls, scheme = _urls_and_scheme(address)
    if scheme in ("judgebox", "judgebox+https"):
        plain = "https" if scheme == "judgebox+https" else "http"
        return server_backend([plain + one[len(scheme):] for one in urls], **options), True
    paths = [urlsplit(one).path.rstrip("/") for one in urls]
    if not any(paths):  # host:port base URLs: judgebox serve endpoints
        return server_backend(urls, **options), True
    if not any(path.endswith("/run_code") for path in paths):
        # A path prefix of judgebox serve (behind a proxy), or a foreign server's own path for /run_code (the
        # URL as given): its /health says which; one that cannot be asked now is taken for a judgebox's, not kept
        probe = Client(urls, token="", timeout=10, max_attempts=1, declare_caller=False)
        try:
            judgebox = _is_judgebox(probe)
        finally:
            probe.close()
        if judgebox is False:
            return RunCodeServer.at(urls), True
        return server_backend(urls, **options), judgebox is True
    server = RunCodeServer.at(urls)
    judgebox = _is_judgebox(server.client)
    if judgebox:
        server.close()
        return server_backend([_run_code_base(one) for one in urls], **options), True
    return server, judgebox is not None


def _urls_and_scheme(address: str | Sequence[str]) -> tuple[list[str], str]:
    """The URLs of an address of one or several servers, and their one scheme (a known one)."""
    urls = _same_scheme(balance.endpoint_urls(address))
    scheme = urlsplit(urls[0]).scheme
    if scheme not in ("judgebox", "judgebox+https", "http", "https"):
        raise UnknownAddress(f"{address!r}: {EXPECTED}")
    return urls, scheme


def _same_scheme(urls: tuple[str, ...]) -> list[str]:
    """The URLs with the first one's scheme given to those without one; several kinds at once are refused, and
    so is a URL that names no host (``judgebox://`` is no server, and ``ray:`` is no host name)."""
    if "://" not in urls[0]:  # (an address that was a scheme alone, "judgebox://", is "judgebox:" by now)
        raise UnknownAddress(f"{urls[0]!r}: {EXPECTED}")
    scheme = _split(urls[0]).scheme
    full = [one if "://" in one else f"{scheme}://{one}" for one in urls]
    for one in full:
        parts = _split(one)
        if parts.scheme != scheme:
            raise UnknownAddress(f"{', '.join(urls)!r}: several servers must be of one kind (one scheme)")
        if not parts.hostname or parts.netloc.endswith(":"):
            raise UnknownAddress(f"{one!r} names no server (scheme://host[:port])")
    return full


def _split(url: str) -> SplitResult:
    """``url``'s parts, its port read (a port that is no number is refused with the rest)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (read for its check)
    except ValueError as exc:
        raise UnknownAddress(f"{url!r} is not a URL: {exc}") from None
    return parts


def _run_code_base(url: str) -> str:
    """The base URL of a judgebox's ``.../run_code`` URL: its path less ``/run_code``, without the query or
    fragment (which RunCodeServer.at drops too); cutting the characters off the whole URL would cut into
    a query instead (``/run_code?x=1`` -> ``/run``)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path[: -len("/run_code")], "", ""))


def _is_judgebox(client: Client) -> bool | None:
    """Whether the server at ``client``'s base URL is a judgebox (its /health lists isolation and slots);
    None when it cannot be reached."""
    try:
        health = client.health(deadline=10)
    except (ServerUnavailable, DeadlineExceeded):
        return None
    except ClientError:  # it answered, but not as a judgebox does
        return False
    return isinstance(health, dict) and "isolation" in health and "slots" in health
