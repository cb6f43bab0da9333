/*
 * stablebloom_type.c
 *		SQL glue for stablebloom: I/O, create, add, probe, info, and the two
 *		stream aggregates stable_bloom_agg and stable_bloom_seen.
 *
 * Both aggregates have the filter itself as their state, updated in place
 * row by row.  Neither has a combine function, and that is deliberate: a
 * stable Bloom filter is a function of the order of its stream.  The
 * filter of "first half, then second half" is not computable from the
 * filters of the two halves: a cell the second half never set ends as the
 * first half's value minus the decrements the second half drew for it,
 * which the second half's filter does not record, and the second half's
 * decrement positions come from a PRNG that should have continued from
 * the first half's state.  So these aggregates run serially (they remain
 * PARALLEL SAFE: a worker may run a whole aggregate, only partial
 * aggregation is ruled out).
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "pg_common.h"
#include "stable.h"

/* the one checker every input path (text, binary, bytea) runs */
/* defines stablebloom_in, stablebloom_recv and stablebloom_from_bytea */
PGBF_INPUT_FUNCS(stablebloom, stable_check, "stablebloom")

/*
 * A new empty filter in cxt, raising the contract's errors for bad
 * parameters (22023) and values that would not fit (54000).
 */
static StableFilter *
stable_new(MemoryContext cxt, int64 cells, double fpr, int32 cell_bits)
{
	char		errbuf[BF_ERRLEN];
	StableParams p;
	BfStatus	st = stable_choose(cells, fpr, cell_bits, &p, errbuf);
	size_t		size;
	StableFilter *f;

	if (st == BF_ERR_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("stablebloom of %lld cells would exceed the 1 GB value limit",
						(long long) cells),
				 errdetail("The largest number of cells of %d bits is %llu.",
						   cell_bits, (unsigned long long) stable_max_cells(cell_bits))));
	if (st != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	size = stable_size((uint64) cells, cell_bits);
	f = pgbf_alloc_value_uninit(cxt, size);
	stable_init(f, size, (uint64) cells, cell_bits, fpr, &p, BF_DEFAULT_SEED);
	return f;
}

PG_FUNCTION_INFO_V1(stable_bloom_create);
Datum
stable_bloom_create(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(stable_new(CurrentMemoryContext, PG_GETARG_INT64(0),
								 PGBF_GETARG_OR(1, PG_GETARG_FLOAT8, STABLE_DEFAULT_FPR),
								 PGBF_GETARG_OR(2, PG_GETARG_INT32, STABLE_DEFAULT_BITS)));
}

/* a private copy to insert into; the aggregate-state flags never leak out */
static StableFilter *
stable_copy_arg(FunctionCallInfo fcinfo, int argno)
{
	StableFilter *f = (StableFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(argno));

	f->hdr.flags = 0;
	return f;
}

static Datum
stable_bloom_add_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	StableFilter *f = stable_copy_arg(fcinfo, 0);

	stable_add_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed));
	PG_RETURN_POINTER(f);
}

/*
 * defines stable_bloom_add_text, stable_bloom_add_int8 and stable_bloom_add_uuid
 */
PGBF_ELEM_ENTRY_POINTS(stable_bloom_add, stable_bloom_add_impl)

/* the array's elements in order, one copy of f for the whole array */
PG_FUNCTION_INFO_V1(stable_bloom_add_array);
Datum
stable_bloom_add_array(PG_FUNCTION_ARGS)
{
	StableFilter *f;
	uint64	   *hashes;
	int			n;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = stable_copy_arg(fcinfo, 0);
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);

	stable_add_hashes(f, hashes, (size_t) n);
	pfree(hashes);
	PG_RETURN_POINTER(f);
}

/*
 * stable_bloom_test_and_add(f, xs): f with every element of xs inserted, in
 * order, and for each element whether it was new (f did not hold it when
 * its turn came: a batch's duplicates are new at most once); NULL for a
 * NULL element.  Every element is inserted, seen or not, as
 * stable_bloom_seen does: a stable filter keeps what was seen recently,
 * and inserting refreshes it.
 */
typedef struct StableTestAndAdd
{
	StableFilter *f;
} StableTestAndAdd;

static void
stable_test_and_add_many(const void *arg, const uint64 *h, size_t n, bool *out)
{
	StableTestAndAdd *t = (StableTestAndAdd *) arg;

	for (size_t i = 0; i < n; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		out[i] = !stable_add_hash(t->f, h[i]);
	}
}

PG_FUNCTION_INFO_V1(stable_bloom_test_and_add_array);
Datum
stable_bloom_test_and_add_array(PG_FUNCTION_ARGS)
{
	StableTestAndAdd t;
	Datum		added;

	t.f = stable_copy_arg(fcinfo, 0);
	added = pgbf_contains_array(fcinfo, 1, &t, t.f->hdr.seed, stable_test_and_add_many);
	PG_RETURN_DATUM(pgbf_filter_and_flags(fcinfo, t.f, added));
}

