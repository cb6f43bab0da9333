/*
 * test_keyset.c
 *		Unit tests of the keyset core (src/keyset.c), the state of the
 *		self-sizing aggregates: exact distinct counting through growth, the
 *		zero hash, sorted order, and a checker that rejects damaged states
 *		(above all an overloaded table, which would make probes loop).
 *
 * Built and run under ASan+UBSan by tools/test-stages/30-unit.sh.
 */
#include "keyset.h"

#include <math.h>

#include "unit.h"

typedef struct TKeySet
{
	KeySet	   *ks;
	size_t		size;
} TKeySet;

static TKeySet
tk_new(uint64_t nslots)
{
	TKeySet		t;

	t.size = keyset_size_for_slots(nslots);
	t.ks = unit_xmalloc(t.size);
	keyset_init(t.ks, nslots, BF_KIND_BLOOM, 1, 0.01, 0, BF_DEFAULT_SEED);
	unit_set_varsize(t.ks, t.size);
	return t;
}

/* add like the SQL transition function: double the table when needed */
static bool
tk_add(TKeySet *t, uint64_t h)
{
	if (h != 0 && keyset_needs_grow(t->ks) && !keyset_contains(t->ks, h))
	{
		TKeySet		n = tk_new(t->ks->nslots * 2);

		n.ks->target = t->ks->target;
		keyset_rehash_into(t->ks, n.ks);
		free(t->ks);
		*t = n;
	}
	return keyset_add(t->ks, h);
}

static TKeySet
tk_copy(const TKeySet *t)
{
	TKeySet		c = *t;

	c.ks = unit_xmalloc(t->size);
	memcpy(c.ks, t->ks, t->size);
	return c;
}

static void
test_exact_count_through_growth(void)
{
	TKeySet		t = tk_new(16);
	uint64_t	rs = 123;
	const int	n = 1000000;
	char		err[BF_ERRLEN];
	int			missing = 0;

	for (int i = 0; i < n; i++)
		CHECK(tk_add(&t, unit_rand(&rs)));
	CHECK(t.ks->count == (uint64_t) n);
	/* the same keys again: nothing new */
	rs = 123;
	for (int i = 0; i < 1000; i++)
		CHECK(!tk_add(&t, unit_rand(&rs)));
	CHECK(t.ks->count == (uint64_t) n);
	rs = 123;
	for (int i = 0; i < n; i++)
		missing += !keyset_contains(t.ks, unit_rand(&rs));
	CHECK_MSG(missing == 0, "%d hashes lost", missing);
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);
	CHECK(!keyset_contains(t.ks, 12345));
	free(t.ks);
}

/*
 * keyset_add_many (the aggregates' flush) takes hashes as keyset_add one
 * by one does, and stops exactly where the table must grow first.
 */
static void
test_add_many_same_bytes(void)
{
	uint64_t	rs = 77;
	TKeySet		a = tk_new(16);
	TKeySet		b = tk_new(16);
	uint64_t   *h = unit_xmalloc(100000 * sizeof(uint64_t));
	size_t		done = 0;
	int			grows = 0;

	for (int i = 0; i < 100000; i++)
		h[i] = i % 1000 == 5 ? 0 : unit_rand(&rs) % 40000 * UINT64_C(0x9E3779B97F4A7C15);
	for (int i = 0; i < 100000; i++)
		(void) tk_add(&a, h[i]);
	while (done < 100000)
	{
		done += keyset_add_many(b.ks, h + done, 100000 - done);
		if (done < 100000)
		{
			TKeySet		n = tk_new(b.ks->nslots * 2);

			/* it stopped at a new hash that needs room */
			CHECK(keyset_needs_grow(b.ks) && !keyset_contains(b.ks, h[done]));
			keyset_rehash_into(b.ks, n.ks);
			free(b.ks);
			b = n;
			grows++;
		}
	}
	CHECK(grows >= 10);
	CHECK(a.size == b.size && memcmp(a.ks, b.ks, a.size) == 0);
	CHECK(keyset_check(b.ks, b.size, NULL) == BF_OK);
	free(h);
	free(a.ks);
	free(b.ks);
}

