"""Replicas of a bloomfilter index kept current while writers commit
(test/t/015_index_sync.pl runs it).

  replicas.py DSN INDEX TABLE
  replicas.py --standby STANDBY_DSN INDEX TABLE

Until the table's writers say they are done (a row in sync_done per
writer, WRITERS of them), each round: read the keys committed so far
(one statement, so every key it returns was committed before the sync
that follows starts), sync every replica (each at its own pace: the
second skips every other round), and check that each replica holds every
one of those keys.  Then: a last sync, the replicas' answers equal to
bloom_index_contains on every key and on keys never added, the replicas'
bits equal to a fresh replica's; REINDEX, and the next sync is a resync.
With --standby: a replica synced from a standby holds every key the
standby has.  Prints one line a check, "not ok" on failure; exit status 1 if
any failed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python", "src"))

import numpy as np  # noqa: E402
import psycopg2  # noqa: E402

from bloomfilter_reader import IndexReplica  # noqa: E402

failed = 0


def check(ok, what):
    global failed
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failed += 1


def keys(conn, table):
    with conn.cursor() as cur:
        cur.execute("SELECT k FROM %s" % table)
        return np.array([r[0] for r in cur.fetchall()], dtype=np.int64)


def scalar(conn, sql, *args):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchone()[0]


def missing(replica, ks):
    return int((~np.asarray(replica.contains_many(ks.tolist()), dtype=bool)).sum())


def from_standby(dsn, index, table):
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    r = IndexReplica()
    r.sync(conn, index)
    ks = keys(conn, table)
    check(len(ks) > 0 and missing(r, ks) == 0,
          "a replica synced from the standby holds its %d keys" % len(ks))
    r.sync(conn, index)
    check(r.resyncs == 1, "and syncs from it incrementally")


def main():
    if sys.argv[1] == "--standby":
        from_standby(*sys.argv[2:5])
        sys.exit(1 if failed else 0)
    dsn, index, table = sys.argv[1:4]
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    writers = scalar(conn, "SELECT count(*) FROM sync_writers")
    replicas = [IndexReplica(), IndexReplica()]
    rounds = 0
    worst = 0
    while True:
        done = scalar(conn, "SELECT count(*) FROM sync_done") == writers
        ks = keys(conn, table)
        for i, r in enumerate(replicas):
            if i == 1 and rounds % 2 == 1 and not done:
                continue
            r.sync(conn, index)
            worst = max(worst, missing(r, ks))
        rounds += 1
        if done:
            break
        time.sleep(0.05)
    check(worst == 0, "%d rounds while writers committed: every key committed before a sync "
          "found by every replica (worst round: %d missing)" % (rounds, worst))
    check(rounds >= 5, "at least 5 rounds ran during the writes (%d)" % rounds)
    check(all(r.resyncs == 1 for r in replicas),
          "one resync each (the first), incremental syncs after (%s)"
          % [r.resyncs for r in replicas])
    check(len(replicas[0].stages) > 1, "the index grew stages during the syncs (%d)"
          % len(replicas[0].stages))

    ks = keys(conn, table)
    never = np.arange(-1, -20001, -1, dtype=np.int64)
    probe = np.concatenate([ks, never]).tolist()
    with conn.cursor() as cur:
        cur.execute("SELECT bloom_index_contains(%s::regclass, %s::bigint[])", (index, probe))
        server = cur.fetchone()[0]
    for i, r in enumerate(replicas):
        check(r.contains_many(probe) == server,
              "replica %d answers as bloom_index_contains on %d keys" % (i, len(probe)))
    fresh = IndexReplica()
    fresh.sync(conn, index)
    for i, r in enumerate(replicas):
        check([bytes(b) for b in r._bits] == [bytes(b) for b in fresh._bits],
              "replica %d's bits are a fresh replica's" % i)

    with conn.cursor() as cur:
        cur.execute("REINDEX INDEX %s" % index)
    n = replicas[0].sync(conn, index)
    check(replicas[0].resyncs == 2 and n > 2, "after REINDEX the next sync is a resync (%d pages)" % n)
    check(missing(replicas[0], ks) == 0, "and the resynced replica holds every key")

    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
