/*
 * cuckoofilter_type.c
 *		SQL glue for cuckoofilter: I/O, create, add, remove, probe, count,
 *		info.  The maths is in cuckoo.c; the aggregates in cuckoofilter_agg.c.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "cuckoo.h"
#include "cuckoofilter_sql.h"
#include "pg_common.h"
#include "typeops.h"

/* text input, binary receive and the bytea cast, all through cuckoo_check */
/* defines cuckoofilter_in, cuckoofilter_recv and cuckoofilter_from_bytea */
PGBF_INPUT_FUNCS(cuckoofilter, cuckoo_check, "cuckoofilter")

/*
 * A new one-table filter of nbuckets buckets, with the contract's errors:
 * 22023 for a bad argument, 54000 with the largest possible capacity for
 * one that would not fit.  capacity is what info reports as asked for.
 */
CuckooFilter *
pgbf_cuckoo_new_buckets(MemoryContext cxt, uint64 nbuckets, int64 capacity, double fpr)
{
	char		errbuf[BF_ERRLEN];
	size_t		size;
	BfStatus	st;
	CuckooFilter *f;

	if (bf_check_params(capacity, fpr, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	st = nbuckets == 0 ? BF_ERR_TOO_LARGE : cuckoo_new_size(nbuckets, fpr, &size, errbuf);
	if (st == BF_ERR_PARAM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errbuf)));
	if (st != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a cuckoofilter of capacity %lld at fpr %g would exceed the 1 GB value limit",
						(long long) capacity, fpr),
				 errdetail("The largest capacity possible at this rate is %llu.",
						   (unsigned long long) cuckoo_max_capacity(fpr))));
	f = pgbf_alloc_value_uninit(cxt, size);
	cuckoo_init(f, size, nbuckets, (uint64) capacity, fpr, BF_DEFAULT_SEED);
	return f;
}

/* a new filter sized for capacity elements at the design load */
CuckooFilter *
pgbf_cuckoo_new(MemoryContext cxt, int64 capacity, double fpr)
{
	return pgbf_cuckoo_new_buckets(cxt, capacity >= 1 ? cuckoo_buckets_for((uint64) capacity) : 1,
								   capacity, fpr);
}

/* cuckoo_create(capacity, fpr) */
PG_FUNCTION_INFO_V1(cuckoo_create);
Datum
cuckoo_create(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(pgbf_cuckoo_new(CurrentMemoryContext, PG_GETARG_INT64(0),
									  PGBF_GETARG_OR(1, PG_GETARG_FLOAT8, 0.01)));
}

/*
 * f with one more table, a new allocation in cxt (the old one freed only
 * if free_old), or the contract's 54000 when it cannot grow.
 */
static CuckooFilter *
cuckoo_grown(CuckooFilter *f, MemoryContext cxt, bool free_old)
{
	char		errbuf[BF_ERRLEN];
	size_t		size;
	CuckooFilter *nf;

	if (cuckoo_grown_size(f, &size, errbuf) != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoofilter is full and cannot grow"),
				 errdetail("%s.", errbuf),
				 f->ntables >= CUCKOO_MAX_TABLES ?
				 errhint("A cuckoo filter holds a bounded number of copies of one element.") :
				 errhint("Create it with a larger capacity or a looser fpr.")));
	nf = pgbf_alloc_value_uninit(cxt, size);
	cuckoo_grow_into(f, nf, size);
	if (free_old)
		pfree(f);
	return nf;
}

/*
 * Add one hash, growing the filter (a new allocation in cxt) when its
 * last table is full.  Returns the filter, which may have moved; the old
 * one is freed only if free_old.
 */
CuckooFilter *
pgbf_cuckoo_add(CuckooFilter *f, uint64 h, MemoryContext cxt, bool free_old)
{
	while (cuckoo_add_hash(f, h) == CUCKOO_NEEDS_TABLE)
		f = cuckoo_grown(f, cxt, free_old);
	return f;
}

/*
 * pgbf_cuckoo_add for each of hashes[0 .. n) in order, the same bytes, in
 * prefetched batches (cuckoo_add_hashes) that stop only to grow.
 */
CuckooFilter *
pgbf_cuckoo_add_hashes(CuckooFilter *f, const uint64 *hashes, uint64 n,
					   MemoryContext cxt, bool free_old)
{
	uint64		done = 0;

	while (done < n)
	{
		done += cuckoo_add_hashes(f, hashes + done, n - done);
		if (done < n)
			f = cuckoo_grown(f, cxt, free_old);
	}
	return f;
}

