/*
 * ops_bloom.h
 *		What a user can do with a bloomfilter that passed bloom_check(), for
 *		the fuzz harness (fuzz_value.c), and the seed values.
 */
#include "keyset.h"

/* growth beyond this is legal but slow to fuzz: stop adding there */
#define FUZZ_BLOOM_MAX_GROWN (4u << 20)

static BloomFilter *
fuzz_bloom_copy(const BloomFilter *f, size_t len)
{
	BloomFilter *c = fuzz_malloc(len);

	memcpy(c, f, len);
	return c;
}

/* bloom_add as pgbf_bloom_add does it: a new value when a stage is added */
static BloomFilter *
fuzz_bloom_add(BloomFilter *f, size_t *len, uint64_t h, bool *stop)
{
	for (;;)
	{
		BloomAddResult r = bloom_add_hash(f, h);
		size_t		size;
		BloomFilter *nf;
		char		errbuf[BF_ERRLEN];

		if (r == BLOOM_ADDED || r == BLOOM_PRESENT)
		{
			FUZZ_ASSERT(bloom_contains_hash(f, h), "added element not found");
			return f;
		}
		FUZZ_ASSERT(r == BLOOM_FULL || f->scalable, "a fixed filter asked to grow");
		if (r == BLOOM_FULL)
		{
			*stop = true;
			return f;
		}
		if (bloom_grown_size(f, &size, errbuf) != BF_OK || size > FUZZ_BLOOM_MAX_GROWN)
		{
			*stop = true;
			return f;
		}
		nf = fuzz_malloc(size);
		bloom_grow_into(f, nf, size);
		fuzz_set_varsize(nf, size);
		FUZZ_ASSERT(bloom_check(nf, size, errbuf) == BF_OK, "grown filter invalid: %s", errbuf);
		free(f);
		f = nf;
		*len = size;
	}
}

static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const BloomFilter *f = value;
	BloomFilter *w;
	size_t		wlen = len;
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	char		errbuf[BF_ERRLEN];
	bool		stop = false;

	FUZZ_ASSERT(bloom_size(f) == len, "bloom_size %zu != %zu", bloom_size(f), len);

	/* probes and estimates on the value as stored */
	for (int i = 0; i < 16; i++)
		(void) bloom_contains_hash(f, fuzz_rand(&rs));
	(void) bloom_estimate_cardinality(f);
	(void) bloom_estimate_fpr(f);
	(void) bloom_total_bits(f);
	(void) bloom_total_bits_set(f);
	(void) bloom_total_capacity(f);

	/* bloom_add: modify a copy, growing it, and it stays valid */
	w = fuzz_bloom_copy(f, len);
	for (int i = 0; i < 64 && !stop; i++)
		w = fuzz_bloom_add(w, &wlen, fuzz_rand(&rs), &stop);
	FUZZ_ASSERT(bloom_check(w, wlen, errbuf) == BF_OK, "after adds: %s", errbuf);

	/*
	 * bloom_add_hashes, the aggregates' batch add: the same bytes and the
	 * same refusals as bloom_add_hash one by one, on copies that are not
	 * grown (a refused hash is skipped, as a caller that grows would retry
	 * it).  Some hashes repeat.
	 */
	{
		uint64_t	hs[80];
		BloomAddResult one[80];
		size_t		n = 1 + fuzz_rand(&rs) % 80,
					done = 0;
		BloomFilter *a = fuzz_bloom_copy(f, len);
		BloomFilter *b = fuzz_bloom_copy(f, len);

		for (size_t i = 0; i < n; i++)
		{
			hs[i] = i > 0 && fuzz_rand(&rs) % 4 == 0 ? hs[fuzz_rand(&rs) % i] : fuzz_rand(&rs);
			one[i] = bloom_add_hash(a, hs[i]);
		}
		while (done < n)
		{
			BloomAddResult why;

			done += bloom_add_hashes(b, hs + done, n - done, &why);
			if (done < n)
			{
				FUZZ_ASSERT(why == one[done] && (why == BLOOM_NEEDS_STAGE || why == BLOOM_FULL),
							"batch add stopped at %zu with %d, one by one gave %d",
							done, (int) why, (int) one[done]);
				done++;
			}
		}
		for (size_t i = 0; i < n; i++)
			FUZZ_ASSERT(one[i] == BLOOM_NEEDS_STAGE || one[i] == BLOOM_FULL ||
						bloom_contains_hash(b, hs[i]), "batch-added element not found");
		FUZZ_ASSERT(memcmp(a, b, len) == 0, "batch add and adds one by one differ");
		FUZZ_ASSERT(bloom_check(b, len, errbuf) == BF_OK, "after batch add: %s", errbuf);
		free(a);
		free(b);
	}

	/* union both ways with the original, as pgbf_bloom_union does */
	if (bloom_check_compatible(w, f, false, errbuf) == BF_OK)
	{
		BloomFilter *u = fuzz_bloom_copy(w, wlen);

		FUZZ_ASSERT(w->nstages >= f->nstages, "grown copy lost stages");
		if (bloom_union_into(u, f, errbuf) == BF_OK)
			FUZZ_ASSERT(bloom_check(u, wlen, errbuf) == BF_OK, "after union: %s", errbuf);
		free(u);
	}
	else
		FUZZ_ASSERT(false, "a filter is incompatible with its own copy: %s", errbuf);

	/* union and intersection with itself */
	{
		BloomFilter *u = fuzz_bloom_copy(f, len);

		/* same bits; only rate_units may be recomputed (within rounding) */
		if (bloom_union_into(u, f, errbuf) == BF_OK)
		{
			FUZZ_ASSERT(bloom_check(u, len, errbuf) == BF_OK, "self union: %s", errbuf);
			FUZZ_ASSERT(memcmp((char *) u + f->stages[0].offset, (char *) f + f->stages[0].offset,
							   len - f->stages[0].offset) == 0, "self union changed the bits");
		}
		if (bloom_check_compatible(u, f, true, errbuf) == BF_OK)
		{
			memcpy(u, f, len);
			bloom_intersect_into(u, f);
			FUZZ_ASSERT(bloom_check(u, len, errbuf) == BF_OK, "self intersection: %s", errbuf);
		}
		free(u);
	}
	free(w);
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const uint64_t caps[] = {1, 3, 20};
	static const double fprs[] = {0.01, 0.3, 1e-6};

	for (int layout = 0; layout <= 1; layout++)
		for (int sc = 0; sc <= 1; sc++)
			for (size_t c = 0; c < 3; c++)
			{
				size_t		len;
				BloomFilter *f;
				uint64_t	rs = c;
				bool		stop = false;
				int			nadd = sc ? (int) caps[c] * 5 : (int) caps[c];

				if (bloom_new_size(caps[c], fprs[c], layout, sc, &len, NULL) != BF_OK)
					abort();
				f = fuzz_malloc(len);
				bloom_init(f, len, caps[c], fprs[c], layout, sc, c == 2 ? 12345 : 0);
				fuzz_set_varsize(f, len);
				for (int i = 0; i < nadd && !stop; i++)
					f = fuzz_bloom_add(f, &len, fuzz_rand(&rs), &stop);
				emit(f, len);
				free(f);
			}
}
