"""sharc's exceptions.

    SharcError
    ├── ModelError            the embedding model is missing, corrupt or misconfigured
    ├── IndexCorruptError     an index file cannot be read; `sharc clear PATH` rebuilds it
    ├── IndexVersionError     the index was written by a newer sharc
    ├── IndexLockedError      another process is writing this index
    ├── NotIndexedError       search on a root that has no index yet
    ├── GraphNotBuiltError    the index predates the code graph; `sharc index` fills it
    ├── PathNotAllowedError   a path outside the roots a server was started with
    ├── ClusterError          the Ray cluster cannot be reached (`sharc.distributed`)
    └── CancelledError        indexing was cancelled by the caller

Errors from the Rust core keep their Python types: a missing root is `FileNotFoundError`, a bad
ignore pattern is `sharc.PatternError` (a `ValueError`).
"""

from __future__ import annotations


class SharcError(Exception):
    """Base class of every error sharc raises on purpose."""


class ModelError(SharcError):
    """The embedding model is missing, corrupt or misconfigured."""


class IndexCorruptError(SharcError):
    """An index file cannot be read. Clearing the index (`sharc clear PATH`) rebuilds it."""


class IndexVersionError(SharcError):
    """The index on disk was written by a newer version of sharc."""


class IndexLockedError(SharcError):
    """Another process is writing this index; one writer at a time."""


class NotIndexedError(SharcError):
    """The root has no index yet: run `sharc index PATH` first."""


class GraphNotBuiltError(SharcError):
    """The index was built before the code graph; the next `sharc index` fills it."""


class PathNotAllowedError(SharcError):
    """A path lies outside the roots this server may read."""


class ClusterError(SharcError):
    """The Ray cluster cannot be reached, or sharc's `ray` extra is not installed."""


class CancelledError(SharcError):
    """Indexing stopped because the caller cancelled it."""
