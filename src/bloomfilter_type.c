/*
 * bloomfilter_type.c
 *		SQL glue for bloomfilter: I/O, create, add, probe, combine, estimates.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "bloom.h"
#include "bloomfilter_sql.h"
#include "pg_common.h"
#include "typeops.h"

/* defines bloomfilter_in, bloomfilter_recv and bloomfilter_from_bytea */
PGBF_INPUT_FUNCS(bloomfilter, bloom_check, "bloomfilter")

/*
 * Check user parameters and return the size of a new filter, raising the
 * contract's errors: 22023 for a bad argument, 54000 with the largest
 * possible capacity for one that would not fit.
 */
static size_t
checked_new_size(int64 capacity, double fpr, int layout, bool scalable)
{
	char		errbuf[BF_ERRLEN];
	size_t		size;

	if (bf_check_params(capacity, fpr, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	if (bloom_new_size((uint64) capacity, fpr, layout, scalable, &size, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a bloomfilter of capacity %lld at fpr %g would exceed the 1 GB value limit",
						(long long) capacity, fpr),
				 errdetail("The largest capacity possible at this rate is %llu.",
						   (unsigned long long) bloom_max_capacity(fpr, layout, scalable))));
	return size;
}

BloomFilter *
pgbf_bloom_new(MemoryContext cxt, int64 capacity, double fpr, int layout, bool scalable)
{
	size_t		size = checked_new_size(capacity, fpr, layout, scalable);
	BloomFilter *f = pgbf_alloc_value_uninit(cxt, size);

	bloom_init(f, size, (uint64) capacity, fpr, layout, scalable, BF_DEFAULT_SEED);
	return f;
}

void
pgbf_bloom_new_pending(PgbfPending *p, int64 capacity, double fpr, int layout,
					   bool scalable)
{
	size_t		size = checked_new_size(capacity, fpr, layout, scalable);
	void	   *alloc;
	BloomFilter *f = pgbf_alloc_value_aligned(p->hdr.eoh_context, size, &alloc);

	bloom_init(f, size, (uint64) capacity, fpr, layout, scalable, BF_DEFAULT_SEED);
	pgbf_pending_set_flat(p, (struct varlena *) f, alloc);
}

static int
layout_arg(text *t)
{
	char	   *name = text_to_cstring(t);
	int			layout = bloom_parse_layout(name);

	if (layout < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("layout must be 'blocked' or 'standard' (got '%s')", name)));
	return layout;
}

PG_FUNCTION_INFO_V1(bloom_create);
Datum
bloom_create(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(pgbf_bloom_new(CurrentMemoryContext, PG_GETARG_INT64(0),
									 PGBF_GETARG_OR(1, PG_GETARG_FLOAT8, 0.01),
									 PG_NARGS() > 2 ? layout_arg(PG_GETARG_TEXT_PP(2))
									 : BLOOM_LAYOUT_BLOCKED,
									 PGBF_GETARG_OR(3, PG_GETARG_BOOL, true)));
}

/*
 * The size of f with its next stage, after an add stopped with r; or the
 * error of a full fixed filter.
 */
size_t
pgbf_bloom_grown_size(const BloomFilter *f, BloomAddResult r)
{
	char		errbuf[BF_ERRLEN];
	size_t		size;

	if (r == BLOOM_FULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter is full: it was created for %llu elements with scalable => false",
						(unsigned long long) f->capacity),
				 errhint("Create it with a larger capacity, or with scalable => true to let it grow.")));
	if (bloom_grown_size(f, &size, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", errbuf)));
	return size;
}

/* the error of bloom_agg(x, capacity, fpr) past its capacity (every plan) */
void
pgbf_bloom_agg_full(const BloomFilter *f)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("bloom_agg has more distinct inputs than a filter of capacity %llu at fpr %g holds",
					(unsigned long long) f->capacity, f->fpr),
			 errhint("Give a larger capacity, or use bloom_agg(x, fpr), which sizes the filter for its input.")));
}

