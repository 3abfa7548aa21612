"""The endpoint pool behind :mod:`judgebox.client`: several ``judgebox serve`` (or SandboxFusion) servers as one.

    Client("http://judge-1:8080,http://judge-2:8080")       # or a list, or a name that resolves to several addresses

- **Choice**: each request goes to the endpoint with the fewest requests in flight from this process, ties
  broken at random; a retry goes to an endpoint the call has not tried yet when there is one.
- **Ejection**: ``EJECT_AFTER`` consecutive failures of an endpoint (refused or dropped connections,
  502/503/504 without ``Retry-After``, 5xx, a success whose answer does not parse) take it out of the
  choice. A background thread asks an ejected endpoint's ``/health`` (``/v1/ping`` where there is none)
  after a backoff that doubles up to ``READMIT_BACKOFF[1]``, and admits it back when it answers ``ok``, on
  probation: one more failed request ejects it again, and each ejection since it last answered a request
  doubles its first wait; on probation it is given one request at a time. A request it answers admits it
  back for good. A request it does not answer within the attempt's time (a server whose ``/health`` answers
  but whose requests hang) is its failure too: ``judgebox.client`` gives an attempt only part of the call's
  time when another endpoint is left to ask. Every endpoint's ``/health`` is
  also asked every ``HEALTH_INTERVAL`` seconds, so one that died idle is ejected before a request finds
  out, and a name is resolved again then (addresses added and gone are followed). When every endpoint is
  ejected, requests go to all of them anyway: that is no worse than one server and finds the first one
  back. A sole endpoint is never ejected (there is nothing to fail over to) and has no thread.
- **Answers**: an endpoint whose judging answers are mostly judge-side SE (its sandbox failing behind a
  working HTTP layer) while the others' are not is ejected too, and checked back in the same way: of its
  last ``SE_WINDOW`` judging answers (a /judge result, a /run_code answer, a batch line) at least
  ``SE_EVIDENCE``, at least ``SE_SICK`` of them SE, and the other endpoints' share (of their own last
  answers, ``SE_EVIDENCE`` at least together) lower by ``SE_MARGIN`` or more. Back on probation, one SE
  answer that the others' share would not explain ejects it again. Submissions that are SE everywhere (an
  invalid dataset, a language no server runs) raise every endpoint's share alike and eject none, and the
  endpoints compared with are in the choice, so one always stays. An SE is never a verdict on the program,
  so asking another endpoint is safe: :meth:`Pool.doubts` tells the client when an SE answer is worth a
  second opinion (the first SE of a call while the others' share is under ``SE_TRAFFIC``, or any SE of an
  ejected endpoint or one on probation).
- **Budget**: at most ``concurrency`` requests in flight to the pool from the whole process (``concurrency=``,
  else ``$JUDGEBOX_CLIENT_CONCURRENCY``, else no limit but the connection pools'), granted first come first
  served to threads and asyncio tasks alike. Clients of the same endpoints and budget in one process share
  one pool, so its budget, ejections and counts hold for all of them (verl's reward threads and transports
  included); a client given another ``concurrency`` has a pool of its own.

An answer with ``Retry-After`` (judgebox's 504 when its slots are full, a 429) says the server is alive but
busy: it never counts towards ejection, and the call moves to another endpoint without waiting.
"""

from __future__ import annotations

import ipaddress
import json
import os
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from judgebox.client.budget import Budget, concurrency_setting
from judgebox.errors import UnknownAddress

__all__ = ["Endpoint", "Lease", "Pool", "endpoint_urls", "leave", "shared"]
EJECT_AFTER = 3  # consecutive failures
HEALTH_INTERVAL = 10.0  # seconds between checks of every endpoint
READMIT_BACKOFF = (0.25, 10.0)  # seconds before an ejected endpoint's first check, and at most between checks
HEALTH_TIMEOUT = 2.0
HEALTH_BYTES = 1 << 20  # a /health answer is a small JSON object; more is not read
MAX_ENDPOINTS = 64  # a name's lookup answers what it likes: no more endpoints than this are made of it
SE_WINDOW = 20  # an endpoint's last judging answers whose judge-side SE share is weighed
SE_EVIDENCE = 10  # answers (its own, and the others' together) before its share is judged
SE_SICK = 0.8  # its SE share from which it may be ejected ...
SE_MARGIN = 0.6  # ... when the others' share is lower by at least this much
SE_TRAFFIC = 0.5  # the others' SE share from which an SE looks like the submissions', not the endpoint's


