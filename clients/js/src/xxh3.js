// XXH3-64 with a 64-bit seed (xxHash 0.8 output), in plain JavaScript.
//
// Every 64-bit quantity is a pair of unsigned 32-bit numbers (hi, lo):
// BigInt arithmetic allocates and is an order of magnitude slower, and the
// reader hashes every element it probes.  Products are exact: Math.imul for
// the low 32 bits of a 32x32 product, and the high 32 bits from its four
// 16x16-bit partial products (mulhi32), each exact in a double.

const TWO32 = 4294967296;

const K_SECRET = new Uint8Array([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);

const P32_1 = 0x9e3779b1;
const P32_2 = 0x85ebca77;
const P32_3 = 0xc2b2ae3d;
const P64_1H = 0x9e3779b1, P64_1L = 0x85ebca87;
const P64_2H = 0xc2b2ae3d, P64_2L = 0x27d4eb4f;
const P64_3H = 0x165667b1, P64_3L = 0x9e3779f9;
const P64_4H = 0x85ebca77, P64_4L = 0xc2b2ae63;
const P64_5H = 0x27d4eb2f, P64_5L = 0x165667c5;
const MX1H = 0x16566791, MX1L = 0x9e3779f9;
const MX2H = 0x9fb21c65, MX2L = 0x1e98df25;

// The result registers of the 64-bit helpers below: every helper leaves
// its result in (rh, rl), so nothing is allocated per operation.
let rh = 0;
let rl = 0;

// high 32 bits of the 64-bit product of two uint32
export function mulhi32(a, b) {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const t = a1 * b0 + ((a0 * b0) >>> 16);
  const w1 = (t & 0xffff) + a0 * b1;
  return (a1 * b1 + (t >>> 16) + (w1 >>> 16)) >>> 0;
}

// (rh, rl) = low 64 bits of a * b
function mul64(ah, al, bh, bl) {
  rh = (mulhi32(al, bl) + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0;
  rl = Math.imul(al, bl) >>> 0;
}

// (rh, rl) = lo64 ^ hi64 of the 128-bit product a * b
function mul128Fold(ah, al, bh, bl) {
  const w0 = Math.imul(al, bl) >>> 0;
  const s1 = mulhi32(al, bl) + (Math.imul(al, bh) >>> 0) + (Math.imul(ah, bl) >>> 0);
  const c1 = Math.floor(s1 / TWO32);
  const s2 = (Math.imul(ah, bh) >>> 0) + mulhi32(al, bh) + mulhi32(ah, bl) + c1;
  const c2 = Math.floor(s2 / TWO32);
  const w3 = (mulhi32(ah, bh) + c2) >>> 0;
  rh = ((s1 >>> 0) ^ w3) >>> 0;
  rl = (w0 ^ (s2 >>> 0)) >>> 0;
}

function readLE32(b, i) {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

// (rh, rl) = XXH64's avalanche of (h, l)
function avalanche64(h, l) {
  l = (l ^ (h >>> 1)) >>> 0; // ^= >> 33
  mul64(h, l, P64_2H, P64_2L);
  h = rh;
  l = (rl ^ ((rl >>> 29) | (h << 3)) ) >>> 0; // ^= >> 29 (low word)
  h = (h ^ (h >>> 29)) >>> 0; // ^= >> 29 (high word)
  mul64(h, l, P64_3H, P64_3L);
  h = rh;
  l = (rl ^ h) >>> 0; // ^= >> 32
  rh = h;
  rl = l;
}

// (rh, rl) = XXH3's avalanche of (h, l)
function avalanche3(h, l) {
  l = (l ^ (h >>> 5)) >>> 0; // ^= >> 37
  mul64(h, l, MX1H, MX1L);
  rl = (rl ^ rh) >>> 0; // ^= >> 32
}

// (rh, rl) = XXH3_rrmxmx(h, len)
function rrmxmx(h, l, len) {
  // h ^= rotl64(h, 49) ^ rotl64(h, 24)
  const r49h = ((l << 17) | (h >>> 15)) >>> 0;
  const r49l = ((h << 17) | (l >>> 15)) >>> 0;
  const r24h = ((h << 24) | (l >>> 8)) >>> 0;
  const r24l = ((l << 24) | (h >>> 8)) >>> 0;
  h = (h ^ r49h ^ r24h) >>> 0;
  l = (l ^ r49l ^ r24l) >>> 0;
  mul64(h, l, MX2H, MX2L);
  h = rh; l = rl;
  // h ^= (h >> 35) + len
  const s = (h >>> 3) + len;
  l = (l ^ (s >>> 0)) >>> 0;
  h = (h ^ (s >= TWO32 ? 1 : 0)) >>> 0;
  mul64(h, l, MX2H, MX2L);
  h = rh; l = rl;
  // h ^ (h >> 28)
  rl = (l ^ ((l >>> 28) | (h << 4))) >>> 0;
  rh = (h ^ (h >>> 28)) >>> 0;
}

// 64-bit little-endian words of the default secret at byte offset off
function secretWords(off, n) {
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[2 * i] = readLE32(K_SECRET, off + 8 * i + 4);
    out[2 * i + 1] = readLE32(K_SECRET, off + 8 * i);
  }
  return out;
}

// words of the secret as (hi, lo) pairs, with seed added to the even words
// and subtracted from the odd ones (XXH3's seeded secret and mix16B keys)
function seededWords(off, n, sh, sl) {
  const w = secretWords(off, n);
  for (let i = 0; i < n; i++) {
    const h = w[2 * i], l = w[2 * i + 1];
    if ((i & 1) === 0) {
      const s = l + sl;
      w[2 * i + 1] = s >>> 0;
      w[2 * i] = (h + sh + (s >= TWO32 ? 1 : 0)) >>> 0;
    } else {
      const s = l - sl;
      w[2 * i + 1] = s >>> 0;
      w[2 * i] = (h - sh - (s < 0 ? 1 : 0)) >>> 0;
    }
  }
  return w;
}

const INIT_ACC = [
  0, P32_3, P64_1H, P64_1L, P64_2H, P64_2L, P64_3H, P64_3L,
  P64_4H, P64_4L, 0, P32_2, P64_5H, P64_5L, 0, P32_1,
];

/**
 * XXH3-64 with one fixed seed.  hash(buf, off, len) hashes buf[off, off+len)
 * and leaves the result in this.hi and this.lo (unsigned 32-bit halves).
 */
export class Xxh3 {
  constructor(seed = 0n) {
    seed = BigInt.asUintN(64, BigInt(seed));
    this.seed = seed;
    const sh = Number(seed >> 32n);
    const sl = Number(seed & 0xffffffffn);
    this.sh = sh;
    this.sl = sl;
    this.hi = 0;
    this.lo = 0;
    // 0 bytes: seed ^ secret[56..64) ^ secret[64..72)
    const s56 = secretWords(56, 2);
    this.k0h = (s56[0] ^ s56[2]) >>> 0;
    this.k0l = (s56[1] ^ s56[3]) >>> 0;
    // 1 to 3 bytes: (secret32[0] ^ secret32[4]) + seed
    {
      const x = (readLE32(K_SECRET, 0) ^ readLE32(K_SECRET, 4)) >>> 0;
      const s = x + sl;
      this.k1l = s >>> 0;
      this.k1h = (sh + (s >= TWO32 ? 1 : 0)) >>> 0;
    }
    // 4 to 8 bytes: (secret[8..16) ^ secret[16..24)) - (seed ^ swap32(seed) << 32)
    {
      const w = secretWords(8, 2);
      const swapped = (((sl & 0xff) << 24) | ((sl & 0xff00) << 8) | ((sl >>> 8) & 0xff00) | (sl >>> 24)) >>> 0;
      const mh = (sh ^ swapped) >>> 0;
      const ml = sl;
      const xh = (w[0] ^ w[2]) >>> 0;
      const xl = (w[1] ^ w[3]) >>> 0;
      const s = xl - ml;
      this.k4l = s >>> 0;
      this.k4h = (xh - mh - (s < 0 ? 1 : 0)) >>> 0;
    }
    // 9 to 16 bytes
    {
      const w = secretWords(24, 4);
      const ah = (w[0] ^ w[2]) >>> 0, al = (w[1] ^ w[3]) >>> 0;
      const bh = (w[4] ^ w[6]) >>> 0, bl = (w[5] ^ w[7]) >>> 0;
      let s = al + sl;
      this.k9al = s >>> 0;
      this.k9ah = (ah + sh + (s >= TWO32 ? 1 : 0)) >>> 0;
      s = bl - sl;
      this.k9bl = s >>> 0;
      this.k9bh = (bh - sh - (s < 0 ? 1 : 0)) >>> 0;
    }
    // 17 to 240 bytes and long inputs: the seeded secret (also the mix16B
    // keys at 16-byte offsets), and the keys at the unaligned offsets of
    // the 129-240 path (3 + 16 i, and 119)
    this.cs = seededWords(0, 24, sh, sl);
    this.mid = new Uint32Array(32);
    for (let i = 0; i < 7; i++) this.mid.set(seededWords(3 + 16 * i, 2, sh, sl), 4 * i);
    this.mid.set(seededWords(119, 2, sh, sl), 28);
    // long inputs use the seeded secret's bytes at unaligned offsets too
    const csBytes = new Uint8Array(192);
    for (let i = 0; i < 24; i++) {
      const h = this.cs[2 * i], l = this.cs[2 * i + 1];
      for (let j = 0; j < 4; j++) {
        csBytes[8 * i + j] = (l >>> (8 * j)) & 0xff;
        csBytes[8 * i + 4 + j] = (h >>> (8 * j)) & 0xff;
      }
    }
    this.csBytes = csBytes;
    // stripe keys as 32-bit little-endian words at byte offsets 8 n (n < 16)
    this.stripeKeys = new Uint32Array(48);
    for (let i = 0; i < 48; i++) this.stripeKeys[i] = readLE32(csBytes, 4 * i);
    this.lastKeys = new Uint32Array(16);
    for (let i = 0; i < 16; i++) this.lastKeys[i] = readLE32(csBytes, 192 - 64 - 7 + 4 * i);
    this.scrambleKeys = new Uint32Array(16);
    for (let i = 0; i < 16; i++) this.scrambleKeys[i] = readLE32(csBytes, 192 - 64 + 4 * i);
    this.mergeKeys = new Uint32Array(16);
    for (let i = 0; i < 16; i++) this.mergeKeys[i] = readLE32(csBytes, 11 + 4 * i);
    this.acc = new Uint32Array(16); // 8 lanes as (hi, lo)
  }

  /** The hash of bytes as a BigInt (for tests and one-off use). */
  hashBigInt(bytes) {
    this.hash(bytes, 0, bytes.length);
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  hash(b, off, len) {
    if (len <= 16) this.hashShort(b, off, len);
    else if (len <= 128) this.hash17to128(b, off, len);
    else if (len <= 240) this.hash129to240(b, off, len);
    else this.hashLong(b, off, len);
  }

  hashShort(b, off, len) {
    if (len > 8) {
      const ilh = (readLE32(b, off + 4) ^ this.k9ah) >>> 0;
      const ill = (readLE32(b, off) ^ this.k9al) >>> 0;
      const ihh = (readLE32(b, off + len - 4) ^ this.k9bh) >>> 0;
      const ihl = (readLE32(b, off + len - 8) ^ this.k9bl) >>> 0;
      // acc = len + swap64(input_lo) + input_hi + fold(input_lo * input_hi)
      const swh = (((ill & 0xff) << 24) | ((ill & 0xff00) << 8) | ((ill >>> 8) & 0xff00) | (ill >>> 24)) >>> 0;
      const swl = (((ilh & 0xff) << 24) | ((ilh & 0xff00) << 8) | ((ilh >>> 8) & 0xff00) | (ilh >>> 24)) >>> 0;
      mul128Fold(ilh, ill, ihh, ihl);
      const lo = len + swl + ihl + rl;
      const hi = swh + ihh + rh + Math.floor(lo / TWO32);
      avalanche3(hi >>> 0, lo >>> 0);
    } else if (len >= 4) {
      const in1 = readLE32(b, off);
      const in2 = readLE32(b, off + len - 4);
      rrmxmx((in1 ^ this.k4h) >>> 0, (in2 ^ this.k4l) >>> 0, len);
    } else if (len > 0) {
      const c1 = b[off], c2 = b[off + (len >>> 1)], c3 = b[off + len - 1];
      const combined = ((c1 << 16) | (c2 << 24) | c3 | (len << 8)) >>> 0;
      avalanche64(this.k1h, (combined ^ this.k1l) >>> 0);
    } else {
      avalanche64((this.sh ^ this.k0h) >>> 0, (this.sl ^ this.k0l) >>> 0);
    }
    this.hi = rh;
    this.lo = rl;
  }

  hash17to128(b, off, len) {
    const k = this.cs;
    // acc = len * PRIME64_1, then the sum of mix16B terms, kept as a
    // double-word sum with carries folded in at the end
    mul64(0, len, P64_1H, P64_1L);
    let ah = rh, al = rl;
    const end = off + len;
    // (input offset, key index = secret offset / 4), as XXH3_len_17to128_64b
    if (len > 32) {
      if (len > 64) {
        if (len > 96) {
          mix(b, off + 48, k, 24); ah += rh; al += rl;
          mix(b, end - 64, k, 28); ah += rh; al += rl;
        }
        mix(b, off + 32, k, 16); ah += rh; al += rl;
        mix(b, end - 48, k, 20); ah += rh; al += rl;
      }
      mix(b, off + 16, k, 8); ah += rh; al += rl;
      mix(b, end - 32, k, 12); ah += rh; al += rl;
    }
    mix(b, off, k, 0); ah += rh; al += rl;
    mix(b, end - 16, k, 4); ah += rh; al += rl;
    avalanche3((ah + Math.floor(al / TWO32)) >>> 0, al >>> 0);
    this.hi = rh;
    this.lo = rl;
  }

  hash129to240(b, off, len) {
    const k = this.cs;
    mul64(0, len, P64_1H, P64_1L);
    let ah = rh, al = rl;
    for (let i = 0; i < 8; i++) {
      mix(b, off + 16 * i, k, 4 * i);
      ah += rh; al += rl;
    }
    avalanche3((ah + Math.floor(al / TWO32)) >>> 0, al >>> 0);
    ah = rh; al = rl;
    const rounds = len >>> 4;
    const m = this.mid;
    for (let i = 8; i < rounds; i++) {
      mix(b, off + 16 * i, m, 4 * (i - 8));
      ah += rh; al += rl;
    }
    mix(b, off + len - 16, m, 28);
    ah += rh; al += rl;
    avalanche3((ah + Math.floor(al / TWO32)) >>> 0, al >>> 0);
    this.hi = rh;
    this.lo = rl;
  }

  hashLong(b, off, len) {
    const acc = this.acc;
    acc.set(INIT_ACC);
    const blockLen = 1024; // 16 stripes of 64 bytes
    const nbBlocks = Math.floor((len - 1) / blockLen);
    const sk = this.stripeKeys;
    for (let n = 0; n < nbBlocks; n++) {
      const p = off + n * blockLen;
      for (let s = 0; s < 16; s++) accumulate512(acc, b, p + 64 * s, sk, 2 * s);
      scramble(acc, this.scrambleKeys);
    }
    const nbStripes = Math.floor((len - 1 - blockLen * nbBlocks) / 64);
    const p = off + nbBlocks * blockLen;
    for (let s = 0; s < nbStripes; s++) accumulate512(acc, b, p + 64 * s, sk, 2 * s);
    accumulate512(acc, b, off + len - 64, this.lastKeys, 0);
    // merge: len * PRIME64_1 + sum of fold(acc pairs ^ keys), avalanched
    mul64(0, len >>> 0, P64_1H, P64_1L);
    let hh = rh + Math.imul(Math.floor(len / TWO32), P64_1L), ll = rl;
    const mk = this.mergeKeys;
    for (let i = 0; i < 4; i++) {
      const a0h = (acc[4 * i] ^ mk[4 * i + 1]) >>> 0;
      const a0l = (acc[4 * i + 1] ^ mk[4 * i]) >>> 0;
      const a1h = (acc[4 * i + 2] ^ mk[4 * i + 3]) >>> 0;
      const a1l = (acc[4 * i + 3] ^ mk[4 * i + 2]) >>> 0;
      mul128Fold(a0h, a0l, a1h, a1l);
      hh += rh; ll += rl;
    }
    avalanche3((hh + Math.floor(ll / TWO32)) >>> 0, ll >>> 0);
    this.hi = rh;
    this.lo = rl;
  }
}

// (rh, rl) = XXH3_mix16B of b[p, p+16) with the keys k[w .. w+4) as (hi, lo) pairs
function mix(b, p, k, w) {
  const ilh = (readLE32(b, p + 4) ^ k[w]) >>> 0;
  const ill = (readLE32(b, p) ^ k[w + 1]) >>> 0;
  const ihh = (readLE32(b, p + 12) ^ k[w + 2]) >>> 0;
  const ihl = (readLE32(b, p + 8) ^ k[w + 3]) >>> 0;
  mul128Fold(ilh, ill, ihh, ihl);
}

// one 64-byte stripe into the 8 accumulators; keys are 32-bit LE words of
// the secret starting at word kw (the stripe's key is 8 bytes further on
// per stripe: kw = 2 * stripe)
function accumulate512(acc, b, p, keys, kw) {
  for (let i = 0; i < 8; i++) {
    const dl = readLE32(b, p + 8 * i);
    const dh = readLE32(b, p + 8 * i + 4);
    const kl = (dl ^ keys[kw + 2 * i]) >>> 0;
    const kh = (dh ^ keys[kw + 2 * i + 1]) >>> 0;
    // acc[i ^ 1] += data
    const j = 2 * (i ^ 1);
    let s = acc[j + 1] + dl;
    acc[j + 1] = s;
    acc[j] = acc[j] + dh + (s >= TWO32 ? 1 : 0);
    // acc[i] += lo32(key) * hi32(key)
    s = acc[2 * i + 1] + (Math.imul(kl, kh) >>> 0);
    acc[2 * i + 1] = s;
    acc[2 * i] = acc[2 * i] + mulhi32(kl, kh) + (s >= TWO32 ? 1 : 0);
  }
}

function scramble(acc, keys) {
  for (let i = 0; i < 8; i++) {
    let h = acc[2 * i], l = acc[2 * i + 1];
    l = (l ^ (h >>> 15) ^ keys[2 * i]) >>> 0; // ^= >> 47, ^= key
    h = (h ^ keys[2 * i + 1]) >>> 0;
    // acc *= PRIME32_1
    acc[2 * i] = (mulhi32(l, P32_1) + Math.imul(h, P32_1)) >>> 0;
    acc[2 * i + 1] = Math.imul(l, P32_1) >>> 0;
  }
}

/** XXH3-64 of bytes with a seed, as a BigInt: the one-call form. */
export function xxh3_64(bytes, seed = 0n) {
  return new Xxh3(seed).hashBigInt(bytes);
}
