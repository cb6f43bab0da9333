/*
 * ops_keyset.h
 *		What the aggregates do with a bloom_keyset state that passed
 *		keyset_check() (a partial state from another node or worker): probe,
 *		queue hashes and merge them in (the transition), unite with another
 *		state (the combine), sort, and build the final filter.  For the fuzz
 *		harness (fuzz_value.c).
 *
 * Every result is compared with a reference computed here without the
 * keyset code (qsort, linear scans): the set a merge or a union produces
 * is known exactly, and so are its bytes, which depend only on the set.
 */
#include <stddef.h>

#include "bloom.h"

/* sets bigger than this are legal but slow to fuzz: skip the costly steps */
#define FUZZ_KEYSET_MAX_COUNT (UINT64_C(1) << 16)
/* hashes queued by the transition step */
#define FUZZ_KEYSET_QUEUE 64

static int
fuzz_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* the reference sort: qsort, then drop repeats; returns how many are left */
static size_t
fuzz_sort_unique_ref(uint64_t *a, size_t n)
{
	size_t		u = 0;

	qsort(a, n, sizeof(uint64_t), fuzz_cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || a[u - 1] != a[i])
			a[u++] = a[i];
	return u;
}

static bool
fuzz_keyset_has_linear(const KeySet *ks, uint64_t h)
{
	for (uint64_t i = 0; i < ks->count; i++)
		if (ks->hashes[i] == h)
			return true;
	return false;
}

/* a's parameters (the header before count) are b's */
static bool
fuzz_keyset_same_header(const KeySet *a, const KeySet *b)
{
	return memcmp((const char *) a + 4, (const char *) b + 4,
				  offsetof(KeySet, count) - 4) == 0;
}

/* keyset_check on a value the caller built, after setting its size */
static void
fuzz_keyset_finish(KeySet *ks, const char *what)
{
	char		errbuf[BF_ERRLEN];
	size_t		len = keyset_size_for(ks->count);

	fuzz_set_varsize(ks, len);
	FUZZ_ASSERT(keyset_check(ks, len, errbuf) == BF_OK, "%s: %s", what, errbuf);
}

