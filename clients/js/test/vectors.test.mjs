// Every hash and every probe answer of the shared test vectors
// (clients/test-vectors.json) and of this package's own fixture
// (test/fixture-vectors.json, made by test/make_fixture.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BloomFilter, Xxh3 } from '../src/index.js';
import { load, hexBytes, element, SHARED, FIXTURE } from './vectors.js';

function elementBytes(type, value) {
  const e = element(type, value);
  if (typeof e === 'string') return new TextEncoder().encode(e);
  if (typeof e === 'bigint') {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigInt64(0, e, true);
    return b;
  }
  return e;
}

for (const [label, url] of [['shared', SHARED], ['fixture', FIXTURE]]) {
  let vectors;
  try {
    vectors = load(url);
  } catch (err) {
    test(`${label}: load ${url.pathname}`, () => { throw err; });
    continue;
  }

  test(`${label}: every hash`, () => {
    assert.ok(vectors.hashes.length > 0);
    const hashers = new Map();
    for (const v of vectors.hashes) {
      if (!hashers.has(v.seed)) hashers.set(v.seed, new Xxh3(BigInt(v.seed)));
      const got = hashers.get(v.seed).hashBigInt(elementBytes(v.type, v.value));
      assert.equal(got.toString(), v.hash, `${v.type} ${JSON.stringify(v.value).slice(0, 60)} seed ${v.seed}`);
    }
  });

  for (const f of vectors.filters) {
    test(`${label}: ${f.name} (${f.layout}, format ${f.format_version}, ${f.nstages} stages)`, () => {
      const bf = new BloomFilter(hexBytes(f.bytes));
      assert.equal(bf.layout, f.layout);
      assert.equal(bf.formatVersion, f.format_version);
      assert.equal(bf.nstages, f.nstages);
      assert.equal(bf.seed.toString(), f.seed);
      for (const x of f.added)
        assert.equal(bf.contains(element(f.element_type, x)), true, `added ${x} not found`);
      const xs = f.probes.map((p) => element(f.element_type, p.value));
      const many = bf.containsMany(xs);
      f.probes.forEach((p, i) => {
        assert.equal(bf.contains(xs[i]), p.expected, `probe ${p.value}`);
        assert.equal(many[i], p.expected, `containsMany ${p.value}`);
      });
      // the answer of a non-member that the server says is absent is false
      assert.ok(f.probes.some((p) => !p.expected), 'vectors have no negative probe');
    });
  }
}