def endpoint_urls(base_url: str | Sequence[str]) -> tuple[str, ...]:
    """The base URLs of ``base_url``: one, a list, or one string of them joined by commas."""
    try:
        items = [base_url] if isinstance(base_url, str) else list(base_url)
    except TypeError:
        raise UnknownAddress(f"a server URL is text or a list of them, got {type(base_url).__name__}") from None
    urls = tuple(url.strip().rstrip("/") for item in items for url in str(item).split(",") if url.strip())
    if not urls:
        raise UnknownAddress(f"no server URL in {base_url!r}")
    if len(urls) > MAX_ENDPOINTS:
        raise UnknownAddress(f"{len(urls)} server URLs; at most {MAX_ENDPOINTS}")
    return urls


@dataclass(eq=False)
class Endpoint:
    """One server: where requests go, and what this process has seen of it."""

    url: str  # the base URL requests go to: the address itself when it came from a name's lookup
    host: str | None = None  # then the name (and port) it came from: the Host header and the TLS server name
    in_flight: int = 0
    requests: int = 0
    failures: int = 0
    consecutive: int = 0  # failures since its last answer
    ejected: bool = False
    ejections: int = 0
    streak: int = 0  # ejections since it last answered a request: a flapping endpoint stays out longer
    last_failure: str = ""
    slots: int | None = None  # from its /health
    backoff: float = 0.0
    next_check: float = 0.0
    probation: bool = False  # admitted back on its /health alone: one request at a time, until it answers well
    judged: deque[bool] = field(default_factory=lambda: deque(maxlen=SE_WINDOW))  # its last judging answers: SE?
    se_answers: int = 0  # judge-side SE answers, in all

    def headers(self) -> dict[str, str]:
        return {"Host": self.host} if self.host else {}

    def extensions(self) -> dict[str, Any]:
        return {"sni_hostname": self.host.rsplit(":", 1)[0]} if self.host and self.url.startswith("https:") else {}

    def stats(self) -> dict[str, Any]:
        return {"url": self.url, "host": self.host, "in_flight": self.in_flight, "requests": self.requests,
                "failures": self.failures, "consecutive_failures": self.consecutive, "ejected": self.ejected,
                "ejections": self.ejections, "last_failure": self.last_failure, "slots": self.slots,
                "probation": self.probation, "se_answers": self.se_answers,
                "se_share": round(sum(self.judged) / len(self.judged), 3) if self.judged else None}


class Lease:
    """One request's hold on the budget and on an endpoint, given back once with how the endpoint did."""

    def __init__(self, pool: Pool, endpoint: Endpoint) -> None:
        self.pool, self.endpoint, self._open = pool, endpoint, True
        self.judged: list[bool] = []

    def judge(self, se: bool) -> None:
        """A judging answer of the request (its /judge or /run_code answer, a line of its batch stream): whether
        it is a judge-side SE (the server's sandbox failed, not the program). Weighed when the lease ends."""
        self.judged.append(se)

    def answered(self) -> None:
        """The endpoint answered (any status but a failing one): it is alive."""
        self._end(True, None)

    def failed(self, reason: str) -> None:
        """The endpoint failed this request: counts towards its ejection."""
        self._end(False, reason)

    def release(self) -> None:
        """Neither: the caller left, a deadline passed, or the endpoint said it was busy."""
        self._end(False, None)

    def _end(self, answered: bool, failure: str | None) -> None:
        if self._open:
            self._open = False
            self.pool._finished(self.endpoint, answered, failure, self.judged)


@dataclass(eq=False)
class _Name:
    """A base URL whose host name resolved to several addresses: its endpoints follow the name's lookups."""

    url: str
    endpoints: list[Endpoint] = field(default_factory=list)


