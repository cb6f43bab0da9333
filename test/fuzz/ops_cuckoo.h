/*
 * ops_cuckoo.h
 *		What a user can do with a cuckoofilter that passed cuckoo_check():
 *		probe, count, add with growth into a fresh buffer, remove; for the
 *		fuzz harness (fuzz_value.c), and the seed values.
 */

/* growth beyond this is legal but slow to fuzz: stop adding there */
#define FUZZ_CUCKOO_MAX_GROWN (4u << 20)

static CuckooFilter *
fuzz_cuckoo_add(CuckooFilter *f, size_t *len, uint64_t h, bool *stop)
{
	for (;;)
	{
		size_t		size;
		CuckooFilter *nf;
		char		errbuf[BF_ERRLEN];

		if (cuckoo_add_hash(f, h) == CUCKOO_ADDED)
		{
			FUZZ_ASSERT(cuckoo_contains_hash(f, h), "added element not found");
			return f;
		}
		if (cuckoo_grown_size(f, &size, errbuf) != BF_OK || size > FUZZ_CUCKOO_MAX_GROWN)
		{
			*stop = true;
			return f;
		}
		nf = fuzz_malloc(size);
		cuckoo_grow_into(f, nf, size);
		fuzz_set_varsize(nf, size);
		FUZZ_ASSERT(cuckoo_check(nf, size, errbuf) == BF_OK, "grown filter invalid: %s", errbuf);
		free(f);
		f = nf;
		*len = size;
	}
}