/*
 * Give f the next stage (a new allocation in cxt, the old one freed only if
 * free_old), or raise the error of a full fixed filter.
 */
static BloomFilter *
pgbf_bloom_grow(BloomFilter *f, BloomAddResult r, MemoryContext cxt, bool free_old)
{
	size_t		size = pgbf_bloom_grown_size(f, r);
	BloomFilter *nf = pgbf_alloc_value_uninit(cxt, size);

	bloom_grow_into(f, nf, size);
	if (free_old)
		pfree(f);
	return nf;
}

/*
 * Add one hash to f, growing it when a scalable filter needs another
 * stage.  Returns the filter, which may have moved (see pgbf_bloom_grow).
 */
BloomFilter *
pgbf_bloom_add(BloomFilter *f, uint64 h, MemoryContext cxt, bool free_old)
{
	return pgbf_bloom_add_many(f, &h, 1, cxt, free_old);
}

/* pgbf_bloom_add of h[0..n) in order: the same bytes, in far less time */
BloomFilter *
pgbf_bloom_add_many(BloomFilter *f, const uint64 *h, size_t n, MemoryContext cxt,
					bool free_old)
{
	while (n > 0)
	{
		BloomAddResult r;
		size_t		done = bloom_add_hashes(f, h, n, &r);

		h += done;
		n -= done;
		if (n > 0)
			f = pgbf_bloom_grow(f, r, cxt, free_old);
	}
	return f;
}

static Datum
bloom_add_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	BloomFilter *f = (BloomFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	uint64		h = pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed);

	PG_RETURN_POINTER(pgbf_bloom_add(f, h, CurrentMemoryContext, true));
}

/* defines bloom_add_text, bloom_add_int8 and bloom_add_uuid */
PGBF_ELEM_ENTRY_POINTS(bloom_add, bloom_add_impl)

/* one copy of f for the whole array, not one per element */
PG_FUNCTION_INFO_V1(bloom_add_array);
Datum
bloom_add_array(PG_FUNCTION_ARGS)
{
	BloomFilter *f;
	uint64	   *hashes;
	int			n;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = (BloomFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);

	f = pgbf_bloom_add_many(f, hashes, n, CurrentMemoryContext, true);
	pfree(hashes);
	PG_RETURN_POINTER(f);
}

static Datum
bloom_contains_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const BloomFilter *f;
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 0, 1, BoolGetDatum(false), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 0);
	PG_RETURN_BOOL(bloom_contains_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed)));
}

/* defines bloom_contains_text, bloom_contains_int8 and bloom_contains_uuid */
PGBF_ELEM_ENTRY_POINTS(bloom_contains, bloom_contains_impl)

/* bloom_contains(f, xs[]): one answer per element, misses overlapped */
PGBF_CONTAINS_ARRAY(bloom_contains_array, BloomFilter, bloom_contains_hashes)

/* x <@ f: the commutator, element first */
static Datum
bloom_contained_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const BloomFilter *f;
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 1, 0, BoolGetDatum(false), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 1);
	PG_RETURN_BOOL(bloom_contains_hash(f, pgbf_hash_arg(fcinfo, 0, kind, f->hdr.seed)));
}

/*
 * defines bloom_contained_text, bloom_contained_int8 and bloom_contained_uuid
 */
PGBF_ELEM_ENTRY_POINTS(bloom_contained, bloom_contained_impl)

/*
 * A union that would overfill a stage happens when both sides filled it:
 * typically a parallel bloom_agg(x, capacity, fpr) whose capacity is far
 * below the number of distinct inputs, each worker filling stage 0.
 */
static void
report_incompatible(BfStatus st, const char *errbuf)
{
	if (st == BF_ERR_FULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", errbuf),
				 errhint("Both filters hold more than their capacity between them. In bloom_agg(x, capacity, fpr) give a capacity at least the number of distinct inputs, or let bloom_agg(x, fpr) size itself.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", errbuf)));
}

