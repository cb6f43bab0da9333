"""Element hashing: the bytes each SQL element type hashes, and XXH3-64.

The server hashes one element with XXH3-64, seeded with the filter's
seed, over:

* text: its bytes in the database encoding (UTF-8 here: ``str`` is
  encoded as UTF-8, so a database in another encoding gives other
  hashes for non-ASCII text);
* bytea: its bytes (``bytes``, ``bytearray``, ``memoryview``);
* bigint: its 8 bytes, little-endian, two's complement (``int`` in
  -2**63 .. 2**63-1);
* uuid: its 16 bytes in the canonical order (``uuid.UUID.bytes``).
"""
import itertools
import struct
import uuid

import numpy as np
import xxhash

_xxh3 = xxhash.xxh3_64_intdigest
_pack_int64 = struct.Struct("<q").pack

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def element_bytes(x):
    """The bytes the server hashes for element x."""
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    if isinstance(x, bool):
        # bool is an int subclass, but no SQL element type is boolean
        raise TypeError("a bool is not a filter element (text, bytea, bigint or uuid)")
    if isinstance(x, int):
        if not INT64_MIN <= x <= INT64_MAX:
            raise OverflowError("bigint element out of range: %d" % x)
        return _pack_int64(x)
    if isinstance(x, uuid.UUID):
        return x.bytes
    raise TypeError("cannot hash %s as a filter element: use str (text), bytes "
                    "(bytea), int (bigint) or uuid.UUID (uuid)" % type(x).__name__)


def hash_element(x, seed=0):
    """XXH3-64 of element x with seed, as the server's bloom_hash(x, seed)
    but unsigned (0 .. 2**64-1)."""
    return _xxh3(element_bytes(x), seed)


def hash_elements(xs, seed=0):
    """The hashes of xs, a list of ints.  str and bytes-like elements go
    straight to xxhash (which hashes a str as its UTF-8 bytes); anything
    else takes the general path element by element."""
    try:
        return list(map(_xxh3, xs, itertools.repeat(seed)))
    except (TypeError, ValueError, UnicodeError):
        # an int, a UUID or something invalid somewhere in xs
        return [_xxh3(element_bytes(x), seed) for x in xs]


def hash_array(xs, seed=0):
    """The hashes of the list xs as a numpy uint64 array: hash_elements
    without the list of Python ints in between (a third faster for str)."""
    try:
        return np.fromiter(map(_xxh3, xs, itertools.repeat(seed)), dtype=np.uint64,
                           count=len(xs))
    except (TypeError, ValueError, UnicodeError):
        return np.fromiter((_xxh3(element_bytes(x), seed) for x in xs), dtype=np.uint64,
                           count=len(xs))
