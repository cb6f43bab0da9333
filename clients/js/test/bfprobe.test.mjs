// bin/bfprobe.mjs answers each text filter's probes of the shared vectors
// as the server did, reads a last line without a newline, and refuses a
// malformed filter with exit status 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, hexBytes, SHARED } from './vectors.js';

const bfprobe = fileURLToPath(new URL('../bin/bfprobe.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bfprobe-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const vectors = load(SHARED);
for (const f of vectors.filters.filter((v) => v.element_type === 'text')) {
  test(`bfprobe: ${f.name}`, () => {
    writeFileSync(join(dir, 'filter'), hexBytes(f.bytes));
    writeFileSync(join(dir, 'probes'), f.probes.map((p) => p.value + '\n').join(''));
    const got = execFileSync(process.execPath, [bfprobe, join(dir, 'filter'), join(dir, 'probes')]).toString();
    assert.equal(got, f.probes.map((p) => (p.expected ? '1\n' : '0\n')).join(''));
  });
}

test('bfprobe: a last line without a newline, and an empty line', () => {
  const f = vectors.filters.find((v) => v.name === 'blocked_text');
  const member = f.probes.find((p) => p.expected).value;
  writeFileSync(join(dir, 'filter'), hexBytes(f.bytes));
  writeFileSync(join(dir, 'probes'), `${member}\n\n${member}`);
  const got = execFileSync(process.execPath, [bfprobe, join(dir, 'filter'), join(dir, 'probes')]).toString();
  const empty = f.probes.some((p) => p.value === '' && p.expected) ? '1' : null;
  assert.match(got, empty ? /^1\n1\n1\n$/ : /^1\n[01]\n1\n$/);
});

test('bfprobe: a malformed filter is refused', () => {
  writeFileSync(join(dir, 'bad'), new Uint8Array(100));
  writeFileSync(join(dir, 'probes'), 'x\n');
  const r = spawnSync(process.execPath, [bfprobe, join(dir, 'bad'), join(dir, 'probes')]);
  assert.equal(r.status, 1);
  assert.equal(r.stdout.length, 0);
  assert.match(r.stderr.toString(), /not a bloomfilter|too short/);
});
