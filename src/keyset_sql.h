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

extern PgbfPending *pgbf_keyset_start(FunctionCallInfo fcinfo, BfKind target);
extern PgbfPending *pgbf_keyset_new_pending(MemoryContext aggcxt, BfKind target, double fpr,
											int64 capacity);

/*
 * Transition for target's self-sizing aggregates:
 * (state, x), (state, x, fpr) or (state, x, capacity, fpr).  The state is
 * a pending state (see pg_common.h) around the keyset: updated in place,
 * never copied by the executor, and the set grows inside it.  Inline, so
 * each entry point's row is a hash and a store (kind is a constant there);
 * the first row makes the state out of line (pgbf_keyset_start).
 */
static inline Datum
pgbf_keyset_trans(FunctionCallInfo fcinfo, BfKind target, PgbfElem kind)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);

	if (unlikely(p == NULL))
		p = pgbf_keyset_start(fcinfo, target);
	if (!PG_ARGISNULL(1))
		pgbf_pending_push(p, pgbf_hash_arg(fcinfo, 1, kind, ((KeySet *) p->flat)->hdr.seed));
	PG_RETURN_DATUM(pgbf_pending_datum(p));
}
/* ERROR: more distinct inputs than a keyset holds */
extern pg_noreturn void pgbf_keyset_too_many(const KeySet *ks);
/*
 * A keyset state's set with its queue merged in (every distinct hash,
 * ascending) and the queue's memory freed: what a final function builds
 * from (keyset_type.c)
 */
extern const KeySet *pgbf_keyset_of_state(Datum state);
extern const KeySet *pgbf_keyset_final_state(FunctionCallInfo fcinfo, int fpr_argno,
											 int capacity_argno, double *fpr,
											 int64 *capacity);

#endif							/* KEYSET_SQL_H */
