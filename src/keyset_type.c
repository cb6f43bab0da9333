/*
 * keyset_type.c
 *		SQL glue for bloom_keyset, the state type of every self-sizing
 *		aggregate: I/O (its text form is what Citus ships between nodes),
 *		the shared transition and combine functions, and the final-function
 *		helper each filter type builds from.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "keyset.h"
#include "keyset_sql.h"
#include "pg_common.h"

#define KEYSET_INITIAL_SLOTS 64	/* small: one per group of a GROUP BY */

PGBF_INPUT_FUNCS(bloom_keyset, keyset_check, "bloom_keyset")

/*
 * A copy of ks with at least min_slots slots, allocated in cxt by
 * pgbf_alloc_value_aligned (*alloc) when alloc is given, else palloc'd.
 */
static KeySet *
keyset_resized(const KeySet *ks, uint64 min_slots, MemoryContext cxt, void **alloc)
{
	uint64		nslots = ks->nslots;
	KeySet	   *nks;

	while (nslots < min_slots)
		nslots *= 2;
	if (nslots > KEYSET_MAX_SLOTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct inputs for a self-sizing aggregate (at most %llu)",
						(unsigned long long) KEYSET_MAX_COUNT),
				 ks->target == BF_KIND_BLOOM ?
				 errhint("Give bloom_agg a capacity: bloom_agg(x, capacity, fpr) does not keep its inputs.") :
				 errhint("Build the filter in batches with the array form of its add function.")));
	/* keyset_init clears everything after the varlena header */
	nks = alloc ? pgbf_alloc_value_aligned(cxt, keyset_size_for_slots(nslots), alloc)
		: pgbf_alloc_value_uninit(cxt, keyset_size_for_slots(nslots));
	keyset_init(nks, nslots, ks->target, ks->layout, ks->fpr, ks->capacity, ks->hdr.seed);
	keyset_rehash_into(ks, nks);
	return nks;
}

/*
 * Apply a pending state's queued hashes to its keyset in arrival order,
 * with the same grow decisions as one at a time (grow only when a new hash
 * would overload the table), so the bytes are those of a row-by-row build.
 * The home slots are prefetched a few hashes ahead: a keyset of millions of
 * hashes is far bigger than the caches.
 */
static void
keyset_flush(PgbfPending *p)
{
	KeySet	   *ks = (KeySet *) p->flat;
	const uint64 *h = p->pending;
	size_t		n = p->npending;

	for (;;)
	{
		size_t		done = keyset_add_many(ks, h, n);
		void	   *alloc;

		h += done;
		n -= done;
		if (n == 0)
			break;
		ks = keyset_resized(ks, keyset_grow_slots(ks), p->hdr.eoh_context, &alloc);
		pgbf_pending_set_flat(p, (struct varlena *) ks, alloc);
	}
	p->npending = 0;
}

/*
 * Transition for target's self-sizing aggregates:
 * (state, x), (state, x, fpr) or (state, x, capacity, fpr).  The state is
 * a pending state (see pg_common.h) around the keyset: updated in place,
 * never copied by the executor, and the table grows inside it.
 */
Datum
pgbf_keyset_trans(FunctionCallInfo fcinfo, BfKind target, PgbfElem kind)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);
	MemoryContext aggcxt = NULL;

	if (p == NULL)
	{
		aggcxt = pgbf_agg_context(fcinfo);
		if (aggcxt == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregate transition function called in non-aggregate context")));
		p = pgbf_pending_arg(fcinfo, aggcxt, keyset_flush);
	}
	if (p == NULL)
	{
		double		fpr = 0.01;
		int64		capacity = 0;
		char		errbuf[BF_ERRLEN];
		KeySet	   *ks;
		void	   *alloc;

		if (PG_NARGS() >= 3 && !PG_ARGISNULL(PG_NARGS() - 1))
			fpr = PG_GETARG_FLOAT8(PG_NARGS() - 1);
		if (PG_NARGS() >= 4)
		{
			if (PG_ARGISNULL(2))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("capacity must not be NULL")));
			capacity = PG_GETARG_INT64(2);
		}
		if (PG_NARGS() >= 3 && PG_ARGISNULL(PG_NARGS() - 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("fpr must not be NULL")));
		if (bf_check_params(PG_NARGS() >= 4 ? capacity : 1, fpr, errbuf) != BF_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s", errbuf)));
		p = pgbf_pending_new(aggcxt, keyset_flush);
		ks = pgbf_alloc_value_aligned(p->hdr.eoh_context,
									  keyset_size_for_slots(KEYSET_INITIAL_SLOTS), &alloc);
		keyset_init(ks, KEYSET_INITIAL_SLOTS, target, 1, fpr, (uint64) capacity,
					BF_DEFAULT_SEED);
		pgbf_pending_set_flat(p, (struct varlena *) ks, alloc);
	}
	if (!PG_ARGISNULL(1))
	{
		KeySet	   *ks = (KeySet *) p->flat;
		uint64		h = pgbf_hash_arg(fcinfo, 1, kind, ks->hdr.seed);

		pgbf_pending_push(p, h);
	}
	PG_RETURN_DATUM(pgbf_pending_datum(p));
}

/* merge two partial states; NULL-safe, in place into the first */
PG_FUNCTION_INFO_V1(bloom_keyset_combine);
Datum
bloom_keyset_combine(PG_FUNCTION_ARGS)
{
	KeySet	   *a,
			   *b;
	char		errbuf[BF_ERRLEN];
	uint64		need;
	Datum		result;

	if (pgbf_agg_context(fcinfo) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate combine function called in non-aggregate context")));
	if (pgbf_combine_nulls(fcinfo, &result))
		return result;
	b = (KeySet *) pgbf_state_flat(PG_GETARG_DATUM(1));
	a = (KeySet *) pgbf_state_flat(PG_GETARG_DATUM(0));
	if (keyset_check_compatible(a, b, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	need = keyset_slots_for(a->count + b->count);
	if (need > a->nslots)
		a = keyset_resized(a, need, CurrentMemoryContext, NULL);
	if (b->has_zero)
		(void) keyset_add(a, 0);
	for (uint64 i = 0; i < b->nslots; i++)
		if (b->slots[i] != 0)
			(void) keyset_add(a, b->slots[i]);
	return pgbf_state_result(fcinfo, (struct varlena *) a);
}

/*
 * The state a final function builds from.  With zero input rows the state
 * is NULL; then the parameters come from the aggregate's constant
 * arguments (fpr_argno / capacity_argno, -1 for none), so an empty result
 * still has the geometry that was asked for.  Returns NULL state with
 * *fpr / *capacity filled in, or the state.
 */
const KeySet *
pgbf_keyset_final_state(FunctionCallInfo fcinfo, int fpr_argno, int capacity_argno,
						double *fpr, int64 *capacity)
{
	Datum		d;

	if (!PG_ARGISNULL(0))
	{
		const KeySet *ks = (const KeySet *) pgbf_state_flat(PG_GETARG_DATUM(0));

		*fpr = ks->fpr;
		*capacity = (int64) ks->capacity;
		return ks;
	}
	*fpr = 0.01;
	*capacity = 0;
	if (fpr_argno >= 0 && pgbf_agg_const_arg(fcinfo, fpr_argno, &d))
		*fpr = DatumGetFloat8(d);
	if (capacity_argno >= 0 && pgbf_agg_const_arg(fcinfo, capacity_argno, &d))
		*capacity = DatumGetInt64(d);
	return NULL;
}