/*
 * keyset_next_batch (the final functions' walk) gives 0 first when the set
 * has it, then every stored hash in slot order, whatever the batch size.
 */
static void
test_next_batch(void)
{
	uint64_t	rs = 5;
	TKeySet		t = tk_new(16);
	uint64_t   *want = unit_xmalloc(3001 * sizeof(uint64_t));
	uint64_t   *got = unit_xmalloc((3001 + 4096) * sizeof(uint64_t));	/* out: room for max */
	size_t		nwant = 0;

	(void) tk_add(&t, 0);
	for (int i = 0; i < 3000; i++)
		(void) tk_add(&t, unit_rand(&rs));
	want[nwant++] = 0;
	for (uint64_t i = 0; i < t.ks->nslots; i++)
		if (t.ks->slots[i] != 0)
			want[nwant++] = t.ks->slots[i];
	CHECK(nwant == t.ks->count);
	for (size_t max = 1; max <= 4096; max *= 7)
	{
		uint64_t	pos = 0;
		size_t		n,
					ngot = 0;

		while ((n = keyset_next_batch(t.ks, &pos, got + ngot, max)) > 0)
		{
			CHECK(n <= max);
			ngot += n;
		}
		CHECK(ngot == nwant && memcmp(got, want, nwant * sizeof(uint64_t)) == 0);
	}
	free(want);
	free(got);
	free(t.ks);
}

static void
test_zero_hash_and_sorted(void)
{
	TKeySet		t = tk_new(16);
	uint64_t	rs = 5;
	uint64_t   *sorted;
	uint64_t	n;
	char		err[BF_ERRLEN];

	CHECK(!keyset_contains(t.ks, 0));
	CHECK(tk_add(&t, 0));
	CHECK(!tk_add(&t, 0));
	CHECK(keyset_contains(t.ks, 0));
	CHECK(t.ks->count == 1 && t.ks->has_zero == 1);
	for (int i = 0; i < 5000; i++)
		tk_add(&t, unit_rand(&rs));
	/* UINT64_MAX lands in the last slot and must wrap around */
	CHECK(tk_add(&t, UINT64_MAX));
	CHECK(tk_add(&t, UINT64_MAX - 1));
	CHECK(keyset_contains(t.ks, UINT64_MAX));
	CHECK(t.ks->count == 5003);
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);
	sorted = unit_xmalloc(t.ks->count * sizeof(uint64_t));
	n = keyset_sorted(t.ks, sorted);
	CHECK(n == t.ks->count);
	CHECK(sorted[0] == 0);
	for (uint64_t i = 2; i < n; i++)
		CHECK(sorted[i - 1] < sorted[i]);
	CHECK(sorted[n - 1] == UINT64_MAX);
	free(sorted);
	free(t.ks);
}

#define TEST_ORDER_KEY UINT64_C(0x94d049bb133111eb)

static int
cmp_remixed(const void *a, const void *b)
{
	uint64_t	x = bf_remix(*(const uint64_t *) a ^ TEST_ORDER_KEY),
				y = bf_remix(*(const uint64_t *) b ^ TEST_ORDER_KEY);

	return x < y ? -1 : x > y;
}

/*
 * keyset_remix_ordered gives exactly the sorted walk re-sorted by the
 * remixed value (what cuckoo_agg inserts in), from empty through sizes
 * that take each of its paths: one bucket, small runs, sub-bucketed runs,
 * hashes whose remixed values bunch up.
 */
