/*
 * test_keyset.c
 *		Unit tests of the keyset core (src/keyset.c), the state of the
 *		self-sizing aggregates: a sorted array of distinct hashes.  The
 *		bucket sort against qsort on uniform, repeated and bunched inputs;
 *		exact distinct counting through the transition's queue-and-merge
 *		policy; canonical bytes whatever the arrival order and merge points;
 *		the queue policy's exact lengths; union; and a
 *		checker that rejects damaged states (above all out-of-order or
 *		repeated hashes, which would overstate the distinct count).
 *
 * Built and run under ASan+UBSan by tools/test-stages/30-unit.sh.
 */
#include "keyset.h"

#include <math.h>
#include <stddef.h>
#include <time.h>

#include "unit.h"

/* ---- helpers ---- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* the reference: qsort, then drop repeats; returns the length left */
static size_t
ref_sort_unique(uint64_t *a, size_t n)
{
	size_t		u = 0;

	if (n == 0)
		return 0;
	qsort(a, n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (a[i] != a[u])
			a[++u] = a[i];
	return u + 1;
}

static uint64_t *
dup_u64(const uint64_t *a, size_t n)
{
	uint64_t   *c = unit_xmalloc(n * sizeof(uint64_t));

	if (n > 0)
		memcpy(c, a, n * sizeof(uint64_t));
	return c;
}

/* an empty set with room for "room" hashes, varlena size set for 0 */
static KeySet *
ks_empty(uint64_t room, uint64_t capacity)
{
	KeySet	   *ks = unit_xmalloc(keyset_size_for(room));

	keyset_init(ks, BF_KIND_BLOOM, 1, 0.01, capacity, BF_DEFAULT_SEED);
	unit_set_varsize(ks, keyset_size_for(0));
	return ks;
}

/* the set of h[0..n) (any order, repeats allowed), by one merge */
static KeySet *
ks_from(const uint64_t *h, size_t n)
{
	KeySet	   *empty = ks_empty(0, 0);
	KeySet	   *ks = unit_xmalloc(keyset_size_for(n));
	uint64_t   *queue = dup_u64(h, n);
	uint64_t   *scratch = unit_xmalloc(n * sizeof(uint64_t));

	(void) keyset_merge_queue(empty, queue, n, scratch, ks);
	unit_set_varsize(ks, keyset_size_for(ks->count));
	free(empty);
	free(queue);
	free(scratch);
	return ks;
}

static KeySet *
ks_dup(const KeySet *ks, size_t size)
{
	KeySet	   *c = unit_xmalloc(size);

	memcpy(c, ks, size);
	return c;
}

/*
 * A build the way the SQL transition function does it (keyset_type.c and
 * pgbf_pending_push): push a hash, and when the queue is full either grow
 * it to keyset_queue_target's length or merge it into a new value.  The
 * final function merges what is left.  Other modes choose the merge
 * points differently: a fixed queue length, or a random one per merge.
 */
typedef enum BuildMode
{
	BUILD_POLICY,				/* keyset_queue_target, as in SQL */
	BUILD_FIXED,				/* merge every qlen hashes */
	BUILD_RANDOM				/* merge after 1 .. 65536 hashes, at random */
} BuildMode;

#define BUILD_RANDOM_MAX 65536

typedef struct Build
{
	KeySet	   *ks;
	uint64_t   *queue;
	size_t		nq;
	size_t		qlen;
	BuildMode	mode;
	uint64_t	rng;
	int			merges;
	int			bad_states;		/* intermediate values keyset_check refused */
} Build;

static void
build_start(Build *b, BuildMode mode, size_t fixed_len, uint64_t capacity)
{
	memset(b, 0, sizeof(*b));
	b->ks = ks_empty(0, capacity);
	b->mode = mode;
	b->rng = 99;
	b->qlen = mode == BUILD_POLICY ? KEYSET_MIN_QUEUE :
		mode == BUILD_FIXED ? fixed_len : 1 + unit_rand(&b->rng) % BUILD_RANDOM_MAX;
	b->queue = unit_xmalloc((mode == BUILD_RANDOM ? BUILD_RANDOM_MAX : b->qlen) *
							sizeof(uint64_t));
}

/*
 * Every other merge is the SQL flush's, in place (keyset_merge_queue_inplace,
 * the set grown by realloc); the others, and the last when the count is
 * even, are the final functions' (keyset_merge_queue into a new value).
 * Both must give the same bytes.
 */
static void
build_merge(Build *b)
{
	size_t		n = b->nq;
	KeySet	   *nks;
	uint64_t	got;

	if (b->merges % 2 == 1)
	{
		nks = realloc(b->ks, keyset_size_for(b->ks->count + n));
		if (nks == NULL)
			abort();
		got = keyset_merge_queue_inplace(nks, b->queue, n);
	}
	else
	{
		uint64_t   *scratch = unit_xmalloc(n * sizeof(uint64_t));

		nks = unit_xmalloc(keyset_size_for(b->ks->count + n));
		got = keyset_merge_queue(b->ks, b->queue, n, scratch, nks);
		free(scratch);
		free(b->ks);
	}
	CHECK(got == nks->count);
	unit_set_varsize(nks, keyset_size_for(nks->count));
	b->bad_states += keyset_check(nks, keyset_size_for(nks->count), NULL) != BF_OK;
	b->ks = nks;
	b->nq = 0;
	b->merges++;
	if (b->mode == BUILD_RANDOM)
		b->qlen = 1 + unit_rand(&b->rng) % BUILD_RANDOM_MAX;
}

static void
build_push(Build *b, uint64_t h)
{
	b->queue[b->nq++] = h;
	if (b->nq < b->qlen)
		return;
	if (b->mode == BUILD_POLICY)
	{
		size_t		want = keyset_queue_target(b->ks, b->qlen);

		if (want > b->qlen)
		{
			uint64_t   *q = unit_xmalloc(want * sizeof(uint64_t));

			memcpy(q, b->queue, b->nq * sizeof(uint64_t));
			free(b->queue);
			b->queue = q;
			b->qlen = want;
			return;
		}
	}
	build_merge(b);
}

/* the final function's flush; returns the value, varlena size set */
static KeySet *
build_finish(Build *b)
{
	if (b->nq > 0)
		build_merge(b);
	free(b->queue);
	b->queue = NULL;
	return b->ks;
}

/* ---- tests ---- */

/*
 * The on-disk layout documented in keyset.h: a stored state is read back
 * by field offset, so moving a field is a format change, not a refactor.
 */
static void
test_layout(void)
{
	CHECK(offsetof(KeySet, target) == 24);
	CHECK(offsetof(KeySet, reserved0) == 25);
	CHECK(offsetof(KeySet, layout) == 26);
	CHECK(offsetof(KeySet, reserved) == 28);
	CHECK(offsetof(KeySet, fpr) == 32);
	CHECK(offsetof(KeySet, capacity) == 40);
	CHECK(offsetof(KeySet, count) == 48);
	CHECK(offsetof(KeySet, hashes) == 56);
	CHECK(keyset_size_for(0) == 56);
	CHECK(keyset_size_for(1) == 64);
	CHECK(keyset_size_for(1000) == 56 + 8000);
}

/*
 * The limits: a keyset holds at least 40M distinct hashes, and the value
 * a transition merge allocates (the set at its limit plus the longest
 * queue) still fits in one varlena.  The queue bounds are powers of two
 * (keyset_queue_target doubles between them).
 */
static void
test_max_count(void)
{
	CHECK(KEYSET_MAX_COUNT >= 40000000);
	CHECK(keyset_size_for(KEYSET_MAX_COUNT + KEYSET_MAX_QUEUE) < BF_MAX_VALUE_BYTES);
	CHECK(KEYSET_MIN_QUEUE >= 1 && KEYSET_MIN_QUEUE <= KEYSET_MAX_QUEUE);
	CHECK((KEYSET_MIN_QUEUE & (KEYSET_MIN_QUEUE - 1)) == 0);
	CHECK((KEYSET_MAX_QUEUE & (KEYSET_MAX_QUEUE - 1)) == 0);
}

/*
 * keyset_init writes a valid empty set with every parameter where the
 * layout says, every reserved byte zero, and leaves the varlena length
 * word (owned by PostgreSQL) alone; it writes no further than
 * keyset_size_for(0) bytes (the buffer is exactly that, for ASan).
 */
static void
test_init(void)
{
	size_t		size = keyset_size_for(0);
	KeySet	   *ks = unit_xmalloc(size);
	char		err[BF_ERRLEN];

	memset(ks, 0xAA, size);
	keyset_init(ks, BF_KIND_CUCKOO, 0, 0.125, 12345, UINT64_C(0xfeed));
	CHECK(ks->hdr.vl_len_ == 0xAAAAAAAA);
	CHECK(ks->hdr.kind == BF_KIND_KEYSET);
	CHECK(ks->hdr.version == BF_FORMAT_VERSION);
	CHECK(ks->hdr.hash_id == BF_HASH_XXH3_64);
	CHECK(ks->hdr.flags == 0);
	CHECK(ks->hdr.seed == UINT64_C(0xfeed));
	CHECK(ks->hdr.reserved == 0);
	CHECK(ks->target == BF_KIND_CUCKOO);
	CHECK(ks->reserved0 == 0);
	CHECK(ks->layout == 0);
	CHECK(ks->reserved == 0);
	CHECK(ks->fpr == 0.125);
	CHECK(ks->capacity == 12345);
	CHECK(ks->count == 0);
	unit_set_varsize(ks, size);
	CHECK_MSG(keyset_check(ks, size, err) == BF_OK, "%s", err);
	CHECK(!keyset_contains(ks, 0));
	CHECK(!keyset_contains(ks, UINT64_MAX));
	free(ks);
}

/* the value distributions test_sort_unique feeds the sort */
enum
{
	DIST_UNIFORM,				/* uniform random */
	DIST_POOL5,					/* 5 values, repeated over and over */
	DIST_POOL_TENTH,			/* n/10 + 1 values: every value about 10 times */
	DIST_EXTREMES,				/* uniform with 0 and UINT64_MAX, repeated */
	DIST_TOP12,					/* one top-12-bit prefix: one top bucket */
	DIST_TOP24,					/* one top-24-bit prefix: one sub-bucket */
	DIST_TOP24_HIGH,			/* the same in the last bucket (0xffffff...) */
	DIST_TOP40,					/* one top-40-bit prefix: 24 random bits */
	DIST_SMALL,					/* values < 2^20: bucket 0, with 0 */
	DIST_ASCENDING,				/* distinct, already sorted */
	DIST_DESCENDING,			/* distinct, sorted backwards */
	DIST_EQUAL,					/* one value n times */
	DIST_COUNT
};

static const char *const dist_names[DIST_COUNT] = {
	"uniform", "pool5", "pool_tenth", "extremes", "top12", "top24",
	"top24_high", "top40", "small", "ascending", "descending", "equal"
};

static void
fill_dist(uint64_t *a, size_t n, int dist, uint64_t seed)
{
	uint64_t	rs = seed;
	uint64_t	pool[5];
	uint64_t	tenth = n / 10 + 1;

	for (int i = 0; i < 5; i++)
		pool[i] = unit_rand(&rs);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	r = unit_rand(&rs);

		switch (dist)
		{
			case DIST_UNIFORM:
				a[i] = r;
				break;
			case DIST_POOL5:
				a[i] = pool[r % 5];
				break;
			case DIST_POOL_TENTH:
				a[i] = bf_remix(r % tenth + 1);
				break;
			case DIST_EXTREMES:
				a[i] = r % 7 == 0 ? 0 : r % 7 == 1 ? UINT64_MAX : r;
				break;
			case DIST_TOP12:
				a[i] = (UINT64_C(0x5a5) << 52) | (r >> 12);
				break;
			case DIST_TOP24:
				a[i] = (UINT64_C(0xabcdef) << 40) | (r >> 24);
				break;
			case DIST_TOP24_HIGH:
				a[i] = (UINT64_C(0xffffff) << 40) | (r >> 24);
				break;
			case DIST_TOP40:
				a[i] = (UINT64_C(0x123456789a) << 24) | (r >> 40);
				break;
			case DIST_SMALL:
				a[i] = r >> 44;
				break;
			case DIST_ASCENDING:
				a[i] = (uint64_t) i * UINT64_C(0x9E3779B97F4A7) + 3;
				break;
			case DIST_DESCENDING:
				a[i] = UINT64_MAX - (uint64_t) i * UINT64_C(0x9E3779B97F4A7);
				break;
			case DIST_EQUAL:
				a[i] = pool[0];
				break;
		}
	}
	/* the extremes at both ends of the input too */
	if (dist == DIST_EXTREMES && n >= 2)
	{
		a[0] = UINT64_MAX;
		a[n - 1] = 0;
	}
}

