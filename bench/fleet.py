"""A fleet of crawler processes against one server (issue 49, "Measured"):
links processed per second by the whole fleet and server CPU per 1,000
links, for the Scrapy client's modes and for RedisBloom, on the same
link streams.

  python3 bench/fleet.py --dsn DSN [--redis SOCKET]
                         [--modes "two-tier index replica index+replica hashes redis"]
                         [--procs 8] [--links 200000] [--prefill 0] [--repeats 0.875]
                         [--data ../shared/data]

Each process is a crawler without Scrapy's networking: a loop of
"extract the links of a page, ask which are new, record them", through
the client's own code (clients/python/src: PostgresSeenStore and
SeenBatcher, as PostgresDupeFilter and PrefetchMiddleware drive them):
the page's links go to SeenBatcher.prefetch (its cache, the replica in
replica mode, then test-and-add round trips of at most --batch links),
then the scheduler asks SeenBatcher.seen about each link and the ones
answered "not seen" are the new links the process would fetch.  The
RedisBloom side runs the same loop with a store whose test-and-add is
one BF.MADD of the batch.  index+replica is not a client mode: index
mode's tables with replica mode's copy of the index in front.  hashes
is: the same copy in front of an index over a log of the keys' 64-bit
hashes, which the crawler computes and sends.

The streams: a universe of distinct URLs, the real ones of --data first
(the documentation links in the order found, then the packages' home
pages, each through the server's url_normalize, so that the server and
RedisBloom see the same keys), then synthetic ones of the same shape.
The first --prefill URLs were seen before the run (a crawl resumed):
each mode's store adds them, untimed, before the crawlers start.
Process p's stream is --links links; each is new with probability
1 - --repeats (the next URL of p's share of the rest of the universe:
prefill + p, prefill + p + P, ...) and otherwise a repeat of a URL seen
so far: the prefill, or one the fleet has produced at that point of its
streams (if the processes keep pace):
half of the repeats uniform over those, half skewed towards the oldest
(index G * x^4), as site-wide links (home pages, navigation) are on most
pages.  So most repeats come from other processes, and a process's own
cache holds only part of them.  Deterministic (seeded).

Server CPU: utime + stime of the cluster's processes (the postmaster,
its live children, and the children it reaped, from /proc), from the
moment every process has connected and created its tables to the moment
every one has finished its stream, before they disconnect; "backends"
is the fleet's own backends alone.  For RedisBloom, the redis-server
process.  Needs the server on this machine.

Answers: every link of the streams not prefilled should be answered new
exactly once by the fleet, and no prefilled one.  A link never answered new was lost (a
false positive of the filter, in the modes where a filter's "seen" is
final); one answered new by two processes is a duplicate (two batches
tested it before either committed).  Prints markdown tables.
"""
import argparse
import gzip
import multiprocessing as mp
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "clients", "python", "src"))

import numpy as np  # noqa: E402
import psycopg2  # noqa: E402

from bloomfilter_scrapy.batcher import SeenBatcher  # noqa: E402
from bloomfilter_scrapy.store import PostgresSeenStore  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
WORDS = ["news", "article", "product", "category", "user", "docs", "blog", "search", "item", "page"]


# ---- CPU time from /proc ----

