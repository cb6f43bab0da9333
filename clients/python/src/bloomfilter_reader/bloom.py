"""The ``bloomfilter`` value: parse, validate, probe, add, serialise.

The bytes are what ``SELECT f::bytea`` returns: the value without
PostgreSQL's 4-byte varlena length word.  The server's C headers
(src/bfcore.h, src/bloom.h) count offsets from that word, stage offsets
included, so this module keeps the value behind 4 zero bytes: every
offset below is the C one, and a stage's bits start at a multiple of 64
from the start of the buffer, as in the server's memory.

Layout (little-endian; offsets as in the C headers):

    0   4   varlena length word (not in the bytea)
    4   1   kind = 1 (bloomfilter)
    5   1   format version: 1, or 2 for a standard filter made since
    6   1   hash_id = 1 (XXH3-64)
    7   1   flags = 0
    8   8   seed
    16  8   reserved = 0
    24  1   layout: 0 standard, 1 blocked
    25  1   scalable: 0 or 1
    26  2   nstages: 1 .. 48
    28  4   reserved = 0
    32  8   fpr (double): overall target
    40  8   capacity of stage 0
    48  64 * nstages: stages (offset, nbits, capacity, fill_limit,
        bits_set, rate_units: u64; fpr: double; nhashes, reserved: u32)
    zero padding to a multiple of 64, then each stage's bits, each
        starting at a multiple of 64 (zero padding between them).
"""
import math
import struct

import numpy as np

from . import _vector
from .elements import hash_array, hash_element, hash_elements
from .errors import (FilterFullError, FormatError, GrowthNotSupportedError,
                     UnsupportedFormatError)
from .model import model_fpr

VARHDRSZ = 4
KIND_BLOOM = 1
HASH_XXH3_64 = 1
FORMAT_MIN = 1
FORMAT_MAX = 2          # BLOOM_FORMAT_COUNTER: standard filters made now
LAYOUT_STANDARD = 0
LAYOUT_BLOCKED = 1
MAX_STAGES = 48
MAX_HASHES = 64
BLOCK_BITS = 512
MAX_VALUE_BYTES = 0x3FFFFFFF - 64
RATE_ONE = 1 << 40
RATE_CAP = 1 << 41
RATE_LIMIT = RATE_ONE // 40 * 39
STEP = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1

_HEADER = struct.Struct("<BBBBQQBBHIdQ")     # from offset 4 to 48
_STAGE = struct.Struct("<QQQQQQdII")         # 64 bytes
_U64 = struct.Struct("<Q")
_BLOCK = struct.Struct("<8Q")
HEADER_BYTES = 48
STAGE_BYTES = 64


def remix(h):
    """bf_remix: the murmur3 finalizer, a bijection of 64-bit values."""
    h ^= h >> 33
    h = (h * 0xff51afd7ed558ccd) & MASK64
    h ^= h >> 33
    h = (h * 0xc4ceb9fe1a85ec53) & MASK64
    h ^= h >> 33
    return h


def range64(x, n):
    """bf_range64: x * n / 2**64, a uniform x onto [0, n)."""
    return (x * n) >> 64


def range32(x, n):
    """bf_range32 on 32-bit x and n."""
    return (x * n) >> 32


def align64(x):
    return (x + 63) & ~63


def header_size(nstages):
    return align64(HEADER_BYTES + nstages * STAGE_BYTES)


def stage_fpr(fpr, scalable, i):
    """A stage's design rate: a scalable filter's stage i gets fpr / 2**(i+1)."""
    return math.ldexp(fpr * (1.0 - 0.5), -i) if scalable else fpr


def rate_table(nhashes, fpr, nblocks):
    """T(c) of bloom.h for c = 0 .. 512: the rate_units of a block with c
    bits set, computed in the server's order of double operations."""
    t = []
    for c in range(BLOCK_BITS + 1):
        v = math.pow(float(c) / BLOCK_BITS, float(nhashes)) / fpr / float(nblocks) \
            * float(RATE_ONE)
        if v >= float(RATE_CAP):
            t.append(RATE_CAP)
        else:
            # llround: halves away from zero (v >= 0)
            r = math.floor(v)
            t.append(r + 1 if v - r >= 0.5 else r)
    return t


