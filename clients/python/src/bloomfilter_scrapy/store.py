"""The seen set in PostgreSQL: one test-and-add statement per batch.

Every mode answers the same question for a batch of keys (request URLs as
Scrapy holds them, or ``fp:<fingerprint>`` for requests that are not GET
or HEAD): which of them were not seen before, recording them as seen in
the same statement.  The server normalizes each key with
``url_normalize`` (so two spellings of one URL are one key) and a key
that occurs twice in a batch, in any spelling, is new at most once: the
first occurrence.
"""

import time

import psycopg2
from psycopg2 import sql

MODES = ("two-tier", "index", "exact")


class PostgresSeenStore:
    """A connection and the SQL of one mode.

    ``test_and_add(keys)`` returns one boolean per key, True for new.
    ``forget(keys)`` removes keys recorded as new that were never
    scheduled (two-tier and exact; the index mode cannot forget).
    """

    def __init__(self, dsn, mode="two-tier", table="scrapy_seen",
                 capacity=1000000, fpr=0.01, create=True):
        if mode not in MODES:
            raise ValueError("BLOOMFILTER_MODE must be one of %s, not %r"
                             % (", ".join(MODES), mode))
        self.dsn = dsn
        self.mode = mode
        self.table = table
        self.capacity = int(capacity)
        self.fpr = float(fpr)
        self.create = create
        self.conn = None
        self.round_trips = 0
        self.db_seconds = 0.0
        self._build_sql()

    def _build_sql(self):
        t = self.table
        seen = sql.Identifier(t)
        filt = sql.Identifier(t + "_filter")
        log = sql.Identifier(t + "_log")
        idx = sql.Identifier(t + "_log_urls")
        self._idx_ident = idx
        # one key per URL, the first occurrence of each in the batch
        firsts = """
            WITH batch AS (
                SELECT url_normalize(x) AS url, ord
                FROM unnest(%(keys)s::text[]) WITH ORDINALITY AS t(x, ord)
            ), firsts AS (
                SELECT DISTINCT ON (url) url, ord FROM batch ORDER BY url, ord
            )"""
        if self.mode == "exact":
            self.q_test_and_add = sql.SQL(firsts + """
            , fresh AS (
                INSERT INTO {seen} (url) SELECT url FROM firsts
                ON CONFLICT DO NOTHING RETURNING url
            )
            SELECT f.ord FROM firsts f JOIN fresh USING (url)""").format(seen=seen)
        elif self.mode == "two-tier":
            # the README's enqueue_new_links, answering per key: the
            # filter's "no" is final, its "probably" asks the exact tier;
            # no filter write (and no row lock) for a batch with nothing new
            self.q_test_and_add = sql.SQL(firsts + """
            , probed AS (
                -- (a missing filter row must not make every URL "seen":
                -- a NULL filter contains nothing, and the primary key of
                -- the exact tier decides what is new)
                SELECT b.url, b.ord, bloom_contains(u.f, b.url) AS maybe
                FROM firsts b LEFT JOIN {filt} u ON u.id = 1
            ), candidates AS (
                SELECT url, ord FROM probed WHERE NOT maybe
                UNION ALL
                SELECT url, ord FROM probed p
                WHERE maybe AND NOT EXISTS (SELECT 1 FROM {seen} s WHERE s.url = p.url)
            ), fresh AS (
                INSERT INTO {seen} (url) SELECT url FROM candidates
                ON CONFLICT DO NOTHING RETURNING url
            ), learned AS (
                UPDATE {filt} SET f = bloom_add(f, (SELECT array_agg(url) FROM fresh))
                WHERE id = 1 AND EXISTS (SELECT 1 FROM fresh)
            )
            SELECT c.ord FROM candidates c JOIN fresh USING (url)""").format(
                seen=seen, filt=filt)
        else:
            # the README's seen_log recipe: the bloomfilter index over an
            # append-only log of batches is the seen set
            self.q_test_and_add = sql.SQL(firsts + """
            , new AS (
                SELECT url, ord FROM firsts
                WHERE NOT bloom_index_contains(%(index)s::regclass, url)
            ), logged AS (
                INSERT INTO {log} (urls) SELECT array_agg(url) FROM new
                HAVING count(*) > 0
            )
            SELECT ord FROM new""").format(log=log)
        self.q_forget = sql.SQL(
            "DELETE FROM {seen} WHERE url IN (SELECT url_normalize(x) FROM unnest(%(keys)s::text[]) x)"
        ).format(seen=seen)
        self.q_create = {
            "exact": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {seen} (url text PRIMARY KEY)").format(seen=seen),
            ],
            "two-tier": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {seen} (url text PRIMARY KEY)").format(seen=seen),
                sql.SQL("CREATE TABLE IF NOT EXISTS {filt} (id int PRIMARY KEY, f bloomfilter NOT NULL)").format(filt=filt),
                # the filter is rewritten by every batch with something new:
                # its bits do not compress, trying costs more than the write
                sql.SQL("ALTER TABLE {filt} ALTER f SET STORAGE EXTERNAL").format(filt=filt),
                sql.SQL("INSERT INTO {filt} VALUES (1, bloom_create(%(capacity)s, %(fpr)s)) "
                        "ON CONFLICT DO NOTHING").format(filt=filt),
            ],
            "index": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {log} (at timestamptz DEFAULT now(), urls text[])").format(log=log),
                sql.SQL("ALTER TABLE {log} ALTER urls SET STORAGE EXTERNAL").format(log=log),
                sql.SQL("CREATE INDEX IF NOT EXISTS {idx} ON {log} USING bloomfilter (urls) "
                        "WITH (capacity = {cap}, fpr = {fpr})").format(
                            idx=idx, log=log, cap=sql.Literal(self.capacity), fpr=sql.Literal(self.fpr)),
            ],
        }[self.mode]

    def connect(self):
        self.conn = psycopg2.connect(self.dsn)
        self.conn.autocommit = False
        return self.conn

    # the index's name, quoted, as bloom_index_contains reads it (regclass)
    _index_regclass = None

    def open(self):
        """Connect, and create the extension and the tables if missing."""
        self.connect()
        if self.mode == "index":
            self._index_regclass = self._idx_ident.as_string(self.conn)
        if not self.create:
            return
        with self.conn.cursor() as cur:
            # crawlers starting together: one creates, the others wait
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                        ("bloomfilter_scrapy " + self.table,))
            cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'bloomfilter'")
            if cur.fetchone() is None:
                cur.execute("CREATE EXTENSION bloomfilter")
            for stmt in self.q_create:
                cur.execute(stmt, {"capacity": self.capacity, "fpr": self.fpr})
        self.conn.commit()

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _run(self, query, keys):
        params = {"keys": list(keys), "index": self._index_regclass}
        with self.conn.cursor() as cur:
            cur.execute(query, params)
            rows = cur.fetchall()
        return rows

    def test_and_add(self, keys):
        """One round trip: which of keys are new (recorded as seen now)."""
        keys = list(keys)
        if not keys:
            return []
        start = time.perf_counter()
        try:
            try:
                rows = self._run(self.q_test_and_add, keys)
            except (psycopg2.OperationalError, psycopg2.InterfaceError):
                # nothing was committed: reconnect and run it again
                self._reconnect()
                rows = self._run(self.q_test_and_add, keys)
            new = [False] * len(keys)
            for (ord_,) in rows:
                new[ord_ - 1] = True
            try:
                self.conn.commit()
            except (psycopg2.OperationalError, psycopg2.InterfaceError):
                # the commit may or may not have happened: record the batch
                # again and keep the first answers, so a new key is at worst
                # fetched twice, never dropped
                self._reconnect()
                self._run(self.q_test_and_add, keys)
                self.conn.commit()
                self.round_trips += 1
            return new
        finally:
            self.round_trips += 1
            self.db_seconds += time.perf_counter() - start

    def forget(self, keys):
        """Un-record keys that were answered new but never scheduled."""
        keys = list(keys)
        if not keys or self.mode == "index" or self.conn is None:
            return False
        start = time.perf_counter()
        try:
            with self.conn.cursor() as cur:
                cur.execute(self.q_forget, {"keys": keys})
            self.conn.commit()
            return True
        finally:
            self.round_trips += 1
            self.db_seconds += time.perf_counter() - start

    def _reconnect(self):
        try:
            self.conn.close()
        except psycopg2.Error:
            pass
        self.connect()
