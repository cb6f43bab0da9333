/*
 * test_cuckoo.c
 *		Plain-C unit test of the cuckoo filter core.
 *
 *	cc -Isrc test/unit/test_cuckoo.c src/bfcore.c src/cuckoo.c -lm && ./a.out
 *
 * Exits 0 when every check passes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfcore.h"
#include "cuckoo.h"

static int	failures = 0;

#define CHECK(cond, ...) \
	do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

static CuckooFilter *
new_filter(uint64_t capacity, double fpr)
{
	size_t		size;
	CuckooFilter *f;
	char		err[BF_ERRLEN];

	if (cuckoo_new_size(cuckoo_buckets_for(capacity), fpr, &size, err) != BF_OK)
	{
		fprintf(stderr, "new_size: %s\n", err);
		exit(2);
	}
	f = calloc(1, size);
	cuckoo_init(f, size, cuckoo_buckets_for(capacity), capacity, fpr, 0);
	f->hdr.vl_len_ = (uint32_t) size;	/* not a real varlena; unused by the core */
	return f;
}

/* a filter with one more (empty) table, as the SQL layer grows it */
static CuckooFilter *
grown(CuckooFilter *f)
{
	size_t		size;
	char		err[BF_ERRLEN];
	CuckooFilter *nf;

	if (cuckoo_grown_size(f, &size, err) != BF_OK)
	{
		fprintf(stderr, "grow: %s\n", err);
		exit(2);
	}
	nf = calloc(1, size);
	cuckoo_grow_into(f, nf, size);
	CHECK(cuckoo_check(nf, size, err) == BF_OK, "grown filter invalid: %s", err);
	free(f);
	return nf;
}

/* add, growing as the SQL layer does */
static CuckooFilter *
add(CuckooFilter *f, uint64_t h)
{
	while (cuckoo_add_hash(f, h) == CUCKOO_NEEDS_TABLE)
		f = grown(f);
	return f;
}

static void
check_valid(const CuckooFilter *f, const char *what)
{
	char		err[BF_ERRLEN];

	CHECK(cuckoo_check(f, cuckoo_size(f), err) == BF_OK, "%s: %s", what, err);
}

static uint64_t
key(uint64_t i)
{
	return bf_hash_int64((int64_t) i, 0);
}

/* 100k random adds/removes against an exact multiset, growing from 100 */
static void
test_multiset(void)
{
	enum
	{
		UNIVERSE = 3000, OPS = 100000
	};
	static uint32_t model[UNIVERSE];
	CuckooFilter *f = new_filter(100, 0.01);
	uint64_t	rng = 12345,
				total = 0,
				removed = 0;

	for (int op = 0; op < OPS; op++)
	{
		uint64_t	r;
		uint32_t	k;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		r = rng >> 33;
		k = (uint32_t) (r % UNIVERSE);
		if ((r >> 20) % 100 < 55)
		{
			f = add(f, key(k));
			model[k]++;
			total++;
		}
		else if (model[k] > 0)
		{
			CHECK(cuckoo_remove_hash(f, key(k)), "remove of present key %u failed", k);
			model[k]--;
			total--;
			removed++;
		}
		else if (cuckoo_count_hash(f, key(k)) == 0)
		{
			size_t		sz = cuckoo_size(f);
			void	   *copy = malloc(sz);

			memcpy(copy, f, sz);
			CHECK(!cuckoo_remove_hash(f, key(k)), "remove of absent key reported success");
			CHECK(memcmp(copy, f, sz) == 0, "remove of absent key changed the filter");
			free(copy);
		}
		if (op % 10000 == 0)
			check_valid(f, "multiset");
	}
	for (uint32_t k = 0; k < UNIVERSE; k++)
	{
		uint32_t	c = cuckoo_count_hash(f, key(k));

		CHECK(c >= model[k], "key %u: count %u < model %u", k, c, model[k]);
		if (model[k])
			CHECK(cuckoo_contains_hash(f, key(k)), "key %u lost", k);
	}
	CHECK(cuckoo_total_count(f) == total, "total %llu != model %llu",
		  (unsigned long long) cuckoo_total_count(f), (unsigned long long) total);
	/* format 2 counts successful removes only, through growth */
	CHECK(f->hdr.version == CUCKOO_FORMAT_DELETES, "new filter is format %u", f->hdr.version);
	CHECK(f->deletes == removed, "deletes %u != removes %llu", f->deletes,
		  (unsigned long long) removed);
	check_valid(f, "multiset end");
	printf("multiset: %d ops, %llu in, %u tables, %zu bytes, rate bound %.5f\n", OPS,
		   (unsigned long long) total, f->ntables, cuckoo_size(f), cuckoo_rate_bound(f));
	/* empty it: every copy comes out, nothing is left */
	for (uint32_t k = 0; k < UNIVERSE; k++)
		while (model[k])
		{
			CHECK(cuckoo_remove_hash(f, key(k)), "drain: key %u missing", k);
			model[k]--;
		}
	CHECK(cuckoo_total_count(f) == 0, "not empty after draining");
	check_valid(f, "drained");
	free(f);
}

