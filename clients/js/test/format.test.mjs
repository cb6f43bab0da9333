// Malformed and unsupported bytes are refused with a BloomFilterFormatError,
// never read; elements of the wrong kind are refused with a TypeError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BloomFilter, BloomFilterFormatError, uuidBytes, bigintBytes } from '../src/index.js';
import { _range64 } from '../src/bloomfilter.js';
import { load, hexBytes, FIXTURE } from './vectors.js';

const vectors = load(FIXTURE);
const byName = (n) => hexBytes(vectors.filters.find((f) => f.name === n).bytes);
const blocked = byName('blocked_text_stages');
const standard = byName('standard_text_stages');

function refused(bytes, pattern) {
  assert.throws(() => new BloomFilter(bytes), (err) => {
    assert.ok(err instanceof BloomFilterFormatError, `${err}`);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

function mutated(bytes, off, value) {
  const b = bytes.slice();
  b[off] = value;
  return b;
}

test('a valid value is read', () => {
  assert.equal(new BloomFilter(blocked).nstages, 4);
  assert.equal(new BloomFilter(blocked.buffer.slice(0)).layout, 'blocked');
  assert.equal(new BloomFilter(standard).layout, 'standard');
});

test('every truncation and an extra byte are refused', () => {
  for (const src of [blocked, standard]) {
    for (let n = 0; n < src.length; n++) refused(src.subarray(0, n));
    const longer = new Uint8Array(src.length + 1);
    longer.set(src);
    refused(longer);
  }
});

test('header fields', () => {
  refused(mutated(blocked, 0, 2), /not a bloomfilter/);
  refused(mutated(blocked, 1, 3), /newer than this reader/);
  refused(mutated(blocked, 1, 0), /unsupported bloomfilter format version 0/);
  refused(mutated(blocked, 1, 2), /blocked layout/);
  refused(mutated(blocked, 2, 2), /hash function/);
  refused(mutated(blocked, 3, 1), /reserved/);
  refused(mutated(blocked, 12, 1), /reserved/);
  refused(mutated(blocked, 20, 2), /layout/);
  refused(mutated(blocked, 21, 2), /scalable/);
  refused(mutated(blocked, 21, 0), /stage count/);
  refused(mutated(blocked, 22, 0), /stage count/);
  refused(mutated(blocked, 22, 49), /stage count/);
  refused(mutated(blocked, 24, 1), /reserved/);
  refused(mutated(blocked, 35, 0x40), /parameters/); // fpr 2.x
  refused(mutated(blocked, 43, 0x80), /parameters/); // capacity > INT64_MAX
  // a standard filter's layout byte on a blocked one's stages
  refused(mutated(blocked, 20, 0));
});

test('stage fields', () => {
  for (const src of [blocked, standard]) {
    const d = 44; // stage 0
    refused(mutated(src, d, src[d] + 64), /starts at byte/);
    refused(mutated(src, d + 8, src[d + 8] ^ 1), /size|truncated|account/);
    refused(mutated(src, d + 16, src[d + 16] + 1), /parameters/);
    refused(mutated(src, d + 24 + 7, 0x80), /fill limit/);
    refused(mutated(src, d + 32, src[d + 32] ^ 1), /bit count/);
    refused(mutated(src, d + 48, src[d + 48] ^ 1), /parameters/);
    refused(mutated(src, d + 56, 0), /hash count/);
    refused(mutated(src, d + 56, 65), /hash count/);
    refused(mutated(src, d + 60, 1), /reserved/);
  }
  refused(mutated(standard, 44 + 40, 1), /rate/);
});

test('a bit flipped in the bits is refused (the bit count no longer matches)', () => {
  for (const src of [blocked, standard]) {
    const first = new BloomFilter(src).stages[0].start;
    for (const at of [first, first + 7, src.length - 1]) refused(mutated(src, at, src[at] ^ 0x10), /bit count/);
  }
});

test('padding must be zero', () => {
  // header padding: 4 stages end at 48 + 256 = 304, header runs to 320
  refused(mutated(blocked, 310 - 4, 1), /padding/);
});

test('elements of the wrong kind', () => {
  const f = new BloomFilter(blocked);
  assert.throws(() => f.contains(5), TypeError);
  assert.throws(() => f.contains(null), TypeError);
  assert.throws(() => f.contains({}), TypeError);
  assert.throws(() => f.contains('a\ud800b'), TypeError);
  assert.throws(() => f.contains(1n << 63n), RangeError);
  assert.equal(typeof f.contains('a\ud83d\ude00b'), 'boolean');
});

test('uuidBytes takes what PostgreSQL takes', () => {
  const want = 'a0eebc999c0b4ef8bb6d6bb9bd380a11';
  for (const s of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11',
    'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11', '{a0eebc999c0b4ef8bb6d6bb9bd380a11}'])
    assert.equal(Buffer.from(uuidBytes(s)).toString('hex'), want, s);
  for (const s of ['', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11',
    'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'])
    assert.throws(() => uuidBytes(s), TypeError, s);
});

test('bigintBytes is little-endian two\'s complement', () => {
  assert.equal(Buffer.from(bigintBytes(-2n)).toString('hex'), 'feffffffffffffff');
  assert.equal(Buffer.from(bigintBytes(1n)).toString('hex'), '0100000000000000');
});

test('range64 is the high 64 bits of the 128-bit product, for any stage size', () => {
  let x = 0x9e3779b97f4a7c15n;
  for (let i = 0; i < 20000; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    const n = (i % 3 === 0 ? (x >> 29n) : (x >> (34n + BigInt(i % 30)))) * 64n + 64n;
    const got = _range64(Number(x >> 32n), Number(x & 0xffffffffn), Number(n));
    assert.equal(got, (x * n) >> 64n, `x ${x} n ${n}`);
  }
});
