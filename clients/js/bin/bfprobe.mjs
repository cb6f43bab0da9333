#!/usr/bin/env node
// bfprobe FILTER_FILE PROBES_FILE
// FILTER_FILE holds the raw bytes of a bloomfilter's f::bytea; PROBES_FILE
// one text element a line (UTF-8, each line ending in \n; a last line
// without one counts too; - for standard input).  Prints 1 or 0 a line: bloom_contains(f, line).
// The lines are hashed in place in the file's buffer, without decoding.
import { readFileSync, writeSync } from 'node:fs';
import { BloomFilter, BloomFilterFormatError } from '../src/index.js';

const [filterPath, probesPath] = process.argv.slice(2);
if (!filterPath || !probesPath) {
  process.stderr.write('usage: bfprobe FILTER_FILE PROBES_FILE\n');
  process.exit(2);
}

let filter;
try {
  filter = new BloomFilter(readFileSync(filterPath));
} catch (err) {
  if (!(err instanceof BloomFilterFormatError)) throw err;
  process.stderr.write(`bfprobe: ${filterPath}: ${err.message}\n`);
  process.exit(1);
}

const probes = readFileSync(probesPath === '-' ? 0 : probesPath);
const CHUNK = 1 << 16; // answers written a chunk of lines at a time
const out = Buffer.allocUnsafe(2 * CHUNK);
let n = 0;
const pause = new Int32Array(new SharedArrayBuffer(4));
const flush = () => {
  let done = 0;
  while (done < 2 * n) {
    try {
      done += writeSync(1, out, done, 2 * n - done);
    } catch (err) {
      if (err.code === 'EPIPE') process.exit(0); // the reader has gone (| head)
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1); // a non-blocking pipe that is full: wait 1 ms
    }
  }
  n = 0;
};
for (let start = 0; start < probes.length;) {
  let end = probes.indexOf(10, start);
  if (end < 0) end = probes.length;
  out[2 * n] = filter.containsUtf8(probes, start, end) ? 49 : 48;
  out[2 * n + 1] = 10;
  if (++n === CHUNK) flush();
  start = end + 1;
}
flush();