/* keyset_sort_unique(a) against the reference; returns the CPU seconds */
static double
check_sort_unique(const uint64_t *in, size_t n, const char *what)
{
	uint64_t   *a = dup_u64(in, n);
	uint64_t   *ref = dup_u64(in, n);
	uint64_t   *scratch = unit_xmalloc(n * sizeof(uint64_t));	/* exactly n */
	size_t		nref,
				got;
	clock_t		t0;
	double		secs;

	nref = ref_sort_unique(ref, n);
	t0 = clock();
	got = keyset_sort_unique(a, n, scratch);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	CHECK_MSG(got == nref, "%s, n %zu: %zu left, expected %zu", what, n, got, nref);
	CHECK_MSG(got == nref && (nref == 0 || memcmp(a, ref, nref * sizeof(uint64_t)) == 0),
			  "%s, n %zu: wrong order or values", what, n);
	free(a);
	free(ref);
	free(scratch);
	return secs;
}

/*
 * keyset_sort_unique gives exactly what qsort and a unique pass give, the
 * same length and the same values, for sizes around the insertion-sort
 * threshold (31, 32, 33), one bucket (600), several (5000), many (300000)
 * and the most top buckets (2.1M), and for inputs that defeat a bucket
 * sort: many repeats, 0 and UINT64_MAX, values bunched in one top bucket,
 * in one sub-bucket (top 24 bits shared: the qsort fallback), already
 * sorted, or all equal.  Then 200000 values sharing their top 40 bits:
 * all in one sub-bucket, where a sort without the qsort fallback is an
 * insertion sort over 200000 values (about 10^10 moves), so this must
 * take well under the 2 s CPU limit checked here.
 */
