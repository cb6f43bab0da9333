"""The batching logic against a fake store (no PostgreSQL, no network)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from bloomfilter_scrapy.batcher import SeenBatcher  # noqa: E402


def normalize(key):
    # enough of url_normalize for these tests: case of scheme and host,
    # and the fragment
    if "://" not in key:
        return key   # not a URL: unchanged, as url_normalize leaves it
    key = key.split("#", 1)[0]
    scheme, rest = key.split("://", 1)
    host, _, path = rest.partition("/")
    return scheme.lower() + "://" + host.lower() + "/" + path


class FakeStore:
    """The server's contract: a seen set, test-and-add by normalized key,
    a key twice in one batch new at most once (its first occurrence)."""

    def __init__(self):
        self.seen = set()
        self.batches = []

    def test_and_add(self, keys):
        self.batches.append(list(keys))
        out = []
        for k in keys:
            n = normalize(k)
            out.append(n not in self.seen)
            self.seen.add(n)
        return out

    def local_seen(self, keys):
        return [None] * len(keys)

    @property
    def round_trips(self):
        return len(self.batches)


class FakeReplicaStore(FakeStore):
    """Replica mode: a copy of the seen set as of the last sync answers
    the keys it holds (as written: the copy cannot normalize)."""

    def __init__(self):
        super().__init__()
        self.copy = set()

    def sync(self):
        self.copy = set(self.seen)

    def local_seen(self, keys):
        return [True if k in self.copy else None for k in keys]


class BatchingTest(unittest.TestCase):
    def setUp(self):
        self.store = FakeStore()
        self.b = SeenBatcher(self.store, batch_size=3, cache_size=100)

    def test_prefetched_answers_cost_no_round_trip(self):
        keys = ["http://a/1", "http://a/2"]
        self.b.prefetch(keys)
        self.assertEqual(self.store.round_trips, 1)
        self.assertFalse(self.b.seen("http://a/1"))
        self.assertFalse(self.b.seen("http://a/2"))
        self.assertTrue(self.b.seen("http://a/1"))
        self.assertEqual(self.store.round_trips, 1)

    def test_batches_of_batch_size(self):
        keys = ["http://a/%d" % i for i in range(7)]
        self.b.prefetch(keys)
        self.assertEqual([len(x) for x in self.store.batches], [3, 3, 1])

    def test_new_key_handed_out_once(self):
        # the same request yielded twice by one callback
        self.b.prefetch(["http://a/x", "http://a/x"])
        self.assertEqual(self.store.batches, [["http://a/x"]])
        self.assertFalse(self.b.seen("http://a/x"))
        self.assertTrue(self.b.seen("http://a/x"))

    def test_two_spellings_one_new(self):
        self.b.prefetch(["http://a/x", "HTTP://A/x#top"])
        answers = [self.b.seen("HTTP://A/x#top"), self.b.seen("http://a/x")]
        self.assertEqual(sorted(answers), [False, True])

    def test_known_keys_not_sent_again(self):
        self.b.prefetch(["http://a/1", "http://a/2"])
        self.b.seen("http://a/1")
        self.b.prefetch(["http://a/1", "http://a/2", "http://a/3"])
        # 1 is cached seen, 2 is fresh (not asked yet): only 3 goes out
        self.assertEqual(self.store.batches[-1], ["http://a/3"])

    def test_unprefetched_key_costs_one_round_trip(self):
        self.assertFalse(self.b.seen("http://a/start"))
        self.assertTrue(self.b.seen("http://a/start"))
        self.assertEqual(self.store.round_trips, 1)
        self.assertEqual(self.b.single_round_trips, 1)

    def test_seen_elsewhere(self):
        # another crawler (or an earlier crawl) recorded it
        self.store.seen.add("http://a/old")
        self.b.prefetch(["http://a/old", "http://a/new"])
        self.assertTrue(self.b.seen("http://a/old"))
        self.assertFalse(self.b.seen("http://a/new"))

    def test_cache_bounded_and_eviction_only_costs_a_round_trip(self):
        b = SeenBatcher(self.store, batch_size=10, cache_size=2)
        for k in ("http://a/1", "http://a/2", "http://a/3"):
            self.assertFalse(b.seen(k))
        self.assertEqual(len(b.cache), 2)
        before = self.store.round_trips
        self.assertTrue(b.seen("http://a/1"))   # evicted: asks, still seen
        self.assertEqual(self.store.round_trips, before + 1)

    def test_prefetch_keeps_its_cached_answers_until_asked(self):
        # a key of the page found in the cache must still be there when the
        # scheduler asks, though the page's other answers fill the cache
        b = SeenBatcher(self.store, batch_size=10, cache_size=3)
        for k in ("http://a/1", "http://a/2", "http://a/3"):
            b.seen(k)
        self.store.seen.add("http://a/x")
        before = self.store.round_trips
        b.prefetch(["http://a/1", "http://a/x"])
        self.assertTrue(b.seen("http://a/1"))
        self.assertTrue(b.seen("http://a/x"))
        self.assertEqual(self.store.round_trips, before + 1)

    def test_unscheduled_lists_fresh_never_asked(self):
        self.b.prefetch(["http://a/1", "http://a/2"])
        self.b.seen("http://a/1")
        self.assertEqual(self.b.unscheduled(), ["http://a/2"])

    def test_never_drops_a_new_key_nor_hands_one_out_twice(self):
        # a random stream of prefetches and questions, against the model:
        # a normalized URL is "not seen" exactly once, the first time asked
        import random
        rnd = random.Random(36)
        b = SeenBatcher(self.store, batch_size=4, cache_size=5)
        handed = set()
        for _ in range(3000):
            keys = ["http://h%d/%d%s" % (rnd.randrange(2), rnd.randrange(40),
                                          rnd.choice(["", "#f"])) for _ in range(rnd.randrange(6))]
            if rnd.random() < 0.7:
                b.prefetch(keys)
            for k in keys:
                if rnd.random() < 0.9:   # some prefetched requests are asked later
                    if not b.seen(k):
                        self.assertNotIn(normalize(k), handed)
                        handed.add(normalize(k))
            for k in b.unscheduled()[:1]:
                if not b.seen(k):
                    self.assertNotIn(normalize(k), handed)
                    handed.add(normalize(k))
        for k in b.unscheduled():
            self.assertFalse(b.seen(k))
            handed.add(normalize(k))
        self.assertEqual(handed, self.store.seen)


class ReplicaBatchingTest(unittest.TestCase):
    def test_replica_answers_what_it_holds(self):
        store = FakeReplicaStore()
        a = SeenBatcher(store, batch_size=10, cache_size=100)
        a.prefetch(["http://a/1", "http://a/2"])
        self.assertEqual([a.seen("http://a/1"), a.seen("http://a/2")], [False, False])
        store.sync()
        # another process's add, after the sync: the server answers it
        store.seen.add(normalize("http://a/3"))
        # a second crawler process: what the replica holds costs nothing
        b = SeenBatcher(store, batch_size=10, cache_size=100)
        keys = ["http://a/1", "http://a/2", "http://a/3", "http://a/4", "HTTP://A/1"]
        b.prefetch(keys)
        self.assertEqual(store.batches[-1], ["http://a/3", "http://a/4", "HTTP://A/1"])
        self.assertEqual(b.answered_by_replica, 2)
        self.assertEqual([b.seen(k) for k in keys], [True, True, True, False, True])
        self.assertEqual(store.round_trips, 2)


class MiddlewareTest(unittest.TestCase):
    """PrefetchMiddleware and PostgresDupeFilter with the fake store."""

    def setUp(self):
        from scrapy import Request
        from scrapy.utils.request import RequestFingerprinter

        from bloomfilter_scrapy import PostgresDupeFilter, PrefetchMiddleware
        self.Request = Request
        self.store = FakeStore()
        self.df = PostgresDupeFilter(self.store, batch_size=2,
                                     fingerprinter=RequestFingerprinter())

        class Crawler:
            pass
        crawler = Crawler()
        crawler.bloomfilter_dupefilter = self.df
        self.mw = PrefetchMiddleware.from_crawler(crawler)

    def test_output_unchanged_and_prefetched_in_batches(self):
        R = self.Request
        out = [R("http://a/1"), {"item": 1}, R("http://a/2"), R("http://a/3"),
               R("http://a/x", dont_filter=True), R("http://a/1", method="POST", body=b"q")]
        got = list(self.mw.process_spider_output(None, iter(out), None))
        self.assertEqual(got, out)
        # two requests a batch; the dont_filter one never sent; the POST by
        # its fingerprint
        self.assertEqual([len(b) for b in self.store.batches], [2, 2])
        self.assertTrue(self.store.batches[1][1].startswith("fp:"))
        rounds = len(self.store.batches)
        self.assertEqual([self.df.request_seen(r) for r in out if isinstance(r, R) and not r.dont_filter],
                         [False, False, False, False])
        self.assertTrue(self.df.request_seen(R("http://a/1")))
        self.assertEqual(len(self.store.batches), rounds)

    def test_async_output(self):
        import asyncio
        R = self.Request
        out = [R("http://a/%d" % i) for i in range(5)]

        async def agen():
            for x in out:
                yield x

        async def collect():
            return [x async for x in self.mw.process_spider_output_async(None, agen(), None)]
        self.assertEqual(asyncio.run(collect()), out)
        self.assertEqual([len(b) for b in self.store.batches], [2, 2, 1])


if __name__ == "__main__":
    unittest.main()
