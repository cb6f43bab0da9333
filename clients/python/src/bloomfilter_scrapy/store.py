"""The seen set in PostgreSQL: one test-and-add statement per batch.

Replica mode is two-tier's tables with a copy of the index in the
crawler (bloomfilter_reader's IndexReplica, synced every sync_interval
seconds): a key the copy holds is answered seen with no round trip, as
the index would answer it; the rest go to two-tier's statement.

Hashes mode is index mode over a log of 64-bit hashes, with the same
copy of its index in the crawler: the crawler hashes each key (XXH3-64,
what the server would compute for it, doc/format.md) and sends the
hashes the copy lacks; the server keeps 8 bytes a key and does no
string work.  The keys are hashed as the crawler gives them, without
their fragment: the server does not normalize them.

Every mode answers the same question for a batch of keys (request URLs as
Scrapy holds them, or ``fp:<fingerprint>`` for requests that are not GET
or HEAD): which of them were not seen before, recording them as seen in
the same statement.  Except in hashes mode, the server normalizes each key
with ``url_normalize`` (so two spellings of one URL are one key) and a
key that occurs twice in a batch, in any spelling, is new at most once:
the first occurrence.  After a server's answer, replica and hashes
modes answer the batch's keys locally until the next sync brings them
into the copy.
"""

import time

import psycopg2
from psycopg2 import sql

# the URL modes' batch separators after the newline (_batch_args)
SEPARATORS = "".join(chr(c) for c in range(1, 32) if c != 10)

MODES = ("two-tier", "replica", "hashes", "index", "exact")
# the modes with a copy of the index in the crawler
REPLICA_MODES = ("replica", "hashes")
# keys answered since the last sync that those modes keep, at most
RECENT_MAX = 1000000


