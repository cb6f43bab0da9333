"""Read, probe and add to the bytes of a PostgreSQL ``bloomfilter`` value
(what ``SELECT f::bytea`` returns), with the server's answers."""
from .bloom import BloomFilter, Stage
from .elements import element_bytes, hash_element, hash_elements
from .errors import (BloomFilterError, FilterFullError, FormatError,
                     GrowthNotSupportedError, UnsupportedFormatError)
from .replica import IndexReplica

__all__ = [
    "BloomFilter", "IndexReplica", "Stage", "element_bytes", "hash_element", "hash_elements",
    "BloomFilterError", "FilterFullError", "FormatError",
    "GrowthNotSupportedError", "UnsupportedFormatError",
]