static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const CuckooFilter *f = value;
	CuckooFilter *w;
	size_t		wlen = len;
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	uint64_t	added[32];
	int			nadded = 0;
	char		errbuf[BF_ERRLEN];
	bool		stop = false;

	size_t		alt_bytes = cuckoo_alt_table_size(f);
	uint32_t   *alt = NULL;

	FUZZ_ASSERT(cuckoo_size(f) == len, "cuckoo_size %zu != %zu", cuckoo_size(f), len);
	if (alt_bytes > 0)
	{
		alt = fuzz_malloc(alt_bytes);
		cuckoo_alt_table(f, alt);
	}
	for (int i = 0; i < 16; i++)
	{
		uint64_t	h = fuzz_rand(&rs);
		bool		found = cuckoo_contains_hash(f, h);

		/* a scan's probes, through the tabled alternate buckets */
		if (alt)
			FUZZ_ASSERT(cuckoo_contains_hash_alt(f, alt, h) == found,
						"the alt table's answer differs");
		(void) cuckoo_count_hash(f, h);
	}
	free(alt);
	(void) cuckoo_rate_bound(f);
	(void) cuckoo_total_count(f);
	(void) cuckoo_total_slots(f);
	(void) cuckoo_total_capacity(f);
	(void) cuckoo_total_slot_bits(f);

	/* add (growing), then every added element is found until removed */
	w = fuzz_malloc(len);
	memcpy(w, f, len);
	for (int i = 0; i < 32 && !stop; i++)
	{
		uint64_t	h = fuzz_rand(&rs);

		w = fuzz_cuckoo_add(w, &wlen, h, &stop);
		if (!stop)
			added[nadded++] = h;
	}
	FUZZ_ASSERT(cuckoo_check(w, wlen, errbuf) == BF_OK, "after adds: %s", errbuf);
	for (int i = 0; i < nadded; i++)
		FUZZ_ASSERT(cuckoo_contains_hash(w, added[i]), "lost an added element");
	for (int i = 0; i < nadded; i += 2)
		FUZZ_ASSERT(cuckoo_remove_hash(w, added[i]), "cannot remove an added element");
	for (int i = 1; i < nadded; i += 2)
		FUZZ_ASSERT(cuckoo_contains_hash(w, added[i]), "a remove took another element");
	FUZZ_ASSERT(cuckoo_check(w, wlen, errbuf) == BF_OK, "after removes: %s", errbuf);
	free(w);

	/*
	 * bulk load (cuckoo_agg's final) into the value's last table, or into a
	 * new empty one: ascending hashes, some of them repeated or out of
	 * order when the input says so; every hash placed is found, the rest
	 * is handed back
	 */
	{
		uint64_t	h[64],
					left[64];
		size_t		n = 8 + rs % 57,
					r;
		uint64_t	before;
		bool		in_place = (rs >> 8) & 1;

		w = fuzz_malloc(len);
		memcpy(w, f, len);
		wlen = len;
		if ((rs >> 9) & 1)
		{
			size_t		size;

			if (cuckoo_grown_size(w, &size, errbuf) == BF_OK && size <= FUZZ_CUCKOO_MAX_GROWN)
			{
				CuckooFilter *nf = fuzz_malloc(size);

				cuckoo_grow_into(w, nf, size);
				fuzz_set_varsize(nf, size);
				free(w);
				w = nf;
				wlen = size;
			}
		}
		for (size_t i = 0; i < n; i++)
			h[i] = fuzz_rand(&rs);
		for (size_t i = 1; i < n; i++)	/* insertion sort, unless told not to */
			for (size_t j = i; j > 0 && h[j - 1] > h[j] && !((rs >> 10) & 1); j--)
			{
				uint64_t	t = h[j];

				h[j] = h[j - 1];
				h[j - 1] = t;
			}
		if ((rs >> 11) & 1)
			h[n / 2] = h[n / 2 - 1];	/* a repeat */
		before = cuckoo_total_count(w);
		if (in_place)
		{
			memcpy(left, h, sizeof(h));
			r = cuckoo_load_sorted(w, left, n, left, n);
		}
		else
		{
			/* first with a random room, then (out of room) with room for n */
			size_t		room = (rs >> 12) % (n + 1);
			CuckooFilter *was = fuzz_malloc(wlen);

			memcpy(was, w, wlen);
			r = cuckoo_load_sorted(w, h, n, left, room);
			if (r == CUCKOO_LOAD_NO_ROOM)
			{
				FUZZ_ASSERT(memcmp(w, was, wlen) == 0,
							"a bulk load with room for %zu of %zu changed the filter",
							room, n);
				r = cuckoo_load_sorted(w, h, n, left, n);
			}
			else
				FUZZ_ASSERT(r <= room, "a bulk load with room for %zu handed back %zu",
							room, r);
			free(was);
		}
		FUZZ_ASSERT(r <= n && cuckoo_total_count(w) - before == n - r,
					"bulk load stored %llu and handed back %zu of %zu",
					(unsigned long long) (cuckoo_total_count(w) - before), r, n);
		FUZZ_ASSERT(r == 0 || w->tables[w->ntables - 1].victim_fp != 0,
					"bulk load handed back %zu without a victim", r);
		FUZZ_ASSERT(cuckoo_check(w, wlen, errbuf) == BF_OK, "after bulk load: %s", errbuf);
		{
			size_t		k = 0;

			/* the handed-back ones keep their order: a subsequence of h */
			for (size_t i = 0; i < n; i++)
			{
				if (k < r && left[k] == h[i])
					k++;
				else
					FUZZ_ASSERT(cuckoo_contains_hash(w, h[i]), "bulk load lost a hash");
			}
			FUZZ_ASSERT(k == r, "bulk load handed back hashes out of order");
		}
		free(w);
	}
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const uint64_t caps[] = {1, 10, 40};
	static const double fprs[] = {0.01, 0.2, 1e-5};

	for (size_t c = 0; c < 3; c++)
	{
		uint64_t	nb = cuckoo_buckets_for(caps[c]);
		size_t		len;
		CuckooFilter *f;
		uint64_t	rs = c;
		bool		stop = false;

		if (nb == 0 || cuckoo_new_size(nb, fprs[c], &len, NULL) != BF_OK)
			abort();
		f = fuzz_malloc(len);
		cuckoo_init(f, len, nb, caps[c], fprs[c], c == 2 ? 7 : 0);
		fuzz_set_varsize(f, len);
		/* the last one past its capacity: two tables */
		for (uint64_t i = 0; i < (c == 2 ? caps[c] * 3 : caps[c] / 2 + 1) && !stop; i++)
			f = fuzz_cuckoo_add(f, &len, fuzz_rand(&rs), &stop);
		emit(f, len);
		free(f);
	}
}
