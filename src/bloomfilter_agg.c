/*
 * bloomfilter_agg.c
 *		bloom_agg in its three forms, bloom_union_agg and
 *		bloom_intersection_agg.
 *
 * bloom_agg(x, capacity, fpr): the state is the bloomfilter itself, set in
 * place row by row.  bloom_agg(x) and bloom_agg(x, fpr): the state is a
 * bloom_keyset of distinct hashes, and the final function builds a filter
 * sized for exactly that many elements.  Every state is a real type with
 * an exact text form and every aggregate has a combine function, so
 * parallel plans and Citus can build partial states anywhere and merge.
 */
#include "postgres.h"

#include "bloom.h"
#include "bloomfilter_sql.h"
#include "keyset_sql.h"
#include "pg_common.h"

static MemoryContext
require_agg(FunctionCallInfo fcinfo)
{
	MemoryContext cxt = pgbf_agg_context(fcinfo);

	if (cxt == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate support function called in non-aggregate context")));
	return cxt;
}

/*
 * Apply queued hashes.  bloom_agg(x, capacity, fpr) does not grow its
 * filter: a partial state (a parallel worker's, a Citus shard's) cannot
 * know which of its elements a serial build would have put in a later
 * stage, so a grown filter would depend on the plan.  Past what the stage
 * holds (rate_units past its limit), every plan raises the same error: a
 * serial build on the add that would pass the limit, a combine when the
 * union passes it (bloom_union_into), which is the same condition as the
 * rate of a set of bits only grows as bits are added.
 */
static void
bloom_flush(PgbfPending *p)
{
	BloomFilter *f = (BloomFilter *) p->flat;
	BloomAddResult r;
	size_t		done = bloom_add_hashes(f, p->pending, p->npending, &r);

	if (done < p->npending)
		pgbf_bloom_agg_full(f);
	p->npending = 0;
}

/* bloom_agg(x, capacity, fpr)'s state at its first row (also the build scan's) */
PgbfPending *
pgbf_bloom_agg_new_pending(MemoryContext aggcxt, int64 capacity, double fpr)
{
	PgbfPending *p = pgbf_pending_new(aggcxt, bloom_flush);

	pgbf_bloom_new_pending(p, capacity, fpr, BLOOM_LAYOUT_BLOCKED, true);
	return p;
}

/*
 * (state, x, capacity, fpr).  The state is a pending state around the
 * filter (see pg_common.h): updated in place, never copied per row; a
 * stage added when it grows is allocated inside it.
 */
static Datum
bloom_agg_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);
	MemoryContext aggcxt;

	if (p == NULL)
	{
		aggcxt = require_agg(fcinfo);
		p = pgbf_pending_arg(fcinfo, aggcxt, bloom_flush);
	}
	if (p == NULL)
	{
		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("capacity and fpr must not be NULL")));
		p = pgbf_bloom_agg_new_pending(aggcxt, PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3));
	}
	if (!PG_ARGISNULL(1))
	{
		BloomFilter *f = (BloomFilter *) p->flat;
		uint64		h = pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed);

		pgbf_pending_push(p, h);
	}
	PG_RETURN_DATUM(pgbf_pending_datum(p));
}

/*
 * defines bloom_agg_trans_text, bloom_agg_trans_int8 and bloom_agg_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(bloom_agg_trans, bloom_agg_trans_impl)

static Datum
bloom_keyset_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	return pgbf_keyset_trans(fcinfo, BF_KIND_BLOOM, kind);
}

/*
 * defines bloom_keyset_trans_text, bloom_keyset_trans_int8 and bloom_keyset_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(bloom_keyset_trans, bloom_keyset_trans_impl)

/*
 * Combine two filter states (also bloom_union_agg's transition):
 * NULL-safe, in place into the first when it has at least as many stages.
 */
PG_FUNCTION_INFO_V1(bloom_union_trans);
Datum
bloom_union_trans(PG_FUNCTION_ARGS)
{
	Datum		result;
	BloomFilter *b;

	require_agg(fcinfo);
	if (pgbf_combine_nulls(fcinfo, &result))
		return result;
	b = (BloomFilter *) pgbf_state_flat(PG_GETARG_DATUM(1));
	return pgbf_state_result(fcinfo, (struct varlena *)
							 pgbf_bloom_union((BloomFilter *) pgbf_state_flat(PG_GETARG_DATUM(0)),
											  b, CurrentMemoryContext, true));
}

