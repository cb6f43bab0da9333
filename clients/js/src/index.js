// pg-bloomfilter: read the PostgreSQL bloomfilter extension's filters.
export { BloomFilter, BloomFilterFormatError, BloomFilterFullError, uuidBytes, bigintBytes } from './bloomfilter.js';
export { Xxh3, xxh3_64 } from './xxh3.js';
