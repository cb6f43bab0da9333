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
 * functions load them in (cuckoo_load_sorted), in a new array that the
 * load may overwrite: the set copied, or merged with the pending queue
 * (keyset_merge_queue).  The state is not changed.  Fixed, so every plan
 * builds the same bytes.  *chunk is the allocation to pfree.
 */
static uint64 *
sorted_hashes(const KeySet *ks, const uint64 *queue, size_t nqueue, uint64 *n,
			  void **chunk)
{
	KeySet	   *merged;
	uint64	   *scratch;

	if (nqueue == 0)
	{
		uint64	   *copy = palloc_extended(sizeof(uint64) * ks->count, MCXT_ALLOC_HUGE);

		memcpy(copy, ks->hashes, sizeof(uint64) * ks->count);
		*n = ks->count;
		*chunk = copy;
		return copy;
	}
	merged = palloc_extended(keyset_size_for(ks->count + nqueue), MCXT_ALLOC_HUGE);
	scratch = palloc_extended(sizeof(uint64) * (keyset_sort_buffer_len(nqueue) + 1),
							  MCXT_ALLOC_HUGE);
	*n = keyset_merge_queue(ks, queue, nqueue, scratch, merged);
	pfree(scratch);
	if (*n > KEYSET_MAX_COUNT)
		pgbf_keyset_too_many(ks);
	*chunk = merged;
	return merged->hashes;
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
	uint64	   *hashes;
	void	   *chunk;
	uint64		n,
				m;
	CuckooFilter *f;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(pgbf_cuckoo_new(CurrentMemoryContext, 1, fpr));
	hashes = sorted_hashes(ks, queue, nqueue, &n, &chunk);
	m = cuckoo_buckets_for(n);
	for (int attempt = 0; attempt < CUCKOO_AGG_RETRIES; attempt++)
	{
		f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
		if (cuckoo_load_sorted(f, hashes, n, hashes) == 0 && f->tables[0].victim_fp == 0)
		{
			pfree(chunk);
			PG_RETURN_POINTER(f);
		}
		pfree(f);
		pfree(chunk);
		hashes = sorted_hashes(ks, queue, nqueue, &n, &chunk);
		m += 1 + m / 100;
	}
	/* still failing: let it grow, it loses nothing */
	f = pgbf_cuckoo_new_buckets(CurrentMemoryContext, m, (int64) n, fpr);
	f = pgbf_cuckoo_load_sorted(f, hashes, n, CurrentMemoryContext);
	pfree(chunk);
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
	uint64	   *hashes;
	void	   *chunk;
	uint64		n;

	if (ks == NULL || ks->count + nqueue == 0)
		PG_RETURN_POINTER(f);
	hashes = sorted_hashes(ks, queue, nqueue, &n, &chunk);
	f = pgbf_cuckoo_load_sorted(f, hashes, n, CurrentMemoryContext);
	pfree(chunk);
	PG_RETURN_POINTER(f);
}
