/*
 * countingbloom_type.c
 *		SQL glue for countingbloom: I/O, create, add, remove, probe, count,
 *		union, info, and the counting_bloom_agg final functions.
 *
 * counting_bloom_agg inserts each distinct input once, in all its forms,
 * so its state is the shared bloom_keyset (keyset_type.c): the transition
 * and combine functions are the shared ones and the final functions here
 * build the filter from the distinct hashes.  Counter addition commutes,
 * so the result does not depend on the order of rows or on how a parallel
 * plan split them.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "counting.h"
#include "keyset_sql.h"
#include "pg_common.h"
#include "typeops.h"

/* the one checker every input path (text, binary, bytea) runs */
/* defines countingbloom_in, countingbloom_recv and countingbloom_from_bytea */
PGBF_INPUT_FUNCS(countingbloom, counting_check, "countingbloom")

/*
 * The size of a new filter, raising the contract's errors: 22023 for a
 * bad argument, 54000 with the largest possible capacity for one that
 * would not fit in a value.
 */
static size_t
counting_new_checked_size(int64 capacity, double fpr)
{
	char		errbuf[BF_ERRLEN];
	size_t		size;

	if (bf_check_params(capacity, fpr, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	if (counting_new_size((uint64) capacity, fpr, &size, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a countingbloom of capacity %lld at fpr %g would exceed the 1 GB value limit",
						(long long) capacity, fpr),
				 errdetail("The largest capacity possible at this rate is %llu.",
						   (unsigned long long) counting_max_capacity(fpr))));
	return size;
}

/* a new empty filter (blocked layout) */
static CountingBloom *
counting_new(int64 capacity, double fpr)
{
	size_t		size = counting_new_checked_size(capacity, fpr);
	CountingBloom *f = pgbf_alloc_value_uninit(CurrentMemoryContext, size);

	counting_init(f, size, (uint64) capacity, fpr, BF_DEFAULT_SEED);
	return f;
}

/*
 * What a function returns: f (blocked layout) packed, unless packing would
 * make it larger (counting.h).  A stored value is then read by probes
 * where it lies, with nothing for TOAST to compress and decompress.
 */
static Datum
counting_result(CountingBloom *f)
{
	CountingPackedCounts n;
	size_t		size = counting_packed_size(f, &n);
	void	   *p;

	if (size >= VARSIZE(f))
		PG_RETURN_POINTER(f);
	p = pgbf_alloc_value_uninit(CurrentMemoryContext, size);
	counting_pack(f, &n, p);
	pfree(f);
	PG_RETURN_POINTER(p);
}

/* the blocked layout of f, f itself when it has it, else unpacked in cxt */
static CountingBloom *
counting_plain_of(const CountingBloom *f, MemoryContext cxt)
{
	CountingBloom *out;

	if (f->layout != COUNTING_LAYOUT_PACKED)
		return (CountingBloom *) f;
	out = pgbf_alloc_value_uninit(cxt, counting_size(f));
	counting_unpack(f, out);
	return out;
}

/* a private copy of argument argno in the blocked layout, to change */
static CountingBloom *
counting_arg_copy(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(argno));
	CountingBloom *out;

	if (((CountingBloom *) v)->layout != COUNTING_LAYOUT_PACKED)
		return (CountingBloom *) (v == raw ? PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(argno)) : v);
	out = counting_plain_of((CountingBloom *) v, CurrentMemoryContext);
	if (v != raw)
		pfree(v);
	return out;
}

static void *
counting_derive_plain(const void *value, MemoryContext cxt)
{
	return counting_plain_of((const CountingBloom *) value, cxt);
}

static Size
counting_plain_bytes(const void *value)
{
	return counting_size((const CountingBloom *) value);
}

/* counting_bloom_create(capacity, fpr): sized once, never grows */
PG_FUNCTION_INFO_V1(counting_bloom_create);
Datum
counting_bloom_create(PG_FUNCTION_ARGS)
{
	return counting_result(counting_new(PG_GETARG_INT64(0),
										PGBF_GETARG_OR(1, PG_GETARG_FLOAT8, 0.01)));
}