/*
 * Union of a and b into a new value in cxt (or into a itself, when it has
 * at least b's stages and in_place is set).  Returns the result.
 */
BloomFilter *
pgbf_bloom_union(BloomFilter *a, const BloomFilter *b, MemoryContext cxt, bool in_place)
{
	char		errbuf[BF_ERRLEN];
	BfStatus	st = bloom_check_compatible(a, b, false, errbuf);
	BloomFilter *dst;

	if (st != BF_OK)
		report_incompatible(st, errbuf);
	if (a->nstages < b->nstages)
	{
		/* b has more stages: start from a copy of b, fold a in */
		const BloomFilter *t = b;

		dst = pgbf_alloc_value_uninit(cxt, VARSIZE(t));
		bf_copy(dst, t, VARSIZE(t));
		b = a;
	}
	else if (in_place)
		dst = a;
	else
	{
		dst = pgbf_alloc_value_uninit(cxt, VARSIZE(a));
		bf_copy(dst, a, VARSIZE(a));
	}
	st = bloom_union_into(dst, b, errbuf);
	if (st != BF_OK)
		report_incompatible(st, errbuf);
	return dst;
}

PG_FUNCTION_INFO_V1(bloom_union);
Datum
bloom_union(PG_FUNCTION_ARGS)
{
	BloomFilter *a = (BloomFilter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	BloomFilter *b = (BloomFilter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));

	PG_RETURN_POINTER(pgbf_bloom_union(a, b, CurrentMemoryContext, false));
}

BloomFilter *
pgbf_bloom_intersection(BloomFilter *a, const BloomFilter *b, MemoryContext cxt, bool in_place)
{
	char		errbuf[BF_ERRLEN];
	BfStatus	st = bloom_check_compatible(a, b, true, errbuf);
	BloomFilter *dst = a;

	if (st != BF_OK)
		report_incompatible(st, errbuf);
	if (!in_place)
	{
		dst = pgbf_alloc_value_uninit(cxt, VARSIZE(a));
		bf_copy(dst, a, VARSIZE(a));
	}
	bloom_intersect_into(dst, b);
	return dst;
}

PG_FUNCTION_INFO_V1(bloom_intersection);
Datum
bloom_intersection(PG_FUNCTION_ARGS)
{
	BloomFilter *a = (BloomFilter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	BloomFilter *b = (BloomFilter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));

	PG_RETURN_POINTER(pgbf_bloom_intersection(a, b, CurrentMemoryContext, false));
}

PG_FUNCTION_INFO_V1(bloom_cardinality);
Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = pgbf_cached_arg(fcinfo, 0);

	PG_RETURN_INT64((int64) llround(bloom_estimate_cardinality(f)));
}

PG_FUNCTION_INFO_V1(bloom_fpr);
Datum
bloom_fpr(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = pgbf_cached_arg(fcinfo, 0);

	PG_RETURN_FLOAT8(bloom_estimate_fpr(f));
}

/*
 * A filter keeps no count of what was added: "distinct_estimate" is the
 * number of distinct elements its bits set suggest.  "inserted" is the
 * same estimate under the name 1.0 gave it, which read as an exact count;
 * it stays, deprecated, so queries written against 1.0 keep their answer.
 */