class Pool:
    """The endpoints of one set of base URLs, their budget, and the thread that checks their health."""

    def __init__(self, urls: Sequence[str], concurrency: int | None = None) -> None:
        self.urls, self.budget = tuple(urls), Budget(concurrency)
        # the module's settings as they are now (a test may shorten them)
        self.eject_after, self.health_interval, self.readmit_backoff = EJECT_AFTER, HEALTH_INTERVAL, READMIT_BACKOFF
        self.users = 0
        self._names: list[_Name] = []  # the URLs whose name resolved to several addresses
        self._plain: list[Endpoint] = []  # the others, used as given
        for url in self.urls:
            addresses = _addresses(url) or []
            if len(addresses) > 1:
                self._names.append(_Name(url, [Endpoint(address, _netloc(url)) for address in addresses]))
            else:
                self._plain.append(Endpoint(url))
        self.endpoints = (self._plain + [e for name in self._names for e in name.endpoints])[:MAX_ENDPOINTS]
        self._cond = threading.Condition()
        self._closed = False
        self._next_round = time.monotonic() + self.health_interval
        self._watcher: threading.Thread | None = None
        if len(self.endpoints) > 1 or self._names:
            self._watcher = threading.Thread(target=self._watch, name="judgebox-client-health", daemon=True)
            self._watcher.start()

    def lease(self, tried: set[Endpoint], timeout: float) -> Lease | None:
        """Hold the budget and an endpoint for one request (None when ``timeout`` passed first)."""
        return self._pick(tried) if self.budget.acquire(timeout) else None

    async def lease_async(self, tried: set[Endpoint], timeout: float) -> Lease | None:
        return self._pick(tried) if await self.budget.acquire_async(timeout) else None

    def untried(self, tried: set[Endpoint]) -> bool:
        """Whether the next attempt of a call that tried ``tried`` can go to an endpoint new to it."""
        with self._cond:
            return any(endpoint not in tried for endpoint in self._choice())

    def doubts(self, endpoint: Endpoint, first: bool) -> bool:
        """Whether a judge-side SE answer of ``endpoint`` (already weighed) is worth asking another endpoint:
        always from an ejected endpoint or one on probation; else only the ``first`` SE of a call, and only while
        the other endpoints' SE share is under ``SE_TRAFFIC`` (or they have answered too little to tell): SE
        from them too says the submissions are SE, and a second SE from another endpoint is taken as it is."""
        with self._cond:
            if endpoint.ejected or endpoint.probation:
                return True
            if not first:
                return False
            answers, se = self._others(endpoint)
            return answers < SE_EVIDENCE or se < SE_TRAFFIC * answers

    def size(self) -> int:
        with self._cond:
            return len(self.endpoints)

    def stats(self) -> list[dict[str, Any]]:
        with self._cond:
            return [endpoint.stats() for endpoint in self.endpoints]

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _choice(self) -> list[Endpoint]:
        return [e for e in self.endpoints if not e.ejected] or self.endpoints  # all ejected: all of them anyway

    def _pick(self, tried: set[Endpoint]) -> Lease:
        with self._cond:
            choice = self._choice()
            fresh = [e for e in choice if e not in tried] or choice
            fresh = [e for e in fresh if not (e.probation and e.in_flight)] or fresh  # on probation: one at a time
            least = min(e.in_flight for e in fresh)
            endpoint = random.choice([e for e in fresh if e.in_flight == least])
            endpoint.in_flight += 1
            endpoint.requests += 1
        tried.add(endpoint)
        return Lease(self, endpoint)

    def _finished(self, endpoint: Endpoint, answered: bool, failure: str | None, judged: Sequence[bool] = ()
                  ) -> None:
        with self._cond:
            endpoint.in_flight -= 1
            sick = self._weigh(endpoint, judged)
            if sick is not None:
                endpoint.last_failure = sick
                self._eject(endpoint)
            elif answered:
                endpoint.consecutive = 0
                if not judged or not all(judged):  # a working answer, not SE alone
                    endpoint.streak, endpoint.probation = 0, False
                    if endpoint.ejected:  # it answered a request: better than its /health
                        self._admit(endpoint, trusted=True)
            elif failure is not None:
                endpoint.failures += 1
                endpoint.consecutive += 1
                endpoint.last_failure = failure
                if endpoint.consecutive >= self.eject_after:
                    self._eject(endpoint)
        self.budget.release()

    def _weigh(self, endpoint: Endpoint, judged: Sequence[bool]) -> str | None:
        """Under the lock. Record a request's judging answers; why the endpoint is to be ejected for its SE
        answers, or None. Only an SE answer can eject it, never a working one."""
        for was_se in judged:
            endpoint.judged.append(was_se)
            endpoint.se_answers += was_se
        mine = endpoint.judged
        if not any(judged) or endpoint.ejected or (len(mine) < SE_EVIDENCE and not endpoint.probation):
            return None
        answers, se = self._others(endpoint)
        share = sum(mine) / len(mine)
        if answers < SE_EVIDENCE or share < SE_SICK or share - se / answers < SE_MARGIN:
            return None
        return f"judge-side SE in {sum(mine)} of its last {len(mine)} answers; the others': {se} of {answers}"

    def _others(self, endpoint: Endpoint) -> tuple[int, int]:
        """Under the lock. The judging answers in the windows of the other endpoints in the choice, and their SE."""
        others = [e for e in self.endpoints if e is not endpoint and not e.ejected]
        return sum(len(e.judged) for e in others), sum(sum(e.judged) for e in others)

    def _eject(self, endpoint: Endpoint) -> None:
        """Under the lock. A sole endpoint stays: there is nothing to fail over to. Its answers so far are
        forgotten (and again when it is admitted back on probation): it is judged on those it gives then."""
        if endpoint.ejected or len(self.endpoints) < 2:
            return
        endpoint.judged.clear()
        endpoint.probation = False
        endpoint.ejected, endpoint.ejections, endpoint.streak = True, endpoint.ejections + 1, endpoint.streak + 1
        endpoint.backoff = min(self.readmit_backoff[1], self.readmit_backoff[0] * 2 ** (endpoint.streak - 1))
        endpoint.next_check = time.monotonic() + endpoint.backoff
        self._cond.notify_all()

    def _admit(self, endpoint: Endpoint, trusted: bool) -> None:
        """Back in the choice. Admitted on its /health alone, it is on probation: one more failed request
        ejects it again (its /health may answer while its requests fail: a broken proxy, a wrong service, a
        server whose requests hang), and so does an SE answer the others' would not explain (a broken sandbox)."""
        endpoint.ejected, endpoint.backoff, endpoint.probation = False, 0.0, not trusted
        if not trusted:
            endpoint.judged.clear()  # judged on the answers it gives from now on (not those still in flight then)
        endpoint.consecutive = 0 if trusted else self.eject_after - 1

    def _watch(self) -> None:
        with httpx.Client(timeout=HEALTH_TIMEOUT, headers={"User-Agent": "judgebox-client-health"}) as http:
            while True:
                with self._cond:
                    if self._closed:
                        return
                    now = time.monotonic()
                    every = now >= self._next_round
                    if every:
                        self._next_round = now + self.health_interval
                    due = [e for e in self.endpoints if every or (e.ejected and e.next_check <= now)]
                if every:
                    self._follow_names()
                for endpoint in due:
                    self._checked(endpoint, _probe(http, endpoint))
                with self._cond:
                    wake = min([e.next_check for e in self.endpoints if e.ejected] + [self._next_round])
                    if not self._closed and wake > time.monotonic():
                        self._cond.wait(wake - time.monotonic())

    def _checked(self, endpoint: Endpoint, health: str | int | None) -> None:
        """Record a health check: an int or None is healthy (its slots, if it said), a str why it is not."""
        with self._cond:
            if not isinstance(health, str):
                endpoint.slots = health
                if endpoint.ejected:
                    self._admit(endpoint, trusted=False)
                return
            endpoint.last_failure = f"health check: {health}"
            if not endpoint.ejected:
                self._eject(endpoint)
                return
            endpoint.backoff = min(self.readmit_backoff[1], endpoint.backoff * 2)
            endpoint.next_check = time.monotonic() + endpoint.backoff * random.uniform(0.5, 1.0)

    def _follow_names(self) -> None:
        """Look each name up again: new addresses become endpoints, vanished ones leave the choice (their
        requests in flight finish as they were). A failed lookup changes nothing."""
        for name in self._names:
            addresses = _addresses(name.url)
            if not addresses:
                continue
            with self._cond:
                known = {e.url: e for e in name.endpoints}
                name.endpoints = [known.get(a) or Endpoint(a, _netloc(name.url)) for a in addresses]
                self.endpoints = (self._plain + [e for n in self._names for e in n.endpoints])[:MAX_ENDPOINTS]


