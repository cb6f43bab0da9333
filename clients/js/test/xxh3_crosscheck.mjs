// Compare this package's XXH3-64 with python3-xxhash's xxh3_64_intdigest
// on random inputs of every length 0 .. MAXLEN and several seeds.
//   node test/xxh3_crosscheck.mjs [ROUNDS] [MAXLEN]
// Needs python3 with the xxhash module (Debian: python3-xxhash); exits 0
// only when every hash agrees.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Xxh3 } from '../src/xxh3.js';

const rounds = Number(process.argv[2] ?? 2);
const maxLen = Number(process.argv[3] ?? 3000);
const python = process.env.PYTHON ?? (process.platform === 'linux' ? '/usr/bin/python3' : 'python3');
const seeds = [0n, 1n, 0xffffffffffffffffn, 0x9e3779b97f4a7c15n, 0x00000000ffffffffn,
  0xffffffff00000000n, BigInt('0x' + randomBytes(8).toString('hex'))];
const hashers = seeds.map((s) => new Xxh3(s));

const items = [];
for (let r = 0; r < rounds; r++) {
  for (let len = 0; len <= maxLen; len++) {
    const k = (len + r) % seeds.length;
    items.push([randomBytes(len), k]);
  }
}
// a random offset into a bigger buffer, as the CLI hashes lines in place
let bad = 0;
const input = items.map(([b, k]) => b.toString('hex') + ',' + seeds[k]).join('\n') + '\n';
const ref = execFileSync(python, [fileURLToPath(new URL('xxh3_ref.py', import.meta.url))],
  { input, maxBuffer: 1 << 30 }).toString().trim().split('\n');
items.forEach(([b, k], i) => {
  const pad = 1 + (i % 13);
  const buf = new Uint8Array(b.length + 2 * pad);
  buf.set(b, pad);
  const h = hashers[k];
  h.hash(buf, pad, b.length);
  const got = ((BigInt(h.hi) << 32n) | BigInt(h.lo)).toString();
  if (got !== ref[i]) {
    if (bad++ < 10) console.error(`len ${b.length} seed ${seeds[k]}: js ${got} python ${ref[i]}`);
  }
});
console.log(`${items.length} inputs, lengths 0..${maxLen}, ${seeds.length} seeds: ${bad} mismatches`);
process.exit(bad === 0 ? 0 : 1);