static void
test_sort_unique(void)
{
	static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 600, 5000, 300000};
	size_t		big = (UINT64_C(1) << 21) + 3;
	uint64_t   *a = unit_xmalloc(big * sizeof(uint64_t));
	char		what[64];
	double		secs;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (int d = 0; d < DIST_COUNT; d++)
		{
			fill_dist(a, sizes[si], d, 1000 + si * 31 + d);
			snprintf(what, sizeof(what), "%s", dist_names[d]);
			(void) check_sort_unique(a, sizes[si], what);
		}

	/* more than 2^20 values: the most top buckets (SORT_MAX_TOP_BITS) */
	fill_dist(a, big, DIST_UNIFORM, 77);
	(void) check_sort_unique(a, big, "uniform, big");
	fill_dist(a, big, DIST_TOP24, 78);
	(void) check_sort_unique(a, big, "top24, big");

	/* the bunched case that would be quadratic without the qsort fallback */
	fill_dist(a, 200000, DIST_TOP40, 79);
	secs = check_sort_unique(a, 200000, "top40, 200000");
	CHECK_MSG(secs < 2.0, "200000 values sharing 40 top bits took %.2f s", secs);

	/* the remaining bits random, the top 24 bits from a few values only */
	{
		uint64_t	rs = 80;

		for (size_t i = 0; i < 300000; i++)
		{
			uint64_t	r = unit_rand(&rs);

			a[i] = ((r % 3) << 62) | ((uint64_t) 0x1234 << 40) | (r >> 40);
		}
		(void) check_sort_unique(a, 300000, "three top-24 prefixes");
	}
	free(a);
}

/*
 * keyset_contains at the edges of the array and of the value range: the
 * empty set holds nothing (not even 0), a set holds 0 and UINT64_MAX when
 * added, and the neighbours of every member are found only if members.
 */
static void
test_contains(void)
{
	uint64_t	edge[] = {0, 1, 7, UINT64_MAX - 1, UINT64_MAX};
	uint64_t	one_max[] = {UINT64_MAX};
	uint64_t	vals[1001];
	uint64_t	rs = 4;
	KeySet	   *ks;

	ks = ks_from(edge, 0);
	CHECK(ks->count == 0);
	CHECK(!keyset_contains(ks, 0));
	CHECK(!keyset_contains(ks, UINT64_MAX));
	free(ks);

	ks = ks_from(edge, 1);		/* {0} */
	CHECK(ks->count == 1);
	CHECK(keyset_contains(ks, 0));
	CHECK(!keyset_contains(ks, 1));
	CHECK(!keyset_contains(ks, UINT64_MAX));
	free(ks);

	ks = ks_from(one_max, 1);
	CHECK(keyset_contains(ks, UINT64_MAX));
	CHECK(!keyset_contains(ks, UINT64_MAX - 1));
	CHECK(!keyset_contains(ks, 0));
	free(ks);

	ks = ks_from(edge, 5);
	CHECK(ks->count == 5);
	for (int i = 0; i < 5; i++)
		CHECK(keyset_contains(ks, edge[i]));
	CHECK(!keyset_contains(ks, 2));
	CHECK(!keyset_contains(ks, 6));
	CHECK(!keyset_contains(ks, 8));
	CHECK(!keyset_contains(ks, UINT64_MAX - 2));
	free(ks);

	/* even values only: every odd neighbour is absent */
	for (int i = 0; i < 1001; i++)
		vals[i] = unit_rand(&rs) & ~UINT64_C(1);
	ks = ks_from(vals, 1001);
	CHECK(ks->count == 1001);
	for (int i = 0; i < 1001; i++)
	{
		CHECK(keyset_contains(ks, vals[i]));
		CHECK(!keyset_contains(ks, vals[i] + 1));
		CHECK(!keyset_contains(ks, vals[i] - 1));
	}
	free(ks);
}

/*
 * keyset_merge_queue into dst, and keyset_merge_queue_inplace on copies of
 * ks and the queue: the same count and the same hashes.
 */
static uint64_t
merge_both(const KeySet *ks, const uint64_t *q, size_t n, uint64_t *scratch, KeySet *dst)
{
	uint64_t	got = keyset_merge_queue(ks, q, n, scratch, dst);
	KeySet	   *in = unit_xmalloc(keyset_size_for(ks->count + n));
	uint64_t   *qc = dup_u64(q, n);

	memcpy(in, ks, keyset_size_for(ks->count));
	CHECK_MSG(keyset_merge_queue_inplace(in, qc, n) == got && in->count == got,
			  "in place: %llu hashes, a copy %llu", (unsigned long long) in->count,
			  (unsigned long long) got);
	CHECK(in->count == got && memcmp(in->hashes, dst->hashes, got * sizeof(uint64_t)) == 0);
	CHECK(memcmp(in, dst, offsetof(KeySet, count)) == 0);
	free(in);
	free(qc);
	return got;
}

/* merge_both of q[0..n) into ks gives exactly the set of all[0..nall) */
static void
merge_is_union(const KeySet *ks, const uint64_t *q, size_t n, uint64_t *scratch,
			   const uint64_t *all, size_t nall)
{
	KeySet	   *ref = ks_from(all, nall);
	KeySet	   *dst = unit_xmalloc(keyset_size_for(ks->count + n));

	CHECK(merge_both(ks, q, n, scratch, dst) == ref->count);
	CHECK(dst->count == ref->count &&
		  memcmp(dst->hashes, ref->hashes, ref->count * sizeof(uint64_t)) == 0);
	free(ref);
	free(dst);
}

