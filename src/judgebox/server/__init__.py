"""judgebox's HTTP service (``judgebox serve``): the only package that imports the web framework."""

from .app import ServerSettings, create_app

__all__ = ["ServerSettings", "create_app"]
