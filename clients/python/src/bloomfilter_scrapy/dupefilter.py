"""Scrapy glue: the duplicate filter and the middleware that feeds it."""

import logging

from scrapy import Request
from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from .batcher import SeenBatcher
from .store import PostgresSeenStore

logger = logging.getLogger(__name__)

MIDDLEWARE = "bloomfilter_scrapy.PrefetchMiddleware"


def request_key(request, fingerprinter):
    """The key a request is known by: its URL for GET (the server
    normalizes it), Scrapy's fingerprint for anything else (a POST's body
    or a HEAD is not the page a GET fetches)."""
    if request.method == "GET":
        return request.url
    return "fp:" + fingerprinter.fingerprint(request).hex()


class PostgresDupeFilter(BaseDupeFilter):
    """A duplicate filter whose seen set is in PostgreSQL (bloomfilter).

    Settings: BLOOMFILTER_DSN (libpq connection string), BLOOMFILTER_MODE
    (two-tier, replica, hashes, index or exact), BLOOMFILTER_SYNC_INTERVAL
    (replica and hashes modes: seconds between syncs of the crawler's copy
    of the index), BLOOMFILTER_TABLE (name of the table, and the prefix of
    the others), BLOOMFILTER_BATCH_SIZE, BLOOMFILTER_CACHE_SIZE,
    BLOOMFILTER_CAPACITY and BLOOMFILTER_FPR (of a filter created here).
    Answers come a batch at a time when PrefetchMiddleware is enabled.
    """

    def __init__(self, store, batch_size=1000, cache_size=100000,
                 fingerprinter=None, stats=None, debug=False, settings=None):
        self.store = store
        self.batcher = SeenBatcher(store, batch_size, cache_size)
        self.batch_size = batch_size
        self.fingerprinter = fingerprinter
        self.stats = stats
        self.debug = debug
        self.logdupes = True
        self.settings = settings

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        dsn = s.get("BLOOMFILTER_DSN")
        if dsn is None:
            dsn = ""  # libpq's defaults: PGHOST, PGDATABASE, ...
        store = PostgresSeenStore(
            dsn,
            mode=s.get("BLOOMFILTER_MODE", "two-tier"),
            table=s.get("BLOOMFILTER_TABLE", "scrapy_seen"),
            capacity=s.getint("BLOOMFILTER_CAPACITY", 1000000),
            fpr=s.getfloat("BLOOMFILTER_FPR", 0.01),
            create=s.getbool("BLOOMFILTER_CREATE", True),
            sync_interval=s.getfloat("BLOOMFILTER_SYNC_INTERVAL", 10.0),
        )
        df = cls(store,
                 batch_size=s.getint("BLOOMFILTER_BATCH_SIZE", 1000),
                 cache_size=s.getint("BLOOMFILTER_CACHE_SIZE", 100000),
                 fingerprinter=crawler.request_fingerprinter,
                 stats=crawler.stats,
                 debug=s.getbool("DUPEFILTER_DEBUG"),
                 settings=s)
        # how PrefetchMiddleware finds the filter of its crawl
        crawler.bloomfilter_dupefilter = df
        return df

    def open(self):
        self.store.open()
        if self.settings is not None:
            mws = []
            for path in build_component_list(self.settings.getwithbase("SPIDER_MIDDLEWARES")):
                try:
                    mws.append(load_object(path) if isinstance(path, str) else path)
                except (ImportError, NameError, ValueError):
                    mws.append(path)
            ours = [isinstance(m, type) and issubclass(m, PrefetchMiddleware) for m in mws]
            if not any(ours):
                logger.warning(
                    "%s is not in SPIDER_MIDDLEWARES: every new URL costs a round "
                    "trip to PostgreSQL of its own", MIDDLEWARE)
            elif not ours[0]:
                logger.info(
                    "%s is not the first of SPIDER_MIDDLEWARES (the lowest number): "
                    "requests dropped after it are recorded as seen until the crawl "
                    "closes", MIDDLEWARE)

    def key(self, request):
        return request_key(request, self.fingerprinter)

    def prefetch(self, requests):
        self.batcher.prefetch(self.key(r) for r in requests
                              if isinstance(r, Request) and not r.dont_filter)

    def request_seen(self, request):
        return self.batcher.seen(self.key(request))

    def close(self, reason):
        left = self.batcher.unscheduled()
        try:
            if left:
                if self.store.forget(left):
                    logger.info("bloomfilter: un-recorded %d URLs answered new but "
                                "never scheduled", len(left))
                else:
                    logger.warning("bloomfilter: %d URLs answered new were never scheduled "
                                   "and stay recorded as seen (index, replica and hashes modes cannot forget)",
                                   len(left))
        finally:
            self._stats()
            self.store.close()

    def _stats(self):
        if self.stats is None:
            return
        b = self.batcher
        for name, value in (("round_trips", self.store.round_trips),
                            ("single_round_trips", b.single_round_trips),
                            ("urls_sent", b.sent),
                            ("new", b.new),
                            ("answered_locally", b.answered_locally),
                            ("answered_by_replica", b.answered_by_replica),
                            ("syncs", self.store.syncs),
                            ("sync_pages", self.store.sync_pages),
                            ("db_seconds", round(self.store.db_seconds, 3))):
            self.stats.set_value("bloomfilter/" + name, value)

    def log(self, request, spider):
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s", {"request": request},
                         extra={"spider": spider})
        elif self.logdupes:
            logger.debug("Filtered duplicate request: %(request)s - no more duplicates "
                         "will be shown (see DUPEFILTER_DEBUG to show all duplicates)",
                         {"request": request}, extra={"spider": spider})
            self.logdupes = False
        spider.crawler.stats.inc_value("dupefilter/filtered", spider=spider)


class PrefetchMiddleware:
    """Spider middleware: sends the requests a response produced to
    PostgreSQL in one batch (or batches of BLOOMFILTER_BATCH_SIZE) before
    the scheduler asks about them one by one.  Give it the lowest number
    of SPIDER_MIDDLEWARES, so it sees what reaches the scheduler and
    nothing that a middleware after it would drop."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _dupefilter(self):
        return getattr(self.crawler, "bloomfilter_dupefilter", None)

    @staticmethod
    def _counts(x):
        return isinstance(x, Request) and not x.dont_filter

    def process_spider_output(self, response, result, spider):
        df = self._dupefilter()
        if df is None:
            yield from result
            return
        held, n = [], 0
        for x in result:
            held.append(x)
            n += self._counts(x)
            if n >= df.batch_size:
                df.prefetch(held)
                yield from held
                held, n = [], 0
        df.prefetch(held)
        yield from held

    async def process_spider_output_async(self, response, result, spider):
        df = self._dupefilter()
        held, n = [], 0
        async for x in result:
            if df is None:
                yield x
                continue
            held.append(x)
            n += self._counts(x)
            if n >= df.batch_size:
                df.prefetch(held)
                for h in held:
                    yield h
                held, n = [], 0
        if df is not None:
            df.prefetch(held)
        for h in held:
            yield h