/* a fixed-size filter cannot take more: say so rather than degrade */
static void
full_error(const CountingBloom *f)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("countingbloom is full (capacity %llu)",
					(unsigned long long) f->capacity),
			 errdetail("An add past capacity would raise the false-positive rate above the target."),
			 errhint("Remove elements first, or create the filter with a larger capacity.")));
}

static void
add_or_error(CountingBloom *f, uint64 h)
{
	if (counting_add_hash(f, h) == COUNTING_FULL)
		full_error(f);
}

/* a copy: the argument may be a stored value others still read */
static Datum
counting_add_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	CountingBloom *f = counting_arg_copy(fcinfo, 0);

	add_or_error(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed));
	return counting_result(f);
}

/*
 * defines counting_bloom_add_text, counting_bloom_add_int8 and counting_bloom_add_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_add, counting_add_impl)

/*
 * counting_bloom_test_and_add(f, xs): f with each element of xs added that
 * it does not (probably) hold yet, and for each element whether it was so
 * added; NULL for a NULL element.  Add-if-absent, as cuckoo_test_and_add:
 * a batch's duplicates are added, and new, once, and an element is counted
 * once however often it is seen, so one counting_bloom_remove takes it out.
 */
typedef struct CountingTestAndAdd
{
	CountingBloom *f;
} CountingTestAndAdd;

static void
counting_test_and_add_many(const void *arg, const uint64 *h, size_t n, bool *out)
{
	CountingTestAndAdd *t = (CountingTestAndAdd *) arg;

	for (size_t i = 0; i < n; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		out[i] = !counting_contains_hash(t->f, h[i]);
		if (out[i])
			add_or_error(t->f, h[i]);
	}
}

PG_FUNCTION_INFO_V1(counting_bloom_test_and_add_array);
Datum
counting_bloom_test_and_add_array(PG_FUNCTION_ARGS)
{
	CountingTestAndAdd t;
	Datum		added;

	t.f = counting_arg_copy(fcinfo, 0);
	added = pgbf_contains_array(fcinfo, 1, &t, t.f->hdr.seed, counting_test_and_add_many);
	PG_RETURN_DATUM(pgbf_filter_and_flags(fcinfo, DatumGetPointer(counting_result(t.f)), added));
}

/* one copy of f for the whole array, not one per element */
PG_FUNCTION_INFO_V1(counting_bloom_add_array);
Datum
counting_bloom_add_array(PG_FUNCTION_ARGS)
{
	CountingBloom *f;
	uint64	   *hashes;
	int			n;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = counting_arg_copy(fcinfo, 0);
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);

	if (counting_add_hashes(f, hashes, (size_t) n) < (size_t) n)
		full_error(f);
	pfree(hashes);
	return counting_result(f);
}

/*
 * An element reported absent leaves the filter as it was: the argument is
 * returned as it came, not the copy, which counting_result would pack (a
 * value in the blocked layout would come back in other bytes).
 */
static Datum
counting_remove_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	CountingBloom *f = counting_arg_copy(fcinfo, 0);

	if (counting_remove_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed)) == COUNTING_ABSENT)
	{
		pfree(f);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	return counting_result(f);
}

/*
 * defines counting_bloom_remove_text, counting_bloom_remove_int8 and counting_bloom_remove_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_remove, counting_remove_impl)

/*
 * As the array add: one copy of f for the whole array.  When every element
 * is reported absent, f is returned as it came, as by the single remove.
 */
