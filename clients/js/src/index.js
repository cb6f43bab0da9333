// pg-bloomfilter: read the PostgreSQL bloomfilter extension's filters.
export { BloomFilter, BloomFilterFormatError, uuidBytes, bigintBytes } from './bloomfilter.js';
export { Xxh3, xxh3_64 } from './xxh3.js';
