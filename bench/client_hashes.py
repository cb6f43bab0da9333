"""How a psycopg2 client sends a batch of hashes to the log of hashes'
test-and-add: as a list (psycopg2 writes ARRAY[...] into the query text,
1,000 numbers the server parses) or packed in a bytea that bloom_hashes
unpacks (the Scrapy client's hashes mode).  bench/README.md, "A batch of
hashes from psycopg2".

    python3 bench/client_hashes.py DSN [KEYS] [BATCHES] [ROUNDS]

Creates the table bench_client_hashes (dropped at the end) with a
bloomfilter index of capacity KEYS (default 1000000) holding KEYS random
hashes, then times test-and-add batches of 1,000 (500 of them held, 500
new; every batch a different one) one at a time, each a prepared
statement's EXECUTE as the Scrapy client sends it, BATCHES (default 1000)
a round, the two forms taking turns for ROUNDS (default 4) rounds.
Prints each round's median ms a batch at the client (psycopg2's quoting
included), and what the quoting alone costs a batch.
"""

import statistics
import sys
import time
import timeit

import numpy as np
import psycopg2
from psycopg2.extensions import adapt


def packed(h):
    return psycopg2.Binary(h.astype(">i8").tobytes())


def main():
    dsn = sys.argv[1]
    keys = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    batches = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    rng = np.random.default_rng(1)
    held = rng.integers(-2**63, 2**63 - 1, size=keys, dtype=np.int64)

    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS bench_client_hashes")
    cur.execute("CREATE TABLE bench_client_hashes (hs bigint[]) WITH (toast_tuple_target = 8160)")
    cur.execute("CREATE INDEX bench_client_hashes_f ON bench_client_hashes "
                "USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = %s, fpr = 0.01)",
                (keys,))
    for i in range(0, keys, 1000):
        cur.execute("INSERT INTO bench_client_hashes VALUES (bloom_hashes(%s))", (packed(held[i:i + 1000]),))
    cur.execute("SELECT pg_prewarm('bench_client_hashes_f')"
                if _has_prewarm(cur) else "SELECT bloom_index_info('bench_client_hashes_f')")
    body = ("INSERT INTO bench_client_hashes (hs) SELECT n FROM bloom_index_absent($2, {}) n "
            "WHERE cardinality(n) > 0 RETURNING hs")
    cur.execute("PREPARE by_list(bigint[], regclass) AS " + body.format("$1"))
    cur.execute("PREPARE by_bytea(bytea, regclass) AS " + body.format("bloom_hashes($1)"))

    def batch():
        h = np.empty(1000, dtype=np.int64)
        h[0::2] = rng.choice(held, 500)
        h[1::2] = rng.integers(-2**63, 2**63 - 1, size=500, dtype=np.int64)
        return h

    forms = {
        "list (ARRAY[...])": lambda h: cur.execute("EXECUTE by_list(%s, 'bench_client_hashes_f')", (h.tolist(),)),
        "packed (bloom_hashes)": lambda h: cur.execute("EXECUTE by_bytea(%s, 'bench_client_hashes_f')", (packed(h),)),
    }
    medians = {name: [] for name in forms}
    for _ in range(rounds):
        for name, run in forms.items():
            times = []
            for _ in range(batches):
                h = batch()
                t0 = time.perf_counter()
                run(h)
                cur.fetchall()
                times.append(time.perf_counter() - t0)
            medians[name].append(statistics.median(times) * 1e3)
    def quote(x):
        a = adapt(x)
        if hasattr(a, "prepare"):
            a.prepare(conn)  # a bytea is quoted as hex for the connection
        return a.getquoted()

    h = batch()
    # seconds for 1,000 calls: ms a call
    quoting = {
        "list (ARRAY[...])": timeit.timeit(lambda: quote(h.tolist()), number=1000),
        "packed (bloom_hashes)": timeit.timeit(lambda: quote(packed(h)), number=1000),
    }
    cur.execute("SELECT bloom_index_info('bench_client_hashes_f')->>'stages'")
    stages = cur.fetchone()[0]
    cur.execute("DROP TABLE bench_client_hashes")
    print("| form | median ms a batch, each round | psycopg2's quoting alone, ms |")
    print("|---|---|---|")
    for name in forms:
        print("| %s | %s | %.3f |" % (name, ", ".join("%.3f" % m for m in medians[name]), quoting[name]))
    print("(%d keys held, %d batches of 1,000 a round, %d rounds; the index ended with %s stage(s))"
          % (keys, batches, rounds, stages))


def _has_prewarm(cur):
    cur.execute("SELECT count(*) > 0 FROM pg_extension WHERE extname = 'pg_prewarm'")
    return cur.fetchone()[0]


if __name__ == "__main__":
    main()
