// Fetch each case's filter and probe list from the test server, probe with
// the reader (containsMany on the decoded lines, containsUtf8 on the raw
// bytes), and post the answers back to /result.
import { BloomFilter } from '/src/index.js';

async function get(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r;
}

async function run() {
  const cases = await (await get('/cases.json')).json();
  const results = [];
  for (const c of cases) {
    try {
      const f = new BloomFilter(await (await get(c.filter)).arrayBuffer());
      const bytes = new Uint8Array(await (await get(c.probes)).arrayBuffer());
      const lines = new TextDecoder('utf-8', { fatal: true }).decode(bytes).split('\n');
      lines.pop(); // after the last newline
      const many = f.containsMany(lines).map((b) => (b ? '1' : '0')).join('');
      let utf8 = '';
      for (let start = 0; start < bytes.length;) {
        let end = bytes.indexOf(10, start);
        if (end < 0) end = bytes.length;
        utf8 += f.containsUtf8(bytes, start, end) ? '1' : '0';
        start = end + 1;
      }
      results.push({ name: c.name, layout: f.layout, nstages: f.nstages, many, utf8 });
    } catch (err) {
      results.push({ name: c.name, error: String(err && err.stack || err) });
    }
  }
  return results;
}

function report(body) {
  document.getElementById('status').textContent = 'done';
  return fetch('/result', { method: 'POST', body: JSON.stringify(body) });
}

run().then(
  (results) => report({ userAgent: navigator.userAgent, results }),
  (err) => report({ userAgent: navigator.userAgent, error: String(err && err.stack || err) }),
);
