// Reader of the PostgreSQL bloomfilter extension's `bloomfilter` value.
//
// The bytes are those of `SELECT f::bytea`: the value without PostgreSQL's
// 4-byte varlena length word.  The C headers (src/bfcore.h, src/bloom.h)
// count offsets from that word, so every offset here is theirs minus 4,
// and a stage's offset field (from the value's start) is read minus 4 too.
//
// Layout (little-endian; offsets into the bytea):
//   0 kind (1 = bloomfilter)   1 format version (1, 2)   2 hash id (1 = XXH3-64)
//   3 flags (0)   4 seed (u64)   12 reserved (u64, 0)
//   20 layout (0 standard, 1 blocked)   21 scalable (0, 1)   22 nstages (u16)
//   24 reserved (u32, 0)   28 fpr (f64)   36 capacity (u64)
//   44 + 64 i: stage i: offset, nbits, capacity, fill_limit, bits_set,
//             rate_units (u64 each), fpr (f64), nhashes (u32), reserved (u32)
//   zero padding to (multiple of 64) - 4, then each stage's bits
import { Xxh3, mulhi32 } from './xxh3.js';

const VARHDRSZ = 4;
const KIND_BLOOM = 1;
const HASH_XXH3_64 = 1;
const FORMAT_MIN = 1;
const FORMAT_MAX = 2; // format 2: standard filters' positions (bloom.h)
const LAYOUT_STANDARD = 0;
const LAYOUT_BLOCKED = 1;
const MAX_STAGES = 48;
const MAX_HASHES = 64;
const HEADER_BYTES = 48; // BloomFilter up to its stages, with the length word
const STAGE_BYTES = 64;
const BLOCK_BITS = 512;
const MAX_VALUE_BYTES = 0x3fffffff - 64;
const INT64_MAX = (1n << 63n) - 1n;
const TWO32 = 4294967296;

// STEP between remixes, 0x9E3779B97F4A7C15
const STEP_H = 0x9e3779b9, STEP_L = 0x7f4a7c15;

/** Malformed or unsupported bytes: never read as a filter. */
export class BloomFilterFormatError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BloomFilterFormatError';
  }
}

/** add() of an element the filter cannot take as it is (see add). */
export class BloomFilterFullError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BloomFilterFullError';
  }
}

function fail(msg) {
  throw new BloomFilterFormatError(msg);
}

const encoder = new TextEncoder();
const LONE_SURROGATE = /\p{Cs}/u;
// String.prototype.isWellFormed (Node 20, browsers of 2023) is native and
// 3-4 times faster than the regular expression, which Node 18 needs
const wellFormed = typeof ''.isWellFormed === 'function'
  ? (x) => x.isWellFormed()
  : (x) => !LONE_SURROGATE.test(x);

/**
 * The 16 bytes of a uuid written as PostgreSQL's uuid input accepts it
 * (canonical, upper or lower case, with or without hyphens between groups
 * of four digits, optionally in braces): a uuid element hashes as these
 * bytes, so probe with contains(uuidBytes(s)).
 */