/* growth from 100 to 100k: no false negatives, rate under target */
static void
test_growth(double fpr)
{
	CuckooFilter *f = new_filter(100, fpr);
	uint64_t	n = 100000,
				probes = 1000000,
				fp = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		f = add(f, key(i));
		CHECK(cuckoo_rate_bound(f) <= fpr, "rate bound %.6g over target after %llu",
			  cuckoo_rate_bound(f), (unsigned long long) i);
	}
	check_valid(f, "growth");
	for (uint64_t i = 0; i < n; i++)
		CHECK(cuckoo_contains_hash(f, key(i)), "false negative %llu", (unsigned long long) i);
	for (uint64_t i = 0; i < probes; i++)
		fp += cuckoo_contains_hash(f, key(n + 1000000 + i));
	printf("growth fpr %g: %u tables, %zu bytes, bound %.6f, measured %.6f\n",
		   fpr, f->ntables, cuckoo_size(f), cuckoo_rate_bound(f), (double) fp / probes);
	/* 1M probes: sd of the measured rate is sqrt(p/1e6), under 10% of p */
	CHECK((double) fp / probes <= fpr * 1.2, "measured rate %.6f over target %g",
		  (double) fp / probes, fpr);
	free(f);
}

/* a single table at 95% load: measured rate vs bound, bits per element */
static void
test_single_table(double fpr)
{
	uint64_t	n = 200000,
				probes = 2000000,
				fp = 0;
	CuckooFilter *f = new_filter(n, fpr);

	for (uint64_t i = 0; i < n; i++)
		f = add(f, key(i));
	CHECK(f->ntables == 1, "single table grew (%u tables)", f->ntables);
	CHECK(f->tables[0].victim_fp == 0, "victim used at 95%% load");
	for (uint64_t i = 0; i < probes; i++)
		fp += cuckoo_contains_hash(f, key(n + 5000000 + i));
	printf("single fpr %g: f=%u, load %.4f, %.3f bits/element, bound %.6f, measured %.6f\n",
		   fpr, f->tables[0].fp_bits,
		   (double) cuckoo_total_count(f) / cuckoo_total_slots(f),
		   8.0 * cuckoo_size(f) / n, cuckoo_rate_bound(f), (double) fp / probes);
	CHECK((double) fp / probes <= fpr, "measured %.6f over %g", (double) fp / probes, fpr);
	free(f);
}

/*
 * Probes through the tabled alternate-bucket offsets (what a scan's probes
 * use once the filter has been probed often enough) answer exactly as
 * cuckoo_contains_hash, members and non-members, one table or grown (the
 * victims of earlier tables included); fingerprints wider than the table
 * allows get no table.
 */
