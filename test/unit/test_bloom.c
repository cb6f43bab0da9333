/*
 * test_bloom.c
 *		Unit tests of the plain-C Bloom filter core (src/bloom.c, src/bfcore.c):
 *		no false negatives through growth, union and intersection, and a
 *		checker that rejects every kind of damaged value.
 *
 * Built and run under ASan+UBSan by tools/test-stages/30-unit.sh.
 */
#include "bloom.h"

#include <math.h>
#include <stddef.h>

#include "unit.h"
#include "sizing_brute.h"

/* a filter in a malloc'd buffer, grown like the SQL layer grows it */
typedef struct TFilter
{
	BloomFilter *f;
	size_t		size;
} TFilter;

static TFilter
tf_new(uint64_t capacity, double fpr, int layout, bool scalable)
{
	TFilter		t;
	BfStatus	st = bloom_new_size(capacity, fpr, layout, scalable, &t.size, NULL);

	if (st != BF_OK)
	{
		fprintf(stderr, "bloom_new_size failed\n");
		exit(2);
	}
	t.f = unit_xmalloc(t.size);
	bloom_init(t.f, t.size, capacity, fpr, layout, scalable, BF_DEFAULT_SEED);
	unit_set_varsize(t.f, t.size);
	return t;
}

/* add h; returns the add result, growing when a stage is needed */
static BloomAddResult
tf_add(TFilter *t, uint64_t h)
{
	for (;;)
	{
		BloomAddResult r = bloom_add_hash(t->f, h);
		size_t		size;
		BloomFilter *nf;

		if (r != BLOOM_NEEDS_STAGE)
			return r;
		if (bloom_grown_size(t->f, &size, NULL) != BF_OK)
			return BLOOM_FULL;
		nf = unit_xmalloc(size);
		bloom_grow_into(t->f, nf, size);
		unit_set_varsize(nf, size);
		free(t->f);
		t->f = nf;
		t->size = size;
	}
}

static TFilter
tf_copy(const TFilter *t)
{
	TFilter		c = *t;

	c.f = unit_xmalloc(t->size);
	memcpy(c.f, t->f, t->size);
	return c;
}

static BfStatus
tf_check(const TFilter *t, char *errbuf)
{
	return bloom_check(t->f, t->size, errbuf);
}

/* 1M random keys through a growing filter: every one is found, always */
static void
no_false_negatives_layout(int layout)
{
	uint64_t	rs = 42;
	const int	n = 1000000;
	TFilter		t = tf_new(1000, 0.01, layout, true);
	char		err[BF_ERRLEN];
	int			missing = 0;
	int			stages_seen = 1;
	uint64_t	absent_hits = 0;

	for (int i = 0; i < n; i++)
	{
		uint64_t	h = unit_rand(&rs);

		CHECK(tf_add(&t, h) != BLOOM_FULL);
		if (t.f->nstages != stages_seen)
		{
			/* every grown value is a valid value */
			CHECK_MSG(tf_check(&t, err) == BF_OK, "after growth to %d stages: %s",
					  t.f->nstages, err);
			stages_seen = t.f->nstages;
		}
	}
	CHECK_MSG(t.f->nstages >= 8, "only %d stages for 1M keys from capacity 1000", t.f->nstages);
	CHECK_MSG(tf_check(&t, err) == BF_OK, "%s", err);
	rs = 42;
	for (int i = 0; i < n; i++)
		if (!bloom_contains_hash(t.f, unit_rand(&rs)))
			missing++;
	CHECK_MSG(missing == 0, "%d false negatives", missing);

	/* keys never added: the measured rate stays under the target */
	rs = 4242;
	for (int i = 0; i < 200000; i++)
		absent_hits += bloom_contains_hash(t.f, unit_rand(&rs) | 1) ? 1 : 0;
	CHECK_MSG(absent_hits < 200000 * 0.01 * 1.1, "measured fpr %g over target 0.01",
			  absent_hits / 200000.0);
	CHECK(bloom_estimate_fpr(t.f) <= 0.01);
	CHECK(fabs(bloom_estimate_cardinality(t.f) - n) < n * 0.05);
	free(t.f);
}

static void
test_no_false_negatives_blocked(void)
{
	no_false_negatives_layout(BLOOM_LAYOUT_BLOCKED);
}

static void
test_no_false_negatives_standard(void)
{
	no_false_negatives_layout(BLOOM_LAYOUT_STANDARD);
}