export function uuidBytes(s) {
  if (typeof s !== 'string') throw new TypeError('uuidBytes takes a string');
  let t = s;
  if (t.startsWith('{') && t.endsWith('}')) t = t.slice(1, -1);
  // PostgreSQL: 32 hex digits, a hyphen allowed after any group of four
  if (!/^[0-9a-fA-F]{4}(-?[0-9a-fA-F]{4}){7}$/.test(t)) throw new TypeError(`invalid uuid: "${s}"`);
  const hex = t.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The 8 bytes a bigint element hashes as (two's complement, little-endian). */
export function bigintBytes(v) {
  if (typeof v !== 'bigint') throw new TypeError('bigintBytes takes a BigInt');
  if (v < -(1n << 63n) || v > INT64_MAX) throw new RangeError(`${v} is out of range for bigint`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, v, true);
  return out;
}

function asBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('a bloomfilter value is a Uint8Array, an ArrayBuffer or another ArrayBuffer view');
}

const POPCOUNT8 = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT8[i] = (i & 1) + POPCOUNT8[i >>> 1];

function popcount(bytes, start, len) {
  let n = 0;
  for (let i = start, end = start + len; i < end; i++) n += POPCOUNT8[bytes[i]];
  return n;
}

/**
 * A bloomfilter value, validated on construction.  Probes answer exactly
 * as the server's bloom_contains does for the same element.
 */
export class BloomFilter {
  /**
   * @param {Uint8Array|ArrayBuffer|ArrayBufferView} data  the bytes of
   *   f::bytea, read in place (not copied: a filter can be big), so they
   *   must not change while the filter is in use
   */
  constructor(data) {
    this.bytes = asBytes(data);
    this.#parse();
    this.hasher = new Xxh3(this.seed);
    this.scratch = new Uint8Array(256);
    this.elem = this.scratch;
  }

  /** Same as new BloomFilter(data). */
  static fromBytes(data) {
    return new BloomFilter(data);
  }

  #parse() {
    const b = this.bytes;
    const len = b.length;
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const u64 = (off) => dv.getBigUint64(off, true);

    if (len < HEADER_BYTES + STAGE_BYTES - VARHDRSZ)
      fail(`bloomfilter value is too short (${len} bytes, need at least ${HEADER_BYTES + STAGE_BYTES - VARHDRSZ})`);
    if (b[0] !== KIND_BLOOM) fail(`value is not a bloomfilter (type tag ${b[0]}, expected ${KIND_BLOOM})`);
    const version = b[1];
    if (version > FORMAT_MAX)
      fail(`bloomfilter format version ${version} is newer than this reader reads (up to ${FORMAT_MAX})`);
    if (version < FORMAT_MIN) fail(`unsupported bloomfilter format version ${version}`);
    if (b[2] !== HASH_XXH3_64) fail(`unsupported bloomfilter hash function ${b[2]}`);
    if (u64(12) !== 0n) fail('bloomfilter header reserved field is not zero');
    if (b[3] !== 0 || dv.getUint32(24, true) !== 0) fail('bloomfilter reserved fields are not zero');
    const layout = b[20];
    if (layout !== LAYOUT_STANDARD && layout !== LAYOUT_BLOCKED) fail(`invalid bloomfilter layout ${layout}`);
    if (layout === LAYOUT_BLOCKED && version !== 1)
      fail(`invalid bloomfilter format version ${version} for the blocked layout (blocked filters are format 1)`);
    const scalable = b[21];
    if (scalable > 1) fail(`invalid bloomfilter scalable flag ${scalable}`);
    const nstages = dv.getUint16(22, true);
    if (nstages < 1 || nstages > MAX_STAGES || (!scalable && nstages !== 1))
      fail(`invalid bloomfilter stage count ${nstages}`);
    const fpr = dv.getFloat64(28, true);
    const capacity = u64(36);
    if (capacity < 1n || capacity > INT64_MAX || !(fpr >= 1e-15 && fpr < 1))
      fail(`invalid bloomfilter parameters (capacity ${capacity}, fpr ${fpr})`);
    const headerSize = Math.ceil((HEADER_BYTES + nstages * STAGE_BYTES) / 64) * 64;
    if (len + VARHDRSZ < headerSize) fail(`bloomfilter value is too short for ${nstages} stages`);
    for (let i = HEADER_BYTES + nstages * STAGE_BYTES; i < headerSize; i++)
      if (b[i - VARHDRSZ] !== 0) fail('bloomfilter header padding is not zero');

    const stages = [];
    let off = headerSize; // from the value's start, as the C code counts
    const unit = layout === LAYOUT_BLOCKED ? BLOCK_BITS : 64;
    for (let i = 0; i < nstages; i++) {
      const d = HEADER_BYTES - VARHDRSZ + i * STAGE_BYTES;
      const sOffset = u64(d);
      const nbitsBig = u64(d + 8);
      const sCapacity = u64(d + 16);
      const fillLimit = u64(d + 24);
      const bitsSet = u64(d + 32);
      const rateUnits = u64(d + 40);
      const sFpr = dv.getFloat64(d + 48, true);
      const k = dv.getUint32(d + 56, true);
      if (off > len + VARHDRSZ) fail(`bloomfilter value is truncated before stage ${i}`);
      if (sOffset !== BigInt(off)) fail(`bloomfilter stage ${i} starts at byte ${sOffset}, expected ${off}`);
      if (nbitsBig === 0n || nbitsBig % BigInt(unit) !== 0n || nbitsBig / 8n > BigInt(MAX_VALUE_BYTES))
        fail(`bloomfilter stage ${i} has an invalid size of ${nbitsBig} bits`);
      const nbits = Number(nbitsBig);
      const nbytes = nbits / 8;
      if (nbytes > len + VARHDRSZ - off)
        fail(`bloomfilter value is truncated: stage ${i} needs ${nbytes} bytes at ${off}, value has ${len + VARHDRSZ}`);
      if (k < 1 || k > MAX_HASHES) fail(`bloomfilter stage ${i} has an invalid hash count ${k}`);
      if (dv.getUint32(d + 60, true) !== 0) fail(`bloomfilter stage ${i} reserved field is not zero`);
      const shift = scalable ? i : 0;
      const wantFpr = scalable ? fpr * 0.5 * 2 ** -i : fpr;
      if (sCapacity !== (capacity << BigInt(shift)) || (capacity << BigInt(shift)) >= (1n << 64n) || sFpr !== wantFpr)
        fail(`bloomfilter stage ${i} parameters do not follow from the filter's`);
      if (fillLimit < 1n || fillLimit > nbitsBig || (layout === LAYOUT_BLOCKED && fillLimit !== nbitsBig))
        fail(`bloomfilter stage ${i} has an invalid fill limit`);
      const start = off - VARHDRSZ;
      if (BigInt(popcount(b, start, nbytes)) !== bitsSet)
        fail(`bloomfilter stage ${i} bit count does not match its bits`);
      if (layout === LAYOUT_STANDARD && rateUnits !== 0n)
        fail(`bloomfilter stage ${i} rate does not match its bits`);
      stages.push({
        start, // byte offset of the bits in this.bytes
        nbits,
        nbitsH: Math.floor(nbits / TWO32),
        nbitsL: nbits >>> 0,
        nblocks: nbits / BLOCK_BITS,
        k,
        capacity: sCapacity,
        fpr: sFpr,
        fillLimit: Number(fillLimit),
        bitsSet: Number(bitsSet),
        rateUnits,
        stageDesc: d,
        rateTable: null,
      });
      if (i < nstages - 1) {
        const padded = Math.ceil(nbytes / 64) * 64;
        for (let p = off + nbytes; p < off + padded && p < len + VARHDRSZ; p++)
          if (b[p - VARHDRSZ] !== 0) fail('bloomfilter stage padding is not zero');
        off += padded;
      } else {
        off += nbytes;
      }
    }
    if (off !== len + VARHDRSZ)
      fail(`bloomfilter value has ${len + VARHDRSZ} bytes, its stages account for ${off}`);

    this.formatVersion = version;
    this.layout = layout === LAYOUT_BLOCKED ? 'blocked' : 'standard';
    this.blocked = layout === LAYOUT_BLOCKED;
    this.chain = version < 2; // format 1 standard positions: a chain of remixes
    this.scalable = scalable === 1;
    this.seed = u64(4);
    this.fpr = fpr;
    this.capacity = capacity;
    this.stages = stages;
  }

  /** Number of stages (a scalable filter grows one when full). */
  get nstages() {
    return this.stages.length;
  }

  /**
   * The bytes of the element x as the server hashes them: a string as
   * UTF-8 (text, in a UTF-8 database), a Uint8Array as is (bytea; also a
   * uuid's 16 bytes, see uuidBytes), a BigInt as a bigint's 8 bytes.
   */
  #elementBytes(x) {
    // returns the length; the bytes are in this.elem (no array per call)
    if (typeof x === 'string') {
      if (!wellFormed(x))
        throw new TypeError('string has a lone surrogate: no PostgreSQL text has it');
      let s = this.scratch;
      if (x.length * 3 > s.length) {
        s = new Uint8Array(Math.max(x.length * 3, 2 * s.length));
        this.scratch = s;
      }
      this.elem = s;
      return encoder.encodeInto(x, s).written;
    }
    if (x instanceof Uint8Array) {
      this.elem = x;
      return x.length;
    }
    if (typeof x === 'bigint') {
      this.elem = bigintBytes(x);
      return 8;
    }
    if (typeof x === 'number')
      throw new TypeError('a number is ambiguous as an element: pass BigInt(n) for bigint or String(n) for text');
    throw new TypeError('an element is a string (text), a Uint8Array (bytea, uuid bytes) or a BigInt (bigint)');
  }

  /** False: x was never added.  True: x was probably added. */
  contains(x) {
    const n = this.#elementBytes(x);
    return this.containsUtf8(this.elem, 0, n);
  }

  /** contains() of each element, as an array of booleans. */
  containsMany(xs) {
    const out = new Array(xs.length);
    for (let i = 0; i < xs.length; i++) out[i] = this.contains(xs[i]);
    return out;
  }

  /**
   * contains() of the element whose bytes are bytes[start, end): a text
   * element in place in a bigger buffer (a line of a file), without a copy.
   */
  containsUtf8(bytes, start = 0, end = bytes.length) {
    const h = this.hasher;
    h.hash(bytes, start, end - start);
    return this.containsHash(h.hi, h.lo);
  }

  /** The element's 64-bit hash (XXH3-64 with the filter's seed), a BigInt. */
  hash(x) {
    const n = this.#elementBytes(x);
    const h = this.hasher;
    h.hash(this.elem, 0, n);
    return (BigInt(h.hi) << 32n) | BigInt(h.lo);
  }

  /**
   * Add x as the server's bloom_add does, in place in the bytes given to
   * the constructor (which must be writable): the same bits, bit counts
   * and rate accounting, so bytes() is then the value bloom_add would
   * have made.  Returns true if bits were set, false if x was (probably)
   * there already.  A stage grows only on the server: when the last stage
   * cannot take x without passing its false-positive budget, add throws a
   * BloomFilterFullError and changes nothing (bloom_add would add a stage
   * to a scalable filter, or fail on a fixed one).
   */
  add(x) {
    const n = this.#elementBytes(x);
    const h = this.hasher;
    h.hash(this.elem, 0, n);
    return this.addHash(h.hi, h.lo);
  }

  /** add() by hash, given as its unsigned 32-bit halves. */
  addHash(hh, hl) {
    const stages = this.stages;
    const b = this.bytes;
    const last = stages.length - 1;
    for (let i = 0; i < last; i++)
      if (this.#stageContains(stages[i], hh, hl)) return false;
    const s = stages[last];
    const full = this.blocked ? s.rateUnits >= RATE_LIMIT : s.bitsSet >= s.fillLimit;
    if (full) {
      if (this.#stageContains(s, hh, hl)) return false;
      this.#full();
    }
    const added = this.blocked ? this.#blockInsert(s, hh, hl) : this.#standardInsert(s, hh, hl);
    if (added < 0) this.#full();
    if (added === 0) return false;
    s.bitsSet += added;
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    dv.setBigUint64(s.stageDesc + 32, BigInt(s.bitsSet), true);
    if (this.blocked) dv.setBigUint64(s.stageDesc + 40, s.rateUnits, true);
    return true;
  }

  /** The value's bytes (f::bytea), with what add() set. */
  toBytes() {
    return this.bytes;
  }

  #full() {
    throw new BloomFilterFullError(this.scalable
      ? 'the filter\'s last stage is full: only the server adds a stage (bloom_add)'
      : 'the filter is full (it is not scalable)');
  }

  #stageContains(s, hh, hl) {
    const b = this.bytes;
    return this.blocked ? blockContains(b, s, hh, hl) : this.chain ? stdContains1(b, s, hh, hl) : stdContains2(b, s, hh, hl);
  }

  // the standard part of stage_insert (bloom.c): refused (-1) if the stage
  // could pass its fill limit, counting a repeated position twice
  #standardInsert(s, hh, hl) {
    const pos = [];
    let xh = hh, xl = hl, ch = hh, cl = hl;
    for (let j = 0; j < s.k; j++) {
      if (j > 0) {
        if (this.chain) {
          const t = xl + STEP_L;
          remix((xh + STEP_H + (t >= TWO32 ? 1 : 0)) >>> 0, t >>> 0);
        } else {
          const t = cl + STEP_L;
          cl = t >>> 0;
          ch = (ch + STEP_H + (t >= TWO32 ? 1 : 0)) >>> 0;
          remix(ch, cl);
        }
        xh = remixH;
        xl = remixL;
      }
      range64(xh, xl, s);
      pos.push(s.start + posH * 536870912 + (posL >>> 3), 1 << (posL & 7));
    }
    const b = this.bytes;
    let unset = 0;
    for (let j = 0; j < pos.length; j += 2) if ((b[pos[j]] & pos[j + 1]) === 0) unset++;
    if (unset > 0 && s.bitsSet + unset > s.fillLimit) return -1;
    let added = 0;
    for (let j = 0; j < pos.length; j += 2) {
      if ((b[pos[j]] & pos[j + 1]) === 0) {
        b[pos[j]] |= pos[j + 1];
        added++;
      }
    }
    return added;
  }

  // block_insert (bloom.c): the block's popcount before and after, the
  // stage's rate_units moved by T(after) - T(before) unless that passes
  // the limit (-1, nothing changed)
  #blockInsert(s, hh, hl) {
    const b = this.bytes;
    const base = s.start + mulhi32(hh, s.nblocks) * 64;
    const mask = new Uint8Array(64);
    remix(hh, hl);
    let gh = remixH, gl = remixL;
    for (let j = 0, t = 0; j < s.k; j++, t++) {
      if (t === 7) {
        const u = gl + STEP_L;
        remix((gh + STEP_H + (u >= TWO32 ? 1 : 0)) >>> 0, u >>> 0);
        gh = remixH;
        gl = remixL;
        t = 0;
      }
      const p = slice(gh, gl, t);
      mask[p >>> 3] |= 1 << (p & 7);
    }
    let before = 0, after = 0;
    for (let i = 0; i < 64; i++) {
      before += POPCOUNT8[b[base + i]];
      after += POPCOUNT8[b[base + i] | mask[i]];
    }
    if (after === before) return 0;
    const table = rateTable(s);
    const units = s.rateUnits + table[after] - table[before];
    if (units > RATE_LIMIT) return -1;
    s.rateUnits = units;
    for (let i = 0; i < 64; i++) b[base + i] |= mask[i];
    return after - before;
  }

  /** Probe by hash, given as its unsigned 32-bit halves. */
  containsHash(hh, hl) {
    const stages = this.stages;
    const b = this.bytes;
    for (let i = 0; i < stages.length; i++) {
      const s = stages[i];
      if (this.blocked ? blockContains(b, s, hh, hl) : this.chain ? stdContains1(b, s, hh, hl) : stdContains2(b, s, hh, hl))
        return true;
    }
    return false;
  }
}