static void
test_alt_table(double fpr, uint64_t capacity, uint64_t n)
{
	CuckooFilter *f = new_filter(capacity, fpr);
	size_t		bytes;
	uint32_t   *alt;
	uint64_t	differ = 0,
				hits = 0,
				victims = 0;

	for (uint64_t i = 0; i < n; i++)
		f = add(f, key(i));
	for (int k = 0; k < f->ntables; k++)
		victims += f->tables[k].victim_fp != 0;
	bytes = cuckoo_alt_table_size(f);
	if (f->tables[0].fp_bits > CUCKOO_ALT_TABLE_MAX_BITS)
	{
		CHECK(bytes == 0, "alt table of %zu bytes for %u-bit fingerprints", bytes,
			  f->tables[0].fp_bits);
		free(f);
		return;
	}
	CHECK(bytes == ((size_t) 4 << f->tables[0].fp_bits), "alt table %zu bytes for %u bits",
		  bytes, f->tables[0].fp_bits);
	alt = malloc(bytes);
	cuckoo_alt_table(f, alt);
	for (uint64_t i = 0; i < n + 1000000; i++)
	{
		bool		a = cuckoo_contains_hash_alt(f, alt, key(i));

		differ += a != cuckoo_contains_hash(f, key(i));
		hits += a;
		if (i < n)
			CHECK(a, "alt table: false negative %llu", (unsigned long long) i);
	}
	/* the batch form, through the table and without it, in odd-sized calls */
	for (int with_alt = 0; with_alt < 2; with_alt++)
	{
		uint64_t	batch_differ = 0;
		size_t		chunk = 1;

		for (uint64_t i = 0; i < n + 100000; i += chunk, chunk = chunk % 150 + 37)
		{
			uint64_t	h[200];
			bool		out[200];
			size_t		c = chunk;

			if (i + c > n + 100000)
				c = n + 100000 - i;
			for (size_t j = 0; j < c; j++)
				h[j] = key(i + j);
			cuckoo_contains_hashes_alt(f, with_alt ? alt : NULL, h, c, out);
			for (size_t j = 0; j < c; j++)
				batch_differ += out[j] != cuckoo_contains_hash(f, h[j]);
		}
		CHECK(batch_differ == 0, "cuckoo_contains_hashes_alt (%s table) differs for %llu keys",
			  with_alt ? "with" : "without", (unsigned long long) batch_differ);
	}
	printf("alt table fpr %g, %llu into %llu: %u tables, %llu victims, %zu bytes, %llu hits, %llu differ\n",
		   fpr, (unsigned long long) n, (unsigned long long) capacity, f->ntables,
		   (unsigned long long) victims, bytes, (unsigned long long) hits,
		   (unsigned long long) differ);
	CHECK(differ == 0, "alt table and computed answers differ for %llu keys",
		  (unsigned long long) differ);
	free(alt);
	free(f);
}

/*
 * cuckoo_add_hashes (prefetched batches) builds the bytes of one
 * cuckoo_add_hash at a time, through kicks, victims and growth, at
 * fingerprint widths on both sides of the one-word bucket path.
 */
static void
test_batch_same_bytes(double fpr, uint64_t capacity, uint64_t n)
{
	CuckooFilter *one = new_filter(capacity, fpr);
	CuckooFilter *batch = new_filter(capacity, fpr);
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	done = 0;

	for (uint64_t i = 0; i < n; i++)
	{
		h[i] = key(i % (capacity + 3));	/* repeats, as cuckoo_add(f, text[]) may */
		one = add(one, h[i]);
	}
	while (done < n)
	{
		done += cuckoo_add_hashes(batch, h + done, n - done);
		if (done < n)
		{
			CHECK(batch->tables[batch->ntables - 1].victim_fp != 0,
				  "batch stopped at %llu of %llu without a victim",
				  (unsigned long long) done, (unsigned long long) n);
			batch = add(batch, h[done++]);
		}
	}
	if (capacity >= 1000000)
		CHECK(batch->tables[batch->ntables - 1].nbuckets * CUCKOO_BUCKET_SLOTS *
			  batch->tables[batch->ntables - 1].fp_bits / 8 > CUCKOO_SEARCH_PREFETCH_MIN_BYTES,
			  "a table of %llu hashes is under the search prefetch's threshold",
			  (unsigned long long) capacity);
	CHECK(cuckoo_size(one) == cuckoo_size(batch) &&
		  memcmp(one, batch, cuckoo_size(one)) == 0,
		  "batch bytes differ (fpr %g, capacity %llu, n %llu)", fpr,
		  (unsigned long long) capacity, (unsigned long long) n);
	check_valid(batch, "batch");
	free(one);
	free(batch);
	free(h);
}

