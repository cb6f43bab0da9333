/*
 * cuckoofilter_sql.h
 *		Helpers shared by the cuckoofilter SQL functions and aggregates.
 */
#ifndef CUCKOOFILTER_SQL_H
#define CUCKOOFILTER_SQL_H

#include "postgres.h"

#include "cuckoo.h"
#include "pg_common.h"

extern CuckooFilter *pgbf_cuckoo_new(MemoryContext cxt, int64 capacity, double fpr);
extern CuckooFilter *pgbf_cuckoo_new_buckets(MemoryContext cxt, uint64 nbuckets,
											 int64 capacity, double fpr);
extern CuckooFilter *pgbf_cuckoo_add(CuckooFilter *f, uint64 h, MemoryContext cxt,
									 bool free_old);
extern CuckooFilter *pgbf_cuckoo_add_hashes(CuckooFilter *f, const uint64 *hashes,
											uint64 n, MemoryContext cxt, bool free_old);
extern CuckooFilter *pgbf_cuckoo_load_sorted(CuckooFilter *f, const uint64 *hashes,
											 uint64 n, MemoryContext cxt);

/* where a bulk load of n hashes puts what it leaves */
typedef struct PgbfCuckooLeft
{
	uint64	   *buf;
	uint64		room;			/* hashes buf holds */
} PgbfCuckooLeft;

extern void pgbf_cuckoo_left_init(PgbfCuckooLeft *left, uint64 n);
extern uint64 pgbf_cuckoo_load_left(CuckooFilter *f, const uint64 *hashes, uint64 n,
									PgbfCuckooLeft *left);

/* cuckoo_agg's state and value, for the build scan (typeops.h) */
extern PgbfPending *pgbf_cuckoo_agg_start(MemoryContext cxt, double fpr, int64 capacity,
										  bool sized);
extern Datum pgbf_cuckoo_agg_finish(PgbfPending *state, double fpr, int64 capacity, bool sized);

#endif							/* CUCKOOFILTER_SQL_H */