// rate_units (bloom.h): T(c) = min(2^41, round((c/512)^k / fpr / nblocks
// * 2^40)) for a block of c bits set; full at 0.975 * 2^40.  Math.pow may
// differ from the C library's pow in the last place, which can move a
// T(c) by one: the server's check allows rate_units to differ from its
// own sum by up to nblocks.
const RATE_ONE = 1n << 40n;
const RATE_CAP = 1n << 41n;
const RATE_LIMIT = RATE_ONE / 40n * 39n;

function rateTable(s) {
  if (s.rateTable) return s.rateTable;
  const t = new Array(BLOCK_BITS + 1);
  for (let c = 0; c <= BLOCK_BITS; c++) {
    const v = Math.pow(c / BLOCK_BITS, s.k) / s.fpr / s.nblocks * 2 ** 40;
    // llround: halves away from zero (v >= 0 here; v - floor(v) is exact)
    const f = Math.floor(v);
    t[c] = v >= 2 ** 41 ? RATE_CAP : BigInt(v - f >= 0.5 ? f + 1 : f);
  }
  s.rateTable = t;
  return t;
}

// bf_remix, the murmur3 finalizer; result in (remixH, remixL)
let remixH = 0;
let remixL = 0;
function remix(h, l) {
  l = (l ^ (h >>> 1)) >>> 0;
  // * 0xff51afd7ed558ccd
  let nh = (mulhi32(l, 0xed558ccd) + Math.imul(l, 0xff51afd7) + Math.imul(h, 0xed558ccd)) >>> 0;
  let nl = Math.imul(l, 0xed558ccd) >>> 0;
  nl = (nl ^ (nh >>> 1)) >>> 0;
  // * 0xc4ceb9fe1a85ec53
  h = (mulhi32(nl, 0x1a85ec53) + Math.imul(nl, 0xc4ceb9fe) + Math.imul(nh, 0x1a85ec53)) >>> 0;
  l = Math.imul(nl, 0x1a85ec53) >>> 0;
  remixL = (l ^ (h >>> 1)) >>> 0;
  remixH = h;
}