static int
cmp_hash(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* every one of h[0 .. n) is found (reports the first that is not) */
static void
check_found(const CuckooFilter *f, const uint64_t *h, uint64_t n, const char *what,
			const char *how)
{
	for (uint64_t i = 0; i < n; i++)
		if (!cuckoo_contains_hash(f, h[i]))
		{
			CHECK(false, "%s, %s: false negative for hash %llu", what, how,
				  (unsigned long long) i);
			return;
		}
}

static CuckooFilter *
copy_filter(const CuckooFilter *f)
{
	CuckooFilter *c = malloc(cuckoo_size(f));

	memcpy(c, f, cuckoo_size(f));
	return c;
}

/*
 * cuckoo_load_sorted into f, then into new tables while hashes are left,
 * as pgbf_cuckoo_load_sorted does: left first CUCKOO_LOAD_ROOM(n) long
 * (exactly: ASan sees a write past it), room for n after a
 * CUCKOO_LOAD_NO_ROOM, which must leave f as it was.
 */
static CuckooFilter *
load_all(CuckooFilter *f, const uint64_t *h, uint64_t n, bool sorted, const char *what)
{
	size_t		room = CUCKOO_LOAD_ROOM(n);
	uint64_t   *left = malloc((room > 0 ? room : 1) * sizeof(uint64_t));
	uint64_t	before = cuckoo_total_count(f);
	CuckooFilter *was = copy_filter(f);
	size_t		r = cuckoo_load_sorted(f, h, n, left, room);

	if (r == CUCKOO_LOAD_NO_ROOM)
	{
		CHECK(memcmp(f, was, cuckoo_size(was)) == 0,
			  "%s: a load that ran out of room changed the filter", what);
		room = n;
		left = realloc(left, (room > 0 ? room : 1) * sizeof(uint64_t));
		r = cuckoo_load_sorted(f, h, n, left, room);
	}
	free(was);
	for (;;)
	{
		uint64_t	total = cuckoo_total_count(f);

		/* every hash is either stored or handed back, exactly once */
		CHECK(r <= n && total - before + r == n, "%s: %llu stored + %zu left != %llu", what,
			  (unsigned long long) (total - before), r, (unsigned long long) n);
		for (size_t i = 1; sorted && i < r; i++)
			CHECK(left[i - 1] < left[i], "%s: left not ascending at %zu", what, i);
		check_valid(f, what);
		if (r == 0 || r > n)
			break;
		CHECK(f->tables[f->ntables - 1].victim_fp != 0,
			  "%s: %zu left without a victim", what, r);
		f = grown(f);
		before = total;
		n = r;
		r = cuckoo_load_sorted(f, left, r, left, room);	/* in place */
	}
	free(left);
	return f;
}

/*
 * The room a bulk load needs is what its first pass leaves: for distinct
 * ascending hashes into an empty table, what each first bucket gets past
 * four.  With exactly that room the load gives the bytes it gives with
 * room for n; with one less it runs out of room and leaves the filter as
 * it was.  A table already in use needs room for n.
 */
static void
test_load_room(double fpr, uint64_t capacity, uint64_t n)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *left = malloc((n + 1) * sizeof(uint64_t));
	CuckooFilter *full = new_filter(capacity, fpr),
			   *fresh = new_filter(capacity, fpr),
			   *f;
	uint64_t	nb = full->tables[0].nbuckets;
	size_t		need = 0,
				run = 0,
				r_full,
				r;
	char		what[96];

	snprintf(what, sizeof(what), "load room(fpr %g, capacity %llu, n %llu)", fpr,
			 (unsigned long long) capacity, (unsigned long long) n);
	for (uint64_t i = 0; i < n; i++)
		h[i] = key(i);
	qsort(h, n, sizeof(uint64_t), cmp_hash);
	for (uint64_t i = 0; i < n; i++)
	{
		run = i > 0 && bf_range64(h[i], nb) == bf_range64(h[i - 1], nb) ? run + 1 : 1;
		need += run > CUCKOO_BUCKET_SLOTS;
	}
	r_full = cuckoo_load_sorted(full, h, n, left, n);

	f = copy_filter(fresh);
	r = cuckoo_load_sorted(f, h, n, left, need);
	CHECK(r == r_full && memcmp(f, full, cuckoo_size(full)) == 0,
		  "%s: room for the %zu the first pass leaves gave other bytes", what, need);
	free(f);
	if (need > 0)
	{
		f = copy_filter(fresh);
		r = cuckoo_load_sorted(f, h, n, left, need - 1);
		CHECK(r == CUCKOO_LOAD_NO_ROOM && memcmp(f, fresh, cuckoo_size(fresh)) == 0,
			  "%s: room for %zu, one short, returned %zu or changed the filter", what,
			  need - 1, r);
		free(f);
	}
	if (n > 0 && full->tables[0].victim_fp == 0)
	{
		/* a table in use: room for n or nothing */
		f = copy_filter(full);
		r = cuckoo_load_sorted(f, h, n, left, n - 1);
		CHECK(r == CUCKOO_LOAD_NO_ROOM && memcmp(f, full, cuckoo_size(full)) == 0,
			  "%s: a table in use loaded with room for %llu of %llu", what,
			  (unsigned long long) (n - 1), (unsigned long long) n);
		free(f);
	}
	CHECK(n > capacity || need <= CUCKOO_LOAD_ROOM(n),
		  "%s: the first pass left %zu, more than CUCKOO_LOAD_ROOM", what, need);
	printf("%s: first pass leaves %zu (%.1f%%), CUCKOO_LOAD_ROOM %llu\n", what, need,
		   n ? 100.0 * need / n : 0.0, (unsigned long long) CUCKOO_LOAD_ROOM(n));
	free(full);
	free(fresh);
	free(left);
	free(h);
}