static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const KeySet *ks = value;
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	uint64_t	queue[FUZZ_KEYSET_QUEUE];
	uint64_t	qcopy[FUZZ_KEYSET_QUEUE];
	uint64_t	qscratch[FUZZ_KEYSET_QUEUE];
	uint64_t	nq;
	uint64_t	nnew;
	uint64_t   *ref;
	uint64_t	nref;
	KeySet	   *w;
	KeySet	   *qs;
	char		errbuf[BF_ERRLEN];

	FUZZ_ASSERT(len == keyset_size_for(ks->count), "size %zu for %llu hashes", len,
				(unsigned long long) ks->count);

	/* probes: random ones agree with a linear scan, stored ones are found */
	for (int i = 0; i < 17; i++)
	{
		uint64_t	h = i == 16 ? 0 : fuzz_rand(&rs);

		FUZZ_ASSERT(keyset_contains(ks, h) == fuzz_keyset_has_linear(ks, h),
					"contains(%llx) disagrees with a scan", (unsigned long long) h);
	}
	for (uint64_t i = 0; i < ks->count; i++)
	{
		FUZZ_ASSERT(keyset_contains(ks, ks->hashes[i]), "stored hash %llu not found",
					(unsigned long long) i);
		if (ks->hashes[i] != UINT64_MAX)
			FUZZ_ASSERT(keyset_contains(ks, ks->hashes[i] + 1) ==
						(i + 1 < ks->count && ks->hashes[i + 1] == ks->hashes[i] + 1),
						"a neighbour of stored hash %llu found", (unsigned long long) i);
	}

	/* the queue length the transition function grows to */
	{
		static const size_t queued[] = {1, KEYSET_MIN_QUEUE / 2, KEYSET_MIN_QUEUE,
		1000, KEYSET_MAX_QUEUE / 2, KEYSET_MAX_QUEUE};

		for (size_t i = 0; i < sizeof(queued) / sizeof(queued[0]); i++)
		{
			size_t		q = queued[i];
			size_t		t = keyset_queue_target(ks, q);

			FUZZ_ASSERT(t <= KEYSET_MAX_QUEUE && t <= 2 * q, "queue target %zu for %zu", t, q);
			FUZZ_ASSERT(q >= KEYSET_MIN_QUEUE || t > q, "queue of %zu does not grow", q);
			FUZZ_ASSERT(q < KEYSET_MAX_QUEUE || t <= q, "queue of %zu grows", q);
		}
	}

	/*
	 * The transition function: a queue of hashes, with 0, repeats, hashes
	 * already in the set, and (for some inputs) small values that bunch up
	 * in the sort's buckets, merged into a fresh buffer.
	 */
	{
		uint64_t	mix = fuzz_rand(&rs);
		bool		bunched = mix % 5 == 4;

		for (int i = 0; i < FUZZ_KEYSET_QUEUE; i++)
		{
			uint64_t	r = fuzz_rand(&rs);

			if (i == 0)
				queue[i] = 0;
			else if (bunched)
				queue[i] = r & 0xff;
			else
				switch (r & 3)
				{
					case 0:
						queue[i] = fuzz_rand(&rs);
						break;
					case 1:
						queue[i] = queue[(r >> 8) % i];
						break;
					case 2:
						queue[i] = ks->count > 0 ? ks->hashes[(r >> 8) % ks->count] : r;
						break;
					default:
						queue[i] = r >> (r & 63);	/* small and large values */
						break;
				}
		}
	}
	memcpy(qcopy, queue, sizeof(queue));
	nq = fuzz_sort_unique_ref(qcopy, FUZZ_KEYSET_QUEUE);
	nnew = 0;
	for (uint64_t i = 0; i < nq; i++)
		nnew += !fuzz_keyset_has_linear(ks, qcopy[i]);

	/* the reference set: the old hashes and the queue, sorted, distinct */
	ref = fuzz_malloc((ks->count + FUZZ_KEYSET_QUEUE) * sizeof(uint64_t));
	memcpy(ref, ks->hashes, ks->count * sizeof(uint64_t));
	memcpy(ref + ks->count, queue, sizeof(queue));
	nref = fuzz_sort_unique_ref(ref, ks->count + FUZZ_KEYSET_QUEUE);
	FUZZ_ASSERT(nref == ks->count + nnew, "reference count %llu != %llu + %llu",
				(unsigned long long) nref, (unsigned long long) ks->count,
				(unsigned long long) nnew);

	{
		uint64_t	q[FUZZ_KEYSET_QUEUE];
		uint64_t	got;

		memcpy(q, queue, sizeof(queue));
		w = fuzz_malloc(keyset_size_for(ks->count + FUZZ_KEYSET_QUEUE));
		got = keyset_merge_queue(ks, q, FUZZ_KEYSET_QUEUE, qscratch, w);
		FUZZ_ASSERT(got == w->count, "merge returned %llu, count %llu",
					(unsigned long long) got, (unsigned long long) w->count);
		fuzz_keyset_finish(w, "after merge");
		FUZZ_ASSERT(w->count == ks->count + nnew, "merged count %llu != %llu + %llu new",
					(unsigned long long) w->count, (unsigned long long) ks->count,
					(unsigned long long) nnew);
		FUZZ_ASSERT(fuzz_keyset_same_header(w, ks), "merge changed the parameters");
		FUZZ_ASSERT(memcmp(w->hashes, ref, nref * sizeof(uint64_t)) == 0,
					"merged set is not the union");
		for (uint64_t i = 0; i < ks->count; i++)
			FUZZ_ASSERT(keyset_contains(w, ks->hashes[i]), "merge lost old hash %llu",
						(unsigned long long) i);
		for (int i = 0; i < FUZZ_KEYSET_QUEUE; i++)
			FUZZ_ASSERT(keyset_contains(w, queue[i]), "merge lost queued hash %d", i);

		/* the SQL flush of a big set: the same merge in place, the same bytes */
		{
			KeySet	   *ip = fuzz_malloc(keyset_size_for(ks->count + FUZZ_KEYSET_QUEUE));

			memcpy(ip, ks, keyset_size_for(ks->count));
			memcpy(q, queue, sizeof(queue));
			got = keyset_merge_queue_inplace(ip, q, FUZZ_KEYSET_QUEUE);
			FUZZ_ASSERT(got == w->count && ip->count == w->count &&
						memcmp(ip->hashes, w->hashes, w->count * sizeof(uint64_t)) == 0 &&
						fuzz_keyset_same_header(ip, w),
						"in-place merge: %llu hashes, a merge into a new value %llu",
						(unsigned long long) ip->count, (unsigned long long) w->count);
			free(ip);
		}
	}

	/* the same queue merged into an empty state: the set of the queue */
	{
		uint64_t	q[FUZZ_KEYSET_QUEUE];
		KeySet	   *empty = fuzz_malloc(keyset_size_for(0));

		keyset_init(empty, ks->target, ks->layout, ks->fpr, ks->capacity, ks->hdr.seed);
		fuzz_keyset_finish(empty, "empty");
		memcpy(q, queue, sizeof(queue));
		qs = fuzz_malloc(keyset_size_for(FUZZ_KEYSET_QUEUE));
		(void) keyset_merge_queue(empty, q, FUZZ_KEYSET_QUEUE, qscratch, qs);
		fuzz_keyset_finish(qs, "queue alone");
		FUZZ_ASSERT(qs->count == nq && memcmp(qs->hashes, qcopy, nq * sizeof(uint64_t)) == 0,
					"queue alone: %llu hashes, expected %llu",
					(unsigned long long) qs->count, (unsigned long long) nq);
		FUZZ_ASSERT(keyset_check_compatible(qs, ks, errbuf) == BF_OK, "%s", errbuf);
		free(empty);
	}

	/*
	 * The combine function: the outside state united with the merged one,
	 * both ways, with the queue's own state, and with itself.  A union is
	 * a function of the set: the same bytes as the merge where the sets
	 * are the same.
	 */
	FUZZ_ASSERT(keyset_check_compatible(w, ks, errbuf) == BF_OK, "%s", errbuf);
	if (ks->count + w->count <= FUZZ_KEYSET_MAX_COUNT)
	{
		size_t		wlen = keyset_size_for(w->count);
		KeySet	   *u = fuzz_malloc(keyset_size_for(ks->count + w->count));

		(void) keyset_union(ks, w, u);
		fuzz_keyset_finish(u, "after combine");
		FUZZ_ASSERT(u->count == w->count, "combine count %llu != %llu",
					(unsigned long long) u->count, (unsigned long long) w->count);
		FUZZ_ASSERT(memcmp(u, w, wlen) == 0, "combine of a subset changed the set");

		(void) keyset_union(w, ks, u);
		fuzz_keyset_finish(u, "after combine, reversed");
		FUZZ_ASSERT(memcmp(u, w, wlen) == 0, "reversed combine differs");

		(void) keyset_union(ks, qs, u);
		fuzz_keyset_finish(u, "combine with the queue's state");
		FUZZ_ASSERT(memcmp(u, w, wlen) == 0, "combine differs from the merge");

		(void) keyset_union(ks, ks, u);
		fuzz_keyset_finish(u, "self combine");
		FUZZ_ASSERT(memcmp(u, ks, len) == 0, "self combine changed the set");
		free(u);
	}

	/*
	 * The sort on values the input chose (they may share their top bits,
	 * the sort's slow path): the set backwards then forwards, every hash
	 * twice, sorts back to the set.
	 */
	if (ks->count <= FUZZ_KEYSET_MAX_COUNT)
	{
		uint64_t	n = ks->count;
		uint64_t   *a = fuzz_malloc(2 * n * sizeof(uint64_t));
		uint64_t   *scratch = fuzz_malloc(2 * n * sizeof(uint64_t));
		size_t		got;

		for (uint64_t i = 0; i < n; i++)
		{
			a[i] = ks->hashes[n - 1 - i];
			a[n + i] = ks->hashes[i];
		}
		got = keyset_sort_unique(a, 2 * n, scratch);
		FUZZ_ASSERT(got == n && memcmp(a, ks->hashes, n * sizeof(uint64_t)) == 0,
					"sort_unique of the set twice: %zu of %llu", got, (unsigned long long) n);
		free(scratch);
		free(a);
	}

	/*
	 * The bloom final function: every hash, ascending, into a filter of
	 * that size, one by one; and the fast build (all bits, counted once),
	 * which gives the same bytes when it succeeds.
	 */
	if (ks->target == BF_KIND_BLOOM)
	{
		uint64_t	n = ks->count;
		size_t		flen;

		if (bloom_new_size(n ? n : 1, ks->fpr, BLOOM_LAYOUT_BLOCKED, true, &flen, NULL) == BF_OK &&
			flen <= (4u << 20))
		{
			BloomFilter *f = fuzz_malloc(flen);
			BloomFilter *g = fuzz_malloc(flen);
			bool		complete = true;

			bloom_init(f, flen, n ? n : 1, ks->fpr, BLOOM_LAYOUT_BLOCKED, true, ks->hdr.seed);
			fuzz_set_varsize(f, flen);
			memcpy(g, f, flen);
			for (uint64_t i = 0; i < n; i++)
			{
				BloomAddResult r = bloom_add_hash(f, ks->hashes[i]);

				/* sized for n; growth is ops_bloom.h's business */
				if (r == BLOOM_NEEDS_STAGE)
				{
					n = i;
					complete = false;
					break;
				}
				FUZZ_ASSERT(r == BLOOM_ADDED || r == BLOOM_PRESENT, "final filter full");
			}
			for (uint64_t i = 0; i < n; i++)
				FUZZ_ASSERT(bloom_contains_hash(f, ks->hashes[i]), "final filter lost a hash");
			FUZZ_ASSERT(bloom_check(f, flen, errbuf) == BF_OK, "final filter: %s", errbuf);

			if (bloom_can_build_unchecked(g))
			{
				bloom_set_unchecked(g, ks->hashes, ks->count);
				if (bloom_finish_unchecked(g))
				{
					FUZZ_ASSERT(complete, "fast build succeeded where adds needed a stage");
					FUZZ_ASSERT(memcmp(f, g, flen) == 0, "fast build differs from the adds");
				}
				else
					FUZZ_ASSERT(bloom_check(g, flen, errbuf) == BF_OK,
								"fast build not reset: %s", errbuf);
			}
			free(g);
			free(f);
		}
	}
	free(qs);
	free(ref);
	free(w);
}