PG_FUNCTION_INFO_V1(counting_bloom_remove_array);
Datum
counting_bloom_remove_array(PG_FUNCTION_ARGS)
{
	CountingBloom *f;
	uint64	   *hashes;
	int			n;
	bool		removed = false;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = counting_arg_copy(fcinfo, 0);
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);

	for (int i = 0; i < n; i++)
	{
		if ((i & (BF_INTERRUPT_CHUNK - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
		if (counting_remove_hash(f, hashes[i]) == COUNTING_OK)
			removed = true;
	}
	pfree(hashes);
	if (!removed)
	{
		pfree(f);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	return counting_result(f);
}

/* the occupancy bits of a cached filter (counting.h) */
static void *
counting_derive_occupancy(const void *value, MemoryContext cxt)
{
	const CountingBloom *f = value;
	uint64	   *occ = MemoryContextAllocHuge(cxt, counting_occupancy_size(f));

	counting_occupancy(f, occ);
	return occ;
}

static Size
counting_occupancy_bytes(const void *value)
{
	return counting_occupancy_size((const CountingBloom *) value);
}

/*
 * Probes read the filter detoasted once per query (pgbf_cached_arg), and
 * through its occupancy bits: one bit per counter, a quarter of the memory
 * to miss in.  A packed value has them in place; a value in
 * the blocked layout (written by an older release) has them derived once
 * it has been probed often enough.
 */
static bool
counting_probe_arg(FunctionCallInfo fcinfo, int fargno, int xargno, PgbfElem kind)
{
	const void *occ;
	const CountingBloom *f = pgbf_cached_arg(fcinfo, fargno);
	uint64		h;

	if (f->layout == COUNTING_LAYOUT_PACKED)
		return counting_occupancy_contains(f, counting_occupancy_of(f),
										   pgbf_hash_arg(fcinfo, xargno, kind, f->hdr.seed));
	f = pgbf_cached_arg_derived(fcinfo, fargno, counting_derive_occupancy,
								counting_occupancy_bytes, &occ, false);
	h = pgbf_hash_arg(fcinfo, xargno, kind, f->hdr.seed);
	return occ ? counting_occupancy_contains(f, occ, h) : counting_contains_hash(f, h);
}

static Datum
counting_contains_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 0, 1, BoolGetDatum(false), &result))
		return result;
	PG_RETURN_BOOL(counting_probe_arg(fcinfo, 0, 1, kind));
}

/*
 * defines counting_bloom_contains_text, counting_bloom_contains_int8 and counting_bloom_contains_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_contains, counting_contains_impl)

static void
counting_probe_many(const void *value, const uint64 *h, size_t n, bool *out)
{
	const CountingBloom *f = value;

	if (f->layout == COUNTING_LAYOUT_PACKED)
		counting_occupancy_contains_hashes(f, counting_occupancy_of(f), h, n, out);
	else
		counting_contains_hashes(f, h, n, out);
}

/*
 * counting_bloom_contains(f, xs[]): one answer per element, NULLs as
 * PGBF_CONTAINS_ARRAY's
 */
PG_FUNCTION_INFO_V1(counting_bloom_contains_array);
Datum
counting_bloom_contains_array(PG_FUNCTION_ARGS)
{
	const CountingBloom *f;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0))
		return pgbf_contains_array(fcinfo, 1, NULL, 0, NULL);
	f = pgbf_cached_arg(fcinfo, 0);
	return pgbf_contains_array(fcinfo, 1, f, f->hdr.seed, counting_probe_many);
}

/* x <@ f: the commutator, element first */
static Datum
counting_contained_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 1, 0, BoolGetDatum(false), &result))
		return result;
	PG_RETURN_BOOL(counting_probe_arg(fcinfo, 1, 0, kind));
}

/*
 * defines counting_bloom_contained_text, counting_bloom_contained_int8 and counting_bloom_contained_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_contained, counting_contained_impl)

/*
 * The smallest counter: an upper bound of x's multiplicity, at most 15.
 * A packed value that is cached (stored in a table, the same row after
 * row) is unpacked once per query: its counters are then one cache line
 * a probe.  One that is not (an in-memory value) is read where it lies,
 * through a rank directory built for this call (counting.h): a pass over
 * its bits instead of writing all its counters.  Per probe the directory
 * is the slower of the two (up to three streams and their directories
 * per counter, against one block), so a value that is probed by many rows
 * is worth unpacking once.
 */
static Datum
counting_count_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const CountingBloom *f;
	const void *plain;
	uint64	   *rank;
	uint64		h;
	int			count;
	Datum		result;

	/* a NULL filter holds no copy of anything */
	if (pgbf_probe_nulls(fcinfo, 0, 1, Int32GetDatum(0), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 0);
	if (f->layout == COUNTING_LAYOUT_PACKED)
		f = pgbf_cached_arg_derived(fcinfo, 0, counting_derive_plain, counting_plain_bytes,
									&plain, true);
	else
		plain = f;
	h = pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed);
	if (plain != NULL)
		PG_RETURN_INT32(counting_count_hash(plain, h));
	rank = palloc(counting_rank_size(f));
	counting_rank_build(f, rank);
	count = counting_packed_count_hash(f, rank, h);
	pfree(rank);
	PG_RETURN_INT32(count);
}