def _probe(http: httpx.Client, endpoint: Endpoint) -> str | int | None:
    """An endpoint's health: its slots (None if it did not say) when it answers ``ok``, else why not. A
    server without /health (SandboxFusion) is healthy when its /v1/ping answers."""
    try:
        status, body = _get(http, endpoint, "/health")
        if status == 404:
            status, _ = _get(http, endpoint, "/v1/ping")
            return None if 200 <= status < 300 else f"/v1/ping answered HTTP {status}"
        if 400 <= status < 500:
            return None  # alive, but it will not say more to us (a proxy's token check): requests will tell
        if not 200 <= status < 300:
            return f"/health answered HTTP {status}"
        health = json.loads(body)
    except (httpx.HTTPError, ValueError, RecursionError) as exc:  # RecursionError: a nesting bomb
        return f"{type(exc).__name__}: {exc}"
    if not isinstance(health, dict) or health.get("status", "ok") != "ok":
        return f"/health says {str(health.get('status') if isinstance(health, dict) else health)[:100]!r}"
    slots = health.get("slots")
    return slots if type(slots) is int and slots > 0 else None


def _get(http: httpx.Client, endpoint: Endpoint, path: str) -> tuple[int, bytes]:
    with http.stream("GET", endpoint.url + path, headers=endpoint.headers(),
                     extensions=endpoint.extensions()) as response:
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > HEALTH_BYTES:
                raise ValueError(f"{path} answered more than {HEALTH_BYTES} bytes")
        return response.status_code, bytes(body)