/*
 * Seeds: each target with 0 hashes, 5 (hash 0 among them) and 40 (two
 * merges, the second queue overlapping the first), built as the
 * transition function builds them.
 */
static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const uint8_t targets[] = {BF_KIND_BLOOM, BF_KIND_COUNTING, BF_KIND_CUCKOO};

	for (int t = 0; t < 3; t++)
		for (int n = 0; n < 3; n++)
		{
			KeySet	   *ks = fuzz_malloc(keyset_size_for(0));
			uint64_t	rs = (uint64_t) n;
			int			count = n == 0 ? 0 : n == 1 ? 5 : 40;
			uint64_t	queue[48];
			uint64_t	scratch[48];
			int			nq = 0;
			int			first = n == 2 ? 25 : count;

			keyset_init(ks, targets[t], 1, n == 2 ? 0.001 : 0.01, n == 1 ? 1000 : 0,
						n == 2 ? 12345 : BF_DEFAULT_SEED);
			fuzz_set_varsize(ks, keyset_size_for(0));
			for (int batch = 0; batch < 2; batch++)
			{
				KeySet	   *nks;

				if (batch == 0)
				{
					if (n == 1)
						queue[nq++] = 0;
					while (nq < first)
						queue[nq++] = fuzz_rand(&rs);
					if (nq > 1)
						queue[nq++] = queue[0]; /* a repeat */
				}
				else
				{
					if (count == first)
						break;
					/* two already in the set, then the rest */
					queue[nq++] = ks->hashes[0];
					queue[nq++] = ks->hashes[ks->count - 1];
					while (ks->count + nq - 2 < (uint64_t) count)
						queue[nq++] = fuzz_rand(&rs);
				}
				nks = fuzz_malloc(keyset_size_for(ks->count + nq));
				(void) keyset_merge_queue(ks, queue, nq, scratch, nks);
				fuzz_set_varsize(nks, keyset_size_for(nks->count));
				free(ks);
				ks = nks;
				nq = 0;
			}
			if (ks->count != (uint64_t) count)
			{
				fprintf(stderr, "seed has %llu hashes, not %d\n",
						(unsigned long long) ks->count, count);
				exit(1);
			}
			emit(ks, keyset_size_for(ks->count));
			free(ks);
		}
}