/*
 * Bulk load of hashes[0 .. n), ascending and distinct, into f's last
 * table, which is empty (cuckoo_load_sorted), and what that leaves into
 * new tables the same way.  What a load leaves goes to a buffer of
 * CUCKOO_LOAD_ROOM(n) hashes (pgbf_cuckoo_load_left: of n, if that is not
 * enough), and the next load is from there, in place.  Each new table is
 * empty and takes four hashes a bucket at least, so the loop ends.  The
 * old filter is freed when the filter grows.
 */
CuckooFilter *
pgbf_cuckoo_load_sorted(CuckooFilter *f, const uint64 *hashes, uint64 n, MemoryContext cxt)
{
	PgbfCuckooLeft left;
	uint64		r;

	pgbf_cuckoo_left_init(&left, n);
	r = pgbf_cuckoo_load_left(f, hashes, n, &left);
	while (r > 0)
	{
		f = cuckoo_grown(f, cxt, true);
		r = cuckoo_load_sorted(f, left.buf, r, left.buf, left.room);
	}
	pfree(left.buf);
	return f;
}

/*
 * The buffer for what a bulk load of n hashes leaves: a quarter of n (a
 * table sized for them leaves about a sixth), so a big build does not add
 * 8 bytes a hash to its peak memory: that much more can take the
 * backend's heap over glibc's trim threshold, so that every such query
 * gives it back and faults it in again.
 */
void
pgbf_cuckoo_left_init(PgbfCuckooLeft *left, uint64 n)
{
	left->room = CUCKOO_LOAD_ROOM(n);
	left->buf = palloc_extended(sizeof(uint64) * Max(left->room, 1), MCXT_ALLOC_HUGE);
}

/* cuckoo_load_sorted into f (empty) with left, grown to n if it must be */
uint64
pgbf_cuckoo_load_left(CuckooFilter *f, const uint64 *hashes, uint64 n, PgbfCuckooLeft *left)
{
	uint64		r = cuckoo_load_sorted(f, hashes, n, left->buf, left->room);

	if (r == CUCKOO_LOAD_NO_ROOM)
	{
		pfree(left->buf);
		left->room = n;
		left->buf = palloc_extended(sizeof(uint64) * left->room, MCXT_ALLOC_HUGE);
		r = cuckoo_load_sorted(f, hashes, n, left->buf, left->room);
	}
	return r;
}

/* a copy of f with one more copy of x: the argument is never modified */
static Datum
cuckoo_add_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	CuckooFilter *f = (CuckooFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	uint64		h = pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed);

	PG_RETURN_POINTER(pgbf_cuckoo_add(f, h, CurrentMemoryContext, true));
}

/* defines cuckoo_add_text, cuckoo_add_int8 and cuckoo_add_uuid */
PGBF_ELEM_ENTRY_POINTS(cuckoo_add, cuckoo_add_impl)

/* one copy of f for the whole array, not one per element */
PG_FUNCTION_INFO_V1(cuckoo_add_array);
Datum
cuckoo_add_array(PG_FUNCTION_ARGS)
{
	CuckooFilter *f;
	uint64	   *hashes;
	int			n;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = (CuckooFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);

	f = pgbf_cuckoo_add_hashes(f, hashes, (uint64) n, CurrentMemoryContext, true);
	pfree(hashes);
	PG_RETURN_POINTER(f);
}

/*
 * Take one copy of x out.  An element the filter reports absent leaves it
 * unchanged (and uncopied: the argument is returned as it came).
 */
static Datum
cuckoo_remove_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const CuckooFilter *probe = pgbf_cached_arg(fcinfo, 0);
	uint64		h = pgbf_hash_arg(fcinfo, 1, kind, probe->hdr.seed);
	CuckooFilter *f;

	if (!cuckoo_contains_hash(probe, h))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	f = (CuckooFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	(void) cuckoo_remove_hash(f, h);
	PG_RETURN_POINTER(f);
}

/* defines cuckoo_remove_text, cuckoo_remove_int8 and cuckoo_remove_uuid */
PGBF_ELEM_ENTRY_POINTS(cuckoo_remove, cuckoo_remove_impl)

/*
 * cuckoo_remove(f, xs): cuckoo_remove of every non-NULL element of xs, in
 * order, on one copy of f (CF.DEL of many); a NULL array removes nothing.
 */
