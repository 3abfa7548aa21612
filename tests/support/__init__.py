"""What the tests share across folders: real servers, the datasets, Ray clusters, checker programs, a
tokenizer and stand-in HTTP servers. ``pythonpath = ["tests"]`` (pyproject.toml) makes it importable from every
folder as ``support``."""
