"""A Scrapy duplicate filter whose seen set is in PostgreSQL, with the
bloomfilter extension: the two-tier gate (a stored filter in front of an
exact table), the bloomfilter index over a log of batches, or the exact
table alone."""

from .batcher import SeenBatcher
from .dupefilter import PostgresDupeFilter, PrefetchMiddleware, request_key
from .store import MODES, PostgresSeenStore

__all__ = ["PostgresDupeFilter", "PrefetchMiddleware", "PostgresSeenStore",
           "SeenBatcher", "MODES", "request_key"]
__version__ = "0.2.0"
