/*
 * keyset_sql.h
 *		The self-sizing aggregate machinery every filter type shares.
 */
#ifndef KEYSET_SQL_H
#define KEYSET_SQL_H

#include "postgres.h"

#include "fmgr.h"

#include "keyset.h"
#include "pg_common.h"

extern Datum pgbf_keyset_trans(FunctionCallInfo fcinfo, BfKind target, PgbfElem kind);
/* ERROR: more distinct inputs than a keyset holds */
extern void pgbf_keyset_too_many(const KeySet *ks) pg_attribute_noreturn();
extern const KeySet *pgbf_keyset_final_state(FunctionCallInfo fcinfo, int fpr_argno,
											 int capacity_argno, double *fpr,
											 int64 *capacity);
/*
 * The same, but a pending state's queue is not merged in first: it is
 * returned in *queue / *nqueue (NULL / 0 for none), for a final function
 * that merges it into an array of its own (cuckoo_agg's, with
 * keyset_merge_queue).
 */
extern const KeySet *pgbf_keyset_final_state_queued(FunctionCallInfo fcinfo, int fpr_argno,
													int capacity_argno, double *fpr,
													int64 *capacity, const uint64 **queue,
													size_t *nqueue);

#endif							/* KEYSET_SQL_H */
