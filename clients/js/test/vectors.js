// Loading the test-vector files (schema "bloomfilter-test-vectors-1") and
// turning their values into elements.
import { readFileSync, existsSync } from 'node:fs';
import { uuidBytes } from '../src/index.js';

export const SHARED = new URL('../../test-vectors.json', import.meta.url);
export const FIXTURE = new URL('fixture-vectors.json', import.meta.url);

export function load(url) {
  if (!existsSync(url)) throw new Error(`test vectors not found: ${url.pathname}`);
  const v = JSON.parse(readFileSync(url, 'utf8'));
  if (v.format !== 'bloomfilter-test-vectors-1') throw new Error(`unknown test-vector format ${v.format}`);
  return v;
}

export function hexBytes(hex) {
  if (hex.length % 2 !== 0 || /[^0-9a-f]/.test(hex)) throw new Error(`not lowercase hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// a vector's value as the element the reader takes
export function element(type, value) {
  switch (type) {
    case 'text': return value;
    case 'bytea': return hexBytes(value);
    case 'bigint': return BigInt(value);
    case 'uuid': return uuidBytes(value);
    default: throw new Error(`unknown element type ${type}`);
  }
}