/* duplicates never fill a stage: the same keys again add nothing */
static void
test_duplicates_do_not_grow(void)
{
	TFilter		t = tf_new(1000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
	uint64_t	rs = 7;

	for (int i = 0; i < 900; i++)
		tf_add(&t, unit_rand(&rs));
	for (int round = 0; round < 20; round++)
	{
		rs = 7;
		for (int i = 0; i < 900; i++)
			CHECK(tf_add(&t, unit_rand(&rs)) == BLOOM_PRESENT);
	}
	CHECK(t.f->nstages == 1);
	free(t.f);
}

/* a fixed-size filter refuses elements past its capacity, keeps the rest */
static void
test_not_scalable_full(void)
{
	TFilter		t = tf_new(100, 0.01, BLOOM_LAYOUT_STANDARD, false);
	uint64_t	rs = 9;
	int			added = 0;
	BloomAddResult r = BLOOM_ADDED;
	char		err[BF_ERRLEN];

	while (added < 100000 && (r = tf_add(&t, unit_rand(&rs))) != BLOOM_FULL)
		added++;
	CHECK(r == BLOOM_FULL);
	CHECK_MSG(added >= 100, "full after only %d elements", added);
	CHECK(t.f->nstages == 1);
	CHECK(tf_check(&t, err) == BF_OK);
	rs = 9;
	for (int i = 0; i < added; i++)
		CHECK(bloom_contains_hash(t.f, unit_rand(&rs)));
	free(t.f);
}

static void
test_union_intersection(void)
{
	for (int layout = 0; layout <= 1; layout++)
	{
		TFilter		a = tf_new(10000, 0.01, layout, true);
		TFilter		b = tf_new(10000, 0.01, layout, true);
		TFilter		u,
					x;
		uint64_t	rs = 1;
		char		err[BF_ERRLEN];

		for (int i = 0; i < 4000; i++)
			tf_add(&a, unit_rand(&rs));
		for (int i = 0; i < 2000; i++)
		{
			uint64_t	h = unit_rand(&rs);

			tf_add(&a, h);
			tf_add(&b, h);
		}
		for (int i = 0; i < 4000; i++)
			tf_add(&b, unit_rand(&rs));

		CHECK(bloom_check_compatible(a.f, b.f, false, err) == BF_OK);
		u = tf_copy(&a);
		CHECK_MSG(bloom_union_into(u.f, b.f, err) == BF_OK, "%s", err);
		CHECK_MSG(tf_check(&u, err) == BF_OK, "union: %s", err);
		x = tf_copy(&a);
		CHECK(bloom_check_compatible(a.f, b.f, true, err) == BF_OK);
		bloom_intersect_into(x.f, b.f);
		CHECK_MSG(tf_check(&x, err) == BF_OK, "intersection: %s", err);

		rs = 1;
		for (int i = 0; i < 10000; i++)
		{
			uint64_t	h = unit_rand(&rs);

			CHECK(bloom_contains_hash(u.f, h));
			if (i >= 4000 && i < 6000)
				CHECK(bloom_contains_hash(x.f, h));
		}
		free(a.f);
		free(b.f);
		free(u.f);
		free(x.f);
	}
}

/* union of filters that grew to different stage counts */
static void
test_union_across_stages(void)
{
	TFilter		a = tf_new(500, 0.01, BLOOM_LAYOUT_BLOCKED, true);
	TFilter		b = tf_new(500, 0.01, BLOOM_LAYOUT_BLOCKED, true);
	TFilter		u;
	uint64_t	rs = 3;
	char		err[BF_ERRLEN];

	/* a holds a subset of b: their union is exactly b, within its rate */
	for (int i = 0; i < 5000; i++)
	{
		uint64_t	h = unit_rand(&rs);

		if (i < 300)
			tf_add(&a, h);
		tf_add(&b, h);
	}
	CHECK(a.f->nstages == 1 && b.f->nstages > 1);
	CHECK(bloom_check_compatible(a.f, b.f, false, err) == BF_OK);
	CHECK(bloom_check_compatible(a.f, b.f, true, err) == BF_ERR_INCOMPATIBLE);
	/* as the SQL layer does: start from the one with more stages */
	u = tf_copy(&b);
	CHECK_MSG(bloom_union_into(u.f, a.f, err) == BF_OK, "%s", err);
	CHECK_MSG(tf_check(&u, err) == BF_OK, "%s", err);
	rs = 3;
	for (int i = 0; i < 5000; i++)
		CHECK(bloom_contains_hash(u.f, unit_rand(&rs)));
	free(a.f);
	free(b.f);
	free(u.f);
}

static void
test_incompatible(void)
{
	TFilter		a = tf_new(1000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
	TFilter		b = tf_new(1000, 0.02, BLOOM_LAYOUT_BLOCKED, true);
	TFilter		c = tf_new(1000, 0.01, BLOOM_LAYOUT_STANDARD, true);
	TFilter		d = tf_new(1000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
	TFilter		e = tf_new(1000, 0.01, BLOOM_LAYOUT_STANDARD, true);
	char		err[BF_ERRLEN];

	d.f->hdr.seed = 99;
	CHECK(bloom_check_compatible(a.f, b.f, false, err) == BF_ERR_INCOMPATIBLE);
	CHECK(bloom_check_compatible(a.f, c.f, false, err) == BF_ERR_INCOMPATIBLE);
	CHECK(bloom_check_compatible(a.f, d.f, false, err) == BF_ERR_INCOMPATIBLE);
	/* a format 1 and a format 2 standard filter set different bits */
	CHECK(bloom_check_compatible(c.f, e.f, false, err) == BF_OK);
	e.f->hdr.version = BF_FORMAT_VERSION;
	CHECK(bloom_check_compatible(c.f, e.f, false, err) == BF_ERR_INCOMPATIBLE);
	CHECK(bloom_check_compatible(e.f, c.f, true, err) == BF_ERR_INCOMPATIBLE);
	free(a.f);
	free(b.f);
	free(c.f);
	free(d.f);
	free(e.f);
}

/*
 * The standard layout's positions, spelled out apart from bloom.c (bloom.h):
 * a filter made now is format 2, x_i = remix(h + i * STEP); a format 1
 * filter (made by earlier builds, here by setting its version before any
 * add) keeps the remix chain x_{i+1} = remix(x_i + STEP) for every add,
 * probe and stage it grows.  Each element's k bits are where the formula
 * says, and the stage holds no other bits.
 */
static uint64_t
ref_position(int version, uint64_t h, uint32_t i, uint64_t nbits)
{
	uint64_t	x = h;

	for (uint32_t j = 1; j <= i; j++)
		x = version == 1 ? bf_remix(x + UINT64_C(0x9E3779B97F4A7C15))
			: bf_remix(h + j * UINT64_C(0x9E3779B97F4A7C15));
	return bf_range64(x, nbits);
}

/* does some stage of f hold all of h's bits where ref_position puts them? */
static bool
ref_contains(const BloomFilter *f, int version, uint64_t h)
{
	for (int i = 0; i < f->nstages; i++)
	{
		const BloomStage *s = &f->stages[i];
		const uint64_t *have = (const uint64_t *) bloom_stage_bits_const(f, i);
		bool		all = true;

		for (uint32_t j = 0; j < s->nhashes; j++)
		{
			uint64_t	p = ref_position(version, h, j, s->nbits);

			all &= (have[p >> 6] >> (p & 63)) & 1;
		}
		if (all)
			return true;
	}
	return false;
}

static void
test_standard_positions(void)
{
	for (int version = 1; version <= 2; version++)
	{
		TFilter		t = tf_new(200, 0.01, BLOOM_LAYOUT_STANDARD, true);
		uint64_t	rs = 77;
		const int	n = 2000;
		char		err[BF_ERRLEN];

		CHECK(t.f->hdr.version == BLOOM_FORMAT_COUNTER);
		t.f->hdr.version = (uint8_t) version;
		for (int e = 0; e < n; e++)
			CHECK(tf_add(&t, unit_rand(&rs)) != BLOOM_FULL);
		CHECK_MSG(t.f->nstages >= 3, "%d stages", t.f->nstages);
		CHECK(t.f->hdr.version == version);
		CHECK_MSG(tf_check(&t, err) == BF_OK, "%s", err);

		for (int i = 0; i < t.f->nstages; i++)
		{
			const BloomStage *s = &t.f->stages[i];
			uint64_t   *want = calloc(s->nbits / 64, sizeof(uint64_t));
			const uint64_t *have = (const uint64_t *) bloom_stage_bits_const(t.f, i);
			uint64_t	diff = 0;

			/* every element's positions in this stage, wherever it went */
			rs = 77;
			for (int e = 0; e < n; e++)
			{
				uint64_t	h = unit_rand(&rs);

				for (uint32_t j = 0; j < s->nhashes; j++)
				{
					uint64_t	p = ref_position(version, h, j, s->nbits);

					want[p >> 6] |= UINT64_C(1) << (p & 63);
				}
			}
			/* every set bit is one the formula gives some element */
			for (uint64_t w = 0; w < s->nbits / 64; w++)
				diff |= have[w] & ~want[w];
			CHECK_MSG(diff == 0, "version %d stage %d: a bit set that no element's positions give",
					  version, i);
			free(want);
		}

		/* every element has all k bits in some stage, by the formula */
		rs = 77;
		for (int e = 0; e < n; e++)
		{
			uint64_t	h = unit_rand(&rs);

			CHECK_MSG(ref_contains(t.f, version, h),
					  "version %d: element %d's bits are not where the formula puts them",
					  version, e);
			CHECK(bloom_contains_hash(t.f, h));
		}

		/*
		 * The array probe (rounds over each stage, std_contains_many) gives
		 * the formula's answer for the members and as many other hashes,
		 * across more than one batch of rounds.
		 */
		{
			const int	m = 2 * n + 700;
			uint64_t   *hs = unit_xmalloc(m * sizeof(uint64_t));
			bool	   *out = unit_xmalloc(m);
			int			wrong = 0,
						fp = 0;

			rs = 77;
			for (int e = 0; e < m; e++)
				hs[e] = unit_rand(&rs);
			bloom_contains_hashes(t.f, hs, m, out);
			for (int e = 0; e < m; e++)
			{
				wrong += out[e] != ref_contains(t.f, version, hs[e]);
				fp += e >= n && out[e];
			}
			CHECK_MSG(wrong == 0, "version %d: %d array answers differ from the formula's",
					  version, wrong);
			/* the non-members are not all reported (a filter of 1s would pass the rest) */
			CHECK_MSG(fp < (m - n) / 10, "version %d: %d of %d non-members reported",
					  version, fp, m - n);
			free(hs);
			free(out);
		}
		free(t.f);
	}
}

/* a union of two full stages would break the rate promise: refused */
static void
test_union_overfull(void)
{
	for (int layout = 0; layout <= 1; layout++)
	{
		TFilter		a = tf_new(1000, 0.01, layout, false);
		TFilter		b = tf_new(1000, 0.01, layout, false);
		uint64_t	rs = 11;
		char		err[BF_ERRLEN];

		while (tf_add(&a, unit_rand(&rs)) != BLOOM_FULL)
			;
		while (tf_add(&b, unit_rand(&rs)) != BLOOM_FULL)
			;
		CHECK(bloom_union_into(a.f, b.f, err) == BF_ERR_FULL);
		free(a.f);
		free(b.f);
	}
}

static void
test_too_large(void)
{
	size_t		size;
	char		err[BF_ERRLEN];

	CHECK(bloom_new_size(UINT64_C(1) << 40, 0.01, BLOOM_LAYOUT_BLOCKED, true, &size, err) == BF_ERR_TOO_LARGE);
	CHECK(bloom_new_size(UINT64_C(1) << 62, 1e-15, BLOOM_LAYOUT_STANDARD, false, &size, err) == BF_ERR_TOO_LARGE);
	CHECK(bloom_new_size(INT64_MAX, 0.5, BLOOM_LAYOUT_STANDARD, false, &size, err) == BF_ERR_TOO_LARGE);
	CHECK(bloom_max_capacity(0.01, BLOOM_LAYOUT_BLOCKED, true) > 100000000);
	CHECK(bloom_new_size(bloom_max_capacity(0.01, BLOOM_LAYOUT_BLOCKED, true), 0.01,
						 BLOOM_LAYOUT_BLOCKED, true, &size, err) == BF_OK);
	CHECK(size <= BF_MAX_VALUE_BYTES);
	CHECK(bf_check_params(0, 0.01, err) == BF_ERR_PARAM);
	CHECK(bf_check_params(1, 0.0, err) == BF_ERR_PARAM);
	CHECK(bf_check_params(1, 1.0, err) == BF_ERR_PARAM);
	CHECK(bf_check_params(1, NAN, err) == BF_ERR_PARAM);
	CHECK(bf_check_params(1, 1e-16, err) == BF_ERR_PARAM);
}

/* a filter with two stages and some content, for the corruption tests */
static TFilter
sample_filter(int layout)
{
	TFilter		t = tf_new(200, 0.01, layout, true);
	uint64_t	rs = 5;

	for (int i = 0; i < 500; i++)
		tf_add(&t, unit_rand(&rs));
	return t;
}

/* the checker rejects a copy of t changed by stmt */
#define EXPECT_REJECT(t, stmt) \
	do { \
		TFilter		c_ = tf_copy(&(t)); \
		BloomFilter *f = c_.f; \
		char		e_[BF_ERRLEN]; \
		(void) f; \
		stmt; \
		CHECK_MSG(bloom_check(c_.f, c_.size, e_) == BF_ERR_CORRUPT, "not rejected: %s", #stmt); \
		free(c_.f); \
	} while (0)

static void
test_check_rejects(void)
{
	for (int layout = 0; layout <= 1; layout++)
	{
		TFilter		t = sample_filter(layout);
		char		err[BF_ERRLEN];
		int			last;

		CHECK(t.f->nstages >= 2);
		last = t.f->nstages - 1;
		CHECK_MSG(tf_check(&t, err) == BF_OK, "%s", err);

		/* every truncation, and one byte too many */
		for (size_t len = 0; len < t.size; len++)
			CHECK_MSG(bloom_check(t.f, len, err) != BF_OK, "accepted at %zu bytes", len);
		{
			uint8_t    *big = calloc(1, t.size + 64);

			memcpy(big, t.f, t.size);
			CHECK(bloom_check(big, t.size + 1, err) != BF_OK);
			CHECK(bloom_check(big, t.size + 64, err) != BF_OK);
			free(big);
		}

		/* common header */
		EXPECT_REJECT(t, f->hdr.kind = BF_KIND_COUNTING);
		EXPECT_REJECT(t, f->hdr.kind = 0);
		EXPECT_REJECT(t, f->hdr.version = 0);
		EXPECT_REJECT(t, f->hdr.version = BLOOM_FORMAT_COUNTER + 1);
		if (layout == BLOOM_LAYOUT_BLOCKED)
			EXPECT_REJECT(t, f->hdr.version = BLOOM_FORMAT_COUNTER);
		EXPECT_REJECT(t, f->hdr.hash_id = 0);
		EXPECT_REJECT(t, f->hdr.flags = 1);
		EXPECT_REJECT(t, f->hdr.reserved = 1);
		/* bloom header */
		EXPECT_REJECT(t, f->layout = 2);
		EXPECT_REJECT(t, f->layout = (uint8_t) !f->layout);
		EXPECT_REJECT(t, f->scalable = 2);
		EXPECT_REJECT(t, f->scalable = 0);
		EXPECT_REJECT(t, f->nstages = 0);
		EXPECT_REJECT(t, f->nstages++);
		EXPECT_REJECT(t, f->nstages--);
		EXPECT_REJECT(t, f->nstages = BLOOM_MAX_STAGES + 1);
		EXPECT_REJECT(t, f->nstages = 0xFFFF);
		EXPECT_REJECT(t, f->reserved = 1);
		EXPECT_REJECT(t, f->fpr = 0.02);
		EXPECT_REJECT(t, f->fpr = 0.0);
		EXPECT_REJECT(t, f->fpr = NAN);
		EXPECT_REJECT(t, f->fpr = INFINITY);
		EXPECT_REJECT(t, f->capacity = 0);
		EXPECT_REJECT(t, f->capacity++);
		EXPECT_REJECT(t, f->capacity = UINT64_MAX);
		/* header padding */
		EXPECT_REJECT(t, ((uint8_t *) f)[sizeof(BloomFilter) + f->nstages * sizeof(BloomStage)] = 1);

		/* every field of every stage */
		for (int i = 0; i <= last; i++)
		{
			EXPECT_REJECT(t, f->stages[i].offset += 64);
			EXPECT_REJECT(t, f->stages[i].offset -= 64);
			EXPECT_REJECT(t, f->stages[i].offset = UINT64_MAX - 7);
			EXPECT_REJECT(t, f->stages[i].offset = 0);
			EXPECT_REJECT(t, f->stages[i].nbits += 512);
			EXPECT_REJECT(t, f->stages[i].nbits -= 512);
			EXPECT_REJECT(t, f->stages[i].nbits = 0);
			EXPECT_REJECT(t, f->stages[i].nbits += 1);
			EXPECT_REJECT(t, f->stages[i].nbits = UINT64_MAX - 511);
			EXPECT_REJECT(t, f->stages[i].nbits = UINT64_C(1) << 63);
			EXPECT_REJECT(t, f->stages[i].capacity++);
			EXPECT_REJECT(t, f->stages[i].capacity = 0);
			EXPECT_REJECT(t, f->stages[i].fill_limit = f->stages[i].nbits + 1);
			EXPECT_REJECT(t, f->stages[i].fill_limit = 0);
			EXPECT_REJECT(t, f->stages[i].bits_set++);
			EXPECT_REJECT(t, f->stages[i].bits_set--);
			EXPECT_REJECT(t, f->stages[i].bits_set = UINT64_MAX);
			EXPECT_REJECT(t, f->stages[i].rate_units += 1000 + f->stages[i].nbits);
			EXPECT_REJECT(t, f->stages[i].fpr *= 2);
			EXPECT_REJECT(t, f->stages[i].fpr = NAN);
			EXPECT_REJECT(t, f->stages[i].nhashes = 0);
			EXPECT_REJECT(t, f->stages[i].nhashes = BLOOM_MAX_HASHES + 1);
			EXPECT_REJECT(t, f->stages[i].nhashes = UINT32_MAX);
			EXPECT_REJECT(t, f->stages[i].nhashes = 1);
			EXPECT_REJECT(t, f->stages[i].reserved = 1);
			/* a bit flipped in the payload: bits_set no longer matches */
			EXPECT_REJECT(t, ((uint8_t *) f)[f->stages[i].offset + 3] ^= 0x10);
		}
		if (layout == BLOOM_LAYOUT_STANDARD)
			EXPECT_REJECT(t, f->stages[0].rate_units = 1);
		else
			EXPECT_REJECT(t, f->stages[0].fill_limit--);
		free(t.f);
	}
}

/*
 * Is a header byte one whose change a valid value can absorb?  The seed
 * (any seed is valid), and the stage fields the checker verifies against
 * the rate model rather than recomputing: nbits inside its stage's
 * alignment padding, fill_limit, nhashes, and rate_units within rounding.
 * Such a value answers differently (it is not the filter it was), but it
 * is a consistent filter: every operation stays inside its bytes.
 */
static bool
absorbable_byte(size_t pos)
{
	size_t		in_stage;

	if (pos >= offsetof(BfHeader, seed) && pos < offsetof(BfHeader, seed) + 8)
		return true;
	if (pos < offsetof(BloomFilter, stages))
		return false;
	in_stage = (pos - offsetof(BloomFilter, stages)) % sizeof(BloomStage);
	return (in_stage >= offsetof(BloomStage, nbits) && in_stage < offsetof(BloomStage, nbits) + 8) ||
		(in_stage >= offsetof(BloomStage, fill_limit) && in_stage < offsetof(BloomStage, fill_limit) + 8) ||
		(in_stage >= offsetof(BloomStage, rate_units) && in_stage < offsetof(BloomStage, rate_units) + 8) ||
		(in_stage >= offsetof(BloomStage, nhashes) && in_stage < offsetof(BloomStage, nhashes) + 4);
}

/*
 * Every single-byte change of the header region either is rejected or is
 * absorbable (above) and leaves a value that every operation handles
 * inside its bytes (ASan would report otherwise).
 */
static void
test_check_byte_mutations(void)
{
	static const uint8_t xors[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF};

	for (int layout = 0; layout <= 1; layout++)
	{
		TFilter		t = sample_filter(layout);
		size_t		hdr = t.f->stages[0].offset;

		for (size_t pos = 4; pos < hdr; pos++)
			for (size_t x = 0; x < sizeof(xors); x++)
			{
				TFilter		c = tf_copy(&t);
				char		err[BF_ERRLEN];

				((uint8_t *) c.f)[pos] ^= xors[x];
				if (bloom_check(c.f, c.size, err) == BF_OK)
				{
					uint64_t	rs = 77;
					TFilter		u;

					CHECK_MSG(absorbable_byte(pos), "layout %d: byte %zu ^ 0x%02x accepted",
							  layout, pos, xors[x]);
					for (int i = 0; i < 1000; i++)
						tf_add(&c, unit_rand(&rs));
					(void) bloom_estimate_fpr(c.f);
					(void) bloom_estimate_cardinality(c.f);
					u = tf_copy(&c);
					if (bloom_check_compatible(u.f, c.f, false, err) == BF_OK)
						(void) bloom_union_into(u.f, c.f, err);
					free(u.f);
				}
				free(c.f);
			}
		free(t.f);
	}
}

/*
 * A value claiming an absurd capacity for its size is rejected at once
 * (the blocked rate model once summed a Poisson range as wide as the
 * claimed load per block: minutes of CPU for one input).
 */
static void
test_check_absurd_capacity_fast(void)
{
	for (int layout = 0; layout <= 1; layout++)
	{
		TFilter		t = tf_new(100, 0.01, layout, false);
		char		err[BF_ERRLEN];
		uint64_t	caps[] = {UINT64_C(1) << 20, UINT64_C(1) << 40, UINT64_C(1) << 62, INT64_MAX};

		for (size_t i = 0; i < 4; i++)
		{
			t.f->capacity = caps[i];
			t.f->stages[0].capacity = caps[i];
			CHECK(bloom_check(t.f, t.size, err) == BF_ERR_CORRUPT);
			CHECK(bloom_model_fpr(layout, caps[i], 512, 7) > 0.99);
		}
		free(t.f);
	}
}

static void
test_base64(void)
{
	uint8_t		src[256],
				dec[256];
	char		enc[400];
	uint64_t	rs = 1;

	for (int i = 0; i < 256; i++)
		src[i] = (uint8_t) unit_rand(&rs);
	for (size_t len = 0; len <= 256; len++)
	{
		size_t		el = bf_base64_encoded_len(len);

		bf_base64_encode(src, len, enc);
		CHECK(el % 4 == 0);
		CHECK(bf_base64_decoded_maxlen(el) >= len);
		CHECK(bf_base64_decode(enc, el, dec) == len);
		CHECK(memcmp(src, dec, len) == 0);
	}
	/* strictness: one text form per value */
	CHECK(bf_base64_decode("QQ==", 4, dec) == 1);
	CHECK(bf_base64_decode("QR==", 4, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QUI=", 4, dec) == 2);
	CHECK(bf_base64_decode("QUJ=", 4, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QQ=A", 4, dec) == (size_t) -1);
	CHECK(bf_base64_decode("Q===", 4, dec) == (size_t) -1);
	CHECK(bf_base64_decode("====", 4, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QQ==QQ==", 8, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QUJD\n", 5, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QU JD", 5, dec) == (size_t) -1);
	CHECK(bf_base64_decode("QUJ", 3, dec) == (size_t) -1);
	CHECK(bf_base64_decode("", 0, dec) == 0);
}

/* a known element hash never changes (the on-disk format depends on it) */
static void
test_hash_stable(void)
{
	CHECK(bf_hash_bytes("", 0, 0) == bf_hash_bytes("", 0, 0));
	CHECK(bf_hash_int64(1, 0) == bf_hash_bytes("\x01\0\0\0\0\0\0\0", 8, 0));
	CHECK(bf_hash_bytes("abc", 3, 0) != bf_hash_bytes("abc", 3, 1));
	CHECK(bf_range64(UINT64_MAX, 10) == 9);
	CHECK(bf_range32(UINT32_MAX, 10) == 9);
	CHECK(bf_range64(0, 10) == 0);
}

/*
 * bloom_add_hashes (the batch add of the aggregates and of the array form)
 * gives the bytes of bloom_add_hash one by one, stops where a stage is
 * needed (or a fixed filter is full), and resumes after the growth (or
 * after the hash a fixed filter refused).
 */
static void
test_add_hashes_same_bytes(void)
{
	/* every instruction-set copy of the batch add (bfcore.h dispatch) */
	for (int isa = 0; isa <= 2; isa++)
	for (int layout = 0; layout <= 1; layout++)
	for (int scalable = 0; scalable <= 1; scalable++)
	{
		uint64_t	rs = 11 + layout;
		TFilter		a = tf_new(1000, 0.01, layout, scalable);
		TFilter		b = tf_new(1000, 0.01, layout, scalable);
		uint64_t   *h = unit_xmalloc(50000 * sizeof(uint64_t));
		size_t		done = 0;
		int			stops = 0;

		for (int i = 0; i < 50000; i++)
			h[i] = unit_rand(&rs) % 30000;	/* repeats, too */
		/* the reference: one by one, baseline instructions */
		(void) bf_set_isa_limit(0);
		for (int i = 0; i < 50000; i++)
			(void) tf_add(&a, h[i]);
		(void) bf_set_isa_limit(isa);
		while (done < 50000)
		{
			BloomAddResult stop;
			size_t		n = bloom_add_hashes(b.f, h + done, 50000 - done, &stop);

			done += n;
			if (done < 50000)
			{
				CHECK(stop == (scalable ? BLOOM_NEEDS_STAGE : BLOOM_FULL));
				stops++;
				/* the hash it stopped at is what tf_add grows for (or refuses) */
				CHECK((tf_add(&b, h[done]) == BLOOM_FULL) == !scalable);
				done++;
			}
		}
		(void) bf_set_isa_limit(2);
		CHECK(stops >= 3);
		CHECK(a.size == b.size);
		CHECK(a.size == b.size && memcmp(a.f, b.f, a.size) == 0);
		CHECK(tf_check(&b, NULL) == BF_OK);
		free(h);
		free(a.f);
		free(b.f);
	}
}

/*
 * bloom_contains_hashes (the array probe) answers as bloom_contains_hash
 * does, hash for hash, in a filter big enough for it to load ahead (over
 * BF_PROBE_PREFETCH_MIN_BYTES: several stages, or one, which the blocked
 * layout answers in batches) and in a small one.
 */
static void
test_contains_hashes(void)
{
	for (int layout = 0; layout <= 1; layout++)
	for (int big = 0; big <= 2; big++)
	{
		uint64_t	rs = 21 + layout;
		uint64_t	n = big ? 450000 : 2000;
		TFilter		a = tf_new(big == 2 ? n : big ? 100000 : 1000, 0.01, layout, true);
		uint64_t   *h = unit_xmalloc(2 * n * sizeof(uint64_t));
		bool	   *out = unit_xmalloc(2 * n);
		uint64_t	differ = 0,
					missed = 0;

		for (uint64_t i = 0; i < 2 * n; i++)
			h[i] = unit_rand(&rs);
		for (uint64_t i = 0; i < n; i++)
			CHECK(tf_add(&a, h[i]) != BLOOM_FULL);
		if (big)
			CHECK((big == 2 ? a.f->nstages == 1 : a.f->nstages >= 2) &&
				  bloom_size(a.f) > BF_PROBE_PREFETCH_MIN_BYTES);
		/* a batch that ends short of BLOOM_PROBE_BATCH, and one of one */
		bloom_contains_hashes(a.f, h + 5, 70, out + 5);
		for (uint64_t i = 5; i < 75; i++)
			differ += out[i] != bloom_contains_hash(a.f, h[i]);
		bloom_contains_hashes(a.f, h + 2 * n - 1, 1, out);
		differ += out[0] != bloom_contains_hash(a.f, h[2 * n - 1]);
		bloom_contains_hashes(a.f, h, 2 * n, out);
		for (uint64_t i = 0; i < 2 * n; i++)
		{
			differ += out[i] != bloom_contains_hash(a.f, h[i]);
			missed += i < n && !out[i];
		}
		CHECK(differ == 0);
		CHECK(missed == 0);
		bloom_contains_hashes(a.f, h, 0, out);	/* nothing to do */
		free(h);
		free(out);
		free(a.f);
	}
}

/*
 * bloom_set_unchecked + bloom_finish_unchecked (the self-sizing final
 * step) gives the bytes of adding one by one when the set fits, and leaves
 * a fresh filter when it does not, in every instruction-set copy.
 */
static void
test_unchecked_build(void)
{
	for (int isa = 0; isa <= 2; isa++)
	{
		uint64_t	rs = 5;
		uint64_t   *h = unit_xmalloc(40000 * sizeof(uint64_t));
		TFilter		a = tf_new(20000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
		TFilter		b = tf_new(20000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
		TFilter		fresh = tf_new(20000, 0.01, BLOOM_LAYOUT_BLOCKED, true);
		TFilter		std = tf_new(20000, 0.01, BLOOM_LAYOUT_STANDARD, true);

		for (int i = 0; i < 40000; i++)
			h[i] = unit_rand(&rs);
		h[7] = 0;
		/* the reference: one by one, baseline instructions */
		(void) bf_set_isa_limit(0);
		for (int i = 0; i < 20000; i++)
			CHECK(tf_add(&a, h[i]) != BLOOM_FULL);
		(void) bf_set_isa_limit(isa);
		CHECK(a.f->nstages == 1);
		CHECK(bloom_can_build_unchecked(b.f));
		bloom_set_unchecked(b.f, h, 20000);
		CHECK(bloom_finish_unchecked(b.f));
		CHECK(memcmp(a.f, b.f, a.size) == 0);
		CHECK(!bloom_can_build_unchecked(b.f));	/* no longer fresh */
		CHECK(!bloom_can_build_unchecked(std.f));	/* blocked only */

		/* twice the capacity does not fit: the filter is fresh again */
		memcpy(b.f, fresh.f, fresh.size);
		bloom_set_unchecked(b.f, h, 40000);
		CHECK(!bloom_finish_unchecked(b.f));
		CHECK(memcmp(b.f, fresh.f, fresh.size) == 0);
		(void) bf_set_isa_limit(2);
		free(h);
		free(a.f);
		free(b.f);
		free(fresh.f);
		free(std.f);
	}
}

/*
 * Sizing against brute force: the smallest geometry must be exactly the
 * smallest that any k = 1..64 allows under the sizing rate
 * (sizing_brute.h), for both layouts, small and large capacities, rates
 * down to 1e-8.  The search for k once looked only near ln 2 *
 * bits/element, which is too high for blocks at low rates: 1e-6 sized 41
 * bits per element instead of 39.  A blocked stage takes that geometry; a
 * standard one the least k whose own smallest array is within
 * BLOOM_STANDARD_SLACK_PERMILLE of it, at that array, with no more hashes.
 */
static void
test_sizing_matches_brute_force(void)
{
	static const double fprs[] = {0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-8};
	static const uint64_t caps[] = {1000, 1000000};

	for (int layout = BLOOM_LAYOUT_STANDARD; layout <= BLOOM_LAYOUT_BLOCKED; layout++)
		for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
			for (size_t r = 0; r < sizeof(fprs) / sizeof(fprs[0]); r++)
			{
				uint32_t	cells = layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 0;
				uint64_t	unit = layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 64;
				uint64_t	brute;
				BloomGeometry g;

				uint64_t	min_bits;
				uint32_t	min_k;
				uint64_t	units;

				CHECK(bloom_geometry(layout, caps[c], fprs[r], &g, NULL) == BF_OK);
				CHECK(bf_cells_geometry(cells, unit, UINT64_C(1) << 40, caps[c], fprs[r], 0,
										&min_bits, &min_k, NULL) == BF_OK);
				/* no k needs more than 4x the smallest: bound the bisection */
				brute = brute_smallest_cells(caps[c], fprs[r], cells, unit,
											 4 * min_bits / unit);
				CHECK_MSG(min_bits == brute,
						  "layout %d, capacity %llu at %g: smallest %llu bits, brute force %llu",
						  layout, (unsigned long long) caps[c], fprs[r],
						  (unsigned long long) min_bits, (unsigned long long) brute);
				units = min_bits / unit;
				if (layout == BLOOM_LAYOUT_STANDARD)
					units += units * BLOOM_STANDARD_SLACK_PERMILLE / 1000;
				CHECK_MSG(g.nbits <= units * unit && g.nhashes <= min_k,
						  "layout %d, capacity %llu at %g: k=%u in %llu bits, over k=%u in %llu",
						  layout, (unsigned long long) caps[c], fprs[r], g.nhashes,
						  (unsigned long long) g.nbits, min_k, (unsigned long long) min_bits);
				if (layout == BLOOM_LAYOUT_BLOCKED)
					CHECK_MSG(g.nbits == min_bits && g.nhashes == min_k,
							  "blocked, capacity %llu at %g: not the smallest geometry",
							  (unsigned long long) caps[c], fprs[r]);
				for (uint32_t kk = 1; layout == BLOOM_LAYOUT_STANDARD && kk <= min_k; kk++)
				{
					uint64_t	ck = brute_smallest_cells_k(caps[c], fprs[r], kk, cells, unit,
															units);

					if (ck == 0)
						continue;
					CHECK_MSG(kk == g.nhashes && ck == g.nbits,
							  "layout %d, capacity %llu at %g: k=%u in %llu bits, brute force k=%u in %llu",
							  layout, (unsigned long long) caps[c], fprs[r], g.nhashes,
							  (unsigned long long) g.nbits, kk, (unsigned long long) ck);
					break;
				}
				CHECK_MSG(bloom_model_fpr(layout, caps[c], g.nbits, g.nhashes) <= fprs[r] * BF_SIZING_MARGIN,
						  "layout %d, capacity %llu at %g: model rate over the target",
						  layout, (unsigned long long) caps[c], fprs[r]);
			}
}

int
main(void)
{
	RUN(test_hash_stable);
	RUN(test_base64);
	RUN(test_too_large);
	RUN(test_sizing_matches_brute_force);
	RUN(test_no_false_negatives_blocked);
	RUN(test_no_false_negatives_standard);
	RUN(test_duplicates_do_not_grow);
	RUN(test_not_scalable_full);
	RUN(test_union_intersection);
	RUN(test_add_hashes_same_bytes);
	RUN(test_unchecked_build);
	RUN(test_contains_hashes);
	RUN(test_union_across_stages);
	RUN(test_incompatible);
	RUN(test_standard_positions);
	RUN(test_union_overfull);
	RUN(test_check_rejects);
	RUN(test_check_byte_mutations);
	RUN(test_check_absurd_capacity_fast);
	UNIT_DONE();
}