def _stat(pid):
    """(ppid, utime + stime, cutime + cstime) in seconds, or None if gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    # the command may hold spaces and parentheses: split after the last ')'
    fields = s[s.rindex(")") + 2:].split()
    ppid = int(fields[1])
    own = (int(fields[11]) + int(fields[12])) / CLK_TCK
    children = (int(fields[13]) + int(fields[14])) / CLK_TCK
    return ppid, own, children


def process_cpu(pid):
    st = _stat(pid)
    return st[1] if st else 0.0


def tree_cpu(root):
    """CPU seconds of root, its live children, and the children it has
    reaped: what a server of processes (PostgreSQL) has used so far."""
    _, own, reaped = _stat(root)
    total = own + reaped
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _stat(int(d))
            if st and st[0] == root:
                total += st[1]
    return total


# ---- the streams ----

def real_urls(data_dir, dsn):
    raw = []
    for name in ("doc-links-stream.txt.gz", "debian-homepages.txt.gz"):
        with gzip.open(os.path.join(data_dir, name), "rt", encoding="utf-8", errors="replace") as f:
            raw.extend(l.strip() for l in f if l.strip())
    raw = list(dict.fromkeys(raw))
    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute("SELECT array_agg(url_normalize(u) ORDER BY o) "
                    "FROM unnest(%s::text[]) WITH ORDINALITY AS t(u, o)", (raw,))
        norm = cur.fetchone()[0]
    conn.close()
    # keys the server and RedisBloom agree on: the normalized form, once
    return list(dict.fromkeys(u for u in norm if u))


def synthetic(n, real):
    # a real URL's host, then a path and query of the usual shape; lower
    # case, no dot segment, no default port: url_normalize keeps them
    hosts = [u.split("/", 3)[2] for u in real if u.count("/") >= 2 and u.split("/", 3)[2]]
    hosts = [h.lower() for h in hosts if ":" not in h and "%" not in h and "@" not in h] or ["example.org"]
    return ["https://%s/%s/%d/s-%d.html?ref=%d" % (hosts[i % len(hosts)], WORDS[i % 10], i, i * 7919 % 100003, i % 97)
            for i in range(n)]


def make_streams(procs, links, repeats, prefill=0, seed=49):
    """One array of universe indices a process, and the universe size.
    The first prefill URLs of the universe were seen before the run."""
    streams = []
    for p in range(procs):
        rng = np.random.default_rng(seed * 1000 + p)
        is_new = rng.random(links) >= repeats
        is_new[0] = True
        own = np.cumsum(is_new)                  # own new links so far, this one included
        introduced = prefill + procs * own       # links seen so far, if the processes keep step
        x = rng.random(links)
        skewed = rng.random(links) < 0.5
        pick = np.where(skewed, introduced * x ** 4, introduced * x).astype(np.int64)
        pick = np.minimum(pick, introduced - 1)
        idx = np.where(is_new, prefill + p + procs * (own - 1), pick)
        streams.append(idx.astype(np.int64))
    size = int(max(s.max() for s in streams)) + 1
    return streams, size


# ---- the stores ----

class RedisBloomStore:
    """The store's interface over RedisBloom: test-and-add is one BF.MADD."""

    mode = "redis"

    def __init__(self, socket_path, key, capacity, fpr):
        self.socket_path = socket_path
        self.key = key
        self.capacity = capacity
        self.fpr = fpr
        self.round_trips = 0
        self.db_seconds = 0.0
        self.syncs = 0
        self.sync_pages = 0

    def open(self):
        import redis
        self.r = redis.Redis(unix_socket_path=self.socket_path)
        try:
            self.r.execute_command("BF.RESERVE", self.key, self.fpr, self.capacity)
        except redis.ResponseError:
            pass  # another process made it

    def test_and_add(self, keys):
        start = time.perf_counter()
        try:
            return [bool(x) for x in self.r.execute_command("BF.MADD", self.key, *keys)]
        finally:
            self.round_trips += 1
            self.db_seconds += time.perf_counter() - start

    def local_seen(self, keys):
        return [None] * len(keys)

    def close(self):
        self.r.close()


class IndexReplicaStore(PostgresSeenStore):
    """Not a client mode: index mode's tables (the log and its index, no
    table of URLs), with replica mode's copy of the index in front.  What
    a replica saves when what it cannot answer costs the server only the
    index's test-and-add."""

    def __init__(self, *a, **kw):
        super().__init__(*a, mode="index", **kw)

    def local_seen(self, keys):
        if self.synced_at is None or time.monotonic() - self.synced_at >= self.sync_interval:
            self.sync()
        return [True if hit else None for hit in self.replica.contains_many(keys)]


def table_name(mode):
    return "fleet_" + mode.replace("-", "_").replace("+", "_")


def worker(p, args, mode, stream, universe, barrier, results):
    try:
        crawl(p, args, mode, stream, universe, barrier, results)
    except BaseException:
        barrier.abort()   # the others and the parent stop waiting
        raise


