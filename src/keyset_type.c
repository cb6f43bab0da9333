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

#define KEYSET_INITIAL_SLOTS 1024

PGBF_INPUT_FUNCS(bloom_keyset, keyset_check, "bloom_keyset")

/* a copy of ks with at least min_slots slots, in CurrentMemoryContext */
static KeySet *
keyset_resized(const KeySet *ks, uint64 min_slots)
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
	nks = pgbf_alloc_value(CurrentMemoryContext, keyset_size_for_slots(nslots));
	keyset_init(nks, nslots, ks->target, ks->layout, ks->fpr, ks->capacity, ks->hdr.seed);
	keyset_rehash_into(ks, nks);
	return nks;
}

/* slots needed to hold count hashes under the load limit */
static uint64
slots_for(uint64 count)
{
	return (count * KEYSET_MAX_LOAD_DEN) / KEYSET_MAX_LOAD_NUM + 1;
}

/*
 * Transition for target's self-sizing aggregates:
 * (state, x), (state, x, fpr) or (state, x, capacity, fpr).  The state is
 * updated in place; it moves (and the executor frees the old one) only
 * when the table doubles, so no row copies it.
 */
Datum
pgbf_keyset_trans(FunctionCallInfo fcinfo, BfKind target, PgbfElem kind)
{
	KeySet	   *ks;
	uint64		h;

	if (pgbf_agg_context(fcinfo) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate transition function called in non-aggregate context")));
	if (PG_ARGISNULL(0))
	{
		double		fpr = 0.01;
		int64		capacity = 0;
		char		errbuf[BF_ERRLEN];

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
		ks = pgbf_alloc_value(CurrentMemoryContext, keyset_size_for_slots(KEYSET_INITIAL_SLOTS));
		keyset_init(ks, KEYSET_INITIAL_SLOTS, target, 1, fpr, (uint64) capacity,
					BF_DEFAULT_SEED);
	}
	else
		ks = (KeySet *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(ks);
	h = pgbf_hash_arg(fcinfo, 1, kind, ks->hdr.seed);
	if (h != 0 && keyset_needs_grow(ks) && !keyset_contains(ks, h))
		ks = keyset_resized(ks, ks->nslots * 2);
	(void) keyset_add(ks, h);
	PG_RETURN_POINTER(ks);
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
	b = (KeySet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));
	a = (KeySet *) PG_GETARG_POINTER(0);
	if (keyset_check_compatible(a, b, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	need = slots_for(a->count + b->count);
	if (need > a->nslots)
		a = keyset_resized(a, need);
	if (b->has_zero)
		(void) keyset_add(a, 0);
	for (uint64 i = 0; i < b->nslots; i++)
		if (b->slots[i] != 0)
			(void) keyset_add(a, b->slots[i]);
	PG_RETURN_POINTER(a);
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
		const KeySet *ks = (const KeySet *) PG_GETARG_POINTER(0);

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