PG_FUNCTION_INFO_V1(cuckoo_remove_array);
Datum
cuckoo_remove_array(PG_FUNCTION_ARGS)
{
	CuckooFilter *f;
	uint64	   *hashes;
	int			n;

	PGBF_ARRAY_NULLS_KEEP_FILTER();
	f = (CuckooFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	n = pgbf_hash_array_arg(fcinfo, 1, f->hdr.seed, &hashes, NULL);
	for (int i = 0; i < n; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		(void) cuckoo_remove_hash(f, hashes[i]);
	}
	pfree(hashes);
	PG_RETURN_POINTER(f);
}

/* the alternate-bucket offsets of a cached filter (cuckoo.h) */
static void *
cuckoo_derive_alt(const void *value, MemoryContext cxt)
{
	const CuckooFilter *f = value;
	uint32	   *alt = MemoryContextAlloc(cxt, cuckoo_alt_table_size(f));

	cuckoo_alt_table(f, alt);
	return alt;
}

static Size
cuckoo_alt_bytes(const void *value)
{
	return cuckoo_alt_table_size((const CuckooFilter *) value);
}

/*
 * Probes read the filter detoasted once per query (pgbf_cached_arg), and,
 * once it has been probed often enough, with its alternate-bucket offsets
 * tabled: a probe then looks its alternate bucket up instead of
 * computing it.
 */
static bool
cuckoo_probe_arg(FunctionCallInfo fcinfo, int fargno, int xargno, PgbfElem kind)
{
	const void *alt;
	const CuckooFilter *f = pgbf_cached_arg_derived(fcinfo, fargno, cuckoo_derive_alt,
													cuckoo_alt_bytes, &alt, false);
	uint64		h = pgbf_hash_arg(fcinfo, xargno, kind, f->hdr.seed);

	return alt ? cuckoo_contains_hash_alt(f, alt, h) : cuckoo_contains_hash(f, h);
}

static Datum
cuckoo_contains_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 0, 1, BoolGetDatum(false), &result))
		return result;
	PG_RETURN_BOOL(cuckoo_probe_arg(fcinfo, 0, 1, kind));
}

/*
 * defines cuckoo_contains_text, cuckoo_contains_int8 and cuckoo_contains_uuid
 */
PGBF_ELEM_ENTRY_POINTS(cuckoo_contains, cuckoo_contains_impl)

/* cuckoo_contains(f, xs[]): one answer per element */
PGBF_CONTAINS_ARRAY(cuckoo_contains_array, CuckooFilter, cuckoo_contains_hashes)

/* x <@ f: the commutator, element first */
static Datum
cuckoo_contained_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	Datum		result;

	if (pgbf_probe_nulls(fcinfo, 1, 0, BoolGetDatum(false), &result))
		return result;
	PG_RETURN_BOOL(cuckoo_probe_arg(fcinfo, 1, 0, kind));
}

/*
 * defines cuckoo_contained_text, cuckoo_contained_int8 and cuckoo_contained_uuid
 */
PGBF_ELEM_ENTRY_POINTS(cuckoo_contained, cuckoo_contained_impl)

/*
 * Copies of x's fingerprint in its buckets (and victim slots), all tables;
 * a NULL filter holds none
 */
static Datum
cuckoo_count_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	const CuckooFilter *f;
	Datum		result;
	uint32		n;

	if (pgbf_probe_nulls(fcinfo, 0, 1, Int32GetDatum(0), &result))
		return result;
	f = pgbf_cached_arg(fcinfo, 0);
	n = cuckoo_count_hash(f, pgbf_hash_arg(fcinfo, 1, kind, f->hdr.seed));
	PG_RETURN_INT32((int32) Min(n, (uint32) PG_INT32_MAX));
}

/* defines cuckoo_count_text, cuckoo_count_int8 and cuckoo_count_uuid */
PGBF_ELEM_ENTRY_POINTS(cuckoo_count, cuckoo_count_impl)

/*
 * Geometry, load and rates as jsonb.  fpr_estimate is the current rate
 * bound (sum over tables of 2 c q / m, see cuckoo.h); fpr_bound what it
 * could reach before the next growth.
 */
PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
	const CuckooFilter *f = pgbf_cached_arg(fcinfo, 0);
	const CuckooTable *last = &f->tables[f->ntables - 1];
	StringInfoData s;
	uint64		count = cuckoo_total_count(f);
	uint64		slots = cuckoo_total_slots(f);
	uint64		buckets = 0;
	double		sealed = 0.0;
	int			victims = 0;

	for (int i = 0; i < f->ntables; i++)
	{
		buckets += f->tables[i].nbuckets;
		victims += f->tables[i].victim_fp != 0;
		if (i < f->ntables - 1)
			sealed += cuckoo_table_bound(&f->tables[i]);
	}
	initStringInfo(&s);
	appendStringInfo(&s, "{\"type\": \"cuckoofilter\", \"buckets\": %llu, \"bucket_size\": %d, "
					 "\"slots\": %llu, \"tables\": %u, \"fingerprint_bits\": %u, "
					 "\"bytes\": %u, \"capacity\": %llu, \"capacity_requested\": %llu, "
					 "\"count\": %llu, \"victims\": %d, \"load\": %.6f, "
					 "\"fpr_target\": %.17g, \"fpr_estimate\": %.17g, \"fpr_bound\": %.17g, ",
					 (unsigned long long) buckets, CUCKOO_BUCKET_SLOTS,
					 (unsigned long long) slots, f->ntables, last->fp_bits,
					 (unsigned) VARSIZE(f),
					 (unsigned long long) cuckoo_total_capacity(f),
					 (unsigned long long) f->capacity,
					 (unsigned long long) count, victims,
					 (double) count / (double) slots,
					 f->fpr, cuckoo_rate_bound(f),
					 sealed + cuckoo_worst_rate(last->nbuckets, last->fp_bits));
	if (count > 0)
		appendStringInfo(&s, "\"bits_per_element\": %.4f, ",
						 8.0 * (double) VARSIZE(f) / (double) count);
	else
		appendStringInfoString(&s, "\"bits_per_element\": null, ");
	/* removes counted since the filter was made (format 1 did not count) */
	if (f->hdr.version >= CUCKOO_FORMAT_DELETES)
		appendStringInfo(&s, "\"deletes\": %u, ", f->deletes);
	else
		appendStringInfoString(&s, "\"deletes\": null, ");
	appendStringInfo(&s, "\"seed\": %llu, \"hash\": \"xxh3_64\", \"format_version\": %u, "
					 "\"table_info\": [",
					 (unsigned long long) f->hdr.seed, f->hdr.version);
	for (int i = 0; i < f->ntables; i++)
	{
		const CuckooTable *t = &f->tables[i];

		appendStringInfo(&s, "%s{\"buckets\": %llu, \"fingerprint_bits\": %u, "
						 "\"count\": %llu, \"victim\": %s, \"load\": %.6f, \"fpr_estimate\": %.17g}",
						 i ? ", " : "", (unsigned long long) t->nbuckets, t->fp_bits,
						 (unsigned long long) (t->count + (t->victim_fp != 0)),
						 t->victim_fp ? "true" : "false",
						 (double) (t->count + (t->victim_fp != 0)) /
						 (double) (t->nbuckets * CUCKOO_BUCKET_SLOTS),
						 cuckoo_table_bound(t));
	}
	appendStringInfoString(&s, "]}");
	PG_RETURN_DATUM(pgbf_jsonb_from_cstring(s.data));
}

/*
 * The probe scan's filter and answers (typeops.h): the alternate-bucket
 * offsets derived once the scan is expected to probe enough to repay them
 */
static const void *
cuckoo_scan_filter(FunctionCallInfo fcinfo, double expected_probes, const void **alt)
{
	const CuckooFilter *f = pgbf_cached_arg(fcinfo, 0);
	bool		eager = expected_probes * PGBF_DERIVE_BYTES_PER_USE >= (double) cuckoo_alt_bytes(f);

	return pgbf_cached_arg_derived(fcinfo, 0, cuckoo_derive_alt, cuckoo_alt_bytes, alt, eager);
}

static void
cuckoo_probe_many_alt(const void *f, const void *alt, const uint64 *h, size_t n, bool *out)
{
	cuckoo_contains_hashes_alt((const CuckooFilter *) f, (const uint32_t *) alt, h, n, out);
}

const PgbfTypeOps pgbf_cuckoo_ops = {
	.name = "cuckoofilter",
	.kind = BF_KIND_CUCKOO,
	.scan_filter = cuckoo_scan_filter,
	.probe_many = cuckoo_probe_many_alt,
	.agg_start = pgbf_cuckoo_agg_start,
	.agg_finish = pgbf_cuckoo_agg_finish,
};

/*
 * cuckoo_test_and_add(f, xs): f with each element of xs added that it
 * does not (probably) hold yet, and for each element whether it was so
 * added: RedisBloom's CF.INSERTNX (CF.ADDNX for one).  A batch's
 * duplicates are added, and new, once; NULL for a NULL element.
 */
typedef struct CuckooTestAndAdd
{
	CuckooFilter *f;
} CuckooTestAndAdd;

static void
cuckoo_test_and_add_many(const void *arg, const uint64 *h, size_t n, bool *out)
{
	CuckooTestAndAdd *t = (CuckooTestAndAdd *) arg;

	for (size_t i = 0; i < n; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_CHUNK);
		out[i] = !cuckoo_contains_hash(t->f, h[i]);
		if (out[i])
			t->f = pgbf_cuckoo_add(t->f, h[i], CurrentMemoryContext, true);
	}
}

PG_FUNCTION_INFO_V1(cuckoo_test_and_add_array);
Datum
cuckoo_test_and_add_array(PG_FUNCTION_ARGS)
{
	CuckooTestAndAdd	t;
	Datum		added;

	t.f = (CuckooFilter *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	added = pgbf_contains_array(fcinfo, 1, &t, t.f->hdr.seed, cuckoo_test_and_add_many);
	PG_RETURN_DATUM(pgbf_filter_and_flags(fcinfo, t.f, added));
}