static void
test_remix_ordered(void)
{
	uint64_t	sizes[] = {0, 1, 2, 17, 600, 5000, 300000};
	uint64_t	rv = 3;

	for (int i = 0; i < 1000; i++)
	{
		uint64_t	x = unit_rand(&rv);

		CHECK(bf_unremix(bf_remix(x)) == x);
	}

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		for (int variant = 0; variant < 3; variant++)
		{
			TKeySet		t = tk_new(16);
			uint64_t	rs = 11 + si;
			uint64_t	count;
			uint64_t   *want,
					   *got,
					   *scratch;
			uint64_t	n;

			if (variant == 1)
				(void) tk_add(&t, 0);
			for (uint64_t i = 0; i < sizes[si]; i++)
			{
				uint64_t	v = unit_rand(&rs);

				/* variant 2: remixed values share their top 20 bits */
				if (variant == 2)
				{
					uint64_t	r = bf_remix(v ^ TEST_ORDER_KEY);

					v = bf_unremix((r >> 44) == 0x12345 ? r :
												  (UINT64_C(0x12345) << 44) | (r >> 20)) ^ TEST_ORDER_KEY;
				}
				(void) tk_add(&t, v);
			}
			count = t.ks->count;
			want = unit_xmalloc((count + 1) * sizeof(uint64_t));
			got = unit_xmalloc((count + 1) * sizeof(uint64_t));
			scratch = unit_xmalloc((count + 1) * sizeof(uint64_t));
			n = keyset_sorted(t.ks, want);
			qsort(want, n, sizeof(uint64_t), cmp_remixed);
			CHECK(keyset_remix_ordered(t.ks, TEST_ORDER_KEY, got, scratch) == n);
			CHECK(n == count);
			CHECK(memcmp(want, got, n * sizeof(uint64_t)) == 0);
			free(want);
			free(got);
			free(scratch);
			free(t.ks);
		}
	}
}

/* a full table wraps: every slot but the free ones is probed from the end */
static void
test_wraparound_probe(void)
{
	TKeySet		t = tk_new(16);
	char		err[BF_ERRLEN];

	/* all hashes with the top bits of the last slot */
	for (uint64_t i = 1; i <= 11; i++)
		CHECK(tk_add(&t, UINT64_MAX - i));
	CHECK(t.ks->nslots == 16);
	for (uint64_t i = 1; i <= 11; i++)
		CHECK(keyset_contains(t.ks, UINT64_MAX - i));
	CHECK(!keyset_contains(t.ks, UINT64_MAX));
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);
	free(t.ks);
}

static void
test_compatible(void)
{
	TKeySet		a = tk_new(16),
				b = tk_new(16);
	char		err[BF_ERRLEN];

	CHECK(keyset_check_compatible(a.ks, b.ks, err) == BF_OK);
	b.ks->fpr = 0.02;
	CHECK(keyset_check_compatible(a.ks, b.ks, err) == BF_ERR_INCOMPATIBLE);
	b.ks->fpr = 0.01;
	b.ks->target = BF_KIND_CUCKOO;
	CHECK(keyset_check_compatible(a.ks, b.ks, err) == BF_ERR_INCOMPATIBLE);
	b.ks->target = BF_KIND_BLOOM;
	b.ks->hdr.seed = 1;
	CHECK(keyset_check_compatible(a.ks, b.ks, err) == BF_ERR_INCOMPATIBLE);
	free(a.ks);
	free(b.ks);
}