PG_FUNCTION_INFO_V1(bloom_info);
Datum
bloom_info(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = pgbf_cached_arg(fcinfo, 0);
	StringInfoData s;
	uint64		bits = bloom_total_bits(f);

	initStringInfo(&s);
	appendStringInfo(&s, "{\"type\": \"bloomfilter\", \"layout\": \"%s\", \"scalable\": %s, "
					 "\"bits\": %llu, \"bytes\": %u, \"hashes\": %u, \"stages\": %u, "
					 "\"capacity\": %llu, \"distinct_estimate\": %lld, \"inserted\": %lld, "
					 "\"bits_set\": %llu, "
					 "\"fill\": %.6f, \"fpr_target\": %.17g, \"fpr_estimate\": %.17g, "
					 "\"bits_per_element\": %.4f, \"seed\": %llu, \"hash\": \"xxh3_64\", "
					 "\"format_version\": %u, \"stage_info\": [",
					 bloom_layout_name(f->layout), f->scalable ? "true" : "false",
					 (unsigned long long) bits, (unsigned) VARSIZE(f),
					 f->stages[f->nstages - 1].nhashes, f->nstages,
					 (unsigned long long) bloom_total_capacity(f),
					 (long long) llround(bloom_estimate_cardinality(f)),
					 (long long) llround(bloom_estimate_cardinality(f)),
					 (unsigned long long) bloom_total_bits_set(f),
					 (double) bloom_total_bits_set(f) / (double) bits,
					 f->fpr, bloom_estimate_fpr(f),
					 (double) bits / (double) bloom_total_capacity(f),
					 (unsigned long long) f->hdr.seed, f->hdr.version);
	for (int i = 0; i < f->nstages; i++)
	{
		const BloomStage *st = &f->stages[i];

		appendStringInfo(&s, "%s{\"bits\": %llu, \"hashes\": %u, \"capacity\": %llu, "
						 "\"fpr\": %.17g, \"bits_set\": %llu, \"fill_limit\": %llu, \"rate_used\": %.6f}",
						 i ? ", " : "", (unsigned long long) st->nbits, st->nhashes,
						 (unsigned long long) st->capacity, st->fpr,
						 (unsigned long long) st->bits_set,
						 (unsigned long long) st->fill_limit,
						 f->layout == BLOOM_LAYOUT_BLOCKED ? (double) st->rate_units / (double) BLOOM_RATE_ONE
						 : pow((double) st->bits_set / (double) st->nbits, (double) st->nhashes) / st->fpr);
	}
	appendStringInfoString(&s, "]}");
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(s.data));
}

/* the answers for many hashes: the probe scan's, through pgbf_bloom_ops */
static void
bloom_probe_many(const void *f, const void *aux, const uint64 *h, size_t n, bool *out)
{
	bloom_contains_hashes((const BloomFilter *) f, h, n, out);
}

const PgbfTypeOps pgbf_bloom_ops = {
	.name = "bloomfilter",
	.kind = BF_KIND_BLOOM,
	.scan_filter = pgbf_scan_filter_cached,
	.probe_many = bloom_probe_many,
	.agg_start = pgbf_bloom_agg_start,
	.agg_finish = pgbf_bloom_agg_finish,
};

/*
 * bloom_test_and_add(f, xs): f with every element of xs added, and for
 * each element whether it was new: not (probably) in f before it, nor
 * equal to an element before it in xs (a batch's duplicates are new at
 * most once); NULL for a NULL element.  RedisBloom's BF.MADD.  The
 * elements go in one by one, in order, so the filter is bloom_add's.
 */
typedef struct TestAndAdd
{
	BloomFilter *f;
} TestAndAdd;

static void
test_and_add_many(const void *arg, const uint64 *h, size_t n, bool *out)
{
	TestAndAdd *t = (TestAndAdd *) arg;

	for (size_t i = 0; i < n; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		out[i] = !bloom_contains_hash(t->f, h[i]);
		if (out[i])
			t->f = pgbf_bloom_add(t->f, h[i], CurrentMemoryContext, true);
	}
}

PG_FUNCTION_INFO_V1(bloom_test_and_add_array);
Datum
bloom_test_and_add_array(PG_FUNCTION_ARGS)
{
	TestAndAdd	t;
	Datum		added;

	t.f = (BloomFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	added = pgbf_contains_array(fcinfo, 1, &t, t.f->hdr.seed, test_and_add_many);
	PG_RETURN_DATUM(pgbf_filter_and_flags(fcinfo, t.f, added));
}
