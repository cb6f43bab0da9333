// Differential test against a server: bin/bfprobe.mjs must print exactly
// what bloom_contains answers, line for line, on 1M URLs (real and
// synthetic), for filters of both layouts, one stage and several.
//   PSQL="psql -h HOST -p PORT -U postgres" node test/differential.mjs [NPROBES]
// (from the repository: PSQL="bash tools/dev.sh psql"; the psql user must
// be able to read a directory under the system temp dir).  Exit 0 only
// when there is no disagreement.
import { execSync, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { realUrls, syntheticUrls } from './urls.mjs';
import { BloomFilter } from '../src/index.js';

const psql = process.env.PSQL ?? 'psql';
const nprobes = Number(process.argv[2] ?? 1000000);
const bfprobe = fileURLToPath(new URL('../bin/bfprobe.mjs', import.meta.url));

function sql(text) {
  return execSync(`${psql} -X -q -At -v ON_ERROR_STOP=1 -f -`, { input: 'SET client_min_messages = warning;\n' + text, maxBuffer: 1 << 30 }).toString();
}

// members: Debian homepages and synthetic URLs; probes: every member, the
// documentation links (179 of them are also homepages) and synthetic
// non-members, to nprobes lines in all
const homepages = realUrls('debian-homepages.txt.gz');
const docLinks = realUrls('doc-links-stream.txt.gz');
const nMembers = Math.floor(nprobes / 2);
const realMembers = homepages.slice(0, Math.floor(nMembers / 2));
const members = realMembers.concat(syntheticUrls(nMembers - realMembers.length, 1, 'm'));
const realOthers = docLinks.slice(0, Math.floor((nprobes - nMembers) / 2));
const others = realOthers.concat(syntheticUrls(nprobes - nMembers - realOthers.length, 2, 'n'));
const probes = members.concat(others);
// interleave, so each output chunk mixes members and non-members
for (let i = probes.length - 1, r = 12345; i > 0; i--) {
  r = (Math.imul(r, 1103515245) + 12345) >>> 0;
  const j = r % (i + 1);
  [probes[i], probes[j]] = [probes[j], probes[i]];
}

const dir = mkdtempSync(join(tmpdir(), 'bf-diff-'));
chmodSync(dir, 0o755);
const put = (name, text) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  chmodSync(p, 0o644);
  return p;
};
// COPY's text format: no line here has a backslash, tab or newline
const membersFile = put('members.txt', members.join('\n') + '\n');
const probesFile = put('probes.txt', probes.join('\n') + '\n');

// [name, aggregate over bfjs_m, the empty filter add() starts from (one
// stage only: add() does not grow a stage)]
const filters = [
  ['blocked', `bloom_agg(u, ${members.length}, 0.01)`, `bloom_create(${members.length}, 0.01)`],
  ['standard', `bloom_add(bloom_create(${members.length}, 0.01, 'standard'), array_agg(u ORDER BY id))`,
    `bloom_create(${members.length}, 0.01, 'standard')`],
  ['blocked_stages', `bloom_add(bloom_create(${Math.ceil(members.length / 12)}, 0.01), array_agg(u ORDER BY id))`],
  ['standard_stages', `bloom_add(bloom_create(${Math.ceil(members.length / 12)}, 0.01, 'standard'), array_agg(u ORDER BY id))`],
];

let failed = 0;
try {
  sql(`DROP TABLE IF EXISTS bfjs_m, bfjs_p, bfjs_f;
       CREATE TABLE bfjs_m (id bigserial, u text);
       CREATE TABLE bfjs_p (id bigserial, u text);
       CREATE TABLE bfjs_f (name text, f bloomfilter);
       \\copy bfjs_m(u) from '${membersFile}'
       \\copy bfjs_p(u) from '${probesFile}'`);
  for (const [name, agg, empty] of filters) {
    const t0 = Date.now();
    const out = sql(`INSERT INTO bfjs_f SELECT '${name}', ${agg} FROM bfjs_m;
      SELECT bloom_info(f)->>'layout', bloom_info(f)->>'stages', bloom_info(f)->>'format_version',
             encode(f::bytea, 'hex') FROM bfjs_f WHERE name = '${name}';
      SELECT string_agg(bloom_contains(f, u)::int::text, E'\\n' ORDER BY id)
      FROM bfjs_f, bfjs_p WHERE name = '${name}';`).split('\n');
    const [layout, stages, format, hex] = out[0].split('|');
    const server = out.slice(1).filter((l) => l.length > 0);
    const filterFile = put(`${name}.bin`, Buffer.from(hex, 'hex'));
    const t1 = Date.now();
    const js = execFileSync(process.execPath, [bfprobe, filterFile, probesFile], { maxBuffer: 1 << 30 })
      .toString().split('\n').filter((l) => l.length > 0);
    const t2 = Date.now();
    let disagree = 0;
    let positives = 0;
    if (js.length !== server.length) disagree = Math.max(js.length, server.length);
    else for (let i = 0; i < js.length; i++) {
      if (js[i] !== server[i]) disagree++;
      if (js[i] === '1') positives++;
    }
    failed += disagree;
    console.log(`${name}: ${layout}, ${stages} stages, format ${format}, ${hex.length / 2} bytes; ` +
      `${server.length} probes, ${positives} answered 1 (${members.length} members); ` +
      `${disagree} disagreements; bfprobe ${t2 - t1} ms, server ${t1 - t0} ms`);
    if (empty) {
      // the same filter made by add() from the empty one, in the same order
      const f = new BloomFilter(Buffer.from(sql(`SELECT encode(${empty}::bytea, 'hex')`).trim(), 'hex'));
      for (const u of members) f.add(u);
      const same = Buffer.from(f.toBytes()).toString('hex') === hex;
      if (!same) failed++;
      console.log(`${name}: add() of every member from the empty filter gives ${same ? 'the same' : 'DIFFERENT'} bytes`);
    }
  }
} finally {
  sql('DROP TABLE IF EXISTS bfjs_m, bfjs_p, bfjs_f;');
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed === 0 ? 'no disagreement' : `${failed} disagreements`);
process.exit(failed === 0 ? 0 : 1);