/*
 * keyset_merge_queue's edges: an empty queue copies the set; a queue of
 * hashes the set has already changes nothing (same bytes); queues wholly
 * below or above the set, or interleaved, give the sorted union; the
 * header (parameters, seed) comes from the set; the return value is the
 * new count; the queue may hold repeats of its own.  The in-place merge
 * gives the same in every case (merge_both).
 */
static void
test_merge_queue_edges(void)
{
	uint64_t	base[200];
	uint64_t	q[400];
	uint64_t	all[600];
	uint64_t	scratch[400];
	uint64_t	rs = 21;
	KeySet	   *ks,
			   *dst,
			   *ref;
	size_t		size;

	/* base: 200 values in [2^62, 2^63) */
	for (int i = 0; i < 200; i++)
		base[i] = (UINT64_C(1) << 62) | (unit_rand(&rs) >> 2);
	ks = ks_from(base, 200);
	CHECK(ks->count == 200);
	ks->capacity = 777;
	ks->hdr.seed = 42;
	ks->target = BF_KIND_COUNTING;
	size = keyset_size_for(ks->count);

	/* an empty queue */
	dst = unit_xmalloc(keyset_size_for(ks->count));
	CHECK(merge_both(ks, q, 0, scratch, dst) == 200);
	unit_set_varsize(dst, keyset_size_for(dst->count));
	CHECK(memcmp(dst, ks, size) == 0);
	free(dst);

	/* only hashes the set has, in reverse, twice each */
	for (int i = 0; i < 200; i++)
		q[i] = q[399 - i] = ks->hashes[i];
	dst = unit_xmalloc(keyset_size_for(ks->count + 400));
	CHECK(merge_both(ks, q, 400, scratch, dst) == 200);
	unit_set_varsize(dst, keyset_size_for(dst->count));
	CHECK(memcmp(dst, ks, size) == 0);
	free(dst);

	/* all below, all above, interleaved with repeats */
	for (int shape = 0; shape < 3; shape++)
	{
		for (int i = 0; i < 400; i++)
		{
			uint64_t	r = unit_rand(&rs);

			q[i] = shape == 0 ? r >> 2 :
				shape == 1 ? (UINT64_C(3) << 62) | (r >> 2) :
				i % 4 == 3 ? q[i - 1] : (i % 4 == 2 ? base[i / 2] : (UINT64_C(1) << 62) | (r >> 2));
		}
		if (shape == 0)
			q[17] = 0;
		if (shape == 1)
			q[17] = UINT64_MAX;
		memcpy(all, base, sizeof(base));
		memcpy(all + 200, q, sizeof(q));
		ref = ks_from(all, 600);
		dst = unit_xmalloc(keyset_size_for(ks->count + 400));
		CHECK_MSG(merge_both(ks, q, 400, scratch, dst) == ref->count,
				  "shape %d: %llu, expected %llu", shape,
				  (unsigned long long) dst->count, (unsigned long long) ref->count);
		CHECK(dst->count == ref->count);
		CHECK(dst->count == ref->count &&
			  memcmp(dst->hashes, ref->hashes, ref->count * sizeof(uint64_t)) == 0);
		CHECK(dst->capacity == 777 && dst->hdr.seed == 42 && dst->target == BF_KIND_COUNTING);
		CHECK(dst->fpr == ks->fpr && dst->layout == ks->layout);
		unit_set_varsize(dst, keyset_size_for(dst->count));
		CHECK(keyset_check(dst, keyset_size_for(dst->count), NULL) == BF_OK);
		free(ref);
		free(dst);
	}
	free(ks);

	/*
	 * A queue that bunches into one bucket of the first digit (its top 30
	 * bits the same, as inputs chosen to collide would), with repeats of
	 * the set and of itself, into a set of 50000 random hashes.
	 */
	{
		const size_t nset = 50000,
					nq = 70000;
		uint64_t   *sv = unit_xmalloc(nset * sizeof(uint64_t));
		uint64_t   *bq = unit_xmalloc(nq * sizeof(uint64_t));
		uint64_t   *bscratch = unit_xmalloc(nq * sizeof(uint64_t));
		uint64_t   *both = unit_xmalloc((nset + nq) * sizeof(uint64_t));

		for (size_t i = 0; i < nset; i++)
			sv[i] = unit_rand(&rs);
		for (size_t i = 0; i < nq; i++)
		{
			uint64_t	r = unit_rand(&rs);

			bq[i] = i % 5 == 4 ? sv[r % nset] : i % 5 == 3 ? bq[r % i] :
				(UINT64_C(0x2aaaaaaa) << 34) | (r >> 30);
		}
		memcpy(both, sv, nset * sizeof(uint64_t));
		memcpy(both + nset, bq, nq * sizeof(uint64_t));
		ks = ks_from(sv, nset);
		merge_is_union(ks, bq, nq, bscratch, both, nset + nq);
		free(ks);

		/* and into an empty set (a sized aggregate's single flush) */
		ks = ks_empty(0, 0);
		merge_is_union(ks, bq, nq, bscratch, bq, nq);
		free(ks);
		free(sv);
		free(bq);
		free(bscratch);
		free(both);
	}
}

/*
 * A million distinct hashes (with 0 and UINT64_MAX among them) plus half
 * a million repeats, of hashes already merged or still queued, built the
 * way the SQL transition does (keyset_queue_target decides between
 * growing the queue and merging): the count is exact, the hashes are
 * exactly the sorted distinct inputs (so every added hash is found and
 * absent ones are not), every intermediate value passes keyset_check,
 * and merges are few (a merge per as many new inputs as the set holds,
 * not one per short queue).  Then the format is canonical: the same
 * hashes in reverse with one single merge, and shuffled with random
 * merge points, give identical bytes.
 */