/*
 * The aggregate's bulk load: distinct hashes, ascending, into an empty
 * table (and, when they do not fit, into new tables), at fingerprint
 * widths on the one-word path, past it, and straddling a word.  Every
 * hash is found, the value is valid, the same input gives the same
 * bytes, a table sized for n holds n at the design load without a
 * victim (n >= 1000), the measured rate stays under fpr, and input out
 * of order or into a table already in use is still loaded correctly.
 */
static void
test_load_sorted(double fpr, uint64_t capacity, uint64_t n)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	CuckooFilter *a,
			   *b;
	char		what[96];
	uint64_t	fp = 0,
				probes = 200000;

	snprintf(what, sizeof(what), "load_sorted(fpr %g, capacity %llu, n %llu)", fpr,
			 (unsigned long long) capacity, (unsigned long long) n);
	for (uint64_t i = 0; i < n; i++)
		h[i] = key(i);
	qsort(h, n, sizeof(uint64_t), cmp_hash);
	a = load_all(new_filter(capacity, fpr), h, n, true, what);
	b = load_all(new_filter(capacity, fpr), h, n, true, what);
	CHECK(cuckoo_size(a) == cuckoo_size(b) && memcmp(a, b, cuckoo_size(a)) == 0,
		  "%s: two loads gave different bytes", what);
	if (n <= capacity && n >= 1000)
		CHECK(a->ntables == 1 && a->tables[0].victim_fp == 0,
			  "%s: %d tables, victim %llu at the design load", what, a->ntables,
			  (unsigned long long) a->tables[0].victim_fp);
	check_found(a, h, n, what, "sorted");
	for (uint64_t i = 0; i < probes; i++)
		fp += cuckoo_contains_hash(a, key(n + i));
	/* under fpr, give or take three standard deviations of the count */
	CHECK(fp <= fpr * probes + 3 * sqrt(fpr * probes) + 1,
		  "%s: measured rate %g over fpr", what, (double) fp / probes);
	free(b);

	/* out of order: the reversed input takes the slow path, still exact */
	for (uint64_t i = 0; i < n / 2; i++)
	{
		uint64_t	t = h[i];

		h[i] = h[n - 1 - i];
		h[n - 1 - i] = t;
	}
	b = load_all(new_filter(capacity, fpr), h, n, false, what);
	check_found(b, h, n, what, "reversed");
	free(b);

	/*
	 * a table in use: the usual inserts, the same bytes as cuckoo_add_hashes
	 * (until a table fills: new tables are empty and bulk loaded)
	 */
	qsort(h, n, sizeof(uint64_t), cmp_hash);
	b = add(new_filter(capacity, fpr), key(n + probes));
	b = load_all(b, h, n, true, what);
	free(a);
	a = add(new_filter(capacity, fpr), key(n + probes));
	for (uint64_t i = 0; i < n; i++)
		a = add(a, h[i]);
	CHECK(a->ntables > 1 ||
		  (cuckoo_size(a) == cuckoo_size(b) && memcmp(a, b, cuckoo_size(a)) == 0),
		  "%s: a table in use was not loaded as cuckoo_add_hashes would", what);
	check_found(b, h, n, what, "in use");
	free(a);
	free(b);
	free(h);
}

