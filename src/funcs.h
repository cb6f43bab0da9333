/*
 * funcs.h
 *		The type registry: the extension's functions the scans answer or
 *		stand in for, known by their catalog OIDs (funcs.c), each with the
 *		operations of its filter type (typeops.h).
 */
#ifndef PGBF_FUNCS_H
#define PGBF_FUNCS_H

#include "typeops.h"

/* each type file's operations */
extern PGDLLIMPORT const PgbfTypeOps pgbf_bloom_ops;
extern PGDLLIMPORT const PgbfTypeOps pgbf_counting_ops;
extern PGDLLIMPORT const PgbfTypeOps pgbf_cuckoo_ops;

typedef enum PgbfFuncRole
{
	PGBF_FN_NONE = 0,			/* not one of these */
	PGBF_FN_CONTAINS,			/* contains(f, x): a row probe, filter first */
	PGBF_FN_CONTAINED,			/* contained(x, f): the same, element first */
	PGBF_FN_INDEX_CONTAINS,		/* bloom_index_contains(index, x) */
	PGBF_FN_URL_NORMALIZE,		/* url_normalize(text) */
	PGBF_FN_AGG				/* bloom_agg, counting_bloom_agg, cuckoo_agg */
} PgbfFuncRole;

typedef struct PgbfFuncInfo
{
	PgbfFuncRole role;
	const PgbfTypeOps *ops;		/* the filter type (NULL for the index and url) */
	PgbfElem	kind;			/* the element's kind (row probes, aggregates) */
	int			nargs;
} PgbfFuncInfo;

/*
 * What funcid is, for a function of the bloomfilter extension of this
 * database (whatever schema it is in); role PGBF_FN_NONE for any other
 * function.  Cached per backend, rebuilt after any change to pg_proc.
 */
extern PgbfFuncInfo pgbf_func_info(Oid funcid);

/* set up the cache's invalidation: _PG_init */
extern void pgbf_funcs_init(void);

#endif							/* PGBF_FUNCS_H */