static void
test_merge_queue_exact(void)
{
	const size_t ndistinct = 1000000;
	size_t		nin = 0;
	uint64_t   *distinct = unit_xmalloc(ndistinct * sizeof(uint64_t));
	uint64_t   *in = unit_xmalloc(ndistinct * 2 * sizeof(uint64_t));
	uint64_t   *ref;
	uint64_t   *rev;
	size_t		nref;
	uint64_t	rs = 123;
	Build		b;
	KeySet	   *a,
			   *single,
			   *shuffled;
	size_t		size;
	char		err[BF_ERRLEN];
	int			missing = 0,
				found_absent = 0,
				absent_tested = 0;

	for (size_t i = 0; i < ndistinct; i++)
		distinct[i] = unit_rand(&rs);
	distinct[1000] = 0;
	distinct[500000] = UINT64_MAX;
	for (size_t i = 0; i < ndistinct; i++)
	{
		uint64_t	r = unit_rand(&rs);

		in[nin++] = distinct[i];
		/* a repeat of any earlier hash, or of one likely still queued */
		if (r % 3 == 0)
			in[nin++] = distinct[(r >> 8) % (i + 1)];
		else if (r % 11 == 1)
			in[nin++] = distinct[i - (r >> 8) % (i < 8 ? i + 1 : 8)];
	}
	ref = dup_u64(in, nin);
	nref = ref_sort_unique(ref, nin);
	CHECK_MSG(nref == ndistinct, "the input has %zu distinct hashes", nref);

	/* in order, by the SQL policy */
	build_start(&b, BUILD_POLICY, 0, 0);
	for (size_t i = 0; i < nin; i++)
		build_push(&b, in[i]);
	a = build_finish(&b);
	size = keyset_size_for(a->count);
	CHECK_MSG(a->count == nref, "%llu hashes, expected %zu",
			  (unsigned long long) a->count, nref);
	CHECK(a->count == nref && memcmp(a->hashes, ref, nref * sizeof(uint64_t)) == 0);
	CHECK_MSG(b.bad_states == 0, "%d intermediate states refused", b.bad_states);
	CHECK_MSG(b.merges >= 10 && b.merges <= 30, "%d merges for %zu inputs", b.merges, nin);
	CHECK_MSG(keyset_check(a, size, err) == BF_OK, "%s", err);
	for (size_t i = 0; i < nin; i++)
		missing += !keyset_contains(a, in[i]);
	CHECK_MSG(missing == 0, "%d hashes lost", missing);
	CHECK(keyset_contains(a, 0));
	CHECK(keyset_contains(a, UINT64_MAX));
	rs = 999;
	for (int i = 0; i < 10000; i++)
	{
		uint64_t	h = unit_rand(&rs);

		if (bsearch(&h, ref, nref, sizeof(uint64_t), cmp_u64) != NULL)
			continue;
		absent_tested++;
		found_absent += keyset_contains(a, h);
	}
	CHECK(absent_tested > 9990);
	CHECK_MSG(found_absent == 0, "%d absent hashes found", found_absent);

	/* reversed, one single merge of everything */
	rev = unit_xmalloc(nin * sizeof(uint64_t));
	for (size_t i = 0; i < nin; i++)
		rev[i] = in[nin - 1 - i];
	build_start(&b, BUILD_FIXED, nin, 0);
	for (size_t i = 0; i < nin; i++)
		build_push(&b, rev[i]);
	single = build_finish(&b);
	CHECK(b.merges == 1);
	CHECK(keyset_size_for(single->count) == size && memcmp(single, a, size) == 0);

	/* shuffled, merged after a random number of hashes each time */
	for (size_t i = nin - 1; i > 0; i--)
	{
		size_t		j = unit_rand(&rs) % (i + 1);
		uint64_t	t = rev[i];

		rev[i] = rev[j];
		rev[j] = t;
	}
	build_start(&b, BUILD_RANDOM, 0, 0);
	for (size_t i = 0; i < nin; i++)
		build_push(&b, rev[i]);
	shuffled = build_finish(&b);
	CHECK(b.merges > 20);
	CHECK(b.bad_states == 0);
	CHECK(keyset_size_for(shuffled->count) == size && memcmp(shuffled, a, size) == 0);

	free(distinct);
	free(in);
	free(ref);
	free(rev);
	free(a);
	free(single);
	free(shuffled);
}

/* keyset_queue_target as keyset.h words it */
static size_t
doc_queue_target(uint64_t count, uint64_t capacity, size_t queued)
{
	uint64_t	m = count > capacity ? count : capacity;
	uint64_t	want = KEYSET_MIN_QUEUE;

	while (want < m && want < KEYSET_MAX_QUEUE)
		want *= 2;
	return queued * 2 < want ? queued * 2 : (size_t) want;
}

static size_t
queue_target(KeySet *ks, uint64_t count, uint64_t capacity, size_t queued)
{
	ks->count = count;
	ks->capacity = capacity;
	return keyset_queue_target(ks, queued);
}

/*
 * The queue policy (keyset.h): the queue doubles up to the power of two
 * at or above max(count, capacity), clamped to KEYSET_MIN_QUEUE ..
 * KEYSET_MAX_QUEUE; a result at most "queued" means merge now.  Exact
 * values by hand first, then a sweep against the doc's wording, then the
 * claim that a sized aggregate sorts its inputs once: capacity 100000
 * and 100000 distinct inputs merge only in the final function.
 */
static void
test_queue_target(void)
{
	KeySet	   *ks = ks_empty(0, 0);
	static const uint64_t counts[] = {
		0, 1, 15, 16, 17, 31, 32, 33, 1000, 1023, 1024, 1025, 65535, 65536,
		65537, KEYSET_MAX_QUEUE - 1, KEYSET_MAX_QUEUE, KEYSET_MAX_QUEUE + 1,
		KEYSET_MAX_COUNT, (uint64_t) INT64_MAX
	};
	size_t		ncounts = sizeof(counts) / sizeof(counts[0]);
	size_t		q;
	int			steps;
	Build		b;
	KeySet	   *sized;
	uint64_t	rs = 31;

	/* empty, no capacity: a full first queue of 16 merges */
	CHECK(queue_target(ks, 0, 0, 16) == 16);
	/* count 1000: doubling to 1024, where it merges */
	CHECK(queue_target(ks, 1000, 0, 16) == 32);
	CHECK(queue_target(ks, 1000, 0, 512) == 1024);
	CHECK(queue_target(ks, 1000, 0, 1024) == 1024);
	/* a power of two count is its own target */
	CHECK(queue_target(ks, 1024, 0, 1024) == 1024);
	CHECK(queue_target(ks, 1025, 0, 1024) == 2048);
	CHECK(queue_target(ks, 16, 0, 16) == 16);
	CHECK(queue_target(ks, 17, 0, 16) == 32);
	CHECK(queue_target(ks, 17, 0, 32) == 32);
	/* capacity 100000 on an empty set: 16 -> 32 -> ... -> 131072, then merge */
	q = 16;
	steps = 0;
	for (;;)
	{
		size_t		t = queue_target(ks, 0, 100000, q);

		if (t <= q)
			break;
		CHECK_MSG(t == 2 * q, "%zu -> %zu", q, t);
		q = t;
		steps++;
	}
	CHECK_MSG(q == 131072 && steps == 13, "ends at %zu after %d steps", q, steps);
	CHECK(queue_target(ks, 0, 100000, 131072) == 131072);
	/* the bigger of count and capacity decides */
	CHECK(queue_target(ks, 100000, 1000, 65536) == 131072);
	CHECK(queue_target(ks, 1000, 100000, 65536) == 131072);
	/* KEYSET_MAX_QUEUE caps it, whatever the count or capacity */
	CHECK(queue_target(ks, KEYSET_MAX_COUNT, 0, KEYSET_MAX_QUEUE / 2) == KEYSET_MAX_QUEUE);
	CHECK(queue_target(ks, KEYSET_MAX_COUNT, 0, KEYSET_MAX_QUEUE) == KEYSET_MAX_QUEUE);
	CHECK(queue_target(ks, 0, (uint64_t) INT64_MAX, KEYSET_MAX_QUEUE) == KEYSET_MAX_QUEUE);
	CHECK(queue_target(ks, 0, UINT64_MAX, KEYSET_MAX_QUEUE / 2) == KEYSET_MAX_QUEUE);
	/* a queue longer than the target (never grown past it): merge */
	CHECK(queue_target(ks, 100, 0, 4096) == 128);

	/* the sweep: the doc's rule, never below MIN or above MAX */
	for (size_t ci = 0; ci < ncounts; ci++)
		for (size_t pi = 0; pi < ncounts; pi++)
			for (q = KEYSET_MIN_QUEUE; q <= 2 * (size_t) KEYSET_MAX_QUEUE; q *= 2)
			{
				size_t		t = queue_target(ks, counts[ci], counts[pi], q);
				size_t		want = doc_queue_target(counts[ci], counts[pi], q);

				CHECK_MSG(t == want, "count %llu capacity %llu queued %zu: %zu, expected %zu",
						  (unsigned long long) counts[ci], (unsigned long long) counts[pi],
						  q, t, want);
				CHECK(t >= KEYSET_MIN_QUEUE && t <= KEYSET_MAX_QUEUE);
			}
	free(ks);

	/* a sized aggregate: no merge before the final function's */
	build_start(&b, BUILD_POLICY, 0, 100000);
	for (int i = 0; i < 100000; i++)
		build_push(&b, unit_rand(&rs));
	CHECK_MSG(b.merges == 0 && b.qlen == 131072, "%d merges, queue %zu", b.merges, b.qlen);
	sized = build_finish(&b);
	CHECK(b.merges == 1 && sized->count == 100000);
	CHECK(sized->capacity == 100000);
	CHECK(keyset_check(sized, keyset_size_for(sized->count), NULL) == BF_OK);
	free(sized);
}