def crawl(p, args, mode, stream, universe, barrier, results):
    store = make_store(args, mode)
    store.open()
    backend = None
    if mode != "redis":
        with store.conn.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            backend = cur.fetchone()[0]
    batcher = SeenBatcher(store, batch_size=args.batch, cache_size=args.cache)
    barrier.wait()
    t0 = os.times()
    b0 = process_cpu(backend) if backend else 0.0
    new = []
    for lo in range(0, len(stream), args.page):
        ids = stream[lo:lo + args.page].tolist()
        page = [universe[i] for i in ids]          # the page's extracted links
        batcher.prefetch(page)                     # which are new, recorded
        for i, link in zip(ids, page):             # the scheduler's questions
            if not batcher.seen(link):
                new.append(i)
    b1 = process_cpu(backend) if backend else 0.0
    t1 = os.times()
    barrier.wait()      # every process done: the parent reads the server's CPU
    barrier.wait()      # and only then may the backends exit
    results.put({
        "p": p,
        "new": np.array(new, dtype=np.int64),
        "client_cpu": (t1.user - t0.user) + (t1.system - t0.system),
        "backend_cpu": b1 - b0,
        "round_trips": store.round_trips,
        "db_seconds": store.db_seconds,
        "sent": batcher.sent,
        "by_replica": batcher.answered_by_replica,
        "syncs": store.syncs,
        "sync_pages": store.sync_pages,
    })
    store.close()


def make_store(args, mode):
    if mode == "redis":
        return RedisBloomStore(args.redis, table_name(mode), args.capacity, args.fpr)
    if mode == "index+replica":
        return IndexReplicaStore(args.dsn, table=table_name(mode), capacity=args.capacity,
                                 fpr=args.fpr, sync_interval=args.sync_interval)
    return PostgresSeenStore(args.dsn, mode=mode, table=table_name(mode), capacity=args.capacity,
                             fpr=args.fpr, sync_interval=args.sync_interval)


def prefill(args, mode, links):
    """The seen set of a crawl that ran before: the links, untimed."""
    store = make_store(args, mode)
    store.open()
    for lo in range(0, len(links), 10000):
        store.test_and_add(links[lo:lo + 10000])
    if mode != "redis":
        with store.conn.cursor() as cur:
            cur.execute("VACUUM ANALYZE %s" % (table_name(mode) + (
                "_log" if "index" in mode else "_hashes" if mode == "hashes" else "")))
            cur.execute("CHECKPOINT")
    store.close()
    time.sleep(0.5)   # its backend gone and reaped before the CPU is read


def pg_exec(dsn, *stmts):
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    out = []
    with conn.cursor() as cur:
        cur.execute("SET client_min_messages = warning")
        for s in stmts:
            cur.execute(s)
            out.append(cur.fetchone() if cur.description else None)
    conn.close()
    return out


