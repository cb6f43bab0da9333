"""bloomfilter_reader against the shared test vectors (clients/test-vectors.json,
made by the server), hostile bytes, and, with BLOOMFILTER_TEST_DSN set, a
live server: the same bytes after the same adds.

    cd clients/python && python3 -m unittest tests.test_reader
"""
import hashlib
import json
import os
import random
import struct
import unittest
import uuid
from pathlib import Path

from bloomfilter_reader import (BloomFilter, FilterFullError, FormatError, IndexReplica,
                                GrowthNotSupportedError, UnsupportedFormatError,
                                hash_element)
from bloomfilter_reader.bloom import HEADER_BYTES, STAGE_BYTES, VARHDRSZ

VECTORS = Path(os.environ.get(
    "BLOOMFILTER_TEST_VECTORS",
    Path(__file__).resolve().parent.parent.parent / "test-vectors.json"))

# A format 1 standard filter, as a build before format 2 wrote it (the value
# of sql/bloom_format.sql, as f::bytea, in hex): bloom_add(bloom_create(40,
# 0.01, 'standard'), 'u1' .. 'u200'), 3 stages.  expected/bloom_format.out
# gives its answers: every 'u' found, 1416 of 'v1' .. 'v200000' reported,
# and the md5 of its bytes after bloom_add of 'x1' then 42::bigint.
FORMAT1_FILE = Path(__file__).resolve().parent / "data" / "format1.hex"


def element(kind, text):
    """A vector's element from its text form (the schema of test-vectors.json)."""
    if kind == "text":
        return text
    if kind == "bytea":
        return bytes.fromhex(text)
    if kind == "bigint":
        return int(text)
    if kind == "uuid":
        return uuid.UUID(text)
    raise ValueError("unknown element type %r" % kind)


def load_vectors(test):
    if not VECTORS.is_file():
        test.skipTest("no shared test vectors at %s (clients/test-vectors.json, made by "
                      "the server's test-vector generator)" % VECTORS)
    with open(VECTORS, encoding="utf-8") as fh:
        v = json.load(fh)
    test.assertEqual(v["format"], "bloomfilter-test-vectors-1")
    return v


