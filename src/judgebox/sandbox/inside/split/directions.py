"""The two directions of the codec: what the tests' process (T) lets in from the program's (S), and what
each side sends of its own objects.

From S to T only data and handles cross, and nothing S sends is resolved by name or run in T. From T
to S the tests are trusted, so S may resolve the names T sends, but no live object of T is ever
reachable from S: a callable crosses as a call-only callback, an iterator as its items.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from .codec import Codec
from .errors import ProgramError, malformed
from .proxies import Callback, Remote

MAX_ITEMS = 1_000_000  # items of an iterator the tests pass to the program


class TestsCodec(Codec):
    """T's codec. Out (T to S): data; the program's own objects back as themselves; standard classes and
    functions (``int``, ``math.sqrt``) and modules by name, for S to take its own; a callable of the tests
    as a call-only callback; an iterator (a generator, ``map``, ``zip``...) as the items it yields, which
    S gets as an iterator over them. An iterator is made to give its items here, in T, because the only
    other way to hand it over would be a handle on a live object of the tests, which S could drive
    (``gi_frame``, ``send``, ``throw``). Anything else (an instance of a test class, a frame) is refused:
    the tests passed a value that cannot cross.

    In (S to T): the closed set of data, S's objects as Remotes, and the tests' own callbacks coming
    back. No name, module or code from S is resolved here."""

    def _encode_other(self, value: Any) -> Any:
        if isinstance(value, Remote) and value.channel is self.channel:
            return {"own": value.ref}
        if isinstance(value, type(sys)):
            return {"m": value.__name__}
        named = _importable_name(value)
        if named is not None:  # int, math.sqrt, collections.Counter: S imports its own
            return {"g": named}
        if callable(value):
            return {"cb": self.keep(value)}
        if _is_iterator(value):
            items: list[Any] = []
            for item in value:
                if len(items) == MAX_ITEMS:
                    raise TypeError(f"the tests passed the program an iterator of more than {MAX_ITEMS} items")
                items.append(self.encode(item))
            return {"it": items}
        raise TypeError(f"the tests passed the program a {type(value).__name__!r} object, which is not data "
                        "and cannot cross to the program's process")

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "ref":
            if type(body) is not int or body < 0:
                raise malformed("a handle that is not an index")
            return Remote(self.channel, body)
        if tag == "own":
            if type(body) is not int or not 0 <= body < len(self.kept):
                raise malformed("a callback of the tests that they never passed")
            return self.kept[body]
        raise ProgramError(f"the program's process sent a value tagged {str(tag)[:40]!r}: only data and "
                           "handles cross to the tests")


class ProgramCodec(Codec):
    """S's codec. Out: data, or a handle on any other object (kept here). In: trusts T (T never sends
    S anything that is not data, a name of a standard object, a callback or one of S's own objects)."""

    def _encode_other(self, value: Any) -> Any:
        if isinstance(value, Callback) and value._channel is self.channel:
            return {"own": value._ref}
        return {"ref": self.keep(value)}

    def encode_name(self, value: Any) -> Any:
        """A global of the program for the tests' namespace: a module as its name (T decides whether to
        give the tests its own copy), anything else as a value."""
        if isinstance(value, type(sys)) and isinstance(getattr(value, "__name__", None), str):
            return {"m": value.__name__}
        return self.encode(value)

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "own":
            return self.kept[body]
        if tag == "cb":
            return Callback(self.channel, body)
        if tag == "g":
            return _import(*body)
        if tag == "m":
            return importlib.import_module(body)
        if tag == "it":
            return iter(self.items(body, depth))
        raise ValueError(f"unknown tag {tag!r}")


def _is_iterator(value: Any) -> bool:
    try:
        return hasattr(type(value), "__next__") and iter(value) is value
    except Exception:
        return False


def _importable_name(value: Any) -> list[str] | None:
    """``[module, qualified name]`` of a class or function of T that S can import by name."""
    if not isinstance(value, (type, type(len), type(_import))):
        return None
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module == "__main__" or "<" in name:
        return None
    try:
        return [module, name] if _import(module, name) is value else None
    except Exception:
        return None


def _import(module: str, name: str) -> Any:
    value: Any = importlib.import_module(module)
    for part in name.split("."):
        value = getattr(value, part)
    return value
