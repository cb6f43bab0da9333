// The JavaScript reader (clients/js) under Node: links/s of containsMany,
// contains and containsUtf8 on a filter of 1M URL-like elements, per layout.
//   node bench/reader_js.mjs [elements] [runs]
// (defaults 1000000 and 7; PSQL, default "psql", reaches a server with the
// extension, e.g. PSQL="psql -h HOST -p PORT -U postgres", or from the
// repository PSQL="bash tools/dev.sh psql"; the psql user must be able to
// read a directory under the system temp dir.)
// The server builds each filter (bloom_agg(u, elements, 0.01) blocked,
// bloom_create(elements, 0.01, 'standard') + bloom_add standard) from the
// real URLs of ../shared/data (Debian homepages) and synthetic URL-like
// lines to `elements` in all; the probes are `elements` lines, half of
// them members (every other one), half never added (Debian documentation
// links that are not homepages, a quarter of all probes, then synthetic
// URLs of other hosts), shuffled.  Each way is timed over all probes `runs` times after a
// warm-up pass, and the median is printed, with the 10th and 90th
// percentile; bfprobe is timed end to end as a process (start, read the
// files, answer, write), as a differential test runs it.
import { execSync, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BloomFilter } from '../clients/js/src/index.js';
import { realUrls, syntheticUrls } from '../clients/js/test/urls.mjs';

const elements = Number(process.argv[2] ?? 1000000);
const runs = Number(process.argv[3] ?? 7);
const psql = process.env.PSQL ?? 'psql';
const bfprobe = fileURLToPath(new URL('../clients/js/bin/bfprobe.mjs', import.meta.url));

const sql = (text) => execSync(`${psql} -X -q -At -v ON_ERROR_STOP=1 -f -`,
  { input: 'SET client_min_messages = warning;\n' + text, maxBuffer: 1 << 30 }).toString();

const homepages = realUrls('debian-homepages.txt.gz');
const docLinks = realUrls('doc-links-stream.txt.gz');
const realMembers = homepages.slice(0, Math.min(homepages.length, Math.floor(elements / 2)));
const members = realMembers.concat(syntheticUrls(elements - realMembers.length, 1, 'm'));
const memberSet = new Set(realMembers);
const realOthers = docLinks.filter((u) => !memberSet.has(u))
  .slice(0, Math.min(docLinks.length, Math.floor(elements / 4)));
const others = realOthers.concat(syntheticUrls(elements - Math.floor(elements / 2) - realOthers.length, 2, 'n'));
const probes = members.filter((_, i) => i % 2 === 0).concat(others);
for (let i = probes.length - 1, r = 12345; i > 0; i--) {
  r = (Math.imul(r, 1103515245) + 12345) >>> 0;
  const j = r % (i + 1);
  [probes[i], probes[j]] = [probes[j], probes[i]];
}
const probeText = probes.join('\n') + '\n';
const probeBytes = Buffer.from(probeText, 'utf8');
const meanBytes = (probeBytes.length - probes.length) / probes.length;

const dir = mkdtempSync(join(tmpdir(), 'bf-bench-js-'));
chmodSync(dir, 0o755);
const put = (name, data) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  chmodSync(p, 0o644);
  return p;
};
const membersFile = put('members.txt', members.join('\n') + '\n');
const probesFile = put('probes.txt', probeBytes);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
  return { med: q(0.5), p10: q(0.1), p90: q(0.9) };
}

// links/s of fn over all probes: runs timings after one warm-up
function time(fn) {
  fn();
  const rates = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    const ns = Number(process.hrtime.bigint() - t0);
    rates.push(probes.length / (ns / 1e9));
  }
  return median(rates);
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(0)}k`);
const row = (name, m) => `| ${name} | ${fmt(m.med)} | ${fmt(m.p10)} | ${fmt(m.p90)} |`;

const lines = [];
try {
  sql(`DROP TABLE IF EXISTS bfjs_bench_m; CREATE TABLE bfjs_bench_m (u text);
       \\copy bfjs_bench_m(u) from '${membersFile}'`);
  console.log(`node ${process.version}, ${cpus()[0].model}, ${cpus().length} CPUs`);
  console.log(`${elements} elements, ${probes.length} probes (half members), ${meanBytes.toFixed(1)} bytes a probe on average, ${runs} runs, links/s median (p10, p90)`);
  for (const [layout, agg] of [
    ['blocked', `bloom_agg(u, ${elements}, 0.01)`],
    ['standard', `bloom_add(bloom_create(${elements}, 0.01, 'standard'), array_agg(u))`],
  ]) {
    const hex = sql(`SELECT encode(${agg}::bytea, 'hex') FROM bfjs_bench_m`).trim();
    const bytes = Buffer.from(hex, 'hex');
    const filterFile = put(`${layout}.bin`, bytes);
    const f = new BloomFilter(bytes);
    const k = f.stages.map((s) => s.k).join('+');
    let sink = 0;
    const many = time(() => { sink += f.containsMany(probes).length; });
    const one = time(() => {
      for (let i = 0; i < probes.length; i++) if (f.contains(probes[i])) sink++;
    });
    const utf8 = time(() => {
      for (let start = 0; start < probeBytes.length;) {
        const end = probeBytes.indexOf(10, start);
        if (f.containsUtf8(probeBytes, start, end)) sink++;
        start = end + 1;
      }
    });
    const proc = [];
    for (let r = 0; r < Math.min(runs, 5); r++) {
      const t0 = process.hrtime.bigint();
      execFileSync(process.execPath, [bfprobe, filterFile, probesFile], { maxBuffer: 1 << 30 });
      proc.push(probes.length / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
    if (sink < 0) console.log(sink);
    lines.push(`${layout} (${bytes.length} bytes, k = ${k}):`);
    lines.push('| way | median | p10 | p90 |', '|---|---|---|---|');
    lines.push(row('containsMany(strings)', many), row('contains(string), one at a time', one),
      row('containsUtf8(bytes, start, end), lines in place', utf8), row('bfprobe process, end to end', median(proc)));
  }
} finally {
  sql('DROP TABLE IF EXISTS bfjs_bench_m;');
  rmSync(dir, { recursive: true, force: true });
}
console.log(lines.join('\n'));
