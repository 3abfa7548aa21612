"""The package's version, in a room of its own so that every layer can name it."""

__version__ = "0.1.0"