/*
 * keyset_union (the combine function): two overlapping sets give exactly
 * the sorted distinct union of their inputs, whichever comes first; a
 * union with the empty set, or with itself, changes nothing (same bytes);
 * disjoint sets (one wholly below the other) concatenate; the header is
 * the first argument's.
 */
static void
test_union(void)
{
	const int	na = 50000,
				nb = 30000,
				shared = 20000;
	uint64_t   *la = unit_xmalloc(na * sizeof(uint64_t));
	uint64_t   *lb = unit_xmalloc(nb * sizeof(uint64_t));
	uint64_t   *lab = unit_xmalloc((na + nb) * sizeof(uint64_t));
	uint64_t	rs = 8;
	KeySet	   *a,
			   *b,
			   *ref,
			   *u,
			   *v,
			   *empty = ks_empty(0, 0);
	size_t		asize;

	for (int i = 0; i < na; i++)
		la[i] = unit_rand(&rs);
	for (int i = 0; i < nb; i++)
		lb[i] = i < shared ? la[i * 2] : unit_rand(&rs);
	la[5] = 0;
	lb[shared] = 0;
	lb[shared + 1] = UINT64_MAX;
	memcpy(lab, la, na * sizeof(uint64_t));
	memcpy(lab + na, lb, nb * sizeof(uint64_t));
	a = ks_from(la, na);
	b = ks_from(lb, nb);
	ref = ks_from(lab, na + nb);
	asize = keyset_size_for(a->count);
	CHECK(ref->count == (uint64_t) (na + nb - shared - 1));
	b->capacity = 5;			/* to see whose header the result takes */

	u = unit_xmalloc(keyset_size_for(a->count + b->count));
	CHECK(keyset_union(a, b, u) == ref->count);
	CHECK(u->count == ref->count &&
		  memcmp(u->hashes, ref->hashes, ref->count * sizeof(uint64_t)) == 0);
	CHECK(u->capacity == 0);
	unit_set_varsize(u, keyset_size_for(u->count));
	CHECK(keyset_check(u, keyset_size_for(u->count), NULL) == BF_OK);
	free(u);

	u = unit_xmalloc(keyset_size_for(a->count + b->count));
	CHECK(keyset_union(b, a, u) == ref->count);
	CHECK(u->count == ref->count &&
		  memcmp(u->hashes, ref->hashes, ref->count * sizeof(uint64_t)) == 0);
	CHECK(u->capacity == 5);
	free(u);

	/* with the empty set, either side */
	u = unit_xmalloc(asize);
	CHECK(keyset_union(a, empty, u) == a->count);
	unit_set_varsize(u, keyset_size_for(u->count));
	CHECK(memcmp(u, a, asize) == 0);
	free(u);
	u = unit_xmalloc(asize);
	CHECK(keyset_union(empty, a, u) == a->count);
	unit_set_varsize(u, keyset_size_for(u->count));
	CHECK(memcmp(u, a, asize) == 0);
	free(u);
	u = unit_xmalloc(keyset_size_for(0));
	CHECK(keyset_union(empty, empty, u) == 0);
	free(u);

	/* with itself */
	u = unit_xmalloc(keyset_size_for(2 * a->count));
	CHECK(keyset_union(a, a, u) == a->count);
	unit_set_varsize(u, keyset_size_for(u->count));
	CHECK(memcmp(u, a, asize) == 0);
	free(u);

	/* disjoint: the lower half and the upper half of the range */
	free(a);
	free(b);
	for (int i = 0; i < na; i++)
		la[i] >>= 1;
	for (int i = 0; i < nb; i++)
		lb[i] = (UINT64_C(1) << 63) | lb[i];
	a = ks_from(la, na);
	b = ks_from(lb, nb);
	u = unit_xmalloc(keyset_size_for(a->count + b->count));
	v = unit_xmalloc(keyset_size_for(a->count + b->count));
	CHECK(keyset_union(a, b, u) == a->count + b->count);
	CHECK(keyset_union(b, a, v) == a->count + b->count);
	CHECK(memcmp(u->hashes, a->hashes, a->count * sizeof(uint64_t)) == 0);
	CHECK(memcmp(u->hashes + a->count, b->hashes, b->count * sizeof(uint64_t)) == 0);
	CHECK(memcmp(u->hashes, v->hashes, u->count * sizeof(uint64_t)) == 0);
	free(u);
	free(v);

	free(la);
	free(lb);
	free(lab);
	free(a);
	free(b);
	free(ref);
	free(empty);
}

/*
 * The sort that writes straight into its destination and passes each top
 * bucket through a small buffer (keyset_merge_queue), given a buffer of
 * exactly keyset_sort_buffer_len(n) values (heap-allocated to that size,
 * so ASan sees any write past it), against qsort: every distribution of
 * test_sort_unique, as the queue of an empty set and of a set that
 * overlaps it (the merge reads the sorted queue from the destination's
 * tail while it writes ahead of it).  The bunched distributions put a
 * bucket bigger than the buffer in play (qsort where it lies).  And the
 * buffer is small: at most n, and for millions a few thousand.
 */