PG_FUNCTION_INFO_V1(bloom_intersection_trans);
Datum
bloom_intersection_trans(PG_FUNCTION_ARGS)
{
	Datum		result;
	BloomFilter *b;

	require_agg(fcinfo);
	if (pgbf_combine_nulls(fcinfo, &result))
		return result;
	b = (BloomFilter *) pgbf_state_flat(PG_GETARG_DATUM(1));
	return pgbf_state_result(fcinfo, (struct varlena *)
							 pgbf_bloom_intersection((BloomFilter *) pgbf_state_flat(PG_GETARG_DATUM(0)),
													 b, CurrentMemoryContext, true));
}

/*
 * Final function of the filter-state aggregates: zero rows give an empty
 * filter, never NULL (a NULL would make WHERE NOT bloom_contains(f, x)
 * drop every row).  The empty filter gets the capacity and fpr the call
 * asked for when they are constants.
 */
/* bloom_agg(x, capacity, fpr)'s value from its state (NULL: zero rows) */
static Datum
bloom_from_filter_state(Datum state, bool isnull, int64 capacity, double fpr)
{
	if (!isnull)
	{
		/* a flat copy: a pending state must not leave the aggregate */
		struct varlena *v = pgbf_state_flat(state);
		struct varlena *copy = palloc(VARSIZE(v));

		bf_copy(copy, v, VARSIZE(v));
		PG_RETURN_POINTER(copy);
	}
	PG_RETURN_POINTER(pgbf_bloom_new(CurrentMemoryContext, capacity, fpr,
									 BLOOM_LAYOUT_BLOCKED, true));
}

PG_FUNCTION_INFO_V1(bloom_agg_final);
Datum
bloom_agg_final(PG_FUNCTION_ARGS)
{
	Datum		d;
	int64		capacity = 1;
	double		fpr = 0.01;

	if (PG_ARGISNULL(0))
	{
		if (pgbf_agg_const_arg(fcinfo, 1, &d))
			capacity = DatumGetInt64(d);
		if (pgbf_agg_const_arg(fcinfo, 2, &d))
			fpr = DatumGetFloat8(d);
	}
	return bloom_from_filter_state(PG_GETARG_DATUM(0), PG_ARGISNULL(0), capacity, fpr);
}

/* union/intersection aggregates: their argument is the filter, no params */
PG_FUNCTION_INFO_V1(bloom_combine_final);
Datum
bloom_combine_final(PG_FUNCTION_ARGS)
{
	if (!PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_POINTER(pgbf_bloom_new(CurrentMemoryContext, 1, 0.01,
									 BLOOM_LAYOUT_BLOCKED, true));
}

/* bloom_agg(x) and bloom_agg(x, fpr)'s value from the keyset (NULL: zero rows) */
static Datum
bloom_from_keyset(const KeySet *ks, double fpr)
{
	BloomFilter *f;

	f = pgbf_bloom_new(CurrentMemoryContext,
					   ks && ks->count > 0 ? (int64) ks->count : 1,
					   fpr, BLOOM_LAYOUT_BLOCKED, true);
	if (ks == NULL)
		PG_RETURN_POINTER(f);

	/*
	 * The distinct hashes in ascending order: a block is chosen by the top
	 * bits, so this walks the filter sequentially.  All bits first, counted
	 * once at the end: same bytes (see bloom.c); else one by one (the
	 * filter may grow, and move: the result is the filter).
	 */
	if (bloom_can_build_unchecked(f))
	{
		bloom_set_unchecked(f, ks->hashes, ks->count);
		if (bloom_finish_unchecked(f))
			PG_RETURN_POINTER(f);
	}
	PG_RETURN_POINTER(pgbf_bloom_add_many(f, ks->hashes, ks->count, CurrentMemoryContext, true));
}

PG_FUNCTION_INFO_V1(bloom_keyset_final);
Datum
bloom_keyset_final(PG_FUNCTION_ARGS)
{
	double		fpr;
	int64		capacity;
	const KeySet *ks = pgbf_keyset_final_state(fcinfo, 1, -1, &fpr, &capacity);

	return bloom_from_keyset(ks, fpr);
}

PgbfPending *
pgbf_bloom_agg_start(MemoryContext cxt, double fpr, int64 capacity, bool sized)
{
	if (sized)
		return pgbf_bloom_agg_new_pending(cxt, capacity, fpr);
	return pgbf_keyset_new_pending(cxt, BF_KIND_BLOOM, fpr, capacity);
}

Datum
pgbf_bloom_agg_finish(PgbfPending *state, double fpr, int64 capacity, bool sized)
{
	Datum		d = state != NULL ? pgbf_pending_datum(state) : (Datum) 0;

	if (sized)
		return bloom_from_filter_state(d, state == NULL, capacity, fpr);
	if (state == NULL)
		return bloom_from_keyset(NULL, fpr);
	return bloom_from_keyset(pgbf_keyset_of_state(d), ((const KeySet *) state->flat)->fpr);
}
