// The reader in a real browser: serve the package's ESM files, a page and
// the text filters of the test vectors (each as raw f::bytea bytes and a
// probe list) on 127.0.0.1, open the page in headless Chromium, and check
// the answers it posts back against the vectors' expected ones.
//   node test/browser.mjs [VECTORS.json]
// Chromium is $CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome on PATH.  Runs as any user: the browser's profile and HOME
// are a scratch directory, removed at the end.  Exit 0 only when every
// answer matches; nonzero on a mismatch, a page error, or a browser that
// could not run or did not answer within $BROWSER_TIMEOUT seconds (60).
// The browser is started in a process group of its own and that group
// (its processes only) is killed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, hexBytes, SHARED, FIXTURE } from './vectors.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const vectorsUrl = process.argv[2] ? new URL(process.argv[2], `file://${process.cwd()}/`)
  : existsSync(SHARED) ? SHARED : FIXTURE;
const timeoutMs = 1000 * Number(process.env.BROWSER_TIMEOUT ?? 60);

function die(msg) {
  console.error(`browser test: ${msg}`);
  process.exitCode = 1;
}

function findChromium() {
  const names = process.env.CHROMIUM ? [process.env.CHROMIUM] : ['chromium', 'chromium-browser', 'google-chrome'];
  for (const n of names) {
    const r = spawnSync('sh', ['-c', `command -v "$0"`, n], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

// the cases: every text filter of the vectors
const vectors = load(vectorsUrl);
const cases = vectors.filters.filter((f) => f.element_type === 'text');
if (cases.length === 0) throw new Error(`no text filter in ${vectorsUrl.pathname}`);
const files = new Map();
cases.forEach((f, i) => {
  files.set(`/case/${i}.bin`, Buffer.from(hexBytes(f.bytes)));
  files.set(`/case/${i}.txt`, Buffer.from(f.probes.map((p) => p.value + '\n').join(''), 'utf8'));
});
files.set('/cases.json', Buffer.from(JSON.stringify(cases.map((f, i) =>
  ({ name: f.name, filter: `/case/${i}.bin`, probes: `/case/${i}.txt` })))));

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html; charset=utf-8' };

let resolveResult;
const result = new Promise((resolve) => { resolveResult = resolve; });

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method === 'POST' && url.pathname === '/result') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.end('ok');
      resolveResult(Buffer.concat(chunks).toString('utf8'));
    });
    return;
  }
  let body = files.get(url.pathname);
  let type = 'application/octet-stream';
  if (url.pathname === '/' || url.pathname === '/index.html') {
    body = readFileSync(join(root, 'test/browser/index.html'));
    type = TYPES['.html'];
  } else if (url.pathname === '/page.js') {
    body = readFileSync(join(root, 'test/browser/page.js'));
    type = TYPES['.js'];
  } else if (url.pathname.startsWith('/src/')) {
    // the package's own modules, nothing outside src/
    const p = normalize(url.pathname).replace(/^\/+/, '');
    if (p.startsWith('src/') && extname(p) === '.js' && existsSync(join(root, p))) {
      body = readFileSync(join(root, p));
      type = TYPES['.js'];
    }
  }
  if (body === undefined) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
});

await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;
const scratch = mkdtempSync(join(tmpdir(), 'bf-browser-'));
let browser = null;
let browserExit = null;

// a process of the group other than a zombie (an orphaned renderer that
// an init without reaping keeps as one is not running)
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    let stat;
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; }
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so after the last ')'
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

// SIGTERM to the browser's group, then wait until none of its processes is
// left (the renderers outlive the main process briefly), SIGKILL after 5 s
async function killBrowser() {
  if (!browser) return;
  const pgid = browser.pid;
  try { process.kill(-pgid, 'SIGTERM'); } catch { /* already gone */ }
  const deadline = Date.now() + 5000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(pgid)) {
    try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
    while (groupAlive(pgid) && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 50));
  }
  if (groupAlive(pgid)) die(`browser processes of group ${pgid} are still running`);
}

try {
  const chromium = findChromium();
  if (!chromium) throw new Error('no Chromium found (apt-get install chromium, or set CHROMIUM)');
  const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-sync',
    '--disable-background-networking', '--disable-component-update', '--mute-audio',
    `--user-data-dir=${join(scratch, 'profile')}`, `http://127.0.0.1:${port}/`];
  let stderr = '';
  browser = spawn(chromium, args, {
    detached: true, // a process group of its own, killed whole at the end
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HOME: scratch, XDG_CONFIG_HOME: join(scratch, '.config'), XDG_CACHE_HOME: join(scratch, '.cache') },
  });
  browser.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const exited = new Promise((resolve) => browser.once('exit', (code, sig) => {
    browserExit = { code, sig };
    resolve(null);
  }));
  let timer;
  const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve(undefined), timeoutMs); });
  const body = await Promise.race([result, exited, timedOut]);
  clearTimeout(timer);
  if (body === null) throw new Error(`the browser exited (${JSON.stringify(browserExit)}) before answering:\n${stderr}`);
  if (body === undefined) throw new Error(`no answer from the browser within ${timeoutMs / 1000} s:\n${stderr}`);

  const report = JSON.parse(body);
  if (report.error) throw new Error(`the page failed: ${report.error}`);
  console.log(`browser: ${report.userAgent}`);
  let mismatches = 0;
  cases.forEach((f, i) => {
    const r = report.results[i];
    const want = f.probes.map((p) => (p.expected ? '1' : '0')).join('');
    if (!r || r.name !== f.name || r.error) {
      mismatches++;
      console.error(`${f.name}: ${r ? r.error ?? 'wrong case' : 'no result'}`);
      return;
    }
    let bad = 0;
    for (let j = 0; j < want.length; j++) bad += (r.many[j] !== want[j]) + (r.utf8[j] !== want[j]);
    if (r.many.length !== want.length || r.utf8.length !== want.length) bad++;
    mismatches += bad;
    console.log(`${f.name}: ${r.layout}, ${r.nstages} stages, ${want.length} probes, ${bad} mismatches`);
  });
  if (mismatches) die(`${mismatches} mismatches`);
  else console.log(`all ${cases.length} filters answered as expected (${vectorsUrl.pathname})`);
} catch (err) {
  die(err.message);
} finally {
  await killBrowser();
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