/* one key added far more often than its two buckets hold */
static void
test_same_key(void)
{
	CuckooFilter *f = new_filter(1000, 0.01);
	uint64_t	h = key(42);

	for (int i = 1; i <= 40; i++)
	{
		f = add(f, h);
		CHECK(cuckoo_count_hash(f, h) == (uint32_t) i, "count %u after %d adds",
			  cuckoo_count_hash(f, h), i);
	}
	check_valid(f, "same key");
	printf("same key x40: %u tables\n", f->ntables);
	for (int i = 40; i >= 1; i--)
	{
		CHECK(cuckoo_remove_hash(f, h), "remove %d failed", i);
		CHECK(cuckoo_count_hash(f, h) == (uint32_t) (i - 1), "count %u after remove",
			  cuckoo_count_hash(f, h));
	}
	CHECK(!cuckoo_remove_hash(f, h), "remove from empty succeeded");
	check_valid(f, "same key drained");
	free(f);
}

/* the validator rejects every single-byte corruption or truncation */
static void
test_check(uint64_t capacity, int n)
{
	CuckooFilter *f = new_filter(capacity, 0.01);
	size_t		sz;
	uint8_t    *buf;
	char		err[BF_ERRLEN];
	int			accepted = 0;

	for (int i = 0; i < n; i++)
		f = add(f, key(i));
	sz = cuckoo_size(f);
	buf = malloc(sz);
	for (size_t len = 0; len < sz; len++)
		CHECK(cuckoo_check(f, len, err) != BF_OK, "truncated to %zu accepted", len);
	for (size_t p = 4; p < sz; p++)
		for (int bit = 0; bit < 8; bit++)
		{
			memcpy(buf, f, sz);
			buf[p] ^= (uint8_t) (1 << bit);
			if (cuckoo_check(buf, sz, err) == BF_OK)
			{
				/* a valid filter (another seed, fingerprint, ...): usable */
				accepted++;
				for (int i = 0; i < 64; i++)
					(void) cuckoo_count_hash((CuckooFilter *) buf, key(i));
				(void) cuckoo_remove_hash((CuckooFilter *) buf, key(1));
				(void) cuckoo_add_hash((CuckooFilter *) buf, key(99));
				CHECK(cuckoo_check(buf, sz, err) == BF_OK, "flip at %zu: %s", p, err);
			}
		}

	/*
	 * A flipped bit in the seed, capacity, fpr or a fingerprint that stays
	 * nonzero makes another valid filter; counts, offsets, widths, victims
	 * and padding must not pass.
	 */
	printf("%u tables, %zu bytes: bit flips accepted (seed, capacity, fpr, fingerprints): %d\n",
		   f->ntables, sz, accepted);

	/* random multi-byte damage: rejected, or a filter that works */
	{
		uint64_t	rng = 99;

		accepted = 0;
		for (int iter = 0; iter < 20000; iter++)
		{
			int			nbytes = 1 + iter % 4;

			memcpy(buf, f, sz);
			for (int j = 0; j < nbytes; j++)
			{
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				buf[4 + (rng >> 33) % (sz - 4)] = (uint8_t) (rng >> 20);
			}
			if (cuckoo_check(buf, sz, err) == BF_OK)
			{
				accepted++;
				for (int i = 0; i < 64; i++)
					(void) cuckoo_count_hash((CuckooFilter *) buf, key(i));
				for (int i = 0; i < 8; i++)
				{
					(void) cuckoo_remove_hash((CuckooFilter *) buf, key(i));
					(void) cuckoo_add_hash((CuckooFilter *) buf, key(1000 + i));
				}
				CHECK(cuckoo_check(buf, sz, err) == BF_OK, "damaged filter broke: %s", err);
			}
		}
		printf("random damage accepted: %d of 20000\n", accepted);
	}
	free(buf);
	free(f);
}