def _addresses(url: str) -> list[str] | None:
    """The base URLs of the addresses a URL's host name resolves to (at most ``MAX_ENDPOINTS``, IPv4 and IPv6
    only); None when the host is an address already, has user info, or the lookup failed."""
    parts = urlsplit(url)
    host = parts.hostname
    if not host or parts.username is not None or parts.scheme not in ("http", "https"):
        return None
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, ValueError, UnicodeError):
        return None
    addresses: list[str] = []
    for family, _, _, _, sockaddr in answers:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        shown = f"[{sockaddr[0]}]" if family == socket.AF_INET6 else str(sockaddr[0])
        address = urlunsplit((parts.scheme, f"{shown}:{port}", parts.path, "", ""))
        if address not in addresses:
            addresses.append(address)
    return addresses[:MAX_ENDPOINTS] or None


def _netloc(url: str) -> str:
    return urlsplit(url).netloc


_pools: dict[tuple[int, tuple[str, ...], int | None], Pool] = {}
_pools_lock = threading.Lock()


def _forked() -> None:
    """In a forked child: the parent's lock may have been held by a thread that did not come with the fork (its
    pools are the parent's anyway: keyed by pid)."""
    global _pools_lock
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forked)


def shared(urls: tuple[str, ...], concurrency: int | None = None) -> Pool:
    """This process's pool of these endpoints (made on first use; a forked child makes its own)."""
    limit = concurrency_setting(concurrency)
    key = (os.getpid(), urls, limit)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = Pool(urls, limit)
        pool.users += 1
        return pool


def leave(pool: Pool) -> None:
    """A client of ``pool`` closed; the last one closes the pool."""
    with _pools_lock:
        pool.users -= 1
        if pool.users > 0:
            return
        key = (os.getpid(), pool.urls, pool.budget.limit)
        if _pools.get(key) is pool:
            del _pools[key]
    pool.close()
