"""The store against a real server with the extension: every mode's
test-and-add, table creation, forgetting, and where url_normalize and
Scrapy's canonicalize_url differ (the table in README.md).

Needs BLOOMFILTER_TEST_DSN (a database where CREATE EXTENSION bloomfilter
works, or where it exists); skipped without it."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import psycopg2  # noqa: E402
from w3lib.url import canonicalize_url  # noqa: E402

from bloomfilter_scrapy import MODES, PostgresSeenStore  # noqa: E402

DSN = os.environ.get("BLOOMFILTER_TEST_DSN")


def drop(dsn, table):
    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        for t in (table, table + "_log", table + "_hashes"):
            cur.execute("DROP TABLE IF EXISTS %s" % t)
    conn.close()


@unittest.skipUnless(DSN, "BLOOMFILTER_TEST_DSN is not set")
class StoreTest(unittest.TestCase):
    def store(self, mode, **kw):
        table = "test_store_" + mode.replace("-", "_")
        drop(DSN, table)
        s = PostgresSeenStore(DSN, mode=mode, table=table, capacity=1000, **kw)
        s.open()
        self.addCleanup(drop, DSN, table)
        self.addCleanup(s.close)
        return s

    def test_test_and_add_every_mode(self):
        # hashes mode takes keys as given: test_hashes_mode
        for mode in (m for m in MODES if m != "hashes"):
            with self.subTest(mode=mode):
                s = self.store(mode)
                self.assertEqual(
                    s.test_and_add(["http://a/x", "HTTP://A:80/x#top", "http://a/y", "http://a/x"]),
                    [True, False, True, False])
                self.assertEqual(s.test_and_add(["http://a/./y", "http://a/z"]), [False, True])
                # nothing new: nothing written, same answers
                self.assertEqual(s.test_and_add(["http://a/z"]), [False])
                self.assertEqual(s.round_trips, 3)
                # the batch goes as one text, the keys split by a
                # separator none holds: keys holding a newline, the next
                # separator, or nothing at all are keys like the others
                odd = ["http://a/1\nx", "", "http://a/\x01", "\n", "http://a/1"]
                self.assertEqual(s.test_and_add(odd), [True] * 5)
                self.assertEqual(s.test_and_add(odd + ["http://a/2"]), [False] * 5 + [True])
                self.assertEqual(s.test_and_add([""]), [False])

    def test_open_twice_keeps_the_seen_set(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                s = self.store(mode)
                s.test_and_add(["http://a/kept"])
                again = PostgresSeenStore(DSN, mode=mode, table=s.table, capacity=1000)
                again.open()
                self.addCleanup(again.close)
                self.assertEqual(again.test_and_add(["http://a/kept", "http://a/other"]),
                                 [False, True])

    def test_log_of_urls_compressed_where_the_server_can(self):
        s = self.store("index")
        with s.conn.cursor() as cur:
            cur.execute("SELECT 'lz4' = ANY (enumvals) FROM pg_settings "
                        "WHERE name = 'default_toast_compression'")
            lz4 = cur.fetchone()[0]
            cur.execute("SELECT attcompression, attstorage FROM pg_attribute "
                        "WHERE attrelid = %s::regclass AND attname = 'urls'", (s.table + "_log",))
            self.assertEqual(cur.fetchone(), ("l", "x") if lz4 else ("", "e"))
        if lz4:
            # a log an older client made uncompressed is compressed from now on
            with s.conn.cursor() as cur:
                cur.execute("ALTER TABLE %s_log ALTER urls SET STORAGE EXTERNAL, "
                            "ALTER urls SET COMPRESSION pglz" % s.table)
            again = PostgresSeenStore(DSN, mode="index", table=s.table, capacity=1000)
            again.open()
            self.addCleanup(again.close)
            with s.conn.cursor() as cur:
                cur.execute("SELECT attcompression, attstorage FROM pg_attribute "
                            "WHERE attrelid = %s::regclass AND attname = 'urls'", (s.table + "_log",))
                self.assertEqual(cur.fetchone(), ("l", "x"))

    def test_forget(self):
        for mode in ("two-tier", "exact"):
            with self.subTest(mode=mode):
                s = self.store(mode)
                s.test_and_add(["http://a/1", "http://a/2"])
                self.assertTrue(s.forget(["http://a/2"]))
                # the filter still says "probably": the exact tier decides
                self.assertEqual(s.test_and_add(["http://a/1", "http://a/2"]), [False, True])
        s = self.store("index")
        s.test_and_add(["http://a/1"])
        self.assertFalse(s.forget(["http://a/1"]))

    def test_two_tier_without_its_index(self):
        # a dropped filter is an error, never every URL answered from nothing
        s = self.store("two-tier")
        s.test_and_add(["http://a/1"])
        with s.conn.cursor() as cur:
            cur.execute("DROP INDEX %s_bf" % s.table)
        with self.assertRaises(psycopg2.errors.UndefinedTable):
            s.test_and_add(["http://a/1", "http://a/2"])
        with self.assertRaises(psycopg2.errors.UndefinedTable):
            s.test_and_add(["http://a/2"])
        # and once it is back, the batch that failed recorded nothing
        with s.conn.cursor() as cur:
            cur.execute("CREATE INDEX %s_bf ON %s USING bloomfilter (url)" % (s.table, s.table))
        self.assertEqual(s.test_and_add(["http://a/1", "http://a/2"]), [False, True])

    def test_one_round_trip_a_batch(self):
        # autocommit, one statement, planned once a connection
        for mode in MODES:
            with self.subTest(mode=mode):
                s = self.store(mode)
                with s.conn.cursor() as cur:
                    cur.execute("SELECT pg_backend_pid()")
                    pid = cur.fetchone()[0]
                for i in range(5):
                    s.test_and_add(["http://a/%d" % i, "http://a/%d" % (i + 1)])
                # hashes mode syncs its replica first, for the index's seed
                self.assertEqual(s.round_trips, 6 if mode == "hashes" else 5)
                self.assertEqual(s.conn.get_transaction_status(),
                                 psycopg2.extensions.TRANSACTION_STATUS_IDLE)
                with s.conn.cursor() as cur:
                    cur.execute("SELECT count(*), bool_and(name = 'bloomfilter_test_and_add') "
                                "FROM pg_prepared_statements")
                    self.assertEqual(cur.fetchone(), (1, True))
                    cur.execute("SELECT pg_backend_pid()")
                    self.assertEqual(cur.fetchone()[0], pid)

    def test_survives_a_lost_connection(self):
        s = self.store("two-tier")
        s.test_and_add(["http://a/before"])
        with psycopg2.connect(DSN) as other, other.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(%s)", (s.conn.get_backend_pid(),))
        other.close()
        # whether the lost statement committed is unknown: every key of
        # the batch is answered new (a page fetched twice at worst), and
        # the batch is recorded
        self.assertEqual(s.test_and_add(["http://a/before", "http://a/after"]), [True, True])
        self.assertEqual(s.test_and_add(["http://a/before", "http://a/after"]), [False, False])

    def test_replica_mode(self):
        s = self.store("replica")
        self.assertEqual(s.test_and_add(["http://a/1", "http://a/2"]), [True, True])
        # the first question syncs the replica: it holds what the server holds
        self.assertEqual(s.local_seen(["http://a/1", "http://a/2", "http://a/3"]),
                         [True, True, None])
        self.assertEqual((s.syncs, s.round_trips), (1, 2))
        # another process adds; the replica learns it at its next sync
        other = PostgresSeenStore(DSN, mode="replica", table=s.table, capacity=1000)
        other.open()
        self.addCleanup(other.close)
        other.test_and_add(["http://a/3"])
        self.assertEqual(s.local_seen(["http://a/3"]), [None])
        s.sync_interval = 0
        self.assertEqual(s.local_seen(["http://a/3"]), [True])
        self.assertEqual(s.syncs, 2)
        # the server's answers are merged: seen with no round trip or sync
        s.sync_interval = 3600
        self.assertEqual(s.test_and_add(["http://a/4"]), [True])
        trips = s.round_trips
        self.assertEqual(s.local_seen(["http://a/4", "http://a/5"]), [True, None])
        self.assertEqual((s.round_trips, s.syncs), (trips, 2))
        # the replica cannot forget: a forgotten key would stay "seen" in it
        self.assertFalse(s.forget(["http://a/1"]))
        # the answers kept between syncs are bounded
        import bloomfilter_scrapy.store as store_module
        self.addCleanup(setattr, store_module, "RECENT_MAX", store_module.RECENT_MAX)
        store_module.RECENT_MAX = 2
        s.test_and_add(["http://a/6", "http://a/7", "http://a/8"])
        s.test_and_add(["http://a/9"])
        self.assertEqual(s._recent, {"http://a/9"})

    def test_hashes_mode(self):
        s = self.store("hashes")
        # keys as given but for the fragment: no url_normalize; a batch's
        # repeat is new once
        self.assertEqual(s.test_and_add(["http://a/x", "HTTP://A:80/x#top", "http://a/y", "http://a/x#frag"]),
                         [True, True, True, False])
        self.assertEqual(s.test_and_add(["http://a/y", "http://a/z"]), [False, True])
        # the first batch synced the replica first (the index's seed): a
        # round trip of its own; then one a batch
        self.assertEqual((s.syncs, s.round_trips), (1, 3))
        # the log holds the hashes the server computes for the keys, so
        # a REINDEX or a probe with bloom_hash gives the same answers
        with s.conn.cursor() as cur:
            cur.execute("SELECT bool_and(h = bloom_hash(k)), count(*) FROM unnest(%s::text[], %s::bigint[]) AS t(k, h)",
                        (["http://a/x", "http://a/z"], s._hashes(["http://a/x", "http://a/z"])))
            self.assertEqual(cur.fetchone(), (True, 2))
            cur.execute("SELECT count(*) FROM %s_hashes, unnest(hs) h" % s.table)
            self.assertEqual(cur.fetchone()[0], 4)
            # sent packed (bloom_hashes), logged as the server hashes them
            cur.execute("SELECT array_agg(h ORDER BY h) = (SELECT array_agg(bloom_hash(k) ORDER BY bloom_hash(k)) "
                        "FROM unnest(%%s::text[]) k) FROM %s_hashes, unnest(hs) h" % s.table,
                        (["http://a/x", "HTTP://A:80/x", "http://a/y", "http://a/z"],))
            self.assertTrue(cur.fetchone()[0])
            cur.execute("SELECT bloom_index_contains(%s, bloom_hash('http://a/z'))",
                        (s.table + "_hashes_bf",))
            self.assertTrue(cur.fetchone()[0])
        # answered by the server: seen locally until the next sync has it
        self.assertEqual(s.local_seen(["http://a/z", "http://a/new"]), [True, None])
        # another process adds; the replica learns it at its next sync
        other = PostgresSeenStore(DSN, mode="hashes", table=s.table, capacity=1000)
        other.open()
        self.addCleanup(other.close)
        self.assertEqual(other.test_and_add(["http://a/3", "http://a/z"]), [True, False])
        self.assertEqual(s.local_seen(["http://a/3"]), [None])
        s.sync_interval = 0
        self.assertEqual(s.local_seen(["http://a/3", "http://a/x", "http://a/y", "http://a/q"]),
                         [True, True, True, None])
        # REINDEX: the next sync starts over and finds every key again
        with s.conn.cursor() as cur:
            cur.execute("REINDEX INDEX %s_hashes_bf" % s.table)
        resyncs = s.replica.resyncs
        self.assertEqual(s.local_seen(["http://a/3", "http://a/x", "http://a/z"]), [True, True, True])
        self.assertEqual(s.replica.resyncs, resyncs + 1)
        self.assertEqual(s.test_and_add(["http://a/3", "http://a/w"]), [False, True])
        self.assertFalse(s.forget(["http://a/w"]))

    def test_concurrent_crawlers(self):
        # crawlers sharing the tables send overlapping batches at once, in
        # their own orders: no deadlock, and each key is new exactly once
        # (the exact table decides); bench/fleet.py's 8 crawlers met
        # deadlocks within a second before the inserts were ordered
        import random
        import threading
        keys = ["http://a/%d" % i for i in range(3000)]
        for mode in ("two-tier", "replica", "exact"):
            with self.subTest(mode=mode):
                s = self.store(mode)
                new, errors = [], []

                def crawl(seed):
                    rng = random.Random(seed)
                    st = PostgresSeenStore(DSN, mode=mode, table=s.table, capacity=1000)
                    try:
                        st.open()
                        for _ in range(40):
                            batch = rng.sample(keys, 300)
                            new.extend(k for k, n in zip(batch, st.test_and_add(batch)) if n)
                    except Exception as e:  # noqa: BLE001 - reported below
                        errors.append(e)
                    finally:
                        st.close()

                threads = [threading.Thread(target=crawl, args=(i,)) for i in range(6)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                self.assertEqual(errors, [])
                self.assertEqual(len(new), len(set(new)))

    def test_deadlock_is_not_a_lost_connection(self):
        # a session outside the store takes keys out of order and
        # deadlocks with a batch: the server rolls the batch back and says
        # so, so the store sends it again and gives its real answers, not
        # "all new" as after a lost connection
        import threading
        s = self.store("two-tier")
        s.test_and_add(["http://a/warm"])     # prepared: the batch is one statement
        other = psycopg2.connect(DSN)
        self.addCleanup(other.close)
        cur = other.cursor()
        cur.execute("SET deadlock_timeout = '5s'")   # the batch's check fires first
        cur.execute("INSERT INTO %s VALUES ('http://a/c')" % s.table)
        answers = []
        t = threading.Thread(target=lambda: answers.append(s.test_and_add(["http://a/a", "http://a/c"])))
        t.start()
        # the batch inserted a and waits on c; take a: a cycle
        with psycopg2.connect(DSN) as probe, probe.cursor() as pc:
            for _ in range(100):
                pc.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted",
                           (s.conn.get_backend_pid(),))
                if pc.fetchone()[0]:
                    break
                time.sleep(0.05)
        probe.close()
        cur.execute("INSERT INTO %s VALUES ('http://a/a')" % s.table)
        other.commit()
        t.join()
        self.assertEqual(answers, [[False, False]])

    def test_bad_mode(self):
        with self.assertRaises(ValueError):
            PostgresSeenStore(DSN, mode="bloom")


@unittest.skipUnless(DSN, "BLOOMFILTER_TEST_DSN is not set")
class CanonicalizeTest(unittest.TestCase):
    """Where the two keys of a URL differ; README.md's table says the same.
    (url, canonicalize_url, url_normalize)"""

    CASES = [
        # query order: Scrapy sorts the parameters, url_normalize keeps them
        ("http://a/p?b=2&a=1", "http://a/p?a=1&b=2", "http://a/p?b=2&a=1"),
        # %20 and + in the query: Scrapy reads the query as a form (%20 -> +)
        ("http://a/p?q=a%20b", "http://a/p?q=a+b", "http://a/p?q=a%20b"),
        ("http://a/p?q=a+b", "http://a/p?q=a+b", "http://a/p?q=a+b"),
        # ... but neither touches them in the path
        ("http://a/a%20b", "http://a/a%20b", "http://a/a%20b"),
        ("http://a/a+b", "http://a/a+b", "http://a/a+b"),
        # dot segments: url_normalize removes them, Scrapy keeps them
        ("http://a/a/./b/../c", "http://a/a/./b/../c", "http://a/a/c"),
        # default port: url_normalize drops it
        ("http://a:80/p", "http://a:80/p", "http://a/p"),
        # empty query and blank values: Scrapy folds them
        ("http://a/p?", "http://a/p", "http://a/p?"),
        ("http://a/p?x", "http://a/p?x=", "http://a/p?x"),
        # the same in both: fragment, percent-encoding case and unreserved
        ("http://a/p#frag", "http://a/p", "http://a/p"),
        ("http://a/%7euser?x=%2f", "http://a/~user?x=%2F", "http://a/~user?x=%2F"),
        ("http://a", "http://a/", "http://a/"),
    ]

    def test_table(self):
        conn = psycopg2.connect(DSN)
        conn.autocommit = True
        self.addCleanup(conn.close)
        with conn.cursor() as cur:
            cur.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
            for url, canon, norm in self.CASES:
                with self.subTest(url=url):
                    self.assertEqual(canonicalize_url(url), canon)
                    cur.execute("SELECT url_normalize(%s)", (url,))
                    self.assertEqual(cur.fetchone()[0], norm)


if __name__ == "__main__":
    unittest.main()
