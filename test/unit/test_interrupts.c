/*
 * test_interrupts.c
 *		Unit tests of the core's interrupt hook (bfcore.h): every loop whose
 *		length a caller controls (the filters', the keyset's, url_normalize's)
 *		calls it about once per chunk of work, a
 *		short loop never does, the results are the bytes of a run without
 *		it, and a hook that does not return (the SQL layer's raises an
 *		ERROR, a longjmp) leaves a filter being added to as the elements
 *		before would leave it.
 *
 * Built and run under ASan+UBSan by tools/test-stages/30-unit.sh.
 */
#include "bloom.h"
#include "counting.h"
#include "cuckoo.h"
#include "keyset.h"
#include "stable.h"
#include "url.h"

#include <setjmp.h>

#include "unit.h"

#define CHUNK	BF_INTERRUPT_CHUNK

static uint64_t hook_calls;
static uint64_t jump_at;		/* the call that longjmps; 0: none */
static jmp_buf jump_to;

static void
test_hook(void)
{
	if (++hook_calls == jump_at)
		longjmp(jump_to, 1);
}

/* count the hook's calls from now on (and jump at call "at", if not 0) */
static void
hook_on(uint64_t at)
{
	hook_calls = 0;
	jump_at = at;
	bf_interrupt_hook = test_hook;
}

static uint64_t
hook_off(void)
{
	bf_interrupt_hook = NULL;
	return hook_calls;
}