static Datum
stable_bloom_contains_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const StableFilter *f;
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 0, 1, BoolGetDatum(false), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 0);
	PG_RETURN_BOOL(stable_contains_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed)));
}

/*
 * defines stable_bloom_contains_text, stable_bloom_contains_int8 and stable_bloom_contains_uuid
 */
PGBF_ELEM_ENTRY_POINTS(stable_bloom_contains, stable_bloom_contains_impl)

/* x <@ f: the commutator, element first */
static Datum
stable_bloom_contained_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const StableFilter *f;
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 1, 0, BoolGetDatum(false), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 1);
	PG_RETURN_BOOL(stable_contains_hash(f, pgbf_hash_arg(fcinfo, 0, kind, f->hdr.seed)));
}

/*
 * defines stable_bloom_contained_text, stable_bloom_contained_int8 and stable_bloom_contained_uuid
 */
PGBF_ELEM_ENTRY_POINTS(stable_bloom_contained, stable_bloom_contained_impl)

/*
 * Parameters and what they promise: the stable-point bound, the fill and
 * rate now, and the false-negative model at powers of ten up to the age
 * where an element is as good as forgotten.  Model numbers are rounded
 * (9 decimals) so the output does not depend on the last bit of libm.
 */
PG_FUNCTION_INFO_V1(stable_bloom_info);
Datum
stable_bloom_info(PG_FUNCTION_ARGS)
{
	const StableFilter *f = pgbf_cached_arg(fcinfo, 0);
	uint64		m = f->cells;
	int			d = f->cell_bits;
	double		bound = stable_fpr_bound(m, f->hashes, f->decrement, d);
	double		limit = 1.0 - bound;
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfo(&s, "{\"type\": \"stablebloom\", \"cells\": %llu, \"cell_bits\": %d, "
					 "\"max\": %u, \"hashes\": %u, \"decrement\": %u, \"bytes\": %u, "
					 "\"inserted\": %llu, \"nonzero\": %llu, \"fill\": %.6f, "
					 "\"fpr_target\": %.17g, \"fpr_bound\": %.9f, \"fpr_estimate\": %.9f, "
					 "\"stable_fill\": %.6f, \"memory_half_life\": %.0f, \"fnr_after\": {",
					 (unsigned long long) m, d, (1u << d) - 1, f->hashes, f->decrement,
					 (unsigned) VARSIZE(f), (unsigned long long) f->inserted,
					 (unsigned long long) f->nonzero, (double) f->nonzero / (double) m,
					 f->fpr, bound, stable_fpr_now(f),
					 1.0 - stable_p0(m, f->hashes, f->decrement, d),
					 stable_half_life(m, f->hashes, f->decrement, d));
	for (int e = 1; e <= 18; e++)
	{
		double		n = pow(10.0, e);
		double		fnr = stable_fnr_after(m, f->hashes, f->decrement, d, n);

		appendStringInfo(&s, "%s\"%.0f\": %.9f", e > 1 ? ", " : "", n, fnr);
		if (fnr >= 0.99 * limit)
			break;
	}
	appendStringInfo(&s, "}, \"seed\": %llu, \"hash\": \"xxh3_64\", \"format_version\": %u}",
					 (unsigned long long) f->hdr.seed, f->hdr.version);
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(s.data));
}

/*
 * The model's false-negative rate for an element last inserted age
 * inserts ago (see stable.h): what "forgets" means, as a number.
 */
PG_FUNCTION_INFO_V1(stable_bloom_fnr);
Datum
stable_bloom_fnr(PG_FUNCTION_ARGS)
{
	const StableFilter *f = pgbf_cached_arg(fcinfo, 0);
	int64		age = PG_GETARG_INT64(1);

	if (age < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("age must be at least 0 (got %lld)", (long long) age)));
	PG_RETURN_FLOAT8(stable_fnr_after(f->cells, f->hashes, f->decrement, f->cell_bits,
									  (double) age));
}

/* ---- aggregates ---- */

