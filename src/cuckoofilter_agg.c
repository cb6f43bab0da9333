/*
 * cuckoofilter_agg.c
 *		cuckoo_agg in its three forms.
 *
 * A cuckoo filter is a multiset, but cuckoo_agg inserts each distinct
 * input once, so every form collects distinct hashes in a bloom_keyset
 * (the shared, distributable state: a real type with an exact text form,
 * merged by bloom_keyset_combine) and the final function builds the
 * filter.  It loads the hashes in ascending order (cuckoo_load_sorted),
 * so a serial and a parallel plan give the same bytes.
 */
#include "postgres.h"

#include "cuckoo.h"
#include "cuckoofilter_sql.h"
#include "keyset_sql.h"
#include "pg_common.h"

/* retries of the self-sized build, each 1% larger, before growing instead */
#define CUCKOO_AGG_RETRIES 8

/* the shared keyset transition: collect distinct hashes, in place */
static Datum
cuckoo_keyset_trans_impl(FunctionCallInfo fcinfo, PgbfElem kind)
{
	return pgbf_keyset_trans(fcinfo, BF_KIND_CUCKOO, kind);
}

/*
 * defines cuckoo_keyset_trans_text, cuckoo_keyset_trans_int8 and cuckoo_keyset_trans_uuid
 */
PGBF_ELEM_ENTRY_POINTS(cuckoo_keyset_trans, cuckoo_keyset_trans_impl)

/*
 * cuckoo_agg(x) and cuckoo_agg(x, fpr): one table sized for the distinct
 * count at the design load (95%).  The state is flushed (its set then
 * holds every distinct hash, ascending, and its queue's memory is freed)
 * and loaded from there (cuckoo_load_sorted), what the load leaves going
 * to a buffer of a quarter of that (pgbf_cuckoo_left_init).  If the load has to
 * park a fingerprint in the victim slot at that size (rare, mostly for
 * tiny inputs), build again 1% larger: deterministic, so every plan gives
 * the same filter.
 */
static Datum
cuckoo_from_keyset(const KeySet *ks, double fpr)
{
	PgbfCuckooLeft left;
	uint64		n,
				m;
	CuckooFilter *f;

	if (ks == NULL || ks->count == 0)
		PG_RETURN_POINTER(pgbf_cuckoo_new(CurrentMemoryContext, 1, fpr));
	n = ks->count;
	m = cuckoo_buckets_for(n);
	pgbf_cuckoo_left_init(&left, n);
	for (int attempt = 0; attempt < CUCKOO_AGG_RETRIES; attempt++)
	{
		f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
		if (pgbf_cuckoo_load_left(f, ks->hashes, n, &left) == 0 &&
			f->tables[0].victim_fp == 0)
		{
			pfree(left.buf);
			PG_RETURN_POINTER(f);
		}
		pfree(f);
		m += 1 + m / 100;
	}
	pfree(left.buf);
	/* still failing: let it grow, it loses nothing */
	f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
	PG_RETURN_POINTER(pgbf_cuckoo_load_sorted(f, ks->hashes, n, CurrentMemoryContext));
}

PG_FUNCTION_INFO_V1(cuckoo_keyset_final);
Datum
cuckoo_keyset_final(PG_FUNCTION_ARGS)
{
	double		fpr;
	int64		capacity;
	const KeySet *ks = pgbf_keyset_final_state(fcinfo, 1, -1, &fpr, &capacity);

	return cuckoo_from_keyset(ks, fpr);
}

/*
 * cuckoo_agg(x, capacity, fpr): cuckoo_create(capacity, fpr), then each
 * distinct input added once (growing past capacity as cuckoo_add does),
 * from the flushed state as above.
 */
static Datum
cuckoo_from_keyset_sized(const KeySet *ks, double fpr, int64 capacity)
{
	CuckooFilter *f = pgbf_cuckoo_new(CurrentMemoryContext, capacity > 0 ? capacity : 1, fpr);

	if (ks == NULL || ks->count == 0)
		PG_RETURN_POINTER(f);
	PG_RETURN_POINTER(pgbf_cuckoo_load_sorted(f, ks->hashes, ks->count, CurrentMemoryContext));
}

PG_FUNCTION_INFO_V1(cuckoo_keyset_final_sized);
Datum
cuckoo_keyset_final_sized(PG_FUNCTION_ARGS)
{
	double		fpr;
	int64		capacity;
	const KeySet *ks = pgbf_keyset_final_state(fcinfo, 2, 1, &fpr, &capacity);

	return cuckoo_from_keyset_sized(ks, fpr, capacity);
}

PgbfPending *
pgbf_cuckoo_agg_start(MemoryContext cxt, double fpr, int64 capacity, bool sized)
{
	return pgbf_keyset_new_pending(cxt, BF_KIND_CUCKOO, fpr, capacity);
}

Datum
pgbf_cuckoo_agg_finish(PgbfPending *state, double fpr, int64 capacity, bool sized)
{
	const KeySet *ks = NULL;

	if (state != NULL)
	{
		ks = pgbf_keyset_of_state(pgbf_pending_datum(state));
		fpr = ks->fpr;
		capacity = (int64) ks->capacity;
	}
	if (sized)
		return cuckoo_from_keyset_sized(ks, fpr, capacity);
	return cuckoo_from_keyset(ks, fpr);
}