/* tiny targets: fingerprints up to 64 bits, still growing */
static void
test_tiny_rate(void)
{
	CuckooFilter *f = new_filter(10, 1e-15);
	uint64_t	n = 20000;

	for (uint64_t i = 0; i < n; i++)
		f = add(f, key(i));
	check_valid(f, "tiny rate");
	for (uint64_t i = 0; i < n; i++)
		CHECK(cuckoo_contains_hash(f, key(i)), "tiny rate: false negative %llu",
			  (unsigned long long) i);
	CHECK(cuckoo_rate_bound(f) <= 1e-15, "tiny rate bound %g", cuckoo_rate_bound(f));
	printf("fpr 1e-15: %u tables, widths %u..%u\n", f->ntables, f->tables[0].fp_bits,
		   f->tables[f->ntables - 1].fp_bits);
	for (uint64_t i = 0; i < n; i += 2)
		CHECK(cuckoo_remove_hash(f, key(i)), "tiny rate: remove %llu", (unsigned long long) i);
	for (uint64_t i = 1; i < n; i += 2)
		CHECK(cuckoo_contains_hash(f, key(i)), "tiny rate: lost %llu", (unsigned long long) i);
	check_valid(f, "tiny rate after removes");
	free(f);
}

int
main(void)
{
	CHECK(cuckoo_buckets_for(380) == 100, "buckets_for(380) = %llu",
		  (unsigned long long) cuckoo_buckets_for(380));
	test_same_key();
	test_tiny_rate();
	test_check(50, 30);
	test_check(10, 300);
	test_multiset();
	test_single_table(0.01);
	test_single_table(0.001);
	test_growth(0.01);
	test_growth(0.001);
	test_batch_same_bytes(0.01, 1000, 5000);
	test_batch_same_bytes(0.3, 100, 2000);
	test_batch_same_bytes(1e-6, 20000, 50000);
	test_batch_same_bytes(0.01, 100000, 100000);
	/* tables over CUCKOO_SEARCH_PREFETCH_MIN_BYTES, narrow and wide */
	test_batch_same_bytes(0.01, 7000000, 7000000);
	test_batch_same_bytes(1e-15, 1500000, 1500000);
	test_alt_table(0.01, 100000, 100000);
	test_alt_table(0.3, 100, 5000);
	test_alt_table(0.01, 100, 20000);
	test_alt_table(0.002, 1000, 1000);
	test_alt_table(1e-6, 1000, 1000);
	test_load_room(0.01, 100000, 100000);
	test_load_room(0.01, 2000000, 2000000);
	test_load_room(1e-6, 20000, 20000);
	test_load_room(0.01, 10, 7);
	test_load_room(0.01, 1000, 5000);	/* overfull: needs more room than the bound */
	test_load_sorted(0.01, 100000, 100000);
	test_load_sorted(0.01, 2000000, 2000000);
	test_load_sorted(0.3, 1000, 1000);
	test_load_sorted(1e-6, 20000, 20000);
	test_load_sorted(1e-15, 20000, 20000);
	test_load_sorted(1e-15, 100, 5000);
	test_load_sorted(0.01, 10, 7);
	test_load_sorted(0.01, 100, 20000);
	test_load_sorted(1e-6, 1000, 50000);
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("all cuckoo tests passed\n");
	return failures != 0;
}
