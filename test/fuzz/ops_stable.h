/*
 * ops_stable.h
 *		What a user can do with a stablebloom that passed stable_check(): probe,
 *		insert (which decrements P cells from its stored PRNG), estimates;
 *		for the fuzz harness (fuzz_value.c), and the seed values.
 */
static void
fuzz_exercise(void *value, size_t len, const uint8_t *data, size_t size)
{
	const StableFilter *f = value;
	StableFilter *w = fuzz_malloc(len);
	uint64_t	rs = bf_hash_bytes(data, size, 0);
	char		errbuf[BF_ERRLEN];

	for (int i = 0; i < 16; i++)
		(void) stable_contains_hash(f, fuzz_rand(&rs));
	(void) stable_fpr_now(f);
	(void) stable_cell(f, 0);
	(void) stable_cell(f, f->cells - 1);
	(void) stable_fpr_bound(f->cells, f->hashes, f->decrement, f->cell_bits);
	(void) stable_half_life(f->cells, f->hashes, f->decrement, f->cell_bits);

	memcpy(w, f, len);
	for (int i = 0; i < 16; i++)
	{
		uint64_t	h = fuzz_rand(&rs);

		(void) stable_add_hash(w, h);
		/* just inserted: its cells are at Max */
		FUZZ_ASSERT(stable_contains_hash(w, h), "element not found right after its insert");
	}
	FUZZ_ASSERT(stable_check(w, len, errbuf) == BF_OK, "after adds: %s", errbuf);
	free(w);
}

static void
fuzz_seeds(void (*emit) (const void *value, size_t len))
{
	static const int64_t cells[] = {2, 100, 2000};
	static const int bits[] = {1, 3, 8};

	for (size_t c = 0; c < 3; c++)
	{
		StableParams p;
		size_t		len;
		StableFilter *f;
		uint64_t	rs = c;

		if (stable_choose(cells[c], 0.05, bits[c], &p, NULL) != BF_OK)
			continue;
		len = stable_size((uint64_t) cells[c], bits[c]);
		f = fuzz_malloc(len);
		stable_init(f, len, (uint64_t) cells[c], bits[c], 0.05, &p, c);
		fuzz_set_varsize(f, len);
		for (int i = 0; i < 20; i++)
			(void) stable_add_hash(f, fuzz_rand(&rs));
		emit(f, len);
		free(f);
	}
}