def run_mode(args, mode, streams, universe):
    if mode == "redis":
        import redis
        r = redis.Redis(unix_socket_path=args.redis)
        r.delete(table_name(mode))
        server_pid = int(r.info("server")["process_id"])
        cpu = lambda: process_cpu(server_pid)   # noqa: E731
        wal = None
    else:
        t = table_name(mode)
        # one session for the set-up and the WAL positions, alive across
        # both CPU readings: a backend that exits between them and is not
        # reaped yet would take its time out of the sum
        walconn = psycopg2.connect(args.dsn)
        walconn.autocommit = True
        with walconn.cursor() as cur:
            cur.execute("SET client_min_messages = warning")
            cur.execute("DROP TABLE IF EXISTS %s, %s_log, %s_hashes" % (t, t, t))
            # a checkpoint now, not in the middle of the run
            cur.execute("CHECKPOINT")
            postmaster = _stat(walconn.get_backend_pid())[0]
        cpu = lambda: tree_cpu(postmaster)      # noqa: E731

        def wal():
            with walconn.cursor() as cur:
                cur.execute("SELECT pg_current_wal_insert_lsn()::text")
                return cur.fetchone()[0]
    if args.prefill:
        prefill(args, mode, universe[:args.prefill])
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(len(streams) + 1)
    results = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(p, args, mode, s, universe, barrier, results))
             for p, s in enumerate(streams)]
    for pr in procs:
        pr.start()
    # every process connected and its tables made
    lsn0 = wal() if wal else None
    try:
        barrier.wait()
        c0, w0 = cpu(), time.perf_counter()
        barrier.wait()
    except threading.BrokenBarrierError:
        for pr in procs:
            pr.join()
        raise SystemExit("%s: a crawler process failed" % mode)
    w1, c1 = time.perf_counter(), cpu()
    lsn1 = wal() if wal else None
    barrier.wait()
    out = [results.get() for _ in procs]
    for pr in procs:
        pr.join()
        if pr.exitcode != 0:
            raise SystemExit("%s: a crawler process failed" % mode)
    wal_bytes = None
    if lsn0:
        wal_bytes = pg_exec(args.dsn, "SELECT pg_wal_lsn_diff('%s', '%s')" % (lsn1, lsn0))[0][0]
        wal_bytes = float(wal_bytes)
    if wal:
        walconn.close()
    if mode != "redis" and not args.keep:
        t = table_name(mode)
        pg_exec(args.dsn, "DROP TABLE IF EXISTS %s, %s_log, %s_hashes" % (t, t, t))
    return {"wall": w1 - w0, "server_cpu": c1 - c0, "wal": wal_bytes, "procs": out}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dsn", default="", help="libpq connection string (the server must be on this machine)")
    ap.add_argument("--redis", help="redis-server's unix socket, with RedisBloom loaded (for mode redis)")
    ap.add_argument("--modes", default="two-tier index replica redis")
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--links", type=int, default=200000, help="links a process")
    ap.add_argument("--repeats", type=float, default=0.875, help="fraction of a stream's links that are repeats")
    ap.add_argument("--page", type=int, default=1000, help="links extracted a page (one prefetch)")
    ap.add_argument("--batch", type=int, default=1000, help="BLOOMFILTER_BATCH_SIZE")
    ap.add_argument("--cache", type=int, default=100000, help="BLOOMFILTER_CACHE_SIZE")
    ap.add_argument("--prefill", type=int, default=0,
                    help="links seen before the run (a crawl resumed): the first of the universe, untimed")
    ap.add_argument("--capacity", type=int,
                    help="BLOOMFILTER_CAPACITY (default: the links to be seen, at least 1,000,000)")
    ap.add_argument("--fpr", type=float, default=0.01, help="BLOOMFILTER_FPR")
    ap.add_argument("--sync-interval", type=float, default=2.0, help="BLOOMFILTER_SYNC_INTERVAL (replica)")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data"))
    ap.add_argument("--keep", action="store_true", help="keep the tables")
    args = ap.parse_args()
    modes = args.modes.split()
    if "redis" in modes and not args.redis:
        ap.error("mode redis needs --redis SOCKET")

    pg_exec(args.dsn, "CREATE EXTENSION IF NOT EXISTS bloomfilter")
    if args.capacity is None:
        args.capacity = max(1000000, -(-(args.prefill + int(args.procs * args.links * (1 - args.repeats) * 1.05))
                                       // 100000) * 100000)
    streams, size = make_streams(args.procs, args.links, args.repeats, args.prefill)
    real = real_urls(args.data, args.dsn)
    universe = real[:size] + synthetic(max(0, size - len(real)), real)
    assert len(set(universe)) == len(universe), "the universe holds a URL twice"
    # the synthetic URLs are in url_normalize's form already: check a sample
    sample = universe[len(real):len(real) + 1000]
    if sample:
        (same,), = pg_exec(args.dsn, "SELECT count(*) FROM unnest(ARRAY[%s]) u WHERE url_normalize(u) = u"
                           % ",".join(psycopg2.extensions.adapt(u).getquoted().decode() for u in sample))
        assert same == len(sample), "synthetic URLs that url_normalize changes"
    every = np.concatenate(streams)
    distinct = np.unique(every)
    total = len(every)
    # what the fleet should answer new: the links of the streams not prefilled
    expected = distinct[distinct >= args.prefill]
    print("streams: %d processes x %d links = %d links, %d distinct, %d of them new (%.1f%% repeats), "
          "%d of them real (from %s), mean %.1f bytes; prefilled %d, capacity %d"
          % (args.procs, args.links, total, len(distinct), len(expected), 100.0 * (1 - len(expected) / total),
             int((distinct < len(real)).sum()), os.path.normpath(args.data),
             sum(len(universe[i].encode()) for i in every[:100000]) / min(total, 100000),
             args.prefill, args.capacity),
          file=sys.stderr)

    rows = {}
    for mode in modes:
        print("running %s ..." % mode, file=sys.stderr)
        r = run_mode(args, mode, streams, universe)
        news = [x["new"] for x in r["procs"]]
        answered = sum(len(n) for n in news)
        found = np.unique(np.concatenate(news)) if answered else np.array([], dtype=np.int64)
        r["answered_new"] = answered
        r["found"] = len(found)
        r["old_as_new"] = int((found < args.prefill).sum())
        r["lost"] = len(expected) - (len(found) - r["old_as_new"])
        r["dups"] = answered - len(found)
        rows[mode] = r
        print("  %s: %.1f s, %d new, %d lost" % (mode, r["wall"], r["found"], r["lost"]), file=sys.stderr)

    k = total / 1000.0
    print("| mode | fleet links/s | server CPU ms / 1,000 links (fleet's backends) | client CPU ms / 1,000 links "
          "| round trips / 1,000 links | links sent to the server / 1,000 | answered by the replica / 1,000 "
          "| syncs (pages) | WAL kB / 1,000 links | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for mode, r in rows.items():
        ps = r["procs"]
        backend = sum(x["backend_cpu"] for x in ps)
        print("| %s | %s | %.2f (%s) | %.1f | %.2f | %.0f | %.0f | %s | %s | %.1f |" % (
            mode if mode != "redis" else "RedisBloom `BF.MADD`",
            "{:,.0f}".format(total / r["wall"]),
            1000 * r["server_cpu"] / k,
            "%.2f" % (1000 * backend / k) if mode != "redis" else "-",
            1000 * sum(x["client_cpu"] for x in ps) / k,
            sum(x["round_trips"] for x in ps) / k,
            sum(x["sent"] for x in ps) / k,
            sum(x["by_replica"] for x in ps) / k,
            "%d (%d)" % (sum(x["syncs"] for x in ps), sum(x["sync_pages"] for x in ps))
            if "replica" in mode or mode == "hashes" else "-",
            "%.1f" % (r["wal"] / 1024 / k) if r["wal"] is not None else "-",
            r["wall"]))
    print()
    print("| mode | new links in the streams | answered new (by the fleet) | distinct answered new "
          "| never answered new (lost) | answered new twice or more (duplicates) | prefilled answered new |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, r in rows.items():
        print("| {} | {:,} | {:,} | {:,} | {:,} ({:.3f}%) | {:,} | {:,} |".format(
            mode if mode != "redis" else "RedisBloom", len(expected), r["answered_new"], r["found"],
            r["lost"], 100.0 * r["lost"] / len(expected), r["dups"], r["old_as_new"]))
    print()
    ratios = []
    # (baseline, mode, the target)
    for base, mode, target in (("index", "replica", " (target 5x)"),
                               ("index", "index+replica", " (target 5x)"),
                               ("index", "hashes", " (target 5x)"),
                               ("two-tier", "replica", "")):
        if base in rows and mode in rows:
            ratios.append("server CPU a link, %s / %s: %.1fx%s"
                          % (base, mode, rows[base]["server_cpu"] / max(rows[mode]["server_cpu"], 1e-9),
                             target))
    if "redis" in rows:
        for mode in ("hashes", "index+replica", "replica", "index", "two-tier"):
            if mode in rows:
                ratios.append("fleet throughput, %s / RedisBloom: %.2fx"
                              % (mode, rows["redis"]["wall"] / rows[mode]["wall"]))
    for line in ratios:
        print("- " + line)


if __name__ == "__main__":
    main()