static uint64_t *
random_hashes(size_t n, uint64_t seed)
{
	uint64_t   *h = unit_xmalloc(n * sizeof(uint64_t));

	for (size_t i = 0; i < n; i++)
		h[i] = unit_rand(&seed);
	return h;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void *
dup_bytes(const void *p, size_t n)
{
	void	   *c = unit_xmalloc(n);

	memcpy(c, p, n);
	return c;
}

/* ---- bloomfilter ---- */

static BloomFilter *
bloom_new(uint64_t capacity, double fpr, int layout, bool scalable, size_t *size)
{
	BloomFilter *f;

	if (bloom_new_size(capacity, fpr, layout, scalable, size, NULL) != BF_OK)
		exit(2);
	f = unit_xmalloc(*size);
	bloom_init(f, *size, capacity, fpr, layout, scalable, BF_DEFAULT_SEED);
	unit_set_varsize(f, *size);
	return f;
}

static void
test_hook_is_unset_by_default(void)
{
	CHECK(bf_interrupt_hook == NULL);
}

/* a chunk or less (a row's add, a scan page's probes) never calls it */
static void
test_short_loops_do_not_check(void)
{
	size_t		size;
	BloomFilter *f = bloom_new(100000, 0.01, BLOOM_LAYOUT_BLOCKED, true, &size);
	uint64_t   *h = random_hashes(CHUNK, 1);
	bool	   *out = unit_xmalloc(CHUNK);
	BloomAddResult r;

	hook_on(0);
	CHECK(bloom_add_hashes(f, h, CHUNK, &r) == CHUNK);
	bloom_contains_hashes(f, h, CHUNK, out);
	CHECK(hook_off() == 0);
	free(f);
	free(h);
	free(out);
}

/* adds and probes of n hashes, hook on and off: the same bytes and answers */
static void
bloom_batch_case(int layout, bool scalable, uint64_t capacity, size_t n)
{
	size_t		size;
	BloomFilter *a = bloom_new(capacity, 0.01, layout, scalable, &size);
	BloomFilter *b = dup_bytes(a, size);
	uint64_t   *h = random_hashes(n, 2 + layout);
	bool	   *out_a = unit_xmalloc(n),
			   *out_b = unit_xmalloc(n);
	BloomAddResult ra,
				rb;
	size_t		da,
				db;

	hook_on(0);
	da = bloom_add_hashes(a, h, n, &ra);
	CHECK_MSG(hook_off() >= da / CHUNK - 1, "%" PRIu64 " calls for %zu adds", hook_calls, da);
	db = bloom_add_hashes(b, h, n, &rb);
	CHECK(da == db && ra == rb);
	CHECK(memcmp(a, b, size) == 0);

	hook_on(0);
	bloom_contains_hashes(a, h, n, out_a);
	CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls for %zu probes", hook_calls, n);
	bloom_contains_hashes(a, h, n, out_b);
	CHECK(memcmp(out_a, out_b, n) == 0);
	for (size_t i = 0; i < da; i++)
		CHECK(out_a[i]);
	free(a);
	free(b);
	free(h);
	free(out_a);
	free(out_b);
}

static void
test_bloom_adds_and_probes(void)
{
	bloom_batch_case(BLOOM_LAYOUT_BLOCKED, false, 1000000, 1000000);
	bloom_batch_case(BLOOM_LAYOUT_STANDARD, false, 300000, 300000);
	/* stops at the stage's end: the checks come before that */
	bloom_batch_case(BLOOM_LAYOUT_BLOCKED, true, 100000, 300000);
}

/* an add interrupted between chunks: a valid filter holding what came before */
static void
test_bloom_add_interrupted(void)
{
	size_t		size;
	BloomFilter *f = bloom_new(1000000, 0.01, BLOOM_LAYOUT_BLOCKED, false, &size);
	uint64_t   *h = random_hashes(1000000, 5);
	char		errbuf[BF_ERRLEN];
	BloomAddResult r;

	hook_on(3);
	if (setjmp(jump_to) == 0)
	{
		(void) bloom_add_hashes(f, h, 1000000, &r);
		CHECK(!"not interrupted");
	}
	hook_off();
	CHECK_MSG(bloom_check(f, size, errbuf) == BF_OK, "%s", errbuf);
	for (size_t i = 0; i < 3 * CHUNK; i++)
		CHECK(bloom_contains_hash(f, h[i]));
	/* the rest was not added: about fpr of it looks present */
	{
		size_t		present = 0;

		for (size_t i = 3 * CHUNK; i < 1000000; i++)
			present += bloom_contains_hash(f, h[i]);
		CHECK_MSG(present < 1000, "%zu present", present);
	}
	free(f);
	free(h);
}

/*
 * The passes over a whole value (a build's count, the checker, union,
 * intersection, the rate estimate) on one of over BF_INTERRUPT_BYTES.
 */
static void
test_bloom_value_passes(void)
{
	size_t		size;
	uint64_t	capacity = 8000000;
	BloomFilter *a = bloom_new(capacity, 0.01, BLOOM_LAYOUT_BLOCKED, false, &size);
	BloomFilter *b,
			   *ref;
	uint64_t   *h = random_hashes(capacity, 6);
	uint64_t	calls;
	char		errbuf[BF_ERRLEN];
	BloomAddResult r;

	CHECK(size > 2 * BF_INTERRUPT_BYTES);
	b = dup_bytes(a, size);
	ref = dup_bytes(a, size);
	qsort(h, capacity, sizeof(uint64_t), cmp_u64);

	CHECK(bloom_can_build_unchecked(a));
	hook_on(0);
	bloom_set_unchecked(a, h, capacity / 2);
	calls = hook_off();
	CHECK_MSG(calls >= capacity / 2 / CHUNK - 1, "%" PRIu64 " calls", calls);
	hook_on(0);
	CHECK(bloom_finish_unchecked(a));
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
	CHECK(bloom_add_hashes(ref, h, capacity / 2, &r) == capacity / 2);
	CHECK(memcmp(a, ref, size) == 0);

	hook_on(0);
	CHECK_MSG(bloom_check(a, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);

	CHECK(bloom_add_hashes(b, h + capacity / 2, capacity / 4, &r) == capacity / 4);
	hook_on(0);
	CHECK(bloom_union_into(b, a, errbuf) == BF_OK);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
	hook_on(0);
	bloom_intersect_into(b, a);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
	CHECK(memcmp(a, b, size) == 0);

	hook_on(0);
	CHECK(bloom_estimate_fpr(a) > 0.0);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
	free(a);
	free(b);
	free(ref);
	free(h);
}

/* ---- countingbloom ---- */

static CountingBloom *
counting_new(uint64_t capacity, double fpr, size_t *size)
{
	CountingBloom *f;

	if (counting_new_size(capacity, fpr, size, NULL) != BF_OK)
		exit(2);
	f = unit_xmalloc(*size);
	counting_init(f, *size, capacity, fpr, BF_DEFAULT_SEED);
	unit_set_varsize(f, *size);
	return f;
}

static void
test_counting_loops(void)
{
	uint64_t	n = 2000000;
	size_t		size,
				psize,
				out_bytes,
				scratch_bytes,
				built;
	CountingBloom *a = counting_new(n, 0.01, &size);
	CountingBloom *b = dup_bytes(a, size);
	CountingBloom *packed,
			   *unpacked,
			   *built_p;
	uint64_t   *h = random_hashes(n, 7);
	uint64_t   *occ;
	bool	   *out_a = unit_xmalloc(n),
			   *out_b = unit_xmalloc(n);
	CountingPackedCounts pc;
	CountingStats st_a,
				st_b;
	char		errbuf[BF_ERRLEN];
	void	   *scratch;

	CHECK(size > 2 * BF_INTERRUPT_BYTES);
	hook_on(0);
	CHECK(counting_add_hashes(a, h, n) == n);
	CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	CHECK(counting_add_hashes(b, h, n) == n);
	CHECK(memcmp(a, b, size) == 0);

	hook_on(0);
	counting_contains_hashes(a, h, n, out_a);
	CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	for (size_t i = 0; i < n; i++)
		CHECK(out_a[i]);

	occ = unit_xmalloc(counting_occupancy_size(a));
	hook_on(0);
	counting_occupancy(a, occ);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
	hook_on(0);
	counting_occupancy_contains_hashes(a, occ, h, n, out_b);
	CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	CHECK(memcmp(out_a, out_b, n) == 0);

	/* pack, unpack, and everything that reads a value whole */
	hook_on(0);
	psize = counting_packed_size(a, &pc);
	packed = unit_xmalloc(psize);
	counting_pack(a, &pc, packed);
	unit_set_varsize(packed, psize);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
	unpacked = unit_xmalloc(size);
	hook_on(0);
	counting_unpack(packed, unpacked);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
	unit_set_varsize(unpacked, size);
	CHECK(memcmp(unpacked, a, size) == 0);
	CHECK_MSG(counting_check(packed, psize, errbuf) == BF_OK, "%s", errbuf);
	counting_stats(packed, &st_a);
	hook_on(0);
	counting_stats(a, &st_b);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
	CHECK(st_a.nonzero == st_b.nonzero && st_a.saturated == st_b.saturated);

	/* a build from ascending hashes, straight to the packed form */
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	counting_build_bounds(a, n, &out_bytes, &scratch_bytes);
	built_p = unit_xmalloc(out_bytes);
	scratch = unit_xmalloc(scratch_bytes);
	{
		CountingBloom *fresh = counting_new(n, 0.01, &size);

		hook_on(0);
		built = counting_build_packed(fresh, h, n, built_p, scratch);
		CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
		CHECK(built == psize && memcmp((char *) built_p + 4, (char *) packed + 4, psize - 4) == 0);
		free(fresh);
	}

	/* union of a with b (a copy of a): the counters double */
	{
		CountingBloom *half = counting_new(2 * n, 0.01, &size);
		CountingBloom *other = dup_bytes(half, size);

		CHECK(counting_add_hashes(half, h, n) == n);
		CHECK(counting_add_hashes(other, h, n) == n);
		hook_on(0);
		CHECK(counting_union_into(half, other, errbuf) == BF_OK);
		CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
		CHECK(half->count == 2 * n);
		free(half);
		free(other);
	}
	free(a);
	free(b);
	free(packed);
	free(unpacked);
	free(built_p);
	free(scratch);
	free(occ);
	free(h);
	free(out_a);
	free(out_b);
}

static void
test_counting_add_interrupted(void)
{
	size_t		size;
	CountingBloom *f = counting_new(1000000, 0.01, &size);
	uint64_t   *h = random_hashes(1000000, 8);
	char		errbuf[BF_ERRLEN];

	hook_on(2);
	if (setjmp(jump_to) == 0)
	{
		(void) counting_add_hashes(f, h, 1000000);
		CHECK(!"not interrupted");
	}
	hook_off();
	CHECK_MSG(counting_check(f, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK(f->count == 2 * CHUNK);
	for (size_t i = 0; i < 2 * CHUNK; i++)
		CHECK(counting_contains_hash(f, h[i]));
	free(f);
	free(h);
}

/* ---- cuckoofilter ---- */

static CuckooFilter *
cuckoo_new(uint64_t capacity, double fpr, size_t *size)
{
	CuckooFilter *f;

	if (cuckoo_new_size(cuckoo_buckets_for(capacity), fpr, size, NULL) != BF_OK)
		exit(2);
	f = unit_xmalloc(*size);
	cuckoo_init(f, *size, cuckoo_buckets_for(capacity), capacity, fpr, BF_DEFAULT_SEED);
	unit_set_varsize(f, *size);
	return f;
}

static void
test_cuckoo_loops(void)
{
	uint64_t	n = 1000000;
	size_t		size;
	CuckooFilter *a = cuckoo_new(n, 0.01, &size);
	CuckooFilter *b = dup_bytes(a, size);
	CuckooFilter *big;
	uint64_t   *h = random_hashes(n, 9);
	uint64_t   *left;
	bool	   *out_a = unit_xmalloc(n),
			   *out_b = unit_xmalloc(n);
	uint32_t   *alt;
	char		errbuf[BF_ERRLEN];
	size_t		done;

	hook_on(0);
	done = cuckoo_add_hashes(a, h, n);
	CHECK_MSG(hook_off() >= done / CHUNK - 1, "%" PRIu64 " calls for %zu", hook_calls, done);
	CHECK(done > n / 2);
	CHECK(cuckoo_add_hashes(b, h, n) == done);
	CHECK(memcmp(a, b, size) == 0);

	hook_on(0);
	cuckoo_contains_hashes(a, h, done, out_a);
	CHECK_MSG(hook_off() >= done / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	for (size_t i = 0; i < done; i++)
		CHECK(out_a[i]);
	alt = unit_xmalloc(cuckoo_alt_table_size(a) + 4);
	if (cuckoo_alt_table_size(a) > 0)
		cuckoo_alt_table(a, alt);
	hook_on(0);
	cuckoo_contains_hashes_alt(a, cuckoo_alt_table_size(a) > 0 ? alt : NULL, h, done, out_b);
	CHECK_MSG(hook_off() >= done / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	CHECK(memcmp(out_a, out_b, done) == 0);

	/* the bulk load of ascending hashes, into a fresh filter */
	free(b);
	b = cuckoo_new(n + n / 10, 0.01, &size);
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	left = unit_xmalloc(n * sizeof(uint64_t));
	hook_on(0);
	(void) cuckoo_load_sorted(b, h, n, left, n);
	CHECK_MSG(hook_off() >= n / CHUNK - 1, "%" PRIu64 " calls", hook_calls);
	CHECK_MSG(cuckoo_check(b, size, errbuf) == BF_OK, "%s", errbuf);

	/* the checker over more than BF_INTERRUPT_BYTES slots */
	big = cuckoo_new(5000000, 0.1, &size);
	hook_on(0);
	CHECK_MSG(cuckoo_check(big, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
	free(big);
	free(a);
	free(b);
	free(alt);
	free(left);
	free(h);
	free(out_a);
	free(out_b);
}

static void
test_cuckoo_add_interrupted(void)
{
	size_t		size;
	CuckooFilter *f = cuckoo_new(1000000, 0.01, &size);
	uint64_t   *h = random_hashes(1000000, 10);
	char		errbuf[BF_ERRLEN];

	hook_on(2);
	if (setjmp(jump_to) == 0)
	{
		(void) cuckoo_add_hashes(f, h, 1000000);
		CHECK(!"not interrupted");
	}
	hook_off();
	CHECK_MSG(cuckoo_check(f, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK(cuckoo_total_count(f) == 2 * CHUNK);
	for (size_t i = 0; i < 2 * CHUNK; i++)
		CHECK(cuckoo_contains_hash(f, h[i]));
	free(f);
	free(h);
}

/* ---- stablebloom ---- */

static StableFilter *
stable_new(int64_t cells, double fpr, int bits, size_t *size)
{
	StableParams p;
	StableFilter *f;

	if (stable_choose(cells, fpr, bits, &p, NULL) != BF_OK)
		exit(2);
	*size = stable_size((uint64_t) cells, bits);
	f = unit_xmalloc(*size);
	stable_init(f, *size, (uint64_t) cells, bits, fpr, &p, BF_DEFAULT_SEED);
	unit_set_varsize(f, *size);
	return f;
}

/*
 * An insert is P + K cell updates: the checks come by that work, so with
 * P = 47,899 before every insert but the first, and with a small P about
 * once per CHUNK updates.
 */
static void
test_stable_adds(void)
{
	size_t		size;
	StableFilter *a = stable_new(1000, 1e-9, 8, &size);
	StableFilter *b = dup_bytes(a, size);
	uint64_t   *h = random_hashes(1000000, 11);
	uint64_t	per;
	char		errbuf[BF_ERRLEN];

	CHECK_MSG(a->decrement == 47899, "P = %u", a->decrement);
	hook_on(0);
	stable_add_hashes(a, h, 200);
	CHECK_MSG(hook_off() == 199, "%" PRIu64 " calls", hook_calls);
	for (size_t i = 0; i < 200; i++)
		(void) stable_add_hash(b, h[i]);
	CHECK(memcmp(a, b, size) == 0);
	free(a);
	free(b);

	a = stable_new(100000, 0.01, 3, &size);
	b = dup_bytes(a, size);
	per = (uint64_t) a->decrement + a->hashes;
	hook_on(0);
	stable_add_hashes(a, h, 1000000);
	CHECK_MSG(hook_off() >= 1000000 * per / (CHUNK + per) - 1, "%" PRIu64 " calls, P + K = %" PRIu64,
			  hook_calls, per);
	for (size_t i = 0; i < 1000000; i++)
		(void) stable_add_hash(b, h[i]);
	CHECK(memcmp(a, b, size) == 0);
	CHECK_MSG(stable_check(a, size, errbuf) == BF_OK, "%s", errbuf);
	free(a);
	free(b);
	free(h);
}

static void
test_stable_add_interrupted(void)
{
	size_t		size;
	StableFilter *f = stable_new(1000, 1e-9, 8, &size);
	uint64_t   *h = random_hashes(100, 12);
	char		errbuf[BF_ERRLEN];

	hook_on(10);
	if (setjmp(jump_to) == 0)
	{
		stable_add_hashes(f, h, 100);
		CHECK(!"not interrupted");
	}
	hook_off();
	CHECK_MSG(stable_check(f, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK(f->inserted == 10);
	free(f);
	free(h);
}

/* the checker's pass over the cells, and the parameter search */
static void
test_stable_value_passes(void)
{
	size_t		size;
	StableFilter *f = stable_new(40000000, 0.01, 1, &size);
	StableParams p;
	char		errbuf[BF_ERRLEN];

	hook_on(0);
	CHECK_MSG(stable_check(f, size, errbuf) == BF_OK, "%s", errbuf);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls", hook_calls);
	free(f);

	hook_on(0);
	CHECK(stable_choose(1000000, 0.01, 3, &p, errbuf) == BF_OK);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls", hook_calls);
}

/* ---- bloom_keyset ---- */

static KeySet *
keyset_new(uint64_t room)
{
	KeySet	   *ks = unit_xmalloc(keyset_size_for(room));

	keyset_init(ks, BF_KIND_BLOOM, 1, 0.01, 0, BF_DEFAULT_SEED);
	unit_set_varsize(ks, keyset_size_for(0));
	return ks;
}

/* sorts and merges of millions, each way a state is built and combined */
static void
test_keyset_merges(void)
{
	size_t		n = 1000000;
	uint64_t   *h1 = random_hashes(n, 13),
			   *h2 = random_hashes(n, 14);
	KeySet	   *empty = keyset_new(0);
	KeySet	   *a = keyset_new(n),
			   *b = keyset_new(n),
			   *u = keyset_new(2 * n),
			   *ref = keyset_new(2 * n),
			   *inplace;
	uint64_t   *queue = dup_bytes(h2, n * sizeof(uint64_t));
	uint64_t   *scratch = unit_xmalloc(keyset_sort_buffer_len(2 * n) * sizeof(uint64_t));
	char		errbuf[BF_ERRLEN];

	hook_on(0);
	(void) keyset_merge_queue(empty, h1, n, scratch, a);
	CHECK_MSG(hook_off() >= 1, "%" PRIu64 " calls (sort)", hook_calls);
	unit_set_varsize(a, keyset_size_for(a->count));
	(void) keyset_merge_queue(empty, h2, n, scratch, b);
	unit_set_varsize(b, keyset_size_for(b->count));

	/* a merge of two million-hash sets: a check at least every two chunks */
	hook_on(0);
	(void) keyset_union(a, b, u);
	CHECK_MSG(hook_off() >= n / CHUNK / 2, "%" PRIu64 " calls (union)", hook_calls);
	unit_set_varsize(u, keyset_size_for(u->count));

	hook_on(0);
	(void) keyset_merge_queue(a, h2, n, scratch, ref);
	CHECK_MSG(hook_off() >= n / CHUNK / 2, "%" PRIu64 " calls (merge)", hook_calls);
	unit_set_varsize(ref, keyset_size_for(ref->count));
	CHECK(ref->count == u->count && memcmp(ref, u, keyset_size_for(u->count)) == 0);

	inplace = unit_xmalloc(keyset_size_for(2 * n));
	memcpy(inplace, a, keyset_size_for(a->count));
	hook_on(0);
	(void) keyset_merge_queue_inplace(inplace, queue, n);
	CHECK_MSG(hook_off() >= n / CHUNK / 2, "%" PRIu64 " calls (in place)", hook_calls);
	unit_set_varsize(inplace, keyset_size_for(inplace->count));
	CHECK(inplace->count == u->count &&
		  memcmp(inplace, u, keyset_size_for(u->count)) == 0);

	hook_on(0);
	CHECK_MSG(keyset_check(u, keyset_size_for(u->count), errbuf) == BF_OK, "%s", errbuf);
	CHECK_MSG(hook_off() >= 2, "%" PRIu64 " calls (check)", hook_calls);

	free(h1);
	free(h2);
	free(empty);
	free(a);
	free(b);
	free(u);
	free(ref);
	free(inplace);
	free(queue);
	free(scratch);
}

/* ---- new and grown values ---- */

/*
 * A new value is zeroed, a grown one copied, the first write to its
 * pages: by stretches, for each type, on values of over 8 MB.
 */
static void
test_new_and_grown_values(void)
{
	size_t		size,
				gsize;
	void	   *buf;
	uint64_t	calls;

	if (bloom_new_size(7000000, 0.01, BLOOM_LAYOUT_BLOCKED, true, &size, NULL) != BF_OK)
		exit(2);
	buf = unit_xmalloc(size);
	hook_on(0);
	bloom_init(buf, size, 7000000, 0.01, BLOOM_LAYOUT_BLOCKED, true, BF_DEFAULT_SEED);
	CHECK_MSG((calls = hook_off()) >= size / BF_INTERRUPT_BYTES - 1 && calls >= 1,
			  "bloom_init: %" PRIu64 " calls for %zu bytes", calls, size);
	unit_set_varsize(buf, size);
	{
		void	   *g;

		CHECK(bloom_grown_size(buf, &gsize, NULL) == BF_OK);
		g = unit_xmalloc(gsize);
		hook_on(0);
		bloom_grow_into(buf, g, gsize);
		CHECK_MSG(hook_off() >= gsize / BF_INTERRUPT_BYTES - 2, "bloom_grow_into: %" PRIu64 " calls",
				  hook_calls);
		unit_set_varsize(g, gsize);
		CHECK(bloom_check(g, gsize, NULL) == BF_OK);
		free(g);
	}
	free(buf);

	if (counting_new_size(2000000, 0.01, &size, NULL) != BF_OK)
		exit(2);
	buf = unit_xmalloc(size);
	hook_on(0);
	counting_init(buf, size, 2000000, 0.01, BF_DEFAULT_SEED);
	CHECK_MSG(hook_off() >= 1, "counting_init: %" PRIu64 " calls", hook_calls);
	free(buf);

	if (cuckoo_new_size(cuckoo_buckets_for(6000000), 0.01, &size, NULL) != BF_OK)
		exit(2);
	buf = unit_xmalloc(size);
	hook_on(0);
	cuckoo_init(buf, size, cuckoo_buckets_for(6000000), 6000000, 0.01, BF_DEFAULT_SEED);
	CHECK_MSG(hook_off() >= 1, "cuckoo_init: %" PRIu64 " calls", hook_calls);
	unit_set_varsize(buf, size);
	{
		void	   *g;

		CHECK(cuckoo_grown_size(buf, &gsize, NULL) == BF_OK);
		g = unit_xmalloc(gsize);
		hook_on(0);
		cuckoo_grow_into(buf, g, gsize);
		CHECK_MSG(hook_off() >= gsize / BF_INTERRUPT_BYTES - 2, "cuckoo_grow_into: %" PRIu64 " calls",
				  hook_calls);
		CHECK(cuckoo_check(g, gsize, NULL) == BF_OK);
		free(g);
	}
	free(buf);

	{
		StableParams p;

		CHECK(stable_choose(80000000, 0.01, 1, &p, NULL) == BF_OK);
		size = stable_size(80000000, 1);
		buf = unit_xmalloc(size);
		hook_on(0);
		stable_init(buf, size, 80000000, 1, 0.01, &p, BF_DEFAULT_SEED);
		CHECK_MSG(hook_off() >= 1, "stable_init: %" PRIu64 " calls", hook_calls);
		free(buf);
	}
}

/* the text form of a value of megabytes, both ways */
static void
test_base64(void)
{
	size_t		n = 3 * BF_INTERRUPT_BYTES + 2;
	uint8_t    *src = (uint8_t *) random_hashes(n / 8 + 1, 15);
	size_t		tl = bf_base64_encoded_len(n);
	char	   *a = unit_xmalloc(tl),
			   *b = unit_xmalloc(tl);
	uint8_t    *back = unit_xmalloc(bf_base64_decoded_maxlen(tl));

	hook_on(0);
	bf_base64_encode(src, n, a);
	CHECK_MSG(hook_off() >= 2, "encode: %" PRIu64 " calls", hook_calls);
	bf_base64_encode(src, n, b);
	CHECK(memcmp(a, b, tl) == 0);
	hook_on(0);
	CHECK(bf_base64_decode(a, tl, back) == n);
	CHECK_MSG(hook_off() >= 2, "decode: %" PRIu64 " calls", hook_calls);
	CHECK(memcmp(back, src, n) == 0);
	free(src);
	free(a);
	free(b);
	free(back);
}

/* ---- url_normalize ---- */

/*
 * A text of megabytes in every shape the normalization scans: a long
 * scheme, host, userinfo, port, path of one segment or of many, query,
 * dots.  Each checks, gives what it gives without the hook; a URL of
 * ordinary length never checks.
 */
static void
url_case(const char *head, const char *unit, const char *tail, size_t n)
{
	size_t		hl = strlen(head),
				ul = strlen(unit),
				tl = strlen(tail),
				len = hl + n * ul + tl;
	char	   *src = unit_xmalloc(len);
	char	   *a = unit_xmalloc(URL_NORMALIZED_MAXLEN(len)),
			   *b = unit_xmalloc(URL_NORMALIZED_MAXLEN(len));
	size_t		la,
				lb;

	memcpy(src, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(src + hl + i * ul, unit, ul);
	memcpy(src + hl + n * ul, tail, tl);
	hook_on(0);
	la = url_normalize(src, len, a, URL_NORMALIZED_MAXLEN(len));
	CHECK_MSG(hook_off() >= (n * ul) / BF_INTERRUPT_BYTES - 1 && hook_calls >= 1,
			  "%s%s...%s: %" PRIu64 " calls", head, unit, tail, hook_calls);
	lb = url_normalize(src, len, b, URL_NORMALIZED_MAXLEN(len));
	CHECK(la == lb && la != (size_t) -1 && memcmp(a, b, la) == 0);
	free(src);
	free(a);
	free(b);
}

static void
test_url_scans(void)
{
	size_t		n = BF_INTERRUPT_BYTES + BF_INTERRUPT_BYTES / 2;
	char		out[256];
	const char *plain = "http://Example.COM:0080/a/./b/../%7e%41?q=%2f#f";

	url_case("h", "t", "p://x/", n);	/* scheme */
	url_case("http://", "a", "/", n);	/* host, normal */
	url_case("http://", "a", "A/", n);	/* host, lower-cased */
	url_case("http://", "u", "@h/", n);	/* userinfo */
	url_case("http://h:", "0", "8/", n);	/* port */
	url_case("http://h:8", "1", "/", n);	/* port digits */
	url_case("http://h/", "b", "%41", n);	/* one segment */
	url_case("http://h/", "b/", "%41", n / 2);	/* many segments */
	url_case("http://h/", "b/../", "x", n / 5);	/* dot segments */
	url_case("http://h/", "a.", "b", n / 2);	/* dots, normal */
	url_case("http://h/p?", "%2f", "", n / 3);	/* query */

	hook_on(0);
	CHECK(url_normalize(plain, strlen(plain), out, sizeof(out)) != (size_t) -1);
	CHECK(hook_off() == 0);
}

int
main(void)
{
	RUN(test_hook_is_unset_by_default);
	RUN(test_short_loops_do_not_check);
	RUN(test_bloom_adds_and_probes);
	RUN(test_bloom_add_interrupted);
	RUN(test_bloom_value_passes);
	RUN(test_counting_loops);
	RUN(test_counting_add_interrupted);
	RUN(test_cuckoo_loops);
	RUN(test_cuckoo_add_interrupted);
	RUN(test_stable_adds);
	RUN(test_stable_add_interrupted);
	RUN(test_stable_value_passes);
	RUN(test_keyset_merges);
	RUN(test_new_and_grown_values);
	RUN(test_base64);
	RUN(test_url_scans);
	UNIT_DONE();
}
