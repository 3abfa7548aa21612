"""Which backend an address names: the one table of backends, and the process's shared backend per address.

    judgebox.connect()                               the embedded judge: this machine's sandbox slots
    judgebox.connect("local", slots=4)               the same, with its options
    judgebox.connect("judgebox://judge-1:8080")      ``judgebox serve`` endpoints (judgebox+https:// for TLS;
    judgebox.connect("http://judge-1:8080")           an http(s) base URL is one too; under a path prefix,
                                                     its /health says whether it is a judgebox)
    judgebox.connect("ray://")                       every node of the Ray cluster this process is on
    judgebox.connect("ray://10.0.0.1:6379")          ... or of the one whose GCS is there

Several servers of one kind are one backend, balanced by one client (:mod:`judgebox.client.balance`):
``judgebox://h1:p1,h2:p2`` (a later item without a scheme takes the first one's), or a list of URLs.

An ``http(s)://.../run_code`` URL, verl's ``sandbox_fusion_url``, names a SandboxFusion server: a
``judgebox serve`` behind it (its ``/health`` says so) is that server's backend; any other is the one
foreign transport, :class:`judgebox.backends.sandboxfusion.RunCodeServer`, which runs programs and not
submissions (:func:`shared` gives it; :func:`connect` refuses it).

:func:`connect` makes a new backend (close it when done); :func:`shared` gives this process's own, made once
per address and process (a forked or pickled-then-rebuilt caller opens its own): the one verl's
``sandbox_fusion_url``, TRL's and OpenRLHF's reward functions and ``judgebox score --backend`` use.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from judgebox.backend import Backend
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.errors import InvalidInput, UnknownAddress

# scheme -> the backend class (module:name, imported on first use: Ray's only when asked for), made as
# Backend(what follows "scheme://", or None, **options). The embedded judge takes no address, and
# judgebox:// (several endpoints, http(s) base URLs, /run_code URLs) is read by SERVER_URLS.
BACKENDS: dict[str, str] = {
    "local": "judgebox.judging.judge:Judge",
    "judgebox": "judgebox.backends.server:ServerJudge",
    "ray": "judgebox.backends.ray:RayJudge",
}
# What a server URL names, imported with the HTTP client only for such an address (:mod:`urls`)
SERVER_URLS = {"make": "judgebox.backends.urls:make", "check": "judgebox.backends.urls:check"}
Address = str | Sequence[str] | None
Target = Address | Backend | RunCodeServer  # what judgebox.verl takes for a sandbox_fusion_url, a backend too


def connect(address: Address = None, **options: Any) -> Backend:
    """A new backend for ``address`` (see the module's docstring), made with ``options``: the embedded
    judge's ``config``, ``slots``, ``dedupe``; a server's ``token``, ``concurrency``, ``timeout``; Ray's
    ``slots`` per node, ``attempts``. An address no backend answers to is :class:`judgebox.UnknownAddress`."""
    made, _ = _make(address, options)
    if isinstance(made, RunCodeServer):
        made.close()
        raise UnknownAddress(f"{address!r} is a SandboxFusion server that is not judgebox: it runs programs, not "
                             "submissions (judgebox.verl's presets use it one case at a time)")
    return made


def shared(address: Target = None) -> Backend | RunCodeServer:
    """This process's backend for ``address``, made once (a backend given as such is used as it is). Callers
    that ask for an address at once (verl's reward threads, at the first step) wait for the one being made:
    a second backend made beside it (a second RayJudge, a second pool of connections) would be left open."""
    if isinstance(address, (Backend, RunCodeServer)):
        return address
    if address is None or address == "local":
        from judgebox.judging.judge import default_judge  # the process-wide judge judgebox.judge() uses too

        return default_judge()  # made once per process there; not copied here, so there is one to replace
    several = isinstance(address, Sequence) and not isinstance(address, (str, bytes))
    key = (os.getpid(), tuple(address) if several else address)
    with _lock:
        known = _shared.get(key)
        if known is not None:
            return known
        making = _making.get(key)
        mine = making is None
        if making is None:
            making = _making[key] = Future()
    if not mine:
        return making.result()
    try:  # not kept: a /run_code server that could not be asked whether it is a judgebox, asked again next time
        made, keep = _make(address, {})
    except BaseException as exc:
        with _lock:
            _making.pop(key, None)
        making.set_exception(exc)
        raise
    with _lock:
        if keep:
            _shared[key] = made
        _making.pop(key, None)
    making.set_result(made)
    return made


def check_address(address: Address) -> None:
    """UnknownAddress unless ``address`` is of a form some backend takes; nothing is connected to (the
    CLI's ``verl-config --url`` checks the address it writes into a config this way)."""
    if address is None or address == "local":
        return
    if _one_address_backend(address) is None:
        _load(SERVER_URLS["check"])(address)


def _one_address_backend(address: Address) -> tuple[str, str] | None:
    """(scheme, the rest) of an address of a backend that takes one address (ray://host:port), else None."""
    if not isinstance(address, str) and not _several(address):
        raise UnknownAddress(f"an address is a URL, several, 'local' or None, got {type(address).__name__}")
    scheme, named, rest = address.partition("://") if isinstance(address, str) else ("", "", "")
    return (scheme, rest) if named and scheme in BACKENDS and scheme not in ("local", "judgebox") else None


def _make(address: Address, options: dict[str, Any]) -> tuple[Backend | RunCodeServer, bool]:
    """The backend, and whether it is known for what it is (False: a /run_code server that could not be
    asked whether it is a judgebox)."""
    if address is None or address == "local":
        return _made("local", **options), True
    if (one := _one_address_backend(address)) is not None:  # ray://host:port, and any other backend of one
        scheme, rest = one                                   # address
        return _made(scheme, rest or None, **options), True
    make: Callable[..., tuple[Backend | RunCodeServer, bool]] = _load(SERVER_URLS["make"])
    return make(address, options, functools.partial(_made, "judgebox"))


def _backend(scheme: str) -> Callable[..., Backend]:
    made: Callable[..., Backend] = _load(BACKENDS[scheme])
    return made


def _made(scheme: str, *args: Any, **options: Any) -> Backend:
    """The backend of ``scheme`` made with ``args`` and ``options``; an option it does not take is the caller's
    error (InvalidInput), said before anything is made."""
    backend = _backend(scheme)
    try:
        inspect.signature(backend).bind(*args, **options)
    except TypeError as exc:
        raise InvalidInput(f"{scheme} backend ({backend.__name__}): {exc}") from None
    return backend(*args, **options)


def _load(path: str) -> Any:
    """The object a ``module:name`` path names, its module imported now."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _several(address: object) -> bool:
    """A list of URLs (a Python list or tuple, or verl's config list, which is a Sequence)."""
    return isinstance(address, Sequence) and not isinstance(address, (str, bytes))


_shared: dict[tuple[int, Any], Backend | RunCodeServer] = {}
_making: dict[tuple[int, Any], Future[Any]] = {}  # being made now, by the thread that asked first
_lock = threading.Lock()


def _forked() -> None:
    """In a forked child (verl's prime pool forks reward workers): a lock another thread of the parent held at
    the fork would be held for ever, so the child gets its own (its backends are its own anyway: keyed by pid)."""
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forked)
