"""The far side of the channel as a proxy or a codec holds it: the one seam between them and the channel.

A :class:`Remote` asks its questions through it and a codec keeps it to tell its own proxies from
another channel's; the channel itself (``channel.py``) is what fills it. Naming only what they use keeps
the channel the one module that knows the others, and the package free of import cycles.
"""

from __future__ import annotations

from typing import Any, Protocol


class Peer(Protocol):
    def ask(self, op: str, raw: bool = False, **fields: Any) -> Any:
        """Send a request of kind ``op`` and wait for its answer (decoded, unless ``raw``)."""
        ...

    def encode(self, value: Any) -> Any:
        ...

    def decode(self, value: Any) -> Any:
        ...
