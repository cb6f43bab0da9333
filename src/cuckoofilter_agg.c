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

PGBF_ELEM_ENTRY_POINTS(cuckoo_keyset_trans, cuckoo_keyset_trans_impl)

/*
 * The state's distinct hashes in ascending order, the order the final
 * functions load them in (cuckoo_load_sorted): a new keyset, the set
 * merged with the pending queue if there is one (keyset_merge_queue), whose
 * array the load may overwrite.  The state is not changed.  Fixed, so
 * every plan builds the same bytes.
 */
static KeySet *
sorted_keyset(const KeySet *ks, const uint64 *queue, size_t nqueue)
{
	KeySet	   *merged = palloc_extended(keyset_size_for(ks->count + nqueue), MCXT_ALLOC_HUGE);
	uint64	   *scratch = palloc_extended(sizeof(uint64) * (keyset_sort_buffer_len(nqueue) + 1),
										  MCXT_ALLOC_HUGE);

	(void) keyset_merge_queue(ks, queue, nqueue, scratch, merged);
	pfree(scratch);
	if (merged->count > KEYSET_MAX_COUNT)
		pgbf_keyset_too_many(ks);
	return merged;
}

/*
 * cuckoo_agg(x) and cuckoo_agg(x, fpr): one table sized for the distinct
 * count at the design load (95%).  If the load has to park a fingerprint
 * in the victim slot at that size (rare, mostly for tiny inputs), build
 * again 1% larger (from the state again: a load overwrites its input):
 * deterministic, so every plan gives the same filter.
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
	KeySet	   *sorted;
	uint64		n,
				m;
	CuckooFilter *f;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(pgbf_cuckoo_new(CurrentMemoryContext, 1, fpr));
	sorted = sorted_keyset(ks, queue, nqueue);
	n = sorted->count;
	m = cuckoo_buckets_for(n);
	for (int attempt = 0; attempt < CUCKOO_AGG_RETRIES; attempt++)
	{
		f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
		if (cuckoo_load_sorted(f, sorted->hashes, n, sorted->hashes) == 0 &&
			f->tables[0].victim_fp == 0)
		{
			pfree(sorted);
			PG_RETURN_POINTER(f);
		}
		pfree(f);
		pfree(sorted);
		sorted = sorted_keyset(ks, queue, nqueue);
		m += 1 + m / 100;
	}
	/* still failing: let it grow, it loses nothing */
	f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
	f = pgbf_cuckoo_load_sorted(f, sorted->hashes, n, CurrentMemoryContext);
	pfree(sorted);
	PG_RETURN_POINTER(f);
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
	KeySet	   *sorted;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(f);
	sorted = sorted_keyset(ks, queue, nqueue);
	f = pgbf_cuckoo_load_sorted(f, sorted->hashes, sorted->count, CurrentMemoryContext);
	pfree(sorted);
	PG_RETURN_POINTER(f);
}