// (posH, posL) = bf_range64(x, nbits): the high 64 bits of x * nbits
let posH = 0;
let posL = 0;
function range64(xh, xl, s) {
  if (s.nbitsH === 0) {
    // x * n = (xh * n + hi32(xl * n)) * 2^32 + lo32(xl * n); its high 64
    // bits are the high 32 of that sum, under 2^32 as n is
    const nl = s.nbitsL;
    const t = mulhi32(xl, nl) + (Math.imul(xh, nl) >>> 0);
    posL = mulhi32(xh, nl) + (t >= TWO32 ? 1 : 0);
    posH = 0;
  } else {
    mul128HiInto(xh, xl, s.nbitsH, s.nbitsL);
  }
}

// (posH, posL) = the high 64 bits of a * b, for stages of 2^32 bits or more
function mul128HiInto(ah, al, bh, bl) {
  const s1 = mulhi32(al, bl) + (Math.imul(al, bh) >>> 0) + (Math.imul(ah, bl) >>> 0);
  const c1 = Math.floor(s1 / TWO32);
  const s2 = (Math.imul(ah, bh) >>> 0) + mulhi32(al, bh) + mulhi32(ah, bl) + c1;
  posH = (mulhi32(ah, bh) + Math.floor(s2 / TWO32)) >>> 0;
  posL = s2 >>> 0;
}

