/*
 * ops_keyset.h
 *		What the aggregates do with a bloom_keyset state that passed
 *		keyset_check() (a partial state from another node or worker): probe,
 *		add with growth, combine into another state, sort, and build the
 *		final bloomfilter.  For the fuzz harness (fuzz_value.c).
 */
#include "bloom.h"

/* growth beyond this is legal but slow to fuzz: stop adding there */
#define FUZZ_KEYSET_MAX_SLOTS (UINT64_C(1) << 16)

static KeySet *
fuzz_keyset_new(uint64_t nslots, const KeySet *like)
{
	size_t		len = keyset_size_for_slots(nslots);
	KeySet	   *ks = fuzz_malloc(len);

	keyset_init(ks, nslots, like->target, like->layout, like->fpr, like->capacity,
				like->hdr.seed);
	fuzz_set_varsize(ks, len);
	return ks;
}

/* a copy of ks with at least min_slots slots (keyset_resized) */
static KeySet *
fuzz_keyset_resized(const KeySet *ks, uint64_t min_slots)
{
	uint64_t	nslots = ks->nslots;
	KeySet	   *nks;

	while (nslots < min_slots)
		nslots *= 2;
	nks = fuzz_keyset_new(nslots, ks);
	keyset_rehash_into(ks, nks);
	FUZZ_ASSERT(nks->count == ks->count, "rehash changed the count");
	return nks;
}

static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const KeySet *ks = value;
	KeySet	   *w;
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	uint64_t   *sorted;
	uint64_t	n;
	char		errbuf[BF_ERRLEN];

	for (int i = 0; i < 16; i++)
		(void) keyset_contains(ks, fuzz_rand(&rs));
	(void) keyset_contains(ks, 0);

	/* the transition function: add with growth */
	w = fuzz_malloc(len);
	memcpy(w, ks, len);
	for (int i = 0; i < 64; i++)
	{
		uint64_t	h = (i == 0) ? 0 : fuzz_rand(&rs);
		uint64_t	before;

		if (h != 0 && keyset_needs_grow(w) && !keyset_contains(w, h))
		{
			KeySet	   *nw;

			if (w->nslots * 2 > FUZZ_KEYSET_MAX_SLOTS)
				break;
			nw = fuzz_keyset_resized(w, w->nslots * 2);
			free(w);
			w = nw;
		}
		before = w->count;
		if (keyset_add(w, h))
			FUZZ_ASSERT(w->count == before + 1, "add did not count");
		FUZZ_ASSERT(keyset_contains(w, h), "added hash not found");
	}
	FUZZ_ASSERT(keyset_check(w, keyset_size_for_slots(w->nslots), errbuf) == BF_OK,
				"after adds: %s", errbuf);

	/* the combine function: fold the outside state into ours */
	FUZZ_ASSERT(keyset_check_compatible(w, ks, errbuf) == BF_OK, "%s", errbuf);
	{
		uint64_t	need = (w->count + ks->count) * KEYSET_MAX_LOAD_DEN / KEYSET_MAX_LOAD_NUM + 1;

		if (need <= FUZZ_KEYSET_MAX_SLOTS)
		{
			KeySet	   *c = w;

			if (need > w->nslots)
				c = fuzz_keyset_resized(w, need);
			if (ks->has_zero)
				(void) keyset_add(c, 0);
			for (uint64_t i = 0; i < ks->nslots; i++)
				if (ks->slots[i] != 0)
					(void) keyset_add(c, ks->slots[i]);
			FUZZ_ASSERT(keyset_check(c, keyset_size_for_slots(c->nslots), errbuf) == BF_OK,
						"after combine: %s", errbuf);
			if (c != w)
				free(c);
		}
	}

	/* the final function: every hash, sorted, into a filter of that size */
	sorted = fuzz_malloc(ks->count * sizeof(uint64_t));
	n = keyset_sorted(ks, sorted);
	FUZZ_ASSERT(n == ks->count, "sorted %llu of %llu", (unsigned long long) n,
				(unsigned long long) ks->count);
	for (uint64_t i = ks->has_zero + 1; i < n; i++)
		FUZZ_ASSERT(sorted[i - 1] < sorted[i], "not sorted or duplicate");
	if (ks->target == BF_KIND_BLOOM)
	{
		size_t		flen;

		if (bloom_new_size(n ? n : 1, ks->fpr, BLOOM_LAYOUT_BLOCKED, true, &flen, NULL) == BF_OK &&
			flen <= (4u << 20))
		{
			BloomFilter *f = fuzz_malloc(flen);

			bloom_init(f, flen, n ? n : 1, ks->fpr, BLOOM_LAYOUT_BLOCKED, true, ks->hdr.seed);
			fuzz_set_varsize(f, flen);
			for (uint64_t i = 0; i < n; i++)
			{
				BloomAddResult r = bloom_add_hash(f, sorted[i]);

				/* sized for n; growth is ops_bloom.h's business */
				if (r == BLOOM_NEEDS_STAGE)
				{
					n = i;
					break;
				}
				FUZZ_ASSERT(r == BLOOM_ADDED || r == BLOOM_PRESENT, "final filter full");
			}
			for (uint64_t i = 0; i < n; i++)
				FUZZ_ASSERT(bloom_contains_hash(f, sorted[i]), "final filter lost a hash");
			FUZZ_ASSERT(bloom_check(f, flen, errbuf) == BF_OK, "final filter: %s", errbuf);
			free(f);
		}
	}
	free(sorted);
	free(w);
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const uint8_t targets[] = {BF_KIND_BLOOM, BF_KIND_COUNTING, BF_KIND_CUCKOO};

	for (int t = 0; t < 3; t++)
		for (int n = 0; n < 3; n++)
		{
			KeySet		like;
			KeySet	   *ks;
			uint64_t	rs = (uint64_t) n;
			int			count = n == 0 ? 0 : n == 1 ? 5 : 40;

			memset(&like, 0, sizeof(like));
			like.target = targets[t];
			like.layout = 1;
			like.fpr = n == 2 ? 0.001 : 0.01;
			like.capacity = n == 1 ? 1000 : 0;
			ks = fuzz_keyset_new(16, &like);
			if (n == 1)
				(void) keyset_add(ks, 0);
			for (int i = 0; i < count; i++)
			{
				uint64_t	h = fuzz_rand(&rs);

				if (keyset_needs_grow(ks))
				{
					KeySet	   *nks = fuzz_keyset_resized(ks, ks->nslots * 2);

					free(ks);
					ks = nks;
				}
				(void) keyset_add(ks, h);
			}
			emit(ks, keyset_size_for_slots(ks->nslots));
			free(ks);
		}
}
