// URL sets for the differential test and the benchmark: the real URLs of
// ../shared/data (Debian package homepages and documentation links) and
// synthetic URL-like lines from a seeded generator (so every run makes the
// same ones): hosts, paths, query strings, some non-ASCII, some longer than
// 240 bytes (XXH3's long path), none with a backslash, tab or newline.
import { readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export const DATA_DIR = new URL(process.env.BLOOMFILTER_DATA ?? '../../../../shared/data/', import.meta.url);

export function realUrls(name) {
  const path = new URL(name, DATA_DIR);
  if (!existsSync(path)) throw new Error(`real URL data not found: ${path.pathname} (set BLOOMFILTER_DATA to its directory)`);
  const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter((l) => l.length > 0);
  return [...new Set(lines)];
}

// xorshift32: a reproducible stream of 32-bit numbers
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
}

const WORDS = ['news', 'article', 'item', 'product', 'user', 'blog', 'post', 'docs', 'api', 'v2',
  'search', 'tag', 'category', 'static', 'img', 'download', 'wiki', 'page', 'forum', 'thread',
  'café', 'straße', 'новости', '記事', 'über'];
const TLDS = ['com', 'org', 'net', 'de', 'io', 'fr', 'co.uk', 'example'];

/** n synthetic URLs, distinct for distinct (seed, i) (i is in every one). */
export function syntheticUrls(n, seed, prefix = 's') {
  const r = rng(seed);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const host = `${prefix}${r() % 20000}.${WORDS[r() % 20]}.${TLDS[r() % TLDS.length]}`;
    const depth = 1 + (r() % 5);
    let path = '';
    for (let d = 0; d < depth; d++) path += '/' + WORDS[r() % WORDS.length];
    path += `/${i}`;
    const kind = r() % 100;
    let tail = '';
    if (kind < 30) tail = `?id=${r()}&ref=${WORDS[r() % 20]}`;
    else if (kind < 32) tail = '?q=' + 'x'.repeat(200 + (r() % 400)); // past 240 bytes
    else if (kind < 40) tail = '.html';
    out[i] = `${r() % 4 === 0 ? 'http' : 'https'}://${host}${path}${tail}`;
  }
  return out;
}