/*
 * defines counting_bloom_count_text, counting_bloom_count_int8 and counting_bloom_count_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_count, counting_count_impl)

/*
 * Counters added into a copy of f; a mismatch of geometry is 22023 with
 * the reason, a sum past capacity 54000 (as an add past capacity is).
 */
PG_FUNCTION_INFO_V1(counting_bloom_union);
Datum
counting_bloom_union(PG_FUNCTION_ARGS)
{
	CountingBloom *a = counting_arg_copy(fcinfo, 0);
	const CountingBloom *b = counting_plain_of((const CountingBloom *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1)),
											   CurrentMemoryContext);
	char		errbuf[BF_ERRLEN];
	BfStatus	st;

	st = counting_check_compatible(a, b, errbuf);
	if (st == BF_OK)
		st = counting_union_into(a, b, errbuf);
	if (st != BF_OK)
		ereport(ERROR,
				(errcode(st == BF_ERR_FULL ? ERRCODE_PROGRAM_LIMIT_EXCEEDED
						 : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	return counting_result(a);
}

/* everything a user needs to judge size, load and rate, as jsonb */
PG_FUNCTION_INFO_V1(counting_bloom_info);
Datum
counting_bloom_info(PG_FUNCTION_ARGS)
{
	/* either layout: the stats of a packed value are read where it lies */
	const CountingBloom *v = pgbf_cached_arg(fcinfo, 0);
	const CountingBloom *f = v;
	uint64		counters = f->nblocks * COUNTING_BLOCK_CELLS;
	CountingStats st;
	StringInfoData s;

	counting_stats(f, &st);
	initStringInfo(&s);
	appendStringInfo(&s, "{\"type\": \"countingbloom\", \"layout\": \"blocked\", "
					 "\"counters\": %llu, \"counter_bits\": %u, \"blocks\": %llu, "
					 "\"bytes\": %u, \"hashes\": %u, \"capacity\": %llu, \"count\": %llu, "
					 "\"nonzero\": %llu, \"saturated\": %llu, \"fill\": %.6f, "
					 "\"fpr_target\": %.17g, \"fpr_estimate\": %.17g, "
					 "\"fpr_at_capacity\": %.17g, \"bytes_per_element\": %.4f, "
					 "\"seed\": %llu, \"hash\": \"xxh3_64\", \"format_version\": %u}",
					 (unsigned long long) counters, (unsigned) f->counter_bits,
					 (unsigned long long) f->nblocks, (unsigned) VARSIZE(v), f->nhashes,
					 (unsigned long long) f->capacity, (unsigned long long) f->count,
					 (unsigned long long) st.nonzero, (unsigned long long) st.saturated,
					 (double) st.nonzero / (double) counters,
					 f->fpr, st.fpr_estimate, counting_model_fpr(f, f->capacity),
					 (double) VARSIZE(v) / (double) f->capacity,
					 (unsigned long long) f->hdr.seed, f->hdr.version);
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(s.data));
}

/* ---- counting_bloom_agg ---- */

/* the shared keyset transition, tagged with the type it will build */
static Datum
counting_keyset_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	return pgbf_keyset_trans(fcinfo, BF_KIND_COUNTING, kind);
}

/*
 * defines counting_bloom_keyset_trans_text, counting_bloom_keyset_trans_int8 and counting_bloom_keyset_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(counting_bloom_keyset_trans, counting_keyset_trans_impl)

/*
 * Build the filter from the distinct hashes.  capacity 0 (self-sizing)
 * means exactly the distinct count.  Zero rows give an empty filter, never
 * NULL (a NULL would make WHERE NOT counting_bloom_contains(f, x) drop
 * every row).
 */