#define EXPECT_REJECT(t, stmt) \
	do { \
		TKeySet		c_ = tk_copy(&(t)); \
		KeySet	   *ks = c_.ks; \
		char		e_[BF_ERRLEN]; \
		(void) ks; \
		stmt; \
		CHECK_MSG(keyset_check(c_.ks, c_.size, e_) == BF_ERR_CORRUPT, "not rejected: %s", #stmt); \
		free(c_.ks); \
	} while (0)

/* index of the first empty / first used slot */
static uint64_t
slot_where(const KeySet *ks, bool used)
{
	for (uint64_t i = 0; i < ks->nslots; i++)
		if ((ks->slots[i] != 0) == used)
			return i;
	return 0;
}

static void
test_check_rejects(void)
{
	TKeySet		t = tk_new(64);
	uint64_t	rs = 17;
	char		err[BF_ERRLEN];

	for (int i = 0; i < 30; i++)
		tk_add(&t, unit_rand(&rs));
	tk_add(&t, 0);
	CHECK(t.ks->nslots == 64);
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);

	for (size_t len = 0; len < t.size; len++)
		CHECK_MSG(keyset_check(t.ks, len, err) != BF_OK, "accepted at %zu bytes", len);
	{
		uint8_t    *big = calloc(1, t.size + 64);

		memcpy(big, t.ks, t.size);
		CHECK(keyset_check(big, t.size + 8, err) != BF_OK);
		CHECK(keyset_check(big, t.size + 1, err) != BF_OK);
		free(big);
	}

	EXPECT_REJECT(t, ks->hdr.kind = BF_KIND_BLOOM);
	EXPECT_REJECT(t, ks->hdr.version = 0);
	EXPECT_REJECT(t, ks->hdr.hash_id = 2);
	EXPECT_REJECT(t, ks->hdr.flags = 0x80);
	EXPECT_REJECT(t, ks->hdr.reserved = UINT64_MAX);
	EXPECT_REJECT(t, ks->target = 0);
	EXPECT_REJECT(t, ks->target = BF_KIND_KEYSET);
	EXPECT_REJECT(t, ks->target = 200);
	EXPECT_REJECT(t, ks->has_zero = 2);
	EXPECT_REJECT(t, ks->has_zero = 0);
	EXPECT_REJECT(t, ks->layout = 2);
	EXPECT_REJECT(t, ks->reserved = 1);
	EXPECT_REJECT(t, ks->fpr = 0.0);
	EXPECT_REJECT(t, ks->fpr = 1.0);
	EXPECT_REJECT(t, ks->fpr = -0.5);
	EXPECT_REJECT(t, ks->fpr = NAN);
	EXPECT_REJECT(t, ks->fpr = 1e-300);
	EXPECT_REJECT(t, ks->capacity = UINT64_MAX);
	EXPECT_REJECT(t, ks->count++);
	EXPECT_REJECT(t, ks->count--);
	EXPECT_REJECT(t, ks->count = 0);
	EXPECT_REJECT(t, ks->nslots = 32);
	EXPECT_REJECT(t, ks->nslots = 128);
	EXPECT_REJECT(t, ks->nslots = 63);
	EXPECT_REJECT(t, ks->nslots = 0);
	EXPECT_REJECT(t, ks->nslots = 8);
	EXPECT_REJECT(t, ks->nslots = UINT64_C(1) << 40);
	EXPECT_REJECT(t, ks->nslots = UINT64_MAX);
	/* a slot emptied or filled without the count */
	EXPECT_REJECT(t, ks->slots[slot_where(ks, true)] = 0);
	EXPECT_REJECT(t, ks->slots[slot_where(ks, false)] = 99);
	free(t.ks);
}

/*
 * Overloaded tables: a full table would make a probe for an absent hash
 * loop forever, so the checker refuses anything past the load limit.
 */
static void
test_check_rejects_overloaded(void)
{
	TKeySet		t = tk_new(16);
	char		err[BF_ERRLEN];
	uint64_t	limit = 16 * KEYSET_MAX_LOAD_NUM / KEYSET_MAX_LOAD_DEN;

	for (uint64_t i = 0; i < 16; i++)
	{
		t.ks->slots[i] = (i << 60) | 1;
		t.ks->count = i + 1;
		if (i + 1 <= limit)
			CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%llu of 16: %s",
					  (unsigned long long) (i + 1), err);
		else
			CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_ERR_CORRUPT,
					  "%llu of 16 slots used accepted", (unsigned long long) (i + 1));
	}
	free(t.ks);
}

/*
 * Hashes out of their probe order, or stored twice (a crafted table):
 * lookups would miss them and count would overstate the distinct inputs.
 */