function testBit(b, s) {
  // bit pos of the stage's bits: byte pos >> 3, bit pos & 7 (64-bit words
  // stored little-endian, so bit p of a word is bit p & 7 of byte p >> 3)
  const byte = s.start + posH * 536870912 + (posL >>> 3);
  return (b[byte] >>> (posL & 7)) & 1;
}

// format 2: x_0 = h, x_i = remix(h + i * STEP)
function stdContains2(b, s, hh, hl) {
  range64(hh, hl, s);
  if (!testBit(b, s)) return false;
  let ch = hh, cl = hl;
  for (let j = 1; j < s.k; j++) {
    const t = cl + STEP_L;
    cl = t >>> 0;
    ch = (ch + STEP_H + (t >= TWO32 ? 1 : 0)) >>> 0;
    remix(ch, cl);
    range64(remixH, remixL, s);
    if (!testBit(b, s)) return false;
  }
  return true;
}

// format 1: x_0 = h, x_i = remix(x_{i-1} + STEP)
function stdContains1(b, s, hh, hl) {
  range64(hh, hl, s);
  if (!testBit(b, s)) return false;
  let xh = hh, xl = hl;
  for (let j = 1; j < s.k; j++) {
    const t = xl + STEP_L;
    remix((xh + STEP_H + (t >= TWO32 ? 1 : 0)) >>> 0, t >>> 0);
    xh = remixH;
    xl = remixL;
    range64(xh, xl, s);
    if (!testBit(b, s)) return false;
  }
  return true;
}