static void
check_small_buffer(const uint64_t *q, size_t nq, const uint64_t *h, size_t nset,
				   const char *what)
{
	KeySet	   *ks = ks_from(h, nset);
	size_t		total = ks->count + nq;
	size_t		buflen = keyset_sort_buffer_len(nq);
	uint64_t   *buf = unit_xmalloc((buflen > 0 ? buflen : 1) * sizeof(uint64_t));
	uint64_t   *ref = unit_xmalloc((total + 1) * sizeof(uint64_t));
	uint64_t   *qorig = dup_u64(q, nq);
	KeySet	   *dst = unit_xmalloc(keyset_size_for(total));
	size_t		nref;
	uint64_t	got;

	CHECK_MSG(buflen <= nq, "%s: buffer of %zu for %zu", what, buflen, nq);
	/* the reference: the union, qsorted, without repeats */
	memcpy(ref, ks->hashes, ks->count * sizeof(uint64_t));
	memcpy(ref + ks->count, q, nq * sizeof(uint64_t));
	nref = ref_sort_unique(ref, total);

	got = keyset_merge_queue(ks, q, nq, buf, dst);
	CHECK_MSG(got == nref && dst->count == nref, "%s, set %zu: %llu hashes, want %zu",
			  what, nset, (unsigned long long) got, nref);
	CHECK_MSG(got != nref || memcmp(dst->hashes, ref, nref * sizeof(uint64_t)) == 0,
			  "%s, set %zu: merged set differs", what, nset);
	CHECK_MSG(nq == 0 || memcmp(q, qorig, nq * sizeof(uint64_t)) == 0,
			  "%s: the queue was changed", what);
	free(buf);
	free(ref);
	free(qorig);
	free(dst);
	free(ks);
}

static void
test_sort_small_buffer(void)
{
	static const size_t sizes[] = {0, 1, 31, 33, 600, 5000, 300000};
	size_t		big = (UINT64_C(1) << 21) + 3;
	uint64_t   *q = unit_xmalloc(big * sizeof(uint64_t));
	uint64_t   *h = unit_xmalloc(big * sizeof(uint64_t));
	char		what[64];
	uint64_t	rs = 90;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (int d = 0; d < DIST_COUNT; d++)
		{
			size_t		n = sizes[si];
			size_t		nset = n / 2 + 3;

			fill_dist(q, n, d, 2000 + si * 31 + d);
			/* the set: half from the queue (repeats across), half new */
			for (size_t i = 0; i < nset; i++)
			{
				uint64_t	r = unit_rand(&rs);

				h[i] = n > 0 && r % 2 ? q[r % n] : r;
			}
			snprintf(what, sizeof(what), "%s, %zu", dist_names[d], n);
			check_small_buffer(q, n, h, 0, what);
			check_small_buffer(q, n, h, nset, what);
		}
	fill_dist(q, big, DIST_UNIFORM, 91);
	for (size_t i = 0; i < 1000000; i++)
		h[i] = unit_rand(&rs);
	check_small_buffer(q, big, h, 0, "uniform, big");
	check_small_buffer(q, big, h, 1000000, "uniform, big, with a set");
	fill_dist(q, 200000, DIST_TOP40, 92);
	check_small_buffer(q, 200000, h, 1000, "top40, 200000");

	/*
	 * A first bucket exactly as big as the buffer, and one value bigger
	 * (values with the top 12 bits clear are in bucket 0 at any depth of
	 * the first digit; the rest have the top bit set).
	 */
	for (int sz = 0; sz < 2; sz++)
		for (size_t extra = 0; extra < 2; extra++)
		{
			size_t		n = sz ? 300000 : 5000;
			size_t		inzero = keyset_sort_buffer_len(n) + extra;

			for (size_t i = 0; i < n; i++)
			{
				uint64_t	r = unit_rand(&rs);

				q[i] = i < inzero ? r >> 12 : r | (UINT64_C(1) << 63);
			}
			snprintf(what, sizeof(what), "bucket 0 of buffer + %zu, %zu", extra, n);
			check_small_buffer(q, n, h, 0, what);
			check_small_buffer(q, n, h, 100, what);
		}

	/* the space claimed: a few thousand values for millions */
	CHECK(keyset_sort_buffer_len(0) == 0);
	CHECK(keyset_sort_buffer_len(5) == 5);
	CHECK_MSG(keyset_sort_buffer_len(2000000) <= 4096, "%zu for 2M",
			  keyset_sort_buffer_len(2000000));
	CHECK_MSG(keyset_sort_buffer_len(KEYSET_MAX_COUNT) <= KEYSET_MAX_COUNT / 256,
			  "%zu for 2^26", keyset_sort_buffer_len(KEYSET_MAX_COUNT));
	free(q);
	free(h);
}

/*
 * Two states combine only if every parameter the final function uses is
 * the same: target, fpr, capacity, layout and the seed.
 */
static void
test_compatible(void)
{
	KeySet	   *a = ks_empty(0, 100),
			   *b = ks_empty(0, 100);
	char		err[BF_ERRLEN];

	CHECK(keyset_check_compatible(a, b, err) == BF_OK);
	b->fpr = 0.02;
	CHECK(keyset_check_compatible(a, b, err) == BF_ERR_INCOMPATIBLE);
	b->fpr = 0.01;
	b->target = BF_KIND_CUCKOO;
	CHECK(keyset_check_compatible(a, b, err) == BF_ERR_INCOMPATIBLE);
	b->target = BF_KIND_BLOOM;
	b->hdr.seed = 1;
	CHECK(keyset_check_compatible(a, b, err) == BF_ERR_INCOMPATIBLE);
	b->hdr.seed = BF_DEFAULT_SEED;
	b->layout = 0;
	CHECK(keyset_check_compatible(a, b, err) == BF_ERR_INCOMPATIBLE);
	b->layout = 1;
	b->capacity = 101;
	CHECK(keyset_check_compatible(a, b, err) == BF_ERR_INCOMPATIBLE);
	b->capacity = 100;
	/* the sets themselves may differ */
	b->count = 7;
	CHECK(keyset_check_compatible(a, b, err) == BF_OK);
	free(a);
	free(b);
}

static void
swap_hashes(KeySet *ks, int i, int j)
{
	uint64_t	t = ks->hashes[i];

	ks->hashes[i] = ks->hashes[j];
	ks->hashes[j] = t;
}

