/*
 * bloomfilter_sql.h
 *		Helpers shared by the bloomfilter SQL functions and aggregates.
 */
#ifndef BLOOMFILTER_SQL_H
#define BLOOMFILTER_SQL_H

#include "postgres.h"

#include "bloom.h"
#include "pg_common.h"

extern BloomFilter *pgbf_bloom_new(MemoryContext cxt, int64 capacity, double fpr,
								   int layout, bool scalable);
/* the same, made p's value (pgbf_pending_set_flat) */
extern void pgbf_bloom_new_pending(PgbfPending *p, int64 capacity, double fpr,
								   int layout, bool scalable);
/* bloom_agg(x, capacity, fpr)'s state (its transition and the build scan) */
extern PgbfPending *pgbf_bloom_agg_new_pending(MemoryContext aggcxt, int64 capacity, double fpr);
extern size_t pgbf_bloom_grown_size(const BloomFilter *f, BloomAddResult r);
extern pg_noreturn void pgbf_bloom_agg_full(const BloomFilter *f);
extern BloomFilter *pgbf_bloom_add(BloomFilter *f, uint64 h, MemoryContext cxt,
								   bool free_old);
extern BloomFilter *pgbf_bloom_add_many(BloomFilter *f, const uint64 *h, size_t n,
										MemoryContext cxt, bool free_old);
extern BloomFilter *pgbf_bloom_union(BloomFilter *a, const BloomFilter *b,
									 MemoryContext cxt, bool in_place);
extern BloomFilter *pgbf_bloom_intersection(BloomFilter *a, const BloomFilter *b,
											MemoryContext cxt, bool in_place);

/* bloom_agg's state and value, for the build scan (typeops.h) */
extern PgbfPending *pgbf_bloom_agg_start(MemoryContext cxt, double fpr, int64 capacity,
										 bool sized);
extern Datum pgbf_bloom_agg_finish(PgbfPending *state, double fpr, int64 capacity, bool sized);

#endif							/* BLOOMFILTER_SQL_H */
