// add() gives the bytes the server's bloom_add gives (test/fixture-adds.json,
// made by test/make_fixture.mjs), and stops where the server does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BloomFilter, BloomFilterFullError } from '../src/index.js';
import { hexBytes } from './vectors.js';

const cases = JSON.parse(readFileSync(new URL('fixture-adds.json', import.meta.url), 'utf8'));
const hex = (b) => Buffer.from(b).toString('hex');

for (const c of cases) {
  test(`add: ${c.name}`, () => {
    const f = new BloomFilter(hexBytes(c.before));
    let refused = false;
    let added = 0;
    for (const x of c.added) {
      try {
        if (f.add(x)) added++;
      } catch (err) {
        assert.ok(err instanceof BloomFilterFullError, `${err}`);
        refused = true;
        break;
      }
      assert.equal(f.contains(x), true);
    }
    assert.equal(refused, c.name.endsWith('_full'), refused ? 'refused an add' : 'never refused');
    assert.ok(added > 0);
    assert.equal(hex(f.toBytes()), c.after);
    // and the result is a valid value
    assert.equal(hex(new BloomFilter(f.toBytes().slice()).toBytes()), c.after);
  });
}

test('a refused add changes nothing', () => {
  for (const name of ['blocked_full', 'standard_full']) {
    const f = new BloomFilter(hexBytes(cases.find((x) => x.name === name).after));
    let refusals = 0;
    for (let i = 0; i < 2000; i++) {
      const before = hex(f.toBytes());
      try {
        f.add(`more-${i}`);
      } catch (err) {
        assert.ok(err instanceof BloomFilterFullError);
        assert.equal(hex(f.toBytes()), before);
        refusals++;
      }
    }
    assert.ok(refusals > 0, name);
    new BloomFilter(f.toBytes().slice()); // still a valid value
  }
});