#define EXPECT_REJECT(orig, size, stmt) \
	do { \
		KeySet	   *ks = ks_dup((orig), (size)); \
		char		e_[BF_ERRLEN]; \
		stmt; \
		CHECK_MSG(keyset_check(ks, (size), e_) == BF_ERR_CORRUPT, "not rejected: %s", #stmt); \
		free(ks); \
	} while (0)

#define EXPECT_ACCEPT(orig, size, stmt) \
	do { \
		KeySet	   *ks = ks_dup((orig), (size)); \
		char		e_[BF_ERRLEN]; \
		stmt; \
		CHECK_MSG(keyset_check(ks, (size), e_) == BF_OK, "rejected: %s: %s", #stmt, e_); \
		free(ks); \
	} while (0)

/*
 * The checker: a valid state passes (so do the empty set and the edge
 * values of each parameter); any other length, any bad header or
 * parameter, a count that does not match the length or is over the
 * limit, and hashes out of order or repeated (anywhere, the last pair
 * too) are refused as corrupt.  Repeats matter most: a merge would keep
 * them and the filter would be sized for more elements than were seen.
 */
static void
test_check_rejects(void)
{
	uint64_t	vals[31];
	uint64_t	rs = 17;
	KeySet	   *t,
			   *empty;
	size_t		size;
	char		err[BF_ERRLEN];

	for (int i = 0; i < 30; i++)
		vals[i] = unit_rand(&rs);
	vals[30] = 0;
	t = ks_from(vals, 31);
	size = keyset_size_for(t->count);
	CHECK(t->count == 31 && t->hashes[0] == 0);
	CHECK_MSG(keyset_check(t, size, err) == BF_OK, "%s", err);

	for (size_t len = 0; len < size; len++)
		CHECK_MSG(keyset_check(t, len, err) == BF_ERR_CORRUPT, "accepted at %zu bytes", len);
	{
		uint8_t    *big = calloc(1, size + 64);

		memcpy(big, t, size);
		for (size_t len = size + 1; len <= size + 64; len++)
			CHECK_MSG(keyset_check(big, len, err) == BF_ERR_CORRUPT, "accepted at %zu bytes", len);
		free(big);
	}
	/* no message buffer: still refused, nothing written */
	CHECK(keyset_check(t, size - 1, NULL) == BF_ERR_CORRUPT);

	/* the empty set */
	empty = ks_empty(0, 0);
	CHECK_MSG(keyset_check(empty, keyset_size_for(0), err) == BF_OK, "%s", err);
	CHECK(keyset_check(empty, keyset_size_for(0) - 1, err) == BF_ERR_CORRUPT);
	CHECK(keyset_check(empty, keyset_size_for(0), err) == BF_OK);
	EXPECT_REJECT(empty, keyset_size_for(0), ks->count = 1);
	free(empty);

	/* the edges of what is valid */
	EXPECT_ACCEPT(t, size, ks->target = BF_KIND_COUNTING);
	EXPECT_ACCEPT(t, size, ks->target = BF_KIND_CUCKOO);
	EXPECT_ACCEPT(t, size, ks->layout = 0);
	EXPECT_ACCEPT(t, size, ks->fpr = 1e-15);
	EXPECT_ACCEPT(t, size, ks->fpr = 0.999);
	EXPECT_ACCEPT(t, size, ks->capacity = (uint64_t) INT64_MAX);
	EXPECT_ACCEPT(t, size, ks->hdr.seed = UINT64_MAX);
	EXPECT_ACCEPT(t, size, ks->hashes[30] = UINT64_MAX);
	EXPECT_ACCEPT(t, size, ks->hashes[1] = 1);

	EXPECT_REJECT(t, size, ks->hdr.kind = BF_KIND_BLOOM);
	EXPECT_REJECT(t, size, ks->hdr.version = 0);
	EXPECT_REJECT(t, size, ks->hdr.hash_id = 2);
	EXPECT_REJECT(t, size, ks->hdr.flags = 0x80);
	EXPECT_REJECT(t, size, ks->hdr.reserved = UINT64_MAX);
	EXPECT_REJECT(t, size, ks->target = 0);
	EXPECT_REJECT(t, size, ks->target = BF_KIND_KEYSET);
	EXPECT_REJECT(t, size, ks->target = 200);
	EXPECT_REJECT(t, size, ks->reserved0 = 1);
	EXPECT_REJECT(t, size, ks->layout = 2);
	EXPECT_REJECT(t, size, ks->reserved = 1);
	EXPECT_REJECT(t, size, ks->fpr = 0.0);
	EXPECT_REJECT(t, size, ks->fpr = 1.0);
	EXPECT_REJECT(t, size, ks->fpr = -0.5);
	EXPECT_REJECT(t, size, ks->fpr = NAN);
	EXPECT_REJECT(t, size, ks->fpr = 1e-300);
	EXPECT_REJECT(t, size, ks->capacity = (uint64_t) INT64_MAX + 1);
	EXPECT_REJECT(t, size, ks->capacity = UINT64_MAX);
	EXPECT_REJECT(t, size, ks->count++);
	EXPECT_REJECT(t, size, ks->count--);
	EXPECT_REJECT(t, size, ks->count = 0);
	EXPECT_REJECT(t, size, ks->count = KEYSET_MAX_COUNT + 1);
	EXPECT_REJECT(t, size, ks->count = UINT64_MAX);
	{
		/* over the limit is its own refusal, not just a length mismatch */
		KeySet	   *c = ks_dup(t, size);

		c->count = KEYSET_MAX_COUNT + 1;
		err[0] = '\0';
		CHECK(keyset_check(c, size, err) == BF_ERR_CORRUPT);
		CHECK_MSG(strstr(err, "limit") != NULL, "%s", err);
		free(c);
	}
	/* out of order: a swap in the middle, the last pair, the first pair */
	EXPECT_REJECT(t, size, swap_hashes(ks, 3, 4));
	EXPECT_REJECT(t, size, swap_hashes(ks, 29, 30));
	EXPECT_REJECT(t, size, swap_hashes(ks, 0, 1));
	EXPECT_REJECT(t, size, ks->hashes[30] = 0);
	/* repeated: first pair, middle, last pair */
	EXPECT_REJECT(t, size, ks->hashes[1] = ks->hashes[0]);
	EXPECT_REJECT(t, size, ks->hashes[15] = ks->hashes[14]);
	EXPECT_REJECT(t, size, ks->hashes[30] = ks->hashes[29]);
	free(t);
}

int
main(void)
{
	RUN(test_layout);
	RUN(test_max_count);
	RUN(test_init);
	RUN(test_sort_unique);
	RUN(test_contains);
	RUN(test_merge_queue_edges);
	RUN(test_merge_queue_exact);
	RUN(test_queue_target);
	RUN(test_union);
	RUN(test_sort_small_buffer);
	RUN(test_compatible);
	RUN(test_check_rejects);
	UNIT_DONE();
}