// 9-bit slice t (0..6) of the 64-bit g
function slice(gh, gl, t) {
  switch (t) {
    case 0: return gl & 511;
    case 1: return (gl >>> 9) & 511;
    case 2: return (gl >>> 18) & 511;
    case 3: return ((gl >>> 27) | (gh << 5)) & 511;
    case 4: return (gh >>> 4) & 511;
    case 5: return (gh >>> 13) & 511;
    default: return (gh >>> 22) & 511;
  }
}

// blocked: the block is range32(h >> 32, nblocks); its k bits are 9-bit
// slices of g = remix(h), seven a g, then g = remix(g + STEP)
function blockContains(b, s, hh, hl) {
  const base = s.start + mulhi32(hh, s.nblocks) * 64;
  remix(hh, hl);
  let gh = remixH, gl = remixL;
  const k = s.k;
  for (let j = 0, t = 0; j < k; j++, t++) {
    if (t === 7) {
      const u = gl + STEP_L;
      remix((gh + STEP_H + (u >= TWO32 ? 1 : 0)) >>> 0, u >>> 0);
      gh = remixH;
      gl = remixL;
      t = 0;
    }
    const p = slice(gh, gl, t);
    if (((b[base + (p >>> 3)] >>> (p & 7)) & 1) === 0) return false;
  }
  return true;
}

// bf_range64 for tests: the position of x in a stage of nbits bits
export function _range64(xh, xl, nbits) {
  range64(xh, xl, { nbitsH: Math.floor(nbits / TWO32), nbitsL: nbits >>> 0 });
  return BigInt(posH) * 4294967296n + BigInt(posL);
}