def emptied(f):
    """f's first stage alone with no bit set: the filter bloom_create made
    before the adds (the same geometry, counters at zero)."""
    s = f.stages[0]
    first = 128                         # header_size(1), counted as in C
    buf = bytearray(f.to_bytes()[:HEADER_BYTES + STAGE_BYTES - VARHDRSZ])
    struct.pack_into("<H", buf, 26 - VARHDRSZ, 1)
    struct.pack_into("<Q", buf, HEADER_BYTES - VARHDRSZ, first)
    struct.pack_into("<QQ", buf, HEADER_BYTES - VARHDRSZ + 32, 0, 0)   # bits_set, rate_units
    buf += bytes(first - VARHDRSZ - len(buf) + s.nbits // 8)
    return BloomFilter(bytes(buf))


def replay(f_final, elements):
    """Add elements one by one to the emptied first stage, growing (with
    the final value's next stage) exactly where this reader says the
    server needed a stage: the bytes must come out as the server's."""
    f = emptied(f_final)
    for x in elements:
        while True:
            try:
                f.add(x)
                break
            except GrowthNotSupportedError:
                if f.nstages >= f_final.nstages:
                    raise AssertionError("the reader wants a stage %d the server did not add"
                                         % (f.nstages + 1))
                f._grow_like(f_final.stages[f.nstages])
    return f


class HashVectors(unittest.TestCase):
    def test_every_hash(self):
        v = load_vectors(self)
        self.assertTrue(v["hashes"])
        for e in v["hashes"]:
            with self.subTest(type=e["type"], value=e["value"], seed=e["seed"]):
                self.assertEqual(hash_element(element(e["type"], e["value"]), int(e["seed"])),
                                 int(e["hash"]))


class FilterVectors(unittest.TestCase):
    def setUp(self):
        self.v = load_vectors(self)
        self.assertTrue(self.v["filters"])

    def each(self):
        for fv in self.v["filters"]:
            with self.subTest(filter=fv["name"]):
                yield fv, BloomFilter(bytes.fromhex(fv["bytes"]))

    def test_header(self):
        for fv, f in self.each():
            self.assertEqual(f.layout, fv["layout"])
            self.assertEqual(f.format_version, fv["format_version"])
            self.assertEqual(f.nstages, fv["nstages"])
            self.assertEqual(f.seed, int(fv["seed"]))
            self.assertEqual(f.to_bytes().hex(), fv["bytes"])

    def test_probes(self):
        for fv, f in self.each():
            kind = fv["element_type"]
            xs = [element(kind, p["value"]) for p in fv["probes"]]
            expected = [p["expected"] for p in fv["probes"]]
            self.assertEqual([f.contains(x) for x in xs], expected)
            self.assertEqual(f.contains_many(xs), expected)
            self.assertEqual(f.contains_hashes([f.hash(x) for x in xs]).tolist(), expected)

    def test_no_false_negative(self):
        for fv, f in self.each():
            xs = [element(fv["element_type"], a) for a in fv["added"]]
            self.assertTrue(all(f.contains(x) for x in xs))
            self.assertTrue(all(f.contains_many(xs)))

    def test_adds_give_the_servers_bytes(self):
        """The added elements, one by one from the empty filter, give the
        vector's bytes: bits, bits_set, rate_units and the points where
        the server grew a stage."""
        for fv, f in self.each():
            got = replay(f, [element(fv["element_type"], a) for a in fv["added"]])
            self.assertEqual(got.nstages, f.nstages)
            self.assertEqual(got.to_bytes().hex(), fv["bytes"])

    def test_adding_a_member_changes_nothing(self):
        for fv, f in self.each():
            before = f.to_bytes()
            for a in fv["added"][:20]:
                self.assertFalse(f.add(element(fv["element_type"], a)))
            self.assertEqual(f.to_bytes(), before)

    def test_both_layouts_and_formats_covered(self):
        seen = {(fv["layout"], fv["format_version"]) for fv in self.v["filters"]}
        self.assertIn(("blocked", 1), seen)
        self.assertIn(("standard", 2), seen)
        self.assertTrue(any(fv["nstages"] > 1 for fv in self.v["filters"]))


class FormatOne(unittest.TestCase):
    """The format 1 standard filter of sql/bloom_format.sql: each position
    one remix of the one before."""

    def setUp(self):
        self.f = BloomFilter.from_hex(FORMAT1_FILE.read_text())

    def test_answers(self):
        f = self.f
        self.assertEqual((f.layout, f.format_version, f.nstages), ("standard", 1, 3))
        self.assertTrue(all(f.contains("u%d" % i) for i in range(1, 201)))
        vs = ["v%d" % i for i in range(1, 200001)]
        self.assertEqual(sum(f.contains_many(vs)), 1416)
        self.assertEqual(sum(f.contains(v) for v in vs[:20000]),
                         sum(f.contains_many(vs[:20000])))

    def test_add_bytes(self):
        f = self.f
        self.assertTrue(f.add("x1"))
        f.add(42)
        self.assertEqual(hashlib.md5(f.to_bytes()).hexdigest(),
                         "cd7d8fe8de343ca299ba5e5c63063a39")

    def test_replay(self):
        got = replay(self.f, ["u%d" % i for i in range(1, 201)])
        self.assertEqual(got.to_bytes(), self.f.to_bytes())


class Elements(unittest.TestCase):
    def test_types(self):
        self.assertEqual(hash_element("é"), hash_element("é".encode()))
        self.assertEqual(hash_element(-1), hash_element(b"\xff" * 8))
        self.assertEqual(hash_element(1), hash_element(b"\x01" + bytes(7)))
        u = uuid.uuid4()
        self.assertEqual(hash_element(u), hash_element(u.bytes))
        self.assertEqual(hash_element(bytearray(b"ab")), hash_element(b"ab"))
        for bad in (True, 1.5, None, [1]):
            with self.assertRaises(TypeError):
                hash_element(bad)
        for big in (1 << 63, -(1 << 63) - 1):
            with self.assertRaises(OverflowError):
                hash_element(big)
        with self.assertRaises(UnicodeError):
            hash_element("\udc80")

    def test_mixed_contains_many(self):
        f = BloomFilter.from_hex(FORMAT1_FILE.read_text())
        xs = ["u1", b"u2", 42, uuid.UUID(int=7), "v1"]
        self.assertEqual(f.contains_many(xs), [f.contains(x) for x in xs])
        with self.assertRaises(TypeError):
            f.contains_many(["u1", 1.5])
        self.assertEqual(f.contains_many([]), [])


class Hostile(unittest.TestCase):
    """Malformed bytes raise FormatError: never a filter that answers."""

    def filters(self):
        out = [BloomFilter.from_hex(FORMAT1_FILE.read_text()).to_bytes()]
        if VECTORS.is_file():
            with open(VECTORS, encoding="utf-8") as fh:
                for fv in json.load(fh)["filters"]:
                    if len(fv["bytes"]) < 4000:
                        out.append(bytes.fromhex(fv["bytes"]))
        return out

    def test_truncated_and_extended(self):
        for data in self.filters():
            for n in range(len(data)):
                with self.assertRaises(FormatError):
                    BloomFilter(data[:n])
            for extra in (b"\0", b"\0" * 64, b"\1"):
                with self.assertRaises(FormatError):
                    BloomFilter(data + extra)

    def test_every_bit_flip(self):
        """Flipping any one bit is caught but in fields where the server
        may take the value too: the seed (any seed is valid), a blocked
        stage's rate_units (the server allows a platform's pow() to differ
        by one unit a block), a standard stage's nbits, fill_limit and
        nhashes (any that still meet the stage's rate).
        AgainstServer.test_bit_flips asks the server about each."""
        for data in self.filters():
            f = BloomFilter(data)
            allowed = set(range(8 - VARHDRSZ, 16 - VARHDRSZ))
            for s in f.stages:
                d = HEADER_BYTES + s.index * STAGE_BYTES - VARHDRSZ
                if f.layout == "blocked":
                    allowed.update(range(d + 40, d + 48))
                else:
                    allowed.update(range(d + 8, d + 16))
                    allowed.update(range(d + 24, d + 32))
                    allowed.update(range(d + 56, d + 60))
            for i in range(len(data)):
                for b in range(8):
                    bad = bytearray(data)
                    bad[i] ^= 1 << b
                    try:
                        BloomFilter(bytes(bad))
                    except FormatError:
                        continue
                    self.assertIn(i, allowed, "flip of bit %d of byte %d accepted" % (b, i))

    def test_unsupported(self):
        data = bytearray(self.filters()[0])
        for pos, value in ((0, 2), (1, 3), (1, 0), (2, 2)):
            bad = bytearray(data)
            bad[pos] = value
            with self.assertRaises(UnsupportedFormatError):
                BloomFilter(bytes(bad))
        with self.assertRaises(TypeError):
            BloomFilter("01")
        with self.assertRaises(FormatError):
            BloomFilter.from_hex("zz")


class Full(unittest.TestCase):
    def fixed(self):
        v = load_vectors(self)
        for fv in v["filters"]:
            f = BloomFilter(bytes.fromhex(fv["bytes"]))
            if not f.scalable:
                yield fv, f

    def test_fixed_filter_refuses_and_stays(self):
        n = 0
        for fv, f in self.fixed():
            n += 1
            with self.subTest(filter=fv["name"]):
                e = emptied(f)
                with self.assertRaises(FilterFullError) as cm:
                    for i in range(10 * f.capacity + 1000):
                        e.add("fill %d" % i)
                self.assertNotIsInstance(cm.exception, GrowthNotSupportedError)
                refused = 0
                for i in range(100):
                    before = e.to_bytes()
                    try:
                        e.add("more %d" % i)
                    except FilterFullError:
                        refused += 1
                        self.assertEqual(e.to_bytes(), before)
                self.assertGreater(refused, 0)
                BloomFilter(e.to_bytes())       # still valid
        if n == 0:
            self.skipTest("no fixed filter in the vectors")


@unittest.skipUnless(os.environ.get("BLOOMFILTER_TEST_DSN"),
                     "set BLOOMFILTER_TEST_DSN to a database with the bloomfilter extension")
class AgainstServer(unittest.TestCase):
    """Random adds here and with bloom_add there give the same bytes, in
    both layouts, fixed (up to the refusal) and scalable (growth replayed
    with the server's next stage)."""

    @classmethod
    def setUpClass(cls):
        import psycopg2
        cls.conn = psycopg2.connect(os.environ["BLOOMFILTER_TEST_DSN"])
        cls.conn.autocommit = True
        with cls.conn.cursor() as cur:
            cur.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def sql(self, q, *args):
        with self.conn.cursor() as cur:
            cur.execute(q, args)
            return cur.fetchone()[0]

    def test_bit_flips(self):
        """Every one-bit change of small values: the reader takes exactly
        the values the server's bytea cast takes."""
        values = [bytes(self.sql("SELECT bloom_add(bloom_create(%s, 0.01, %s, %s), "
                                 "(SELECT array_agg('e' || g) FROM generate_series(1, %s) g))::bytea",
                                 cap, layout, scalable, n))
                  for layout in ("blocked", "standard")
                  for cap, scalable, n in ((30, False, 20), (10, True, 40))]
        values.append(BloomFilter.from_hex(FORMAT1_FILE.read_text()).to_bytes())
        for data in values:
            flips = []
            for i in range(len(data)):
                for b in range(8):
                    bad = bytearray(data)
                    bad[i] ^= 1 << b
                    flips.append(bytes(bad))
            with self.conn.cursor() as cur:
                cur.execute("CREATE TEMP TABLE IF NOT EXISTS flips (n int, v bytea)")
                cur.execute("TRUNCATE flips")
                cur.executemany("INSERT INTO flips VALUES (%s, %s)", list(enumerate(flips)))
                cur.execute("""
                    CREATE OR REPLACE FUNCTION pg_temp.takes(v bytea) RETURNS bool
                    LANGUAGE plpgsql AS $$
                    BEGIN PERFORM v::bloomfilter; RETURN true;
                    EXCEPTION WHEN OTHERS THEN RETURN false; END $$""")
                cur.execute("SELECT pg_temp.takes(v) FROM flips ORDER BY n")
                server = [row[0] for row in cur.fetchall()]
            for n, bad in enumerate(flips):
                try:
                    BloomFilter(bad)
                    ours = True
                except FormatError:
                    ours = False
                self.assertEqual(ours, server[n], "byte %d bit %d" % (n // 8, n % 8))

    def test_adds(self):
        r = random.Random(46)
        for layout in ("blocked", "standard"):
            for scalable in (True, False):
                for cap, fpr in ((50, 0.01), (300, 0.001), (20, 0.2)):
                    with self.subTest(layout=layout, scalable=scalable, cap=cap, fpr=fpr):
                        self.one(r, layout, scalable, cap, fpr)

    def one(self, r, layout, scalable, cap, fpr):
        f = BloomFilter(bytes(self.sql("SELECT bloom_create(%s, %s, %s, %s)::bytea",
                                       cap, fpr, layout, scalable)))
        server = f.to_bytes()
        kinds = (lambda: "t%d" % r.getrandbits(30), lambda: r.getrandbits(63) - (1 << 62),
                 lambda: uuid.UUID(int=r.getrandbits(128)),
                 lambda: bytes(r.getrandbits(8) for _ in range(r.randint(0, 20))))
        casts = ("text", "bigint", "uuid", "bytea")
        grown = 0
        for i in range(6 * cap):
            j = r.randrange(4)
            x = kinds[j]()
            arg = str(x) if j == 2 else x
            try:
                server = bytes(self.sql("SELECT bloom_add(%%s::bytea::bloomfilter, %%s::%s)::bytea"
                                        % casts[j], server, arg))
            except Exception as e:      # the server refused: full
                self.assertFalse(scalable, e)
                self.assertEqual(getattr(e, "pgcode", None), "54000")
                with self.assertRaises(FilterFullError):
                    f.add(x)
                self.assertEqual(f.to_bytes(), server)
                return
            try:
                f.add(x)
            except GrowthNotSupportedError:
                self.assertTrue(scalable)
                g = BloomFilter(server)
                self.assertEqual(g.nstages, f.nstages + 1)
                f._grow_like(g.stages[f.nstages])
                f.add(x)
                grown += 1
            self.assertEqual(f.to_bytes(), server, "after add %d (%r)" % (i, x))
        if not scalable:
            self.fail("the fixed filter took %d random elements" % (6 * cap))
        self.assertGreaterEqual(grown, 1)


@unittest.skipUnless(os.environ.get("BLOOMFILTER_TEST_DSN"),
                     "set BLOOMFILTER_TEST_DSN to a database with the bloomfilter extension")
class IndexReplicaTest(unittest.TestCase):
    """IndexReplica against the server: a replica kept current by
    bloom_index_sync answers as bloom_index_contains, holds every element
    committed before its sync, syncs only what changed, and starts over
    when told to (REINDEX, TRUNCATE).  (Concurrent writers while replicas
    sync: test/t/015_index_sync.pl.)"""
    def setUp(self):
        import psycopg2
        self.conn = psycopg2.connect(os.environ["BLOOMFILTER_TEST_DSN"])
        self.conn.autocommit = True
        self.addCleanup(self.conn.close)
        self.sql("CREATE EXTENSION IF NOT EXISTS bloomfilter")
        self.sql("DROP TABLE IF EXISTS replica_t")
        self.sql("CREATE TABLE replica_t (url text)")
        self.addCleanup(self.sql, "DROP TABLE IF EXISTS replica_t")

    def sql(self, q, *args):
        with self.conn.cursor() as cur:
            cur.execute(q, args)
            return cur.fetchall() if cur.description else None

    def add(self, lo, hi):
        self.sql("INSERT INTO replica_t SELECT 'https://r.example/' || g FROM generate_series(%s, %s) g",
                 lo, hi)
        return ["https://r.example/%d" % g for g in range(lo, hi + 1)]

    def server_answers(self, xs):
        return self.sql("SELECT bloom_index_contains('replica_t_f', %s::text[])", xs)[0][0]

    def test_replica_answers_as_the_index(self):
        added = self.add(1, 30000)
        # small, so that later adds grow stages
        self.sql("CREATE INDEX replica_t_f ON replica_t USING bloomfilter (url) WITH (capacity = 20000)")
        r = IndexReplica()
        first = r.sync(self.conn, "replica_t_f")
        self.assertEqual(r.resyncs, 1)
        self.assertGreater(first, 2)
        self.assertTrue(all(r.contains_many(added)))
        others = ["https://other.example/%d" % g for g in range(20000)]
        self.assertEqual(r.contains_many(others), self.server_answers(others))

        # nothing changed: the metapage alone
        self.assertEqual(r.sync(self.conn, "replica_t_f"), 1)
        # a few adds: a few pages, and the replica holds them
        more = self.add(30001, 30010)
        n = r.sync(self.conn, "replica_t_f")
        self.assertLessEqual(n, 1 + 10)
        self.assertEqual(r.resyncs, 1)
        self.assertTrue(all(r.contains_many(more)))
        self.assertTrue(all(r.contains(x) for x in more))
        # past another stage
        more = self.add(30011, 90000)
        r.sync(self.conn, "replica_t_f")
        self.assertEqual(len(r.stages), self.sql(
            "SELECT (bloom_index_info('replica_t_f')->>'stages')::int")[0][0])
        self.assertGreater(len(r.stages), 1)
        self.assertTrue(all(r.contains_many(added + more)))
        probe = random.Random(7).sample(added, 1000) + others
        self.assertEqual(r.contains_many(probe), self.server_answers(probe))

    def test_told_to_start_over(self):
        self.add(1, 5000)
        self.sql("CREATE INDEX replica_t_f ON replica_t USING bloomfilter (url)")
        r = IndexReplica()
        r.sync(self.conn, "replica_t_f")
        self.sql("TRUNCATE replica_t")
        r.sync(self.conn, "replica_t_f")
        self.assertEqual(r.resyncs, 2)
        # emptied: the replica forgot what the index forgot
        self.assertFalse(any(r.contains_many(["https://r.example/%d" % g for g in range(1, 5001)])))
        self.add(7, 7)
        self.sql("REINDEX INDEX replica_t_f")
        r.sync(self.conn, "replica_t_f")
        self.assertEqual(r.resyncs, 3)
        self.assertTrue(r.contains("https://r.example/7"))

    def test_rows_checked(self):
        r = IndexReplica()
        with self.assertRaises(FormatError):
            r.apply([])
        with self.assertRaises(FormatError):
            r.apply([("t", False, 0, b"\0" * 8192)])     # incremental with no replica
        with self.assertRaises(FormatError):
            r.apply([("t", True, 0, b"\0" * 8192)])      # not a metapage


if __name__ == "__main__":
    unittest.main()