class PostgresSeenStore:
    """A connection and the SQL of one mode.

    ``test_and_add(keys)`` returns one boolean per key, True for new.
    ``forget(keys)`` removes keys recorded as new that were never
    scheduled (two-tier and exact; the index mode cannot forget).
    """

    def __init__(self, dsn, mode="two-tier", table="scrapy_seen",
                 capacity=1000000, fpr=0.01, create=True, sync_interval=10.0):
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
        # replica mode: a copy of the index, synced every sync_interval s
        self.replica = None
        self.sync_interval = float(sync_interval)
        self.synced_at = None
        self.syncs = 0
        self.sync_pages = 0
        # keys the server answered since the last sync (it holds them)
        self._recent = set()
        self._build_sql()

    def _build_sql(self):
        t = self.table
        seen = sql.Identifier(t)
        log = sql.Identifier(t + "_log")
        hashes = sql.Identifier(t + "_hashes")
        # the filter: on the exact table (two-tier, replica), on a log
        idx = sql.Identifier({"index": t + "_log_urls",
                              "hashes": t + "_hashes_bf"}.get(self.mode, t + "_bf"))
        self._idx_ident = idx
        self._log_ident = log
        # $1: the batch; $2: the index (prepared once a connection, so the
        # statement is planned once, not on every batch).  The URL modes'
        # batch is its keys each followed by $3, a separator none of them
        # holds, in one text: psycopg2 sends a list as ARRAY['...', ...]
        # in the query text, which costs it and the server's parser more
        # than the test itself (_batch_args)
        # one key per URL, the first occurrence of each in the batch
        firsts = """
            WITH batch AS (
                SELECT url_normalize(x) AS url, ord
                FROM unnest(trim_array(string_to_array($1, $3), 1)) WITH ORDINALITY AS t(x, ord)
            ), firsts AS (
                SELECT DISTINCT ON (url) url, ord FROM batch ORDER BY url, ord
            )"""
        # The inserts go in the order of the keys, the same in every
        # session: a session that inserted a key and waits on another
        # session's uncommitted key then holds only smaller keys than the
        # one it waits for, so concurrent crawlers never deadlock (in
        # the order the candidates come, the filter's "probably" ones
        # last, they did: 8 crawlers met a deadlock within a second).
        if self.mode == "exact":
            body = sql.SQL(firsts + """
            , fresh AS (
                INSERT INTO {seen} (url) SELECT url FROM firsts ORDER BY url
                ON CONFLICT DO NOTHING RETURNING url
            )
            SELECT f.ord FROM firsts f JOIN fresh USING (url)""").format(seen=seen)
        elif self.mode in ("two-tier", "replica"):
            # the exact table with the bloomfilter index on it: the
            # table's own inserts keep the filter current; its "no" is
            # final, its "probably" asks the table.  A dropped index is an
            # error, never a batch answered from nothing.
            body = sql.SQL(firsts + """
            , probed AS (
                SELECT url, ord, bloom_index_contains($2, url) AS maybe
                FROM firsts
            ), candidates AS (
                SELECT url, ord FROM probed WHERE NOT maybe
                UNION ALL
                SELECT url, ord FROM probed p
                WHERE maybe AND NOT EXISTS (SELECT 1 FROM {seen} s WHERE s.url = p.url)
            ), fresh AS (
                INSERT INTO {seen} (url) SELECT url FROM candidates ORDER BY url
                ON CONFLICT DO NOTHING RETURNING url
            )
            SELECT c.ord FROM candidates c JOIN fresh USING (url)""").format(seen=seen)
        elif self.mode == "hashes":
            # doc/index.md's log of hashes: bloom_index_absent gives the
            # batch's hashes the index surely lacks, each once.  They are
            # sent packed in a bytea (bloom_hashes): psycopg2 sends
            # parameters as text, and 1,000 numbers cost the server more
            # to parse than the test-and-add itself
            body = sql.SQL("""
            INSERT INTO {hashes} (hs)
            SELECT n FROM bloom_index_absent($2, bloom_hashes($1)) AS n
            WHERE cardinality(n) > 0
            RETURNING hs""").format(hashes=hashes)
        else:
            # the README's seen_log recipe: the bloomfilter index over an
            # append-only log of batches is the seen set
            body = sql.SQL(firsts + """
            , new AS (
                SELECT url, ord FROM firsts
                WHERE NOT bloom_index_contains($2, url)
            ), logged AS (
                INSERT INTO {log} (urls) SELECT array_agg(url) FROM new
                HAVING count(*) > 0
            )
            SELECT ord FROM new""").format(log=log)
        self._q_body = body
        self._q_types = sql.SQL("bytea, regclass" if self.mode == "hashes" else "text, regclass, text")
        self.q_forget = sql.SQL(
            "DELETE FROM {seen} WHERE url IN (SELECT url_normalize(x) FROM unnest(%(keys)s::text[]) x)"
        ).format(seen=seen)
        index_options = sql.SQL("WITH (capacity = {cap}, fpr = {fpr})").format(
            cap=sql.Literal(self.capacity), fpr=sql.Literal(self.fpr))
        self.q_create = {
            "exact": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {seen} (url text PRIMARY KEY)").format(seen=seen),
            ],
            "two-tier": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {seen} (url text PRIMARY KEY)").format(seen=seen),
                sql.SQL("CREATE INDEX IF NOT EXISTS {idx} ON {seen} USING bloomfilter (url) {opts}").format(
                    idx=idx, seen=seen, opts=index_options),
            ],
            "replica": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {seen} (url text PRIMARY KEY)").format(seen=seen),
                sql.SQL("CREATE INDEX IF NOT EXISTS {idx} ON {seen} USING bloomfilter (url) {opts}").format(
                    idx=idx, seen=seen, opts=index_options),
            ],
            "hashes": [
                # a row of 1,000 hashes (8 kB) stays in the heap page
                sql.SQL("CREATE TABLE IF NOT EXISTS {hashes} (at timestamptz DEFAULT now(), hs bigint[]) "
                        "WITH (toast_tuple_target = 8160)").format(hashes=hashes),
                sql.SQL("CREATE INDEX IF NOT EXISTS {idx} ON {hashes} "
                        "USING bloomfilter (hs bloomfilter_hash_array_ops) {opts}").format(
                    idx=idx, hashes=hashes, opts=index_options),
            ],
            "index": [
                sql.SQL("CREATE TABLE IF NOT EXISTS {log} (at timestamptz DEFAULT now(), urls text[])").format(log=log),
                self._log_storage,
                sql.SQL("CREATE INDEX IF NOT EXISTS {idx} ON {log} USING bloomfilter (urls) {opts}").format(
                    idx=idx, log=log, opts=index_options),
            ],
        }[self.mode]

    def _log_storage(self, cur):
        """How the log keeps a row of URLs: lz4 makes it a fifth of its
        size and is faster to write than the row uncompressed
        (doc/index.md, "A crawler on the index alone"); a server built
        without lz4 keeps the row uncompressed and out of line, as pglz
        costs more time than it saves room."""
        cur.execute("SELECT 'lz4' = ANY (enumvals) FROM pg_settings "
                    "WHERE name = 'default_toast_compression'")
        if cur.fetchone()[0]:
            # EXTENDED too: a log made by an older client is EXTERNAL
            how = "ALTER urls SET STORAGE EXTENDED, ALTER urls SET COMPRESSION lz4"
        else:
            how = "ALTER urls SET STORAGE EXTERNAL"
        return sql.SQL("ALTER TABLE {log} " + how).format(log=self._log_ident)

    def connect(self):
        """Connect in autocommit: a batch is one statement, so it is its
        own transaction, with no BEGIN and COMMIT round trips around it."""
        self.conn = psycopg2.connect(self.dsn)
        self.conn.autocommit = True
        if self.mode != "exact":
            self._index_regclass = self._idx_ident.as_string(self.conn)
        self._prepared = False
        return self.conn

    # the index's name, quoted, as bloom_index_contains reads it (regclass)
    _index_regclass = None
    _prepared = False

    def open(self):
        """Connect, and create the extension and the tables if missing."""
        self.connect()
        if not self.create:
            return
        self.conn.autocommit = False
        with self.conn.cursor() as cur:
            # crawlers starting together: one creates, the others wait
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                        ("bloomfilter_scrapy " + self.table,))
            cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'bloomfilter'")
            if cur.fetchone() is None:
                cur.execute("CREATE EXTENSION bloomfilter")
            for stmt in self.q_create:
                cur.execute(stmt(cur) if callable(stmt) else stmt)
        self.conn.commit()
        self.conn.autocommit = True

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _batch_args(self, keys):
        """The URL modes' batch as the statement takes it: the keys, each
        followed by a separator none of them holds, in one text, and the
        separator: a newline, which no request URL holds, or else the
        first ASCII control character no key holds."""
        text = "\n".join(keys)
        if text.count("\n") == len(keys) - 1:
            return (text + "\n", "\n")
        for sep in SEPARATORS:
            if sep not in text:
                return (sep.join(keys) + sep, sep)
        raise ValueError("the keys of this batch hold every ASCII control character")

    def _run(self, batch):
        # psycopg2 sends the batch as literals in the text (a bytea in
        # hashes mode, else a text and its separator): the server decodes
        # or splits it, and plans the statement once a connection.
        # The index is a regclass parameter, looked up once a batch.  The
        # first batch prepares in the same round trip.
        run = sql.SQL("EXECUTE bloomfilter_test_and_add(%s, %s)" if len(batch) == 1
                      else "EXECUTE bloomfilter_test_and_add(%s, %s, %s)")
        execute = run
        if not self._prepared:
            execute = sql.SQL("PREPARE bloomfilter_test_and_add({}) AS {}; {}").format(
                self._q_types, self._q_body, run)
        with self.conn.cursor() as cur:
            if self._prepared is None:
                # a batch failed after PREPARE, which no rollback undoes
                cur.execute("SELECT 1 FROM pg_prepared_statements WHERE name = 'bloomfilter_test_and_add'")
                if cur.fetchone() is not None:
                    execute = run
            try:
                cur.execute(execute, (batch[0], self._index_regclass) + batch[1:])
            except psycopg2.Error:
                if not self._prepared:
                    self._prepared = None
                raise
            self._prepared = True
            return cur.fetchall()

    def _run_rolled_back_again(self, batch, tries=3):
        # TransactionRollbackError is an OperationalError: caught here
        # first; after the last try test_and_add treats it as a lost
        # connection (every key answered new)
        for attempt in range(tries):
            try:
                return self._run(batch)
            except psycopg2.extensions.TransactionRollbackError:
                if attempt == tries - 1:
                    raise
                self.round_trips += 1

    def test_and_add(self, keys):
        """One round trip: which of keys are new (recorded as seen now).

        After a lost connection the batch is sent again, and every key in
        it is answered new: the lost statement may have committed, and its
        keys would then come back "seen" although no one was told they
        were new.  At worst some pages are fetched twice; a new key is
        never dropped.  A deadlock or serialization failure is not that:
        the server rolled the statement back and said so, so the batch is
        sent again on the same connection and its answers are the real
        ones."""
        keys = list(keys)
        if not keys:
            return []
        start = time.perf_counter()
        try:
            if self.mode == "hashes":
                h = self._hashes(keys, signed=False)
                sent = h.view("<i8").tolist()
                batch = (psycopg2.Binary(h.astype(">u8").tobytes()),)
            else:
                sent = keys
                batch = self._batch_args(keys)
            try:
                rows = self._run_rolled_back_again(batch)
            except (psycopg2.OperationalError, psycopg2.InterfaceError):
                self._reconnect()
                self._run(batch)
                self.round_trips += 1
                return [True] * len(keys)
            new = [False] * len(keys)
            if self.mode == "hashes":
                # the row logged: the batch's hashes the index lacked, each once
                absent = set(rows[0][0]) if rows else set()
                for i, h in enumerate(sent):
                    if h in absent:
                        new[i] = True
                        absent.discard(h)
            else:
                for (ord_,) in rows:
                    new[ord_ - 1] = True
            if self.mode in REPLICA_MODES:
                # a crawl that never asks local_seen never syncs: bounded
                if len(self._recent) > RECENT_MAX:
                    self._recent.clear()
                self._recent.update(keys)
            return new
        finally:
            self.round_trips += 1
            self.db_seconds += time.perf_counter() - start

    def _hashes(self, keys, signed=True):
        """Hashes mode: each key's hash as the index's opclass takes it
        (XXH3-64 of the key without its fragment, with the index's seed,
        read by the first sync), as bigint values (signed=True) or as
        numpy uint64."""
        if self.replica is None:
            self.sync()
        from bloomfilter_reader.elements import hash_array
        # a fragment never changes the page fetched (url_normalize drops it)
        h = hash_array([k.partition("#")[0] for k in keys], self.replica.seed)
        return h.view("<i8").tolist() if signed else h

    # ---- replica mode ----

    def local_seen(self, keys):
        """Replica and hashes modes: for each key, True if the replica
        holds it, or the server answered it since the last sync (seen, no
        round trip); else None, to ask the server.  Syncs the replica first
        when it is older than sync_interval seconds.  Other modes: all
        None."""
        if self.mode not in REPLICA_MODES:
            return [None] * len(keys)
        if self.synced_at is None or time.monotonic() - self.synced_at >= self.sync_interval:
            self.sync()
        if self.mode == "hashes":
            hits = self.replica.contains_hashes(self._hashes(keys, signed=False)).tolist()
        else:
            hits = self.replica.contains_many(keys)
        recent = self._recent
        return [True if hit or k in recent else None for k, hit in zip(keys, hits)]

    def sync(self):
        """Bring the replica up to date: one round trip, the index's pages
        changed since the last sync (all of them the first time)."""
        if self.replica is None:
            # numpy and xxhash are needed in this mode only
            from bloomfilter_reader import IndexReplica
            self.replica = IndexReplica()
        start = time.perf_counter()
        try:
            try:
                n = self.replica.sync(self.conn, self._index_regclass)
            except (psycopg2.OperationalError, psycopg2.InterfaceError):
                self._reconnect()
                n = self.replica.sync(self.conn, self._index_regclass)
            self.syncs += 1
            self.sync_pages += n
            self.synced_at = time.monotonic()
            # the answers before this sync are in the replica now
            self._recent.clear()
        finally:
            self.round_trips += 1
            self.db_seconds += time.perf_counter() - start

    def forget(self, keys):
        """Un-record keys that were answered new but never scheduled."""
        keys = list(keys)
        if not keys or self.mode in ("index", "replica", "hashes") or self.conn is None:
            return False
        start = time.perf_counter()
        try:
            with self.conn.cursor() as cur:
                cur.execute(self.q_forget, {"keys": keys})
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