static Datum
counting_from_keyset(const KeySet *ks, double fpr, int64 capacity, bool sized)
{
	uint64		n = ks ? ks->count : 0;
	CountingBloom *f;

	/* zero rows of the sized form: the capacity given (0 is still wrong) */
	if (sized && ks == NULL)
		;
	else if (capacity == 0)
		capacity = n > 0 ? (int64) n : 1;
	else if (n > (uint64) capacity)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counting_bloom_agg has %llu distinct inputs, more than its capacity of %lld",
						(unsigned long long) n, (long long) capacity),
				 errhint("Give a larger capacity, or leave it out to size the filter from the input.")));
	if (ks != NULL)
	{
		/*
		 * Straight to the packed form: the hashes are ascending, so the adds
		 * come block by block and each block is packed as it is done.
		 */
		union
		{
			CountingBloom f;
			char		bytes[COUNTING_HEADER_BYTES];
		}			hdr;
		size_t		size,
					out_bytes,
					scratch_bytes;
		void	   *out,
				   *scratch;

		(void) counting_new_checked_size(capacity, fpr);
		counting_init(&hdr, sizeof(hdr), (uint64) capacity, fpr, BF_DEFAULT_SEED);
		counting_build_bounds(&hdr.f, n, &out_bytes, &scratch_bytes);
		out = pgbf_alloc_value_uninit(CurrentMemoryContext, out_bytes);
		scratch = MemoryContextAllocHuge(CurrentMemoryContext, Max(scratch_bytes, 1));
		size = counting_build_packed(&hdr.f, ks->hashes, n, out, scratch);
		pfree(scratch);
		if (size > 0)
		{
			SET_VARSIZE(out, size);
			PG_RETURN_POINTER(out);
		}
		pfree(out);
	}
	/* no rows, or the blocked layout is the smaller */
	f = counting_new(capacity, fpr);
	if (ks != NULL)
		(void) counting_add_hashes(f, ks->hashes, ks->count);
	return counting_result(f);
}

static Datum
counting_keyset_build(FunctionCallInfo fcinfo, bool sized)
{
	double		fpr;
	int64		capacity;
	const KeySet *ks = pgbf_keyset_final_state(fcinfo, sized ? 2 : 1, sized ? 1 : -1,
											   &fpr, &capacity);

	if (sized && ks == NULL)
	{
		Datum		d;

		capacity = pgbf_agg_const_arg(fcinfo, 1, &d) ? DatumGetInt64(d) : 1;
	}
	return counting_from_keyset(ks, fpr, capacity, sized);
}

/* counting_bloom_agg(x) and counting_bloom_agg(x, fpr) */
PG_FUNCTION_INFO_V1(counting_bloom_keyset_final);
Datum
counting_bloom_keyset_final(PG_FUNCTION_ARGS)
{
	return counting_keyset_build(fcinfo, false);
}

/* counting_bloom_agg(x, capacity, fpr) */
PG_FUNCTION_INFO_V1(counting_bloom_keyset_sized_final);
Datum
counting_bloom_keyset_sized_final(PG_FUNCTION_ARGS)
{
	return counting_keyset_build(fcinfo, true);
}

static void
counting_scan_probe_many(const void *f, const void *aux, const uint64 *h, size_t n, bool *out)
{
	counting_probe_many(f, h, n, out);
}

static PgbfPending *
counting_agg_start(MemoryContext cxt, double fpr, int64 capacity, bool sized)
{
	return pgbf_keyset_new_pending(cxt, BF_KIND_COUNTING, fpr, capacity);
}

static Datum
counting_agg_finish(PgbfPending *state, double fpr, int64 capacity, bool sized)
{
	const KeySet *ks;

	if (state == NULL)
		return counting_from_keyset(NULL, fpr, sized ? capacity : 0, sized);
	ks = pgbf_keyset_of_state(pgbf_pending_datum(state));
	return counting_from_keyset(ks, ks->fpr, (int64) ks->capacity, sized);
}

const PgbfTypeOps pgbf_counting_ops = {
	.name = "countingbloom",
	.kind = BF_KIND_COUNTING,
	.scan_filter = pgbf_scan_filter_cached,
	.probe_many = counting_scan_probe_many,
	.agg_start = counting_agg_start,
	.agg_finish = counting_agg_finish,
};