static void
test_check_rejects_misplaced_and_duplicates(void)
{
	TKeySet		t = tk_new(16);
	char		err[BF_ERRLEN];
	uint64_t	h = (UINT64_C(3) << 60) | 12345;	/* home slot 3 */

	t.ks->slots[3] = h;
	t.ks->count = 1;
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);
	/* moved past an empty slot: unreachable */
	t.ks->slots[3] = 0;
	t.ks->slots[5] = h;
	CHECK(keyset_check(t.ks, t.size, err) == BF_ERR_CORRUPT);
	/* before its home slot */
	t.ks->slots[5] = 0;
	t.ks->slots[2] = h;
	CHECK(keyset_check(t.ks, t.size, err) == BF_ERR_CORRUPT);
	/* twice in one run */
	t.ks->slots[2] = 0;
	t.ks->slots[3] = h;
	t.ks->slots[4] = h;
	t.ks->count = 2;
	CHECK(keyset_check(t.ks, t.size, err) == BF_ERR_CORRUPT);
	/* a run that wraps from the last slot to the first is fine */
	memset(t.ks->slots, 0, 16 * sizeof(uint64_t));
	t.ks->slots[15] = UINT64_MAX;
	t.ks->slots[0] = UINT64_MAX - 1;
	t.ks->slots[1] = 1;			/* home slot 0, displaced by the wrap */
	t.ks->count = 3;
	CHECK_MSG(keyset_check(t.ks, t.size, err) == BF_OK, "%s", err);
	free(t.ks);
}

static void
test_max_count(void)
{
	CHECK(KEYSET_MAX_COUNT >= 40000000);
	CHECK(keyset_size_for_slots(KEYSET_MAX_SLOTS) < BF_MAX_VALUE_BYTES);
}

/*
 * The grow policy: doubling without a capacity, or before a quarter of it
 * is in; from there straight to the table the capacity needs (a power of
 * two at least keyset_slots_for(capacity) once rounded); never for a
 * capacity no keyset can hold.  Then a sized build through the policy
 * keeps every hash and grows once past the quarter.
 */
static void
test_grow_policy(void)
{
	TKeySet		t = tk_new(1024);
	uint64_t	state = 7;
	int			grows = 0;

	/* no capacity: doubling */
	t.ks->count = 700;
	CHECK(keyset_grow_slots(t.ks) == 2048);
	/* capacity 100000: doubling under 25000, then its table */
	t.ks->capacity = 100000;
	CHECK(keyset_grow_slots(t.ks) == 2048);
	t.ks->count = 24999;
	CHECK(keyset_grow_slots(t.ks) == 2048);
	t.ks->count = 25000;
	CHECK(keyset_grow_slots(t.ks) == 262144);	/* 142858 slots, rounded up */
	CHECK(keyset_slots_for(100000) == 142858);
	CHECK(262144 * KEYSET_MAX_LOAD_NUM >= 100000 * KEYSET_MAX_LOAD_DEN);
	/* a capacity beyond any keyset: doubling */
	t.ks->capacity = KEYSET_MAX_COUNT + 1;
	t.ks->count = KEYSET_MAX_COUNT / 2;
	CHECK(keyset_grow_slots(t.ks) == 2048);
	free(t.ks);

	/* a sized build of 100000 distinct hashes, growing by the policy */
	t = tk_new(16);
	t.ks->capacity = 100000;
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	h = unit_rand(&state);

		if (h != 0 && keyset_needs_grow(t.ks) && !keyset_contains(t.ks, h))
		{
			TKeySet		n = tk_new(keyset_grow_slots(t.ks));

			n.ks->capacity = t.ks->capacity;
			keyset_rehash_into(t.ks, n.ks);
			free(t.ks);
			t = n;
			grows++;
		}
		CHECK(keyset_add(t.ks, h));
	}
	CHECK(t.ks->count == 100000);
	/* 16 -> ... -> 65536 doubling (12 grows; 32768 fills at 22937, under a quarter), then once to 262144 */
	CHECK_MSG(t.ks->nslots == 262144 && grows == 13, "%llu slots after %d grows",
			  (unsigned long long) t.ks->nslots, grows);
	state = 7;
	for (int i = 0; i < 100000; i++)
		CHECK(keyset_contains(t.ks, unit_rand(&state)));
	free(t.ks);
}

int
main(void)
{
	RUN(test_max_count);
	RUN(test_grow_policy);
	RUN(test_exact_count_through_growth);
	RUN(test_add_many_same_bytes);
	RUN(test_next_batch);
	RUN(test_zero_hash_and_sorted);
	RUN(test_remix_ordered);
	RUN(test_wraparound_probe);
	RUN(test_compatible);
	RUN(test_check_rejects);
	RUN(test_check_rejects_overloaded);
	RUN(test_check_rejects_misplaced_and_duplicates);
	UNIT_DONE();
}
