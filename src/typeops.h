/*
 * typeops.h
 *		What a filter type offers the scans, as a table of operations each
 *		type file exports (pgbf_*_ops, funcs.h lists them).  The scans reach
 *		a type only through this table, so a type file never includes a
 *		scan's header, and nothing below the scans points up at them.
 */
#ifndef PGBF_TYPEOPS_H
#define PGBF_TYPEOPS_H

#include "pg_common.h"

/*
 * scan_filter for a type that derives nothing: the cached value, *aux NULL
 * (argcache.c)
 */
extern const void *pgbf_scan_filter_cached(FunctionCallInfo fcinfo, double expected_probes,
										   const void **aux);

typedef struct PgbfTypeOps
{
	const char *name;			/* the SQL type */
	BfKind		kind;

	/*
	 * The filter in argument 0 of fcinfo (not NULL), for a scan expected to
	 * probe it about expected_probes times: the cached value, and in *aux
	 * what the type derives from it to answer faster (NULL: nothing).
	 * The value's seed is its BfHeader's.
	 */
	const void *(*scan_filter) (FunctionCallInfo fcinfo, double expected_probes,
								const void **aux);

	/* the answers for n hashes at once, the cache misses overlapped */
	void		(*probe_many) (const void *f, const void *aux, const uint64 *h, size_t n,
							   bool *out);

	/*
	 * The state of the type's aggregate (bloom_agg, counting_bloom_agg,
	 * cuckoo_agg) as its transition makes it at the first row, in cxt, for
	 * the call's fpr and capacity (0 when not given); sized: the call gave
	 * a capacity, (x, capacity, fpr).
	 */
	PgbfPending *(*agg_start) (MemoryContext cxt, double fpr, int64 capacity, bool sized);

	/*
	 * The aggregate's value from that state (NULL: zero rows), as its final
	 * function makes it, in CurrentMemoryContext.
	 */
	Datum		(*agg_finish) (PgbfPending *state, double fpr, int64 capacity, bool sized);
} PgbfTypeOps;

#endif							/* PGBF_TYPEOPS_H */