static void
require_agg(FunctionCallInfo fcinfo)
{
	if (pgbf_agg_context(fcinfo) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate support function called in non-aggregate context")));
}

/*
 * The state of either aggregate, (state, x [, cells, fpr [, cell_bits]])
 * or, for stable_bloom_seen, (state, x, start): the one passed in, a copy
 * of the start filter (so a stream can continue where a stored filter left
 * off), or a new one sized from the arguments (defaults 1M cells, 1%,
 * 3 bits).  A new state is allocated in the per-row context: the executor
 * copies it into the aggregate context once, and every later row updates
 * that copy in place.
 */
static StableFilter *
agg_state(FunctionCallInfo fcinfo)
{
	int64		cells = STABLE_DEFAULT_CELLS;
	double		fpr = STABLE_DEFAULT_FPR;
	int32		cell_bits = STABLE_DEFAULT_BITS;

	require_agg(fcinfo);
	if (!PG_ARGISNULL(0))
		return (StableFilter *) PG_GETARG_POINTER(0);
	if (PG_NARGS() == 3)
	{
		struct varlena *start;
		StableFilter *f;

		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("start filter must not be NULL")));
		start = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));
		f = pgbf_alloc_value_uninit(CurrentMemoryContext, VARSIZE(start));
		bf_copy(f, start, VARSIZE(start));
		f->hdr.flags = 0;
		return f;
	}
	for (int i = 2; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cells, fpr and cell_bits must not be NULL")));
	if (PG_NARGS() > 2)
		cells = PG_GETARG_INT64(2);
	if (PG_NARGS() > 3)
		fpr = PG_GETARG_FLOAT8(3);
	if (PG_NARGS() > 4)
		cell_bits = PG_GETARG_INT32(4);
	return stable_new(CurrentMemoryContext, cells, fpr, cell_bits);
}

/* stable_bloom_agg: insert every non-NULL x, in the aggregate's order */
static Datum
stable_bloom_agg_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	StableFilter *f = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
		stable_add_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed));
	PG_RETURN_POINTER(f);
}

/*
 * defines stable_bloom_agg_trans_text, stable_bloom_agg_trans_int8 and stable_bloom_agg_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(stable_bloom_agg_trans, stable_bloom_agg_trans_impl)

/*
 * Zero rows give an empty filter, never NULL (a NULL would make
 * WHERE NOT stable_bloom_contains(f, x) drop every row), with the
 * parameters the call asked for when they are constants.  Read only: the
 * state is returned, not changed, so this also works as a window function.
 */
PG_FUNCTION_INFO_V1(stable_bloom_agg_final);
Datum
stable_bloom_agg_final(PG_FUNCTION_ARGS)
{
	Datum		d;
	int64		cells = STABLE_DEFAULT_CELLS;
	double		fpr = STABLE_DEFAULT_FPR;
	int32		cell_bits = STABLE_DEFAULT_BITS;

	if (!PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (pgbf_agg_const_arg(fcinfo, 1, &d))
		cells = DatumGetInt64(d);
	if (pgbf_agg_const_arg(fcinfo, 2, &d))
		fpr = DatumGetFloat8(d);
	if (pgbf_agg_const_arg(fcinfo, 3, &d))
		cell_bits = DatumGetInt32(d);
	PG_RETURN_POINTER(stable_new(CurrentMemoryContext, cells, fpr, cell_bits));
}

/*
 * stable_bloom_seen: probe x, then insert it, and keep the answer in the
 * state's flags for the final function.  One probe and one insert per row,
 * in place: used as stable_bloom_seen(x) OVER (ORDER BY ts) the window
 * frame only ever grows at its end, so the executor calls this once per
 * row and the read-only final function once per peer group, never
 * re-aggregating.  A NULL x inserts nothing and answers NULL.
 */
static Datum
stable_bloom_seen_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	StableFilter *f = agg_state(fcinfo);

	f->hdr.flags &= ~STABLE_FLAGS_ALL;
	if (PG_ARGISNULL(1))
		f->hdr.flags |= STABLE_FLAG_LAST_NULL;
	else if (stable_add_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed)))
		f->hdr.flags |= STABLE_FLAG_LAST_SEEN;
	PG_RETURN_POINTER(f);
}

/*
 * defines stable_bloom_seen_trans_text, stable_bloom_seen_trans_int8 and stable_bloom_seen_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(stable_bloom_seen_trans, stable_bloom_seen_trans_impl)

/*
 * The answer for the latest row, read from the state without changing it
 * (FINALFUNC_MODIFY = READ_ONLY is what lets the window machinery call it
 * after every row and keep aggregating).  In RANGE mode (the default frame
 * of OVER (ORDER BY ts)) rows with equal ts are peers: the frame takes in
 * all of them before any gets its value, so they all get the answer of the
 * last peer processed.  Use ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT
 * ROW, or a unique ORDER BY, for one answer per row.
 */
PG_FUNCTION_INFO_V1(stable_bloom_seen_final);
Datum
stable_bloom_seen_final(PG_FUNCTION_ARGS)
{
	const StableFilter *f;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	f = (const StableFilter *) PG_GETARG_POINTER(0);
	if (f->hdr.flags & STABLE_FLAG_LAST_NULL)
		PG_RETURN_NULL();
	PG_RETURN_BOOL((f->hdr.flags & STABLE_FLAG_LAST_SEEN) != 0);
}
