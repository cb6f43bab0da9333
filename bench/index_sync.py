"""What it costs to keep a replica of a bloomfilter index current
(bloom_index_sync, clients/python's IndexReplica): bytes and time of a
whole sync of an index of N elements, then of the incremental sync after
each of a few rounds of new elements (1,000 to 1M), and how many of the
index's pages each round changed.

  python3 bench/index_sync.py DSN [N]        N: 100000000 by default

On a database with the extension (python3-psycopg2, -xxhash, -numpy).
The elements are bloom_hash values in a log of bigint[] rows of 1,000
(bloomfilter_hash_array_ops), so that loading 100M takes a minute, not an
hour; the index's pages are what they would be for as many URLs.  The
table and index are dropped at the end.  Prints a markdown table.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "clients", "python", "src"))

import psycopg2  # noqa: E402

from bloomfilter_reader import IndexReplica  # noqa: E402

ROWS = 1000   # elements a log row


def main():
    dsn = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET client_min_messages = warning")
    cur.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    cur.execute("DROP TABLE IF EXISTS sync_bench")
    cur.execute("CREATE TABLE sync_bench (hs bigint[]) WITH (toast_tuple_target = 8160)")
    t = time.perf_counter()
    step = 10_000_000
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        cur.execute("INSERT INTO sync_bench SELECT array_agg(bloom_hash(g)) "
                    "FROM generate_series(%s, %s) g GROUP BY g / %s", (lo + 1, hi, ROWS))
    load = time.perf_counter() - t
    t = time.perf_counter()
    cur.execute("CREATE INDEX sync_bench_f ON sync_bench USING bloomfilter "
                "(hs bloomfilter_hash_array_ops) WITH (capacity = %s, fpr = 0.01)" % n)
    build = time.perf_counter() - t
    cur.execute("SELECT pg_relation_size('sync_bench_f')")
    size = cur.fetchone()[0]
    cur.execute("SELECT count(*) FROM bloom_index_sync('sync_bench_f') WHERE blkno > 0")
    data_pages = cur.fetchone()[0]
    print("index of %d elements: loaded in %.1f s, built in %.1f s, %.1f MB, %d data pages"
          % (n, load, build, size / 1e6, data_pages))

    r = IndexReplica()
    rows = []

    def sync(label, added):
        t = time.perf_counter()
        cur.execute("SELECT token, resync, blkno, page FROM bloom_index_sync('sync_bench_f', %s)",
                    (r.token,))
        got = cur.fetchall()
        fetched = time.perf_counter() - t
        nbytes = sum(len(x[3]) for x in got)
        t = time.perf_counter()
        r.apply(got)
        applied = time.perf_counter() - t
        rows.append((label, added, len(got), nbytes, fetched, applied))

    sync("whole (first sync)", n)
    added = n
    for k in (1_000, 10_000, 100_000, 1_000_000):
        cur.execute("INSERT INTO sync_bench SELECT array_agg(bloom_hash(-g)) "
                    "FROM generate_series(%s, %s) g GROUP BY g / %s", (added + 1, added + k, ROWS))
        added += k
        sync("after %d new" % k, k)
    cur.execute("SELECT array_agg(bloom_hash(-g)) FROM generate_series(%s, %s) g",
                (added - 9999, added))
    last = [h & 0xFFFFFFFFFFFFFFFF for h in cur.fetchone()[0]]
    held = r.contains_hashes(last)
    print("the replica holds the last 10,000 added: %d of %d" % (int(held.sum()), len(last)))

    print()
    print("| sync | elements added | pages sent | MB sent | fetch, s | apply, s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, k, pages, nbytes, fetched, applied in rows:
        print("| %s | %d | %d | %.1f | %.2f | %.2f |" % (label, k, pages, nbytes / 1e6, fetched, applied))
    cur.execute("DROP TABLE sync_bench")


if __name__ == "__main__":
    main()
