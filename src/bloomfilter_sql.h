/*
 * bloomfilter_sql.h
 *		Helpers shared by the bloomfilter SQL functions and aggregates.
 */
#ifndef BLOOMFILTER_SQL_H
#define BLOOMFILTER_SQL_H

#include "postgres.h"

#include "bloom.h"

extern BloomFilter *pgbf_bloom_new(MemoryContext cxt, int64 capacity, double fpr,
								   int layout, bool scalable);
extern BloomFilter *pgbf_bloom_add(BloomFilter *f, uint64 h, MemoryContext cxt,
								   bool free_old);
extern BloomFilter *pgbf_bloom_add_many(BloomFilter *f, const uint64 *h, size_t n,
										MemoryContext cxt, bool free_old);
extern BloomFilter *pgbf_bloom_union(BloomFilter *a, const BloomFilter *b,
									 MemoryContext cxt, bool in_place);
extern BloomFilter *pgbf_bloom_intersection(BloomFilter *a, const BloomFilter *b,
											MemoryContext cxt, bool in_place);

#endif							/* BLOOMFILTER_SQL_H */
