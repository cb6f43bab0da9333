/*
 * cuckoofilter_agg.c
 *		cuckoo_agg in its three forms.
 *
 * A cuckoo filter is a multiset, but cuckoo_agg inserts each distinct
 * input once, so every form collects distinct hashes in a bloom_keyset
 * (the shared, distributable state: a real type with an exact text form,
 * merged by bloom_keyset_combine) and the final function builds the
 * filter.  It inserts the hashes in a fixed order, so a serial and a
 * parallel plan give the same bytes.
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

PGBF_ELEM_ENTRY_POINTS(cuckoo_keyset_trans, cuckoo_keyset_trans_impl)

/* mixed into a hash to give the insertion order */
#define CUCKOO_AGG_ORDER_KEY UINT64_C(0x94d049bb133111eb)

/*
 * The state's distinct hashes in the order the final function inserts
 * them, ascending bf_remix(h ^ CUCKOO_AGG_ORDER_KEY): fixed (so every
 * plan builds the same bytes) but unrelated to the buckets and
 * fingerprints the hashes choose.  Ascending hash order would fill
 * buckets from the first to the last (a bucket is the hash's top bits),
 * and a table that grows early would see only its first buckets and fail
 * at a fraction of its load.  bf_remix is a bijection, so the order is
 * total; keyset_remix_ordered_with bucket-sorts the remixed values of the
 * set and of a pending state's queue, which is not merged in first: one
 * sort instead of two (a sized aggregate's whole input is in its queue),
 * straight into the array, through a buffer of a few thousand.
 */
static uint64 *
ordered_hashes(const KeySet *ks, const uint64 *queue, size_t nqueue, uint64 *n)
{
	Size		total = ks->count + nqueue;
	uint64	   *hashes = palloc_extended(sizeof(uint64) * (total > 0 ? total : 1),
										 MCXT_ALLOC_HUGE);
	uint64	   *scratch = palloc_extended(sizeof(uint64) * (keyset_sort_buffer_len(total) + 1),
										  MCXT_ALLOC_HUGE);

	*n = keyset_remix_ordered_with(ks, queue, nqueue, CUCKOO_AGG_ORDER_KEY, hashes, scratch);
	pfree(scratch);
	if (*n > KEYSET_MAX_COUNT)
		pgbf_keyset_too_many(ks);
	return hashes;
}

/*
 * Try one table of nbuckets buckets for all n hashes; NULL (and nothing
 * left allocated) if an insert had to park a fingerprint in the victim
 * slot, i.e. the table was too tight.
 */
static CuckooFilter *
try_single_table(const uint64 *hashes, uint64 n, uint64 nbuckets, double fpr)
{
	CuckooFilter *f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, nbuckets,
											  (int64) n, fpr);

	/* a batch stops right after the add that parks a victim */
	(void) cuckoo_add_hashes(f, hashes, n);
	if (f->tables[0].victim_fp != 0)
	{
		pfree(f);
		return NULL;
	}
	return f;
}

/*
 * cuckoo_agg(x) and cuckoo_agg(x, fpr): one table sized for the distinct
 * count at the design load (95%).  If the cuckoo walk fails at that size
 * (rare, mostly for tiny inputs), build again 1% larger: deterministic,
 * so every plan gives the same filter.
 */
PG_FUNCTION_INFO_V1(cuckoo_keyset_final);
Datum
cuckoo_keyset_final(PG_FUNCTION_ARGS)
{
	double		fpr;
	int64		capacity;
	const uint64 *queue;
	size_t		nqueue;
	const KeySet *ks = pgbf_keyset_final_state_queued(fcinfo, 1, -1, &fpr, &capacity,
													  &queue, &nqueue);
	uint64	   *hashes;
	uint64		n,
				m;
	CuckooFilter *f;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(pgbf_cuckoo_new(CurrentMemoryContext, 1, fpr));
	hashes = ordered_hashes(ks, queue, nqueue, &n);
	m = cuckoo_buckets_for(n);
	for (int attempt = 0; attempt < CUCKOO_AGG_RETRIES; attempt++)
	{
		f = try_single_table(hashes, n, m, fpr);
		if (f != NULL)
			PG_RETURN_POINTER(f);
		m += 1 + m / 100;
	}
	/* still failing: let it grow, it loses nothing */
	f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
	PG_RETURN_POINTER(pgbf_cuckoo_add_hashes(f, hashes, n, CurrentMemoryContext, true));
}

/*
 * cuckoo_agg(x, capacity, fpr): cuckoo_create(capacity, fpr), then each
 * distinct input added once (growing past capacity as cuckoo_add does).
 */
PG_FUNCTION_INFO_V1(cuckoo_keyset_final_sized);
Datum
cuckoo_keyset_final_sized(PG_FUNCTION_ARGS)
{
	double		fpr;
	int64		capacity;
	const uint64 *queue;
	size_t		nqueue;
	const KeySet *ks = pgbf_keyset_final_state_queued(fcinfo, 2, 1, &fpr, &capacity,
													  &queue, &nqueue);
	CuckooFilter *f = pgbf_cuckoo_new(CurrentMemoryContext, capacity > 0 ? capacity : 1, fpr);
	uint64	   *hashes;
	uint64		n;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(f);
	hashes = ordered_hashes(ks, queue, nqueue, &n);
	PG_RETURN_POINTER(pgbf_cuckoo_add_hashes(f, hashes, n, CurrentMemoryContext, true));
}
