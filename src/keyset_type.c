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

/* defines bloom_keyset_in, bloom_keyset_recv and bloom_keyset_from_bytea */
PGBF_INPUT_FUNCS(bloom_keyset, keyset_check, "bloom_keyset")

void
pgbf_keyset_too_many(const KeySet *ks)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many distinct inputs for a self-sizing aggregate (at most %llu)",
					(unsigned long long) KEYSET_MAX_COUNT),
			 ks->target == BF_KIND_BLOOM ?
			 errhint("Give bloom_agg a capacity: bloom_agg(x, capacity, fpr) does not keep its inputs.") :
			 errhint("Build the filter in batches with the array form of its add function.")));
}

/*
 * Merge a pending state's queued hashes into its set (see keyset.h).
 *
 * A set of KEYSET_INPLACE_MIN_COUNT hashes or more grows in place: the
 * queue is sorted through the room added after it and merged in from the
 * top down (keyset_merge_queue_inplace), so the flush holds the set, its
 * growth and the queue, where a merge into a new value holds the old set
 * as well: about half the memory of a big state.  A smaller set is merged
 * into a new value, which is faster (keyset.h), as is one this state does
 * not own as a palloc chunk of its own (an aligned copy from
 * pgbf_pending_copy_flat).  The bytes depend only on the set, so when and
 * how this runs does not show in the result.
 */
static void
keyset_flush(PgbfPending *p)
{
	KeySet	   *ks = (KeySet *) p->flat;
	size_t		n = p->npending;

	if (p->flat_alloc == (void *) p->flat && ks->count >= KEYSET_INPLACE_MIN_COUNT)
	{
		ks = pgbf_grow_value(ks, keyset_size_for(ks->count + n));
		p->flat = (struct varlena *) ks;
		p->flat_alloc = ks;
		(void) keyset_merge_queue_inplace(ks, p->pending, n);
	}
	else
	{
		size_t		buflen = keyset_sort_buffer_len(n);
		uint64		small[KEYSET_MIN_QUEUE];
		uint64	   *scratch = small;
		KeySet	   *nks;

		if (buflen > lengthof(small))
			scratch = MemoryContextAllocHuge(p->hdr.eoh_context, buflen * sizeof(uint64));
		nks = pgbf_alloc_value_uninit(p->hdr.eoh_context, keyset_size_for(ks->count + n));
		(void) keyset_merge_queue(ks, p->pending, n, scratch, nks);
		if (scratch != small)
			pfree(scratch);
		pgbf_pending_set_flat(p, (struct varlena *) nks, nks);
		ks = nks;
	}
	p->npending = 0;
	if (ks->count > KEYSET_MAX_COUNT)
		pgbf_keyset_too_many(ks);
	SET_VARSIZE(ks, keyset_size_for(ks->count));
}

/* the queue a keyset's pending state aims for: about the set's size */
static size_t
keyset_queue_want(PgbfPending *p)
{
	return keyset_queue_target((const KeySet *) p->flat, (size_t) p->maxpending);
}

/*
 * The first row of pgbf_keyset_trans (keyset_sql.h), or a state that is
 * not this aggregate's pending state: make or adopt the pending state.
 */
PgbfPending *
pgbf_keyset_start(FunctionCallInfo fcinfo, BfKind target)
{
	MemoryContext aggcxt = pgbf_agg_context(fcinfo);
	PgbfPending *p;
	double		fpr = 0.01;
	int64		capacity = 0;
	char		errbuf[BF_ERRLEN];

	if (aggcxt == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate transition function called in non-aggregate context")));
	p = pgbf_pending_arg(fcinfo, aggcxt, keyset_flush);
	if (p != NULL)
	{
		p->queue_target = keyset_queue_want;
		return p;
	}
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
	return pgbf_keyset_new_pending(aggcxt, target, fpr, capacity);
}

/*
 * A new, empty pending state in aggcxt for target's aggregate with these
 * (already checked) parameters; capacity 0 for the self-sizing forms.
 */
PgbfPending *
pgbf_keyset_new_pending(MemoryContext aggcxt, BfKind target, double fpr, int64 capacity)
{
	PgbfPending *p = pgbf_pending_new(aggcxt, keyset_flush);
	KeySet	   *ks;

	p->queue_target = keyset_queue_want;
	ks = pgbf_alloc_value_uninit(p->hdr.eoh_context, keyset_size_for(0));
	keyset_init(ks, target, 1, fpr, (uint64) capacity, BF_DEFAULT_SEED);
	pgbf_pending_set_flat(p, (struct varlena *) ks, ks);
	return p;
}

/* merge two partial states; NULL-safe, in place into the first */
PG_FUNCTION_INFO_V1(bloom_keyset_combine);
Datum
bloom_keyset_combine(PG_FUNCTION_ARGS)
{
	KeySet	   *a,
			   *b,
			   *u;
	char		errbuf[BF_ERRLEN];
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
	/* a merge: the union of two sets, each ascending */
	u = MemoryContextAllocHuge(CurrentMemoryContext, keyset_size_for(a->count + b->count));
	if (keyset_union(a, b, u) > KEYSET_MAX_COUNT)
		pgbf_keyset_too_many(u);
	SET_VARSIZE(u, keyset_size_for(u->count));
	return pgbf_state_result(fcinfo, (struct varlena *) u);
}

/*
 * The state a final function builds from, its queue merged in (so its set
 * holds every distinct hash, ascending) and the queue's memory freed: the
 * build does not need it, and most often no row follows.  With zero input
 * rows the state is NULL; then the parameters come from the aggregate's
 * constant arguments (fpr_argno / capacity_argno, -1 for none), so an
 * empty result still has the geometry that was asked for.  Returns NULL
 * state with *fpr / *capacity filled in, or the state.
 */
const KeySet *
pgbf_keyset_of_state(Datum state)
{
	const KeySet *ks = (const KeySet *) pgbf_state_flat(state);
	PgbfPending *p = pgbf_state_pending(state);

	if (p != NULL)
		pgbf_pending_release_queue(p);
	return ks;
}

const KeySet *
pgbf_keyset_final_state(FunctionCallInfo fcinfo, int fpr_argno, int capacity_argno,
						double *fpr, int64 *capacity)
{
	Datum		d;

	if (!PG_ARGISNULL(0))
	{
		const KeySet *ks = pgbf_keyset_of_state(PG_GETARG_DATUM(0));

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
