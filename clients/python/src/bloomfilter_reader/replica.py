"""A replica of a bloomfilter index, kept current by bloom_index_sync.

The server returns the index's pages (doc/format.md, "The index's
pages"): every written page with ``resync`` true the first time, or when
the token no longer applies (REINDEX, TRUNCATE, another server or
timeline), then the metapage and the pages changed since the last
sync's token.  The replica keeps each stage's bits in one array, in
block order, so it probes as a ``BloomFilter`` of the blocked layout
does.  After a sync at token T it holds every element committed on the
server before T; its bits are a subset of the server's, so its "absent"
is never wrong about an element committed before T, and its "present"
is wrong at most as often as the server's.
"""
import struct

from . import _vector
from .bloom import BLOCK_BITS, Stage, block_slices, range32
from .elements import hash_array, hash_element
from .errors import FormatError, UnsupportedFormatError

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is optional
    np = None

INDEX_MAGIC = 0x42465849
PAGE_HEADER = 24
DATA_OFFSET = 64
SPECIAL_SIZE = 64
BLOCK_BYTES = 64
_META = struct.Struct("<IIQdQII")
_STAGE = struct.Struct("<QQQQQQdII")
_STAGE_EXTRA = struct.Struct("<QQQQ")
META_STAGE_BYTES = _STAGE.size + _STAGE_EXTRA.size
MAX_STAGES = 48

SYNC_SQL = "SELECT token, resync, blkno, page FROM bloom_index_sync(%s::regclass, %s)"


class IndexReplica:
    """A client's copy of a bloomfilter index.

    ``sync(conn, index)`` brings it up to date through a DB-API
    connection (psycopg2 and the like); ``apply(rows)`` takes the rows of
    ``bloom_index_sync`` fetched some other way.  ``contains(x)``,
    ``contains_many(xs)``, ``contains_hashes(hs)`` answer as
    ``bloom_index_contains`` did at the last sync's token, or later.
    """

    def __init__(self):
        self.token = None
        self.resyncs = 0
        self.pages_applied = 0
        self._reset()

    def _reset(self):
        self.seed = 0
        self.stages = []
        self._places = []       # (first_block, npages) a stage
        self._bits = []         # a bytearray a stage
        self._arrays = None
        self.page_size = None

    # what _vector's probes read of a filter
    _blocked = True
    _chain = False

    def _stage_words(self):
        if self._arrays is None:
            self._arrays = [np.frombuffer(b, dtype="<u8") for b in self._bits]
        return self._arrays

    # ---- syncing ----

    def sync(self, conn, index):
        """One round trip: the pages changed since the last sync."""
        cur = conn.cursor()
        try:
            cur.execute(SYNC_SQL, (index, self.token))
            rows = cur.fetchall()
        finally:
            cur.close()
        return self.apply(rows)

    def apply(self, rows):
        """Apply bloom_index_sync's rows (token, resync, blkno, page), the
        metapage first as the server sends it.  Returns the pages applied."""
        rows = list(rows)
        if not rows:
            raise FormatError("bloom_index_sync returned no rows: it always sends the metapage")
        token, resync = rows[0][0], rows[0][1]
        if any(r[0] != token or r[1] != resync for r in rows):
            raise FormatError("the rows of one sync carry one token")
        if rows[0][2] != 0:
            raise FormatError("a sync starts with the metapage (block 0)")
        if resync:
            self._reset()
            self.resyncs += 1
        elif self.token is None:
            raise FormatError("an incremental sync needs a replica (a first sync resyncs)")
        self._apply_meta(bytes(rows[0][3]))
        for _token, _resync, blkno, page in rows[1:]:
            self._apply_page(int(blkno), bytes(page))
        self.token = token
        self.pages_applied += len(rows)
        return len(rows)

    def _apply_meta(self, page):
        if self.page_size is None:
            self.page_size = len(page)
        if len(page) != self.page_size or len(page) < PAGE_HEADER + _META.size:
            raise FormatError("a page of %d bytes" % len(page))
        (magic, fmt, seed, fpr, capacity, scalable,
         nstages) = _META.unpack_from(page, PAGE_HEADER)
        if magic != INDEX_MAGIC:
            raise FormatError("block 0 is not a bloomfilter index's metapage")
        if fmt not in (1, 2):
            raise UnsupportedFormatError("index page format %d" % fmt)
        if not 1 <= nstages <= MAX_STAGES or \
                PAGE_HEADER + _META.size + nstages * META_STAGE_BYTES > len(page):
            raise FormatError("a metapage with %d stages" % nstages)
        if self.stages and (seed != self.seed or nstages < len(self.stages)):
            raise FormatError("the metapage changed under a token that still applies")
        self.seed = seed
        per_page = (len(page) - DATA_OFFSET - SPECIAL_SIZE) // BLOCK_BYTES
        self._per_page = per_page
        for i in range(len(self.stages), nstages):
            off = PAGE_HEADER + _META.size + i * META_STAGE_BYTES
            s = Stage(i, _STAGE.unpack_from(page, off))
            first_block, npages, _pool, _share = _STAGE_EXTRA.unpack_from(page, off + _STAGE.size)
            if s.nbits == 0 or s.nbits % BLOCK_BITS or not 1 <= s.nhashes <= 64:
                raise FormatError("stage %d: %d bits, %d hashes" % (i, s.nbits, s.nhashes))
            if npages * per_page < s.nblocks or first_block < 1:
                raise FormatError("stage %d: %d blocks on %d pages" % (i, s.nblocks, npages))
            self.stages.append(s)
            self._places.append((first_block, npages))
            self._bits.append(bytearray(s.nbits // 8))
        self._arrays = None

    def _apply_page(self, blkno, page):
        if len(page) != self.page_size:
            raise FormatError("a page of %d bytes" % len(page))
        for i, (first, npages) in enumerate(self._places):
            if first <= blkno < first + npages:
                p = blkno - first
                nblocks = min(self._per_page, self.stages[i].nblocks - p * self._per_page)
                start = p * self._per_page * BLOCK_BYTES
                self._bits[i][start:start + nblocks * BLOCK_BYTES] = \
                    page[DATA_OFFSET:DATA_OFFSET + nblocks * BLOCK_BYTES]
                return
        # a page of a stage added after the metapage was read: its LSN is
        # past the token, so the next sync sends it again with its stage

    # ---- probing ----

    def contains_hash(self, h):
        for s, bits in zip(self.stages, self._bits):
            base = range32(h >> 32, s.nblocks) * BLOCK_BYTES
            if all((bits[base + (p >> 3)] >> (p & 7)) & 1 for p in block_slices(h, s.nhashes)):
                return True
        return False

    def contains(self, x):
        """As bloom_index_contains(index, x) for the index's own opclasses."""
        return self.contains_hash(hash_element(x, self.seed))

    def __contains__(self, x):
        return self.contains(x)

    def contains_hashes(self, hashes):
        """The answers for many hashes, as a numpy bool array."""
        h = np.asarray(hashes, dtype=np.uint64)
        return _vector.contains(self, h)

    def contains_many(self, xs):
        if not isinstance(xs, (list, tuple)):
            xs = list(xs)
        if not xs:
            return []
        if np is None:
            return [self.contains(x) for x in xs]
        return _vector.contains(self, hash_array(xs, self.seed)).tolist()