def block_slices(h, k):
    """The k bit numbers (0 .. 511) of h inside its block: 9-bit slices of
    g = remix(h), seven per g, g = remix(g + STEP) between groups."""
    g = remix(h)
    out = []
    done = 0
    while k - done >= 7:
        for t in range(7):
            out.append((g >> (9 * t)) & 511)
        if done + 7 < k:
            g = remix((g + STEP) & MASK64)
        done += 7
    t = 0
    while done < k:
        out.append((g >> (9 * t)) & 511)
        done += 1
        t += 1
    return out


def standard_positions(h, k, nbits, chain):
    """The k bit positions of h in a standard stage: x_0 = h; format 2
    x_i = remix(h + i * STEP), format 1 (chain) x_i = remix(x_{i-1} + STEP)."""
    out = []
    x = h
    c = h
    for _ in range(k):
        out.append(range64(x, nbits))
        c = (c + STEP) & MASK64
        x = remix((x + STEP) & MASK64 if chain else c)
    return out


class Stage:
    """One stage's descriptor, as stored (offset counted as in C)."""

    __slots__ = ("index", "offset", "nbits", "capacity", "fill_limit", "bits_set",
                 "rate_units", "fpr", "nhashes", "_rate_table")

    def __init__(self, index, fields):
        self.index = index
        (self.offset, self.nbits, self.capacity, self.fill_limit, self.bits_set,
         self.rate_units, self.fpr, self.nhashes, _reserved) = fields
        self._rate_table = None

    @property
    def nblocks(self):
        return self.nbits // BLOCK_BITS

    def rate_table(self):
        if self._rate_table is None:
            self._rate_table = rate_table(self.nhashes, self.fpr, self.nblocks)
        return self._rate_table

    def __repr__(self):
        return ("Stage(%d, nbits=%d, nhashes=%d, capacity=%d, bits_set=%d, "
                "fill_limit=%d, rate_units=%d, fpr=%r)"
                % (self.index, self.nbits, self.nhashes, self.capacity, self.bits_set,
                   self.fill_limit, self.rate_units, self.fpr))


