/*
 * ops_counting.h
 *		What a user can do with a countingbloom that passed counting_check(),
 *		for the fuzz harness (fuzz_value.c), and the seed values.
 */
static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const CountingBloom *f = value;
	CountingBloom *w,
			   *plain = NULL;
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	CountingStats st;
	char		errbuf[BF_ERRLEN];

	/*
	 * Packed: unpacks to a valid value whose probes are the occupancy's,
	 * and packs back to the same bytes; then the rest runs on that.
	 */
	if (f->layout == COUNTING_LAYOUT_PACKED)
	{
		CountingPackedCounts n;
		uint8_t    *again;
		size_t		plen = counting_size(f);

		plain = fuzz_malloc(plen);
		counting_unpack(f, plain);
		fuzz_set_varsize(plain, plen);
		FUZZ_ASSERT(counting_check(plain, plen, errbuf) == BF_OK, "unpacked: %s", errbuf);
		for (int i = 0; i < 16; i++)
		{
			uint64_t	h = fuzz_rand(&rs);

			FUZZ_ASSERT(counting_occupancy_contains(f, counting_occupancy_of(f), h) ==
						counting_contains_hash(plain, h), "packed probe differs");
		}
		FUZZ_ASSERT(counting_packed_size(plain, &n) == len, "packed size %zu != %zu",
					counting_packed_size(plain, &n), len);
		again = fuzz_malloc(len);
		counting_pack(plain, &n, again);
		FUZZ_ASSERT(memcmp(again + 4, (const uint8_t *) f + 4, len - 4) == 0, "repacked bytes differ");
		free(again);
		f = plain;
		len = plen;
	}
	w = fuzz_malloc(len);
	FUZZ_ASSERT(counting_size(f) == len, "counting_size %zu != %zu", counting_size(f), len);
	for (int i = 0; i < 16; i++)
	{
		uint64_t	h = fuzz_rand(&rs);

		(void) counting_contains_hash(f, h);
		FUZZ_ASSERT(counting_count_hash(f, h) >= 0 && counting_count_hash(f, h) <= COUNTING_COUNTER_MAX,
					"count out of range");
	}
	counting_stats(f, &st);
	(void) counting_model_fpr(f, f->capacity);

	/* add, remove, and an added element is found until removed */
	memcpy(w, f, len);
	for (int i = 0; i < 32; i++)
	{
		uint64_t	h = fuzz_rand(&rs);

		if (counting_add_hash(w, h) == COUNTING_OK)
			FUZZ_ASSERT(counting_contains_hash(w, h), "added element not found");
		if (i % 3 == 0)
			(void) counting_remove_hash(w, h ^ 1);
	}
	FUZZ_ASSERT(counting_check(w, len, errbuf) == BF_OK, "after adds: %s", errbuf);

	/* union with the original and with itself */
	if (counting_check_compatible(w, f, errbuf) == BF_OK &&
		counting_union_into(w, f, errbuf) == BF_OK)
		FUZZ_ASSERT(counting_check(w, len, errbuf) == BF_OK, "after union: %s", errbuf);
	memcpy(w, f, len);
	if (counting_union_into(w, f, errbuf) == BF_OK)
		FUZZ_ASSERT(counting_check(w, len, errbuf) == BF_OK, "after self union: %s", errbuf);
	free(w);
	free(plain);
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const uint64_t caps[] = {1, 10, 50};
	static const double fprs[] = {0.01, 0.3, 1e-4};

	for (size_t c = 0; c < 3; c++)
	{
		size_t		len;
		CountingBloom *f;
		uint64_t	rs = c;

		if (counting_new_size(caps[c], fprs[c], &len, NULL) != BF_OK)
			abort();
		f = fuzz_malloc(len);
		counting_init(f, len, caps[c], fprs[c], c == 2 ? 99 : 0);
		fuzz_set_varsize(f, len);
		for (uint64_t i = 0; i < caps[c] / 2 + 1; i++)
			(void) counting_add_hash(f, fuzz_rand(&rs));
		emit(f, len);
		{
			/* and packed, as every function writes it */
			CountingPackedCounts n;
			size_t		plen = counting_packed_size(f, &n);
			uint8_t    *p = fuzz_malloc(plen);

			counting_pack(f, &n, p);
			fuzz_set_varsize(p, plen);
			emit(p, plen);
			free(p);
		}
		free(f);
	}
}
