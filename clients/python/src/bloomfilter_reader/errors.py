"""Exceptions of bloomfilter_reader."""


class BloomFilterError(Exception):
    """Base class of every error this package raises on purpose."""


class FormatError(BloomFilterError, ValueError):
    """The bytes are not a valid ``bloomfilter`` value (malformed or
    inconsistent: what the server's bytea cast would reject)."""


class UnsupportedFormatError(FormatError):
    """A valid-looking value this reader does not read: a later format
    version, another hash function, or another filter type."""


class FilterFullError(BloomFilterError):
    """A fixed (not scalable) filter refuses the add: one more element
    would take its false-positive rate past its target.  The server
    raises SQLSTATE 54000 at the same add."""


class GrowthNotSupportedError(FilterFullError):
    """A scalable filter needs a new stage for this add.  The server
    grows the value there; this reader does not (a new stage's geometry
    comes from the server's sizing model), so nothing was changed: add
    the element on the server, or read the grown value back."""