class BloomFilter:
    """A ``bloomfilter`` value read from the bytes of ``f::bytea``.

    ``BloomFilter(data)`` validates everything the server's checker does
    (but for the sizing model's rate check, see the README) and raises
    FormatError (or UnsupportedFormatError) otherwise.
    """

    def __init__(self, data):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("BloomFilter takes the bytes of f::bytea, not %s"
                            % type(data).__name__)
        self._buf = bytearray(VARHDRSZ) + bytes(data)
        self._parse()
        self._arrays = None

    @classmethod
    def from_bytes(cls, data):
        return cls(data)

    @classmethod
    def from_hex(cls, text):
        """From encode(f::bytea, 'hex'), or psql's \\x... bytea output."""
        text = text.strip()
        if text.startswith("\\x"):
            text = text[2:]
        try:
            return cls(bytes.fromhex(text))
        except ValueError as e:
            if isinstance(e, FormatError):
                raise
            raise FormatError("not hexadecimal: %s" % e) from None

    # ---- reading and validation (bloom_check in src/bloom.c) ----

    def _parse(self):
        buf = self._buf
        n = len(buf)
        need = HEADER_BYTES + STAGE_BYTES
        if n < need:
            raise FormatError("bloomfilter value is too short (%d bytes, need at least %d)"
                              % (n - VARHDRSZ, need - VARHDRSZ))
        (kind, version, hash_id, flags, seed, reserved, layout, scalable, nstages,
         reserved2, fpr, capacity) = _HEADER.unpack_from(buf, VARHDRSZ)
        if kind != KIND_BLOOM:
            raise UnsupportedFormatError("value is not a bloomfilter (type tag %d, expected %d)"
                                         % (kind, KIND_BLOOM))
        if version > FORMAT_MAX:
            raise UnsupportedFormatError(
                "bloomfilter format version %d is newer than this reader reads (up to %d)"
                % (version, FORMAT_MAX))
        if version < FORMAT_MIN:
            raise UnsupportedFormatError("unsupported bloomfilter format version %d" % version)
        if hash_id != HASH_XXH3_64:
            raise UnsupportedFormatError("unsupported bloomfilter hash function %d" % hash_id)
        if reserved != 0:
            raise FormatError("bloomfilter header reserved field is not zero")
        if flags != 0 or reserved2 != 0:
            raise FormatError("bloomfilter reserved fields are not zero")
        if layout not in (LAYOUT_STANDARD, LAYOUT_BLOCKED):
            raise FormatError("invalid bloomfilter layout %d" % layout)
        if layout == LAYOUT_BLOCKED and version != 1:
            raise FormatError("invalid bloomfilter format version %d for the blocked layout "
                              "(blocked filters are format 1)" % version)
        if scalable > 1:
            raise FormatError("invalid bloomfilter scalable flag %d" % scalable)
        if nstages < 1 or nstages > MAX_STAGES or (not scalable and nstages != 1):
            raise FormatError("invalid bloomfilter stage count %d" % nstages)
        if not (1 <= capacity <= (1 << 63) - 1) or not (fpr > 0.0 and fpr < 1.0) \
                or fpr < 1e-15:
            raise FormatError("invalid bloomfilter parameters (capacity %d, fpr %r)"
                              % (capacity, fpr))
        hsize = header_size(nstages)
        if n < hsize:
            raise FormatError("bloomfilter value is too short for %d stages" % nstages)
        if any(buf[HEADER_BYTES + nstages * STAGE_BYTES:hsize]):
            raise FormatError("bloomfilter header padding is not zero")

        unit = BLOCK_BITS if layout == LAYOUT_BLOCKED else 64
        stages = []
        off = hsize
        for i in range(nstages):
            s = Stage(i, _STAGE.unpack_from(buf, HEADER_BYTES + i * STAGE_BYTES))
            if off > n:
                raise FormatError("bloomfilter value is truncated before stage %d" % i)
            if s.offset != off:
                raise FormatError("bloomfilter stage %d starts at byte %d, expected %d"
                                  % (i, s.offset, off))
            if s.nbits == 0 or s.nbits % unit != 0 or s.nbits // 8 > MAX_VALUE_BYTES:
                raise FormatError("bloomfilter stage %d has an invalid size of %d bits"
                                  % (i, s.nbits))
            if s.nbits // 8 > n - off:
                raise FormatError("bloomfilter value is truncated: stage %d needs %d bytes "
                                  "at %d, value has %d" % (i, s.nbits // 8, off, n))
            if not 1 <= s.nhashes <= MAX_HASHES:
                raise FormatError("bloomfilter stage %d has an invalid hash count %d"
                                  % (i, s.nhashes))
            if _STAGE.unpack_from(buf, HEADER_BYTES + i * STAGE_BYTES)[8] != 0:
                raise FormatError("bloomfilter stage %d reserved field is not zero" % i)
            shift = i if scalable else 0
            if shift >= 63 or capacity > (MASK64 >> shift) or \
                    s.capacity != capacity << shift or s.fpr != stage_fpr(fpr, scalable, i):
                raise FormatError("bloomfilter stage %d parameters do not follow from the "
                                  "filter's" % i)
            if s.fill_limit < 1 or s.fill_limit > s.nbits or \
                    (layout == LAYOUT_BLOCKED and s.fill_limit != s.nbits):
                raise FormatError("bloomfilter stage %d has an invalid fill limit" % i)
            # the stage must really deliver its rate (a crafted value could
            # claim a target it cannot meet)
            if layout == LAYOUT_STANDARD:
                model = math.pow(float(s.fill_limit) / float(s.nbits), float(s.nhashes))
            else:
                model = 0.0
            if model > s.fpr or model_fpr(s.capacity, s.nbits, s.nhashes,
                                          BLOCK_BITS if layout == LAYOUT_BLOCKED else 0) > s.fpr:
                raise FormatError("bloomfilter stage %d is too small for its capacity and rate"
                                  % i)
            if _vector.popcount(buf, off, s.nbits // 8) != s.bits_set:
                raise FormatError("bloomfilter stage %d bit count does not match its bits" % i)
            if layout == LAYOUT_STANDARD:
                if s.rate_units != 0:
                    raise FormatError("bloomfilter stage %d rate does not match its bits" % i)
            else:
                t = s.rate_table()
                hist = _vector.block_count_histogram(buf, off, s.nblocks)
                computed = min(sum(t[c] * m for c, m in hist.items()), 1 << 62)
                if abs(s.rate_units - computed) > s.nblocks:
                    raise FormatError("bloomfilter stage %d rate does not match its bits" % i)
            size = s.nbits // 8
            if i < nstages - 1:
                if any(buf[off + size:min(off + align64(size), n)]):
                    raise FormatError("bloomfilter stage padding is not zero")
                off += align64(size)
            else:
                off += size
            stages.append(s)
        if off != n:
            raise FormatError("bloomfilter value has %d bytes, its stages account for %d"
                              % (n - VARHDRSZ, off - VARHDRSZ))

        self.format_version = version
        self.seed = seed
        self.layout = "blocked" if layout == LAYOUT_BLOCKED else "standard"
        self._blocked = layout == LAYOUT_BLOCKED
        self._chain = layout == LAYOUT_STANDARD and version < 2
        self.scalable = bool(scalable)
        self.fpr = fpr
        self.capacity = capacity
        self.stages = stages

    # ---- what the value says ----

    @property
    def nstages(self):
        return len(self.stages)

    @property
    def bits_set(self):
        return sum(s.bits_set for s in self.stages)

    @property
    def nbits(self):
        return sum(s.nbits for s in self.stages)

    def to_bytes(self):
        """The value's bytes, as f::bytea gives them (and as ::bloomfilter
        takes them back)."""
        return bytes(self._buf[VARHDRSZ:])

    def __len__(self):
        return len(self._buf) - VARHDRSZ

    def __repr__(self):
        return ("BloomFilter(layout=%r, format_version=%d, seed=%d, scalable=%r, "
                "capacity=%d, fpr=%r, stages=%d, bytes=%d)"
                % (self.layout, self.format_version, self.seed, self.scalable,
                   self.capacity, self.fpr, self.nstages, len(self)))

    # ---- hashing ----

    def hash(self, x):
        """The element hash of x in this filter (its seed)."""
        return hash_element(x, self.seed)

    # ---- probing, one at a time (pure Python) ----

    def _stage_contains(self, s, h):
        buf = self._buf
        if self._blocked:
            base = s.offset + range32(h >> 32, s.nblocks) * 64
            w = _BLOCK.unpack_from(buf, base)
            for p in block_slices(h, s.nhashes):
                if not (w[p >> 6] >> (p & 63)) & 1:
                    return False
            return True
        for p in standard_positions(h, s.nhashes, s.nbits, self._chain):
            if not (buf[s.offset + (p >> 3)] >> (p & 7)) & 1:
                return False
        return True

    def contains_hash(self, h):
        """Does the filter (probably) hold the element whose hash is h?"""
        if not 0 <= h <= MASK64:
            raise ValueError("a hash is a 64-bit unsigned value")
        return any(self._stage_contains(s, h) for s in self.stages)

    def contains(self, x):
        """Does the filter (probably) hold x?  As bloom_contains(f, x)."""
        return self.contains_hash(hash_element(x, self.seed))

    def __contains__(self, x):
        return self.contains(x)

    # ---- probing many at once ----

    def contains_many(self, xs):
        """[contains(x) for x in xs], vectorised: the fast path."""
        if not isinstance(xs, (list, tuple)):
            xs = list(xs)
        if not xs:
            return []
        return _vector.contains(self, hash_array(xs, self.seed)).tolist()

    def contains_hashes(self, hashes):
        """The answers for many hashes (a sequence of ints or a numpy
        uint64 array) as a numpy bool array."""
        h = np.asarray(hashes, dtype=np.uint64)
        return _vector.contains(self, h)

    def _stage_words(self):
        """Each stage's bits as a numpy uint64 view into the buffer (so an
        add is seen), made once."""
        if self._arrays is None:
            self._arrays = [np.frombuffer(self._buf, dtype="<u8", count=s.nbits // 64,
                                          offset=s.offset) for s in self.stages]
        return self._arrays

    # ---- adding (bloom_add_hash in src/bloom.c) ----

    def add(self, x):
        """Add x as bloom_add(f, x) does: True if it set new bits, False
        if the filter already reported it.  A full fixed filter raises
        FilterFullError; a scalable filter that needs a new stage raises
        GrowthNotSupportedError.  Either way the filter is unchanged."""
        return self.add_hash(hash_element(x, self.seed))

    def add_hash(self, h):
        if not 0 <= h <= MASK64:
            raise ValueError("a hash is a 64-bit unsigned value")
        stages = self.stages
        last = stages[-1]
        # earlier stages are sealed: what they report is not added again
        for s in stages[:-1]:
            if self._stage_contains(s, h):
                return False
        if self._stage_full(last):
            added = 0 if self._stage_contains(last, h) else -1
        else:
            added = self._stage_insert(last, h)
        if added < 0:
            if self.scalable:
                raise GrowthNotSupportedError(
                    "bloomfilter stage %d is full: the server would add stage %d here, "
                    "which this reader does not do" % (last.index, last.index + 1))
            raise FilterFullError(
                "bloomfilter is full: adding this element would exceed its false-positive "
                "target of %g at capacity %d" % (self.fpr, self.capacity))
        return added > 0

    def _stage_full(self, s):
        if self._blocked:
            return s.rate_units >= RATE_LIMIT
        return s.bits_set >= s.fill_limit

    def _stage_insert(self, s, h):
        buf = self._buf
        k = s.nhashes
        if self._blocked:
            base = s.offset + range32(h >> 32, s.nblocks) * 64
            w = list(_BLOCK.unpack_from(buf, base))
            m = [0] * 8
            for p in block_slices(h, k):
                m[p >> 6] |= 1 << (p & 63)
            before = sum(bin(v).count("1") for v in w)
            after = sum(bin(v | mv).count("1") for v, mv in zip(w, m))
            if after > before:
                t = s.rate_table()
                delta = t[after] - t[before]
                if s.rate_units + delta > RATE_LIMIT:
                    return -1
                s.rate_units += delta
                _BLOCK.pack_into(buf, base, *[v | mv for v, mv in zip(w, m)])
            added = after - before
        else:
            pos = standard_positions(h, k, s.nbits, self._chain)
            # counts a repeated position twice: an upper bound, as the server's
            unset = sum(1 for p in pos if not (buf[s.offset + (p >> 3)] >> (p & 7)) & 1)
            if unset and s.bits_set + unset > s.fill_limit:
                return -1
            added = 0
            for p in pos:
                i = s.offset + (p >> 3)
                bit = 1 << (p & 7)
                if not buf[i] & bit:
                    added += 1
                    buf[i] |= bit
        s.bits_set += added
        d = HEADER_BYTES + s.index * STAGE_BYTES
        _U64.pack_into(buf, d + 32, s.bits_set)
        _U64.pack_into(buf, d + 40, s.rate_units)
        return added

    def _grow_like(self, template):
        """Append an empty stage with template's geometry (nbits, nhashes,
        fill_limit), laid out as the server's bloom_grow_into does.  The
        server takes that geometry from its sizing model, which this
        reader does not port: this is for tests that replay a server's
        growth with the stages of its result."""
        n = self.nstages
        cap = self.capacity << n
        old = self._buf
        off = header_size(n + 1)
        new = bytearray(off)
        new[VARHDRSZ:HEADER_BYTES] = old[VARHDRSZ:HEADER_BYTES]
        struct.pack_into("<H", new, 26, n + 1)
        for s in self.stages:
            _STAGE.pack_into(new, HEADER_BYTES + s.index * STAGE_BYTES, off, s.nbits,
                             s.capacity, s.fill_limit, s.bits_set, s.rate_units, s.fpr,
                             s.nhashes, 0)
            new += old[s.offset:s.offset + s.nbits // 8]
            new += bytes(align64(s.nbits // 8) - s.nbits // 8)
            off += align64(s.nbits // 8)
        _STAGE.pack_into(new, HEADER_BYTES + n * STAGE_BYTES, off, template.nbits, cap,
                         template.fill_limit, 0, 0, stage_fpr(self.fpr, True, n),
                         template.nhashes, 0)
        new += bytes(template.nbits // 8)
        self._buf = new
        self._parse()
        self._arrays = None

    def add_many(self, xs):
        """add(x) for each x in order; returns how many set new bits.
        Stops at the first that the filter refuses (the exception says
        why), the ones before it added."""
        return sum(1 for h in hash_elements(list(xs), self.seed) if self.add_hash(h))
