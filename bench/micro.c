/*
 * micro.c
 *		Microbenchmark of the plain-C filter core: no PostgreSQL, no fmgr,
 *		just the code every SQL call ends up in.
 *
 *	bench/micro.sh [scale]   (compiles this with every plain-C core file)
 *	./micro [scale]		scale 1 (default): cold filters of 100M capacity;
 *						make test runs it at 0.01
 *
 * Figures, each the median of 5 repetitions, in ns per operation:
 *	hash		XXH3-64 of a ~75-byte URL (what every SQL call pays once)
 *	probe		bloom_contains_hash of a precomputed hash; "hit" probes
 *				members (all k bits read), "miss" probes non-members
 *				(stops at the first clear bit);
 *	  hot		filter of 10k elements: it lives in L1/L2;
 *	  cold		filter of 100M elements (~120 MB), far larger than the LLC;
 *	  indep		a stream of independent probes: throughput, the CPU may
 *				overlap several probes' cache misses;
 *	  array		the same probes through the array probes' core
 *				(bloom_contains(f, xs[]) and its kin), 1000 per call: each
 *				probe's line is loaded well ahead, so the misses overlap;
 *	  dep		serialized (a fence after each probe), so probes cannot
 *				overlap: this is the latency, and (cold - hot) / one DRAM
 *				miss is the number of misses a probe really waits for;
 *	  tabled	cuckoo only: dep through the alternate-bucket offsets
 *				tabled, as a scan's probes of a cached filter go;
 *	add			bloom_add_hash, hot (small filter) and cold (filling the big one)
 *	dram		one dependent random load in a buffer the size of the cold
 *				filter (pointer chase): the price of one cache miss here.
 *	ladder		the same in buffers of 1 to 32 MB: where the caches end.
 *
 * The cuckoo_agg core and keyset blocks use 2M hashes (fewer below scale
 * 1); MICRO_CUCKOO_N=n in the environment sets n, e.g. 20000000 for a
 * table far bigger than the caches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bfcore.h"
#include "bloom.h"

/*
 * The other types are measured when their core is in the tree (and
 * bench/micro.sh compiled them in: it retries without them, with
 * -DMICRO_BLOOM_ONLY, if their interface has moved on).
 */
#if !defined(MICRO_BLOOM_ONLY) && defined(__has_include)
#if __has_include("counting.h")
#include "counting.h"
#define MICRO_COUNTING 1
#endif
#if __has_include("cuckoo.h") && __has_include("keyset.h")
#include "cuckoo.h"
#include "keyset.h"
#define MICRO_CUCKOO 1
#endif
#endif

#define REPS 5

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static uint64_t rng_state = UINT64_C(0x123456789abcdef);

/* splitmix64: fast, deterministic, good enough to pick keys */
static uint64_t
rng(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* h[0 .. n) = the first n values of rng() from seed */
static void
fill_random(uint64_t *h, uint64_t n, uint64_t seed)
{
	rng_state = seed;
	for (uint64_t i = 0; i < n; i++)
		h[i] = rng();
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
}

static volatile uint64_t sink;

/* ~75-byte URLs like the SQL benchmark's */
static char *
make_urls(int n, int *lens)
{
	char	   *buf = malloc((size_t) n * 96);

	for (int i = 0; i < n; i++)
	{
		uint64_t	a = rng(),
					b = rng(),
					c = rng();

		lens[i] = snprintf(buf + (size_t) i * 96, 96,
						   "https://www.%010llx.com/%012llx/%016llx%04x.html?id=%d",
						   (unsigned long long) (a & 0xffffffffffULL),
						   (unsigned long long) (b & 0xffffffffffffULL),
						   (unsigned long long) c, (unsigned) (a >> 48), i);
	}
	return buf;
}

static double
bench_hash(int n)
{
	int		   *lens = malloc(sizeof(int) * n);
	char	   *urls = make_urls(n, lens);
	double		t[REPS];
	double		total = 0;

	for (int i = 0; i < n; i++)
		total += lens[i];
	for (int r = 0; r < REPS; r++)
	{
		uint64_t	acc = 0;
		double		t0 = now_ns();

		for (int i = 0; i < n; i++)
			acc ^= bf_hash_bytes(urls + (size_t) i * 96, lens[i], 0);
		t[r] = (now_ns() - t0) / n;
		sink ^= acc;
	}
	printf("hash        XXH3-64 of a %.0f-byte URL            %8.2f ns\n", total / n, median(t, REPS));
	free(urls);
	free(lens);
	return median(t, REPS);
}

/* one filter type (or layout) behind a common face */
typedef struct FilterOps
{
	const char *name;
	void	   *(*create) (uint64_t capacity, int arg);
	void		(*add) (void *f, uint64_t h);
	bool		(*contains) (const void *f, uint64_t h);
	/* the array probes' core: n answers at once, loading ahead */
	void		(*contains_many) (const void *f, const uint64_t *h, size_t n, bool *out);
	size_t		(*size) (const void *f);
	int			arg;
	/* cuckoo only: contains with what a scan's probes use (NULL: none) */
	bool		(*contains_tabled) (const void *f, uint64_t h);
} FilterOps;

/*
 * Filters start 64-byte aligned, as pgbf_cached_arg hands them to probes
 * and aggregate states keep them (pg_common.h); buf_misalign moves them
 * off the line by that many bytes, to show what alignment is worth.
 */
static size_t buf_misalign;

static void *
aligned_buf(size_t size)
{
	void	   *buf;

	if (posix_memalign(&buf, 64, size + 64) != 0)
		exit(1);
	return (char *) buf + buf_misalign;
}

static void
free_buf(void *buf)
{
	free((char *) buf - buf_misalign);
}

static void *
bloom_new(uint64_t capacity, int layout)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	void	   *buf;

	if (bloom_new_size(capacity, 0.01, layout, true, &size, errbuf) != BF_OK)
	{
		fprintf(stderr, "bloom_new_size: %s\n", errbuf);
		exit(1);
	}
	buf = aligned_buf(size);
	bloom_init(buf, size, capacity, 0.01, layout, true, 0);
	return buf;
}

/* a filter that must grow is left as it is: the benchmark sizes them right */
static void
bloom_add_op(void *f, uint64_t h)
{
	(void) bloom_add_hash((BloomFilter *) f, h);
}

static bool
bloom_contains_op(const void *f, uint64_t h)
{
	return bloom_contains_hash((const BloomFilter *) f, h);
}

static size_t
bloom_size_op(const void *f)
{
	return bloom_size((const BloomFilter *) f);
}

/*
 * The build paths (the aggregates' flushes and final functions, the
 * array forms of the add functions): a batch add over batches of "batch"
 * hashes, which loads blocks ahead.  ns per add, rng included as in the
 * one-by-one adds of the table.
 */
static double
batch_add(void *(*create) (uint64_t capacity, int layout), int layout,
		  void (*add_batch) (void *f, const uint64_t *h, size_t n),
		  uint64_t capacity, size_t batch)
{
	uint64_t	hashes[1024];
	double		t[REPS];

	for (int r = 0; r < REPS; r++)
	{
		void	   *f = create(capacity, layout);
		double		t0;

		rng_state = 4242;
		t0 = now_ns();
		for (uint64_t i = 0; i < capacity; i += batch)
		{
			size_t		n = capacity - i < batch ? (size_t) (capacity - i) : batch;

			for (size_t j = 0; j < n; j++)
				hashes[j] = rng();
			add_batch(f, hashes, n);
		}
		t[r] = (now_ns() - t0) / (double) capacity;
		free_buf(f);
	}
	return median(t, REPS);
}

/* a filter sized right never stops the batch to grow */
static void
bloom_add_batch_op(void *f, const uint64_t *h, size_t n)
{
	BloomAddResult stop;

	(void) bloom_add_hashes((BloomFilter *) f, h, n, &stop);
}

#ifdef MICRO_COUNTING
static void *
counting_new(uint64_t capacity, int unused)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	void	   *buf;

	if (counting_new_size(capacity, 0.01, &size, errbuf) != BF_OK)
	{
		fprintf(stderr, "counting_new_size: %s\n", errbuf);
		exit(1);
	}
	buf = aligned_buf(size);
	counting_init(buf, size, capacity, 0.01, 0);
	return buf;
}

static void
counting_add_op(void *f, uint64_t h)
{
	(void) counting_add_hash((CountingBloom *) f, h);
}

static bool
counting_contains_op(const void *f, uint64_t h)
{
	return counting_contains_hash((const CountingBloom *) f, h);
}

static size_t
counting_size_op(const void *f)
{
	return counting_size((const CountingBloom *) f);
}

/* the array form of counting_bloom_add, and counting_bloom_agg's final */
static void
counting_add_batch_op(void *f, const uint64_t *h, size_t n)
{
	(void) counting_add_hashes((CountingBloom *) f, h, n);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * The build of a self-sizing aggregate's final function: all "capacity"
 * hashes in one batch, ascending (the keyset's order), so runs of adds go
 * to one block.  ns per add, the sort not included.
 */
static double
sorted_build(void *(*create) (uint64_t capacity, int layout),
			 void (*add_batch) (void *f, const uint64_t *h, size_t n), uint64_t capacity)
{
	uint64_t   *h = malloc(capacity * sizeof(uint64_t));
	double		t[REPS];

	fill_random(h, capacity, 4242);
	qsort(h, capacity, sizeof(uint64_t), cmp_u64);
	for (int r = 0; r < REPS; r++)
	{
		void	   *f = create(capacity, 0);
		double		t0 = now_ns();

		add_batch(f, h, capacity);
		t[r] = (now_ns() - t0) / (double) capacity;
		free_buf(f);
	}
	free(h);
	return median(t, REPS);
}

/*
 * counting_bloom_agg's final function, ns per hash, from n ascending
 * hashes to the packed value, each rep in fresh memory as a query's
 * would be: the blocked filter built (zeroed, added to), counted and
 * packed, against counting_build_packed (each block packed as its adds
 * end).  They must give the same bytes.
 */
static void
counting_final_bench(uint64_t n)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	double		t_old[REPS],
				t_new[REPS];
	size_t		old_size = 0,
				new_size = 0;

	fill_random(h, n, 4243);
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	for (int r = 0; r < REPS; r++)
	{
		CountingPackedCounts pc;
		CountingBloom *f,
				   *hdr = counting_new(1, 0);
		void	   *p,
				   *q,
				   *scratch;
		size_t		ob,
					sb;
		double		t0 = now_ns();

		f = counting_new(n, 0);
		(void) counting_add_hashes(f, h, n);
		old_size = counting_packed_size(f, &pc);
		p = aligned_buf(old_size);
		counting_pack(f, &pc, p);
		free_buf(f);
		t_old[r] = (now_ns() - t0) / (double) n;

		free_buf(hdr);
		hdr = counting_new(n, 0);	/* only its header is read */
		t0 = now_ns();
		counting_build_bounds(hdr, n, &ob, &sb);
		q = aligned_buf(ob);
		scratch = aligned_buf(sb);
		new_size = counting_build_packed(hdr, h, n, q, scratch);
		free_buf(scratch);
		t_new[r] = (now_ns() - t0) / (double) n;
		if (new_size != old_size ||
			memcmp((char *) p + sizeof(uint32_t), (char *) q + sizeof(uint32_t),
				   old_size - sizeof(uint32_t)) != 0)
		{
			fprintf(stderr, "counting build packed differs from add then pack: the core is broken\n");
			exit(1);
		}
		free_buf(p);
		free_buf(q);
		free_buf(hdr);
	}
	printf("%-9s %-10s %9llu %9.2f %9.2f  (packed %zu kB)\n", "counting", "agg final, n / add+pack / build packed",
		   (unsigned long long) n, median(t_old, REPS), median(t_new, REPS), new_size >> 10);
	free(h);
}

/*
 * Probes of a full filter through its occupancy bits (a quarter of its
 * bytes) against probes of its counters, hits and misses mixed as a scan
 * of half members sees them; and the price of deriving the bits.
 */
static void
counting_occupancy_bench(uint64_t capacity, int nprobe)
{
	CountingBloom *f = counting_new(capacity, 0);
	uint64_t   *occ = malloc(counting_occupancy_size(f));
	uint64_t   *h = malloc(sizeof(uint64_t) * nprobe);
	double		t_derive[REPS],
				t_occ[REPS],
				t_cnt[REPS];

	rng_state = 99;
	for (uint64_t i = 0; i < capacity; i++)
		(void) counting_add_hash(f, rng());
	rng_state = 99;
	for (int i = 0; i < nprobe; i++)
		h[i] = (i & 1) ? rng() ^ UINT64_C(0x5555555555555555) : rng();
	for (int r = 0; r < REPS; r++)
	{
		uint64_t	hits = 0;
		double		t0 = now_ns();

		counting_occupancy(f, occ);
		t_derive[r] = (now_ns() - t0) / 1e6;
		t0 = now_ns();
		for (int i = 0; i < nprobe; i++)
			hits += counting_occupancy_contains(f, occ, h[i]);
		t_occ[r] = (now_ns() - t0) / nprobe;
		t0 = now_ns();
		for (int i = 0; i < nprobe; i++)
			hits -= counting_contains_hash(f, h[i]);
		t_cnt[r] = (now_ns() - t0) / nprobe;
		if (hits != 0)
		{
			fprintf(stderr, "occupancy and counters disagree: the benchmark is broken\n");
			exit(1);
		}
	}
	printf("counting  %6.1f MB filter: probe via counters %6.2f ns, via occupancy (%.1f MB) %6.2f ns, deriving it %.2f ms\n",
		   counting_size(f) / 1048576.0, median(t_cnt, REPS),
		   counting_occupancy_size(f) / 1048576.0, median(t_occ, REPS), median(t_derive, REPS));
	free(h);
	free(occ);
	free_buf(f);
}
#endif

#ifdef MICRO_CUCKOO
static void *
cuckoo_new(uint64_t capacity, int unused)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	uint64_t	nbuckets = cuckoo_buckets_for(capacity);
	void	   *buf;

	if (nbuckets == 0 || cuckoo_new_size(nbuckets, 0.01, &size, errbuf) != BF_OK)
	{
		fprintf(stderr, "cuckoo_new_size failed\n");
		exit(1);
	}
	buf = aligned_buf(size);
	cuckoo_init(buf, size, nbuckets, capacity, 0.01, 0);
	return buf;
}

static void
cuckoo_add_op(void *f, uint64_t h)
{
	(void) cuckoo_add_hash((CuckooFilter *) f, h);
}

static bool
cuckoo_contains_op(const void *f, uint64_t h)
{
	return cuckoo_contains_hash((const CuckooFilter *) f, h);
}

static size_t
cuckoo_size_op(const void *f)
{
	return cuckoo_size((const CuckooFilter *) f);
}

/*
 * A scan's probe of a cached filter: through its alternate-bucket offsets
 * tabled once (cuckoo_alt_table; here rebuilt whenever the geometry
 * changes: in a filter's first timed probe, a few microseconds against
 * the million it times).
 */
static bool
cuckoo_contains_tabled_op(const void *f, uint64_t h)
{
	static uint32_t *alt;
	static uint64_t alt_buckets;
	static uint32_t alt_bits;
	const CuckooFilter *cf = f;

	if (cf->tables[0].nbuckets != alt_buckets || cf->tables[0].fp_bits != alt_bits)
	{
		free(alt);
		alt = malloc(cuckoo_alt_table_size(cf));
		cuckoo_alt_table(cf, alt);
		alt_buckets = cf->tables[0].nbuckets;
		alt_bits = cf->tables[0].fp_bits;
	}
	return cuckoo_contains_hash_alt(cf, alt, h);
}
#endif

#ifdef MICRO_CUCKOO
/*
 * The core of cuckoo_agg's final function over n distinct hashes: the
 * pending queue of them sorted ascending into a keyset
 * (keyset_merge_queue), then a filter sized for n at 1% bulk loaded from
 * it (cuckoo_load_sorted).  For comparison, the same hashes in a random
 * order added to such a filter one cuckoo_add_hash at a time and in
 * cuckoo_add_hashes batches (cuckoo_add(f, x[]); they must give the same
 * bytes).
 */
static void
bench_cuckoo_build(uint64_t n)
{
	KeySet	   *empty,
			   *sorted;
	uint64_t   *queue = malloc(sizeof(uint64_t) * n);
	uint64_t   *left = malloc(sizeof(uint64_t) * n);
	uint64_t   *scratch = malloc(sizeof(uint64_t) * keyset_sort_buffer_len(n));
	void	   *one,
			   *batch,
			   *bulk;
	double		t_sort[REPS],
				t_bulk[REPS],
				t_one[REPS],
				t_batch[REPS];
	uint64_t	got = 0;

	empty = aligned_buf(keyset_size_for(0));
	keyset_init(empty, BF_KIND_CUCKOO, 1, 0.01, 0, 0);
	sorted = aligned_buf(keyset_size_for(n));
	fill_random(queue, n, 77);
	for (int r = 0; r < REPS; r++)
	{
		double		t0 = now_ns();

		got = keyset_merge_queue(empty, queue, n, scratch, sorted);
		t_sort[r] = (now_ns() - t0) / (double) n;
	}
	for (int r = 0; r < REPS; r++)
	{
		double		t0;

		bulk = cuckoo_new(got, 0);
		t0 = now_ns();
		if (cuckoo_load_sorted(bulk, sorted->hashes, got, left, got) != 0)
		{
			fprintf(stderr, "cuckoo bulk load left hashes over: the core is broken\n");
			exit(1);
		}
		t_bulk[r] = (now_ns() - t0) / (double) n;
		free(bulk);
	}
	for (int r = 0; r < REPS; r++)
	{
		double		t0;

		one = cuckoo_new(got, 0);
		batch = cuckoo_new(got, 0);
		t0 = now_ns();
		for (uint64_t i = 0; i < got; i++)
			(void) cuckoo_add_hash(one, queue[i]);
		t_one[r] = (now_ns() - t0) / (double) n;
		t0 = now_ns();
		(void) cuckoo_add_hashes(batch, queue, got);
		t_batch[r] = (now_ns() - t0) / (double) n;
		/* past the varlena length word, which the core leaves alone */
		if (cuckoo_size(one) != cuckoo_size(batch) ||
			memcmp((char *) one + sizeof(uint32_t), (char *) batch + sizeof(uint32_t),
				   cuckoo_size(one) - sizeof(uint32_t)) != 0)
		{
			fprintf(stderr, "cuckoo batch add built other bytes: the core is broken\n");
			exit(1);
		}
		free(one);
		free(batch);
	}
	printf("cuckoo_agg core, %llu distinct hashes into a %zu kB filter (ns per hash):\n"
		   "  sort ascending (keyset_merge_queue)      %8.2f\n"
		   "  bulk load (cuckoo_load_sorted)           %8.2f\n"
		   "  random order, add one at a time          %8.2f\n"
		   "  random order, add in prefetched batches  %8.2f\n\n",
		   (unsigned long long) n, cuckoo_size(batch = cuckoo_new(n, 0)) >> 10,
		   median(t_sort, REPS), median(t_bulk, REPS), median(t_one, REPS),
		   median(t_batch, REPS));
	free(batch);
	free_buf(empty);
	free_buf(sorted);
	free(queue);
	free(left);
	free(scratch);
}
#endif

#ifdef MICRO_CUCKOO
/*
 * The keyset a self-sizing or distinct-input aggregate builds, as its
 * transition function does: n hashes queued a row at a time (a 32 kB
 * memset per 256 standing in for the scan), the queue growing to
 * keyset_queue_target's length and then sorted and merged in with
 * keyset_merge_queue.  Without a capacity the queue follows the set's
 * size (a merge per doubling); with capacity n it grows to n and there is
 * about one merge.
 */
static double
keyset_build_once(const uint64_t *h, uint64_t n, uint64_t capacity, int *merges)
{
	static char scan[32768];
	size_t		qmax = KEYSET_MIN_QUEUE,
				qn = 0;
	uint64_t   *queue = malloc(sizeof(uint64_t) * qmax);
	uint64_t   *scratch = malloc(sizeof(uint64_t) * qmax);
	KeySet	   *ks = aligned_buf(keyset_size_for(0));
	double		t0 = now_ns(),
				ns;

	keyset_init(ks, BF_KIND_COUNTING, 1, 0.01, capacity, 0);
	*merges = 0;
	for (uint64_t i = 0; i <= n; i++)
	{
		if (i % 256 == 0)
			memset(scan, (int) i, sizeof(scan));
		/* full, or the end: grow the queue or merge it */
		if (qn == qmax || (i == n && qn > 0))
		{
			size_t		want = keyset_queue_target(ks, qmax);

			if (i < n && want > qmax)
			{
				qmax = want;
				queue = realloc(queue, sizeof(uint64_t) * qmax);
				scratch = realloc(scratch, sizeof(uint64_t) * qmax);
			}
			else
			{
				KeySet	   *nks = aligned_buf(keyset_size_for(ks->count + qn));

				(void) keyset_merge_queue(ks, queue, qn, scratch, nks);
				free_buf(ks);
				ks = nks;
				qn = 0;
				(*merges)++;
			}
		}
		if (i < n)
			queue[qn++] = h[i];
	}
	ns = (now_ns() - t0) / (double) n;
	if (ks->count != n)
	{
		fprintf(stderr, "keyset lost hashes: the core is broken\n");
		exit(1);
	}
	free(queue);
	free(scratch);
	free_buf(ks);
	return ns;
}

static void
bench_keyset_build(uint64_t n)
{
	uint64_t   *h = malloc(sizeof(uint64_t) * n);
	double		t_auto[REPS],
				t_sized[REPS],
				t_sort[REPS],
				t_bloom[REPS];
	int			m_auto = 0,
				m_sized = 0;

	fill_random(h, n, 99);
	for (int r = 0; r < REPS; r++)
	{
		t_auto[r] = keyset_build_once(h, n, 0, &m_auto);
		t_sized[r] = keyset_build_once(h, n, n, &m_sized);
	}
	/* the sort alone: keyset_sort_unique of the n hashes, from a copy */
	{
		uint64_t   *a = malloc(sizeof(uint64_t) * n);
		uint64_t   *scratch = malloc(sizeof(uint64_t) * n);

		for (int r = 0; r < REPS; r++)
		{
			double		t0;

			memcpy(a, h, sizeof(uint64_t) * n);
			t0 = now_ns();
			if (keyset_sort_unique(a, n, scratch) != n)
			{
				fprintf(stderr, "keyset_sort_unique lost hashes: the core is broken\n");
				exit(1);
			}
			t_sort[r] = (now_ns() - t0) / (double) n;
		}
		/* bloom_agg(x)'s final: a fresh filter for the set, bits set unchecked */
		for (int r = 0; r < REPS; r++)
		{
			BloomFilter *f = bloom_new(n, BLOOM_LAYOUT_BLOCKED);
			double		t0 = now_ns();

			bloom_set_unchecked(f, a, n);
			if (!bloom_finish_unchecked(f))
			{
				fprintf(stderr, "bloom_set_unchecked overfilled its filter: the core is broken\n");
				exit(1);
			}
			t_bloom[r] = (now_ns() - t0) / (double) n;
			free_buf(f);
		}
		free(a);
		free(scratch);
	}
	printf("keyset of %llu distinct hashes, queued a row at a time (ns per hash, with a 32 kB memset per 256):\n"
		   "  no capacity: queue follows the set (%2d merges) %8.2f\n"
		   "  capacity n: queue grows to n       (%2d merges) %8.2f\n"
		   "  the bucket sort alone (keyset_sort_unique)     %8.2f\n"
		   "  bloom_agg(x) final: the sorted set into a filter %6.2f\n\n",
		   (unsigned long long) n, m_auto, median(t_auto, REPS),
		   m_sized, median(t_sized, REPS), median(t_sort, REPS), median(t_bloom, REPS));
	free(h);
}
#endif

static void
bloom_contains_many_op(const void *f, const uint64_t *h, size_t n, bool *out)
{
	bloom_contains_hashes((const BloomFilter *) f, h, n, out);
}

#ifdef MICRO_COUNTING
static void
counting_contains_many_op(const void *f, const uint64_t *h, size_t n, bool *out)
{
	counting_contains_hashes((const CountingBloom *) f, h, n, out);
}
#endif

#ifdef MICRO_CUCKOO
static void
cuckoo_contains_many_op(const void *f, const uint64_t *h, size_t n, bool *out)
{
	cuckoo_contains_hashes((const CuckooFilter *) f, h, n, out);
}
#endif

static const FilterOps filter_ops[] = {
	{"blocked", bloom_new, bloom_add_op, bloom_contains_op, bloom_contains_many_op, bloom_size_op, BLOOM_LAYOUT_BLOCKED},
	{"standard", bloom_new, bloom_add_op, bloom_contains_op, bloom_contains_many_op, bloom_size_op, BLOOM_LAYOUT_STANDARD},
#ifdef MICRO_COUNTING
	{"counting", counting_new, counting_add_op, counting_contains_op, counting_contains_many_op, counting_size_op, 0},
#endif
#ifdef MICRO_CUCKOO
	{"cuckoo", cuckoo_new, cuckoo_add_op, cuckoo_contains_op, cuckoo_contains_many_op, cuckoo_size_op, 0,
	cuckoo_contains_tabled_op},
#endif
};
#define NOPS ((int) (sizeof(filter_ops) / sizeof(filter_ops[0])))

/* independent probes of n hashes: ns per probe */
static double
probe_indep(const FilterOps *ops, const void *f, const uint64_t *h, int n)
{
	double		t[REPS];

	for (int r = 0; r < REPS; r++)
	{
		uint64_t	hits = 0;
		double		t0 = now_ns();

		for (int i = 0; i < n; i++)
			hits += ops->contains(f, h[i]);
		t[r] = (now_ns() - t0) / n;
		sink += hits;
	}
	return median(t, REPS);
}

/*
 * The array probe (f_contains(f, xs[])): the same hashes in arrays of
 * PROBE_ARRAY, each answered by one contains_many call: ns per probe.
 */
#define PROBE_ARRAY 1000

static double
probe_array(const FilterOps *ops, const void *f, const uint64_t *h, int n)
{
	double		t[REPS];
	bool		out[PROBE_ARRAY];

	for (int r = 0; r < REPS; r++)
	{
		uint64_t	hits = 0;
		double		t0 = now_ns();

		for (int i = 0; i < n; i += PROBE_ARRAY)
		{
			int			m = n - i < PROBE_ARRAY ? n - i : PROBE_ARRAY;

			ops->contains_many(f, h + i, (size_t) m, out);
			for (int j = 0; j < m; j++)
				hits += out[j];
		}
		t[r] = (now_ns() - t0) / n;
		sink += hits;
	}
	return median(t, REPS);
}

/*
 * Serialized probes: a fence after each probe makes it finish (its loads
 * returned) before the next one starts, so nothing overlaps across probes:
 * this is the latency of one probe.  The misses inside one probe (the k
 * positions of the standard layout) may still overlap with each other, as
 * they would in real use.
 */
static inline void
serialize(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("lfence":::"memory");
#else
	__asm__ __volatile__("":::"memory");
#endif
}

static double
probe_dep(bool (*contains) (const void *f, uint64_t h), const void *f, const uint64_t *h, int n)
{
	double		t[REPS];

	for (int r = 0; r < REPS; r++)
	{
		uint64_t	hits = 0;
		double		t0 = now_ns();

		for (int i = 0; i < n; i++)
		{
			hits += contains(f, h[i]);
			serialize();
		}
		t[r] = (now_ns() - t0) / n;
		sink += hits;
	}
	return median(t, REPS);
}

/*
 * Price of one DRAM miss: a pointer chase (each load's address is the
 * previous load's value) through a random cycle over bytes of memory.
 */
static double
dram_latency(size_t bytes, int n)
{
	size_t		nlines = bytes / 64;
	uint64_t   *mem;
	uint64_t   *perm = malloc(sizeof(uint64_t) * nlines);
	double		t[REPS];

	if (posix_memalign((void **) &mem, 64, nlines * 64) != 0)
		exit(1);
	for (size_t i = 0; i < nlines; i++)
		perm[i] = i;
	for (size_t i = nlines - 1; i > 0; i--)
	{
		size_t		j = rng() % (i + 1),
					x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (size_t i = 0; i < nlines; i++)
		mem[perm[i] * 8] = perm[(i + 1) % nlines] * 8;
	for (int r = 0; r < REPS; r++)
	{
		uint64_t	p = 0;
		double		t0 = now_ns();

		for (int i = 0; i < n; i++)
			p = mem[p];
		t[r] = (now_ns() - t0) / n;
		sink += p;
	}
	free(perm);
	free(mem);
	return median(t, REPS);
}

typedef struct LayoutResult
{
	double		add_hot,
				add_cold,
				hit_hot_indep,
				miss_hot_indep,
				hit_cold_indep,
				miss_cold_indep,
				hit_hot_array,
				miss_hot_array,
				hit_cold_array,
				miss_cold_array,
				hit_hot_dep,
				hit_cold_dep,
				miss_hot_dep,
				miss_cold_dep,
				hit_hot_dep_tab,	/* through contains_tabled, if any */
				hit_cold_dep_tab,
				miss_hot_dep_tab,
				miss_cold_dep_tab;
	size_t		cold_bytes;
	double		dram;			/* one miss in a buffer of cold_bytes */
} LayoutResult;

static void
bench_layout(const FilterOps *ops, uint64_t cold_cap, int nprobe, LayoutResult *res)
{
	const uint64_t hot_cap = 10000;
	uint64_t   *members = malloc(sizeof(uint64_t) * nprobe);
	uint64_t   *others = malloc(sizeof(uint64_t) * nprobe);
	void	   *f;
	double		t[REPS];
	uint64_t	first;

	/* hot: a 10k filter, rebuilt every repetition to time adds */
	for (int r = 0; r < REPS; r++)
	{
		double		t0;

		f = ops->create(hot_cap, ops->arg);
		rng_state = 42;
		t0 = now_ns();
		for (uint64_t i = 0; i < hot_cap; i++)
			ops->add(f, rng());
		t[r] = (now_ns() - t0) / (double) hot_cap;
		if (r < REPS - 1)
			free_buf(f);
	}
	res->add_hot = median(t, REPS);
	rng_state = 42;
	for (int i = 0; i < nprobe; i++)
		members[i] = (i < (int) hot_cap) ? rng() : members[i % hot_cap];
	for (int i = 0; i < nprobe; i++)
		others[i] = rng() | 1;
	res->hit_hot_indep = probe_indep(ops, f, members, nprobe);
	res->miss_hot_indep = probe_indep(ops, f, others, nprobe);
	res->hit_hot_array = probe_array(ops, f, members, nprobe);
	res->miss_hot_array = probe_array(ops, f, others, nprobe);
	res->hit_hot_dep = probe_dep(ops->contains, f, members, nprobe);
	res->miss_hot_dep = probe_dep(ops->contains, f, others, nprobe);
	if (ops->contains_tabled)
	{
		res->hit_hot_dep_tab = probe_dep(ops->contains_tabled, f, members, nprobe);
		res->miss_hot_dep_tab = probe_dep(ops->contains_tabled, f, others, nprobe);
	}
	free_buf(f);

	/* cold: one big filter, filled to capacity once (that is the cold add) */
	f = ops->create(cold_cap, ops->arg);
	res->cold_bytes = ops->size(f);
	rng_state = 4242;
	first = rng_state;
	{
		double		t0 = now_ns();

		for (uint64_t i = 0; i < cold_cap; i++)
			ops->add(f, rng());
		res->add_cold = (now_ns() - t0) / (double) cold_cap;
	}
	/* members: random ones among those added */
	for (int i = 0; i < nprobe; i++)
	{
		uint64_t	idx = rng() % cold_cap;
		uint64_t	save = rng_state;

		rng_state = first + idx * UINT64_C(0x9E3779B97F4A7C15);
		members[i] = rng();
		rng_state = save;
	}
	for (int i = 0; i < nprobe; i++)
		others[i] = rng() ^ UINT64_C(0x5555555555555555);
	res->hit_cold_indep = probe_indep(ops, f, members, nprobe);
	res->miss_cold_indep = probe_indep(ops, f, others, nprobe);
	res->hit_cold_array = probe_array(ops, f, members, nprobe);
	res->miss_cold_array = probe_array(ops, f, others, nprobe);
	res->hit_cold_dep = probe_dep(ops->contains, f, members, nprobe);
	res->miss_cold_dep = probe_dep(ops->contains, f, others, nprobe);
	if (ops->contains_tabled)
	{
		res->hit_cold_dep_tab = probe_dep(ops->contains_tabled, f, members, nprobe);
		res->miss_cold_dep_tab = probe_dep(ops->contains_tabled, f, others, nprobe);
	}
	if (!ops->contains(f, members[0]))
	{
		fprintf(stderr, "false negative: the benchmark is broken\n");
		exit(1);
	}
	free_buf(f);
	free(members);
	free(others);

	/*
	 * The price of one miss, measured right after this type's cold probes
	 * (a shared machine's memory latency drifts) over the same size.
	 */
	res->dram = dram_latency(res->cold_bytes, nprobe / 4);
}

int
main(int argc, char **argv)
{
	double		scale = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t	cold_cap = (uint64_t) (100000000 * scale);
	int			nprobe = scale >= 1 ? 1000000 : 200000;
	LayoutResult res[NOPS];
	size_t		biggest = 0;

	if (cold_cap < 100000)
		cold_cap = 100000;
	printf("bloomfilter core microbenchmark: cold capacity %llu, %d probes, median of %d\n\n",
		   (unsigned long long) cold_cap, nprobe, REPS);
	bench_hash(nprobe / 4);
#ifdef MICRO_CUCKOO
	{
		/* MICRO_CUCKOO_N=20000000 measures the cuckoo_agg core at that size */
		uint64_t	n = cold_cap / 50 > 2000000 ? 2000000 : cold_cap / 50 < 20000 ? 20000 : cold_cap / 50;
		const char *env = getenv("MICRO_CUCKOO_N");

		if (env != NULL && strtoull(env, NULL, 10) > 0)
			n = strtoull(env, NULL, 10);
		bench_cuckoo_build(n);
		bench_keyset_build(n);
	}
#endif
	for (int l = 0; l < NOPS; l++)
	{
		bench_layout(&filter_ops[l], cold_cap, nprobe, &res[l]);
		if (res[l].cold_bytes > biggest)
			biggest = res[l].cold_bytes;
	}
	for (int l = 0; l < NOPS; l++)
		printf("dram        one dependent random load in %4zu MB %8.2f ns  (after %s)\n",
			   res[l].cold_bytes >> 20, res[l].dram, filter_ops[l].name);
	/* where the caches end on this machine: what a filter of that size waits for */
	printf("ladder      one dependent random load in");
	for (size_t mb = 1; mb <= 32; mb *= 2)
		printf("  %zu MB %.0f", mb, dram_latency(mb << 20, nprobe / 4));
	printf(" ns\n\n");

	printf("%-9s %-10s %9s %9s %9s %9s\n", "type", "ns/op", "hot", "cold", "cold/hot", "misses*");
	for (int l = 0; l < NOPS; l++)
	{
		LayoutResult *r = &res[l];
		const char *name = filter_ops[l].name;

		printf("%-9s %-10s %9.2f %9.2f %9.2f\n", name, "add", r->add_hot, r->add_cold,
			   r->add_cold / r->add_hot);
		printf("%-9s %-10s %9.2f %9.2f %9.2f\n", name, "hit indep", r->hit_hot_indep,
			   r->hit_cold_indep, r->hit_cold_indep / r->hit_hot_indep);
		printf("%-9s %-10s %9.2f %9.2f %9.2f\n", name, "miss indep", r->miss_hot_indep,
			   r->miss_cold_indep, r->miss_cold_indep / r->miss_hot_indep);
		printf("%-9s %-10s %9.2f %9.2f %9.2f\n", name, "hit array", r->hit_hot_array,
			   r->hit_cold_array, r->hit_cold_array / r->hit_hot_array);
		printf("%-9s %-10s %9.2f %9.2f %9.2f\n", name, "miss array", r->miss_hot_array,
			   r->miss_cold_array, r->miss_cold_array / r->miss_hot_array);
		printf("%-9s %-10s %9.2f %9.2f %9.2f %9.2f\n", name, "hit dep", r->hit_hot_dep,
			   r->hit_cold_dep, r->hit_cold_dep / r->hit_hot_dep,
			   (r->hit_cold_dep - r->hit_hot_dep) / r->dram);
		printf("%-9s %-10s %9.2f %9.2f %9.2f %9.2f\n", name, "miss dep", r->miss_hot_dep,
			   r->miss_cold_dep, r->miss_cold_dep / r->miss_hot_dep,
			   (r->miss_cold_dep - r->miss_hot_dep) / r->dram);
		if (filter_ops[l].contains_tabled)
		{
			printf("%-9s %-10s %9.2f %9.2f %9.2f %9.2f\n", name, "hit tabled",
				   r->hit_hot_dep_tab, r->hit_cold_dep_tab,
				   r->hit_cold_dep_tab / r->hit_hot_dep_tab,
				   (r->hit_cold_dep_tab - r->hit_hot_dep_tab) / r->dram);
			printf("%-9s %-10s %9.2f %9.2f %9.2f %9.2f\n", name, "miss tabled",
				   r->miss_hot_dep_tab, r->miss_cold_dep_tab,
				   r->miss_cold_dep_tab / r->miss_hot_dep_tab,
				   (r->miss_cold_dep_tab - r->miss_hot_dep_tab) / r->dram);
		}
	}
	printf("%-9s %-10s %9.2f %9.2f\n", "blocked", "add batch",
		   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, 10000, 256),
		   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, cold_cap, 256));
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
	{
		/* the same without the AVX-512 copy of the add (bfcore.h) */
		(void) bf_set_isa_limit(1);
		printf("%-9s %-10s %9.2f %9.2f\n", "blocked", "add batch (no AVX-512)",
			   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, 10000, 256),
			   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, cold_cap, 256));
		(void) bf_set_isa_limit(2);
	}
#endif
	/* the same filter 16 bytes off a cache line, as palloc would place it */
	buf_misalign = 16;
	printf("%-9s %-10s %9.2f %9.2f\n", "blocked", "add batch (misaligned 16)",
		   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, 10000, 256),
		   batch_add(bloom_new, BLOOM_LAYOUT_BLOCKED, bloom_add_batch_op, cold_cap, 256));
	buf_misalign = 0;
#ifdef MICRO_COUNTING
	printf("%-9s %-10s %9.2f %9.2f\n", "counting", "add batch",
		   batch_add(counting_new, 0, counting_add_batch_op, 10000, 1024),
		   batch_add(counting_new, 0, counting_add_batch_op, cold_cap, 1024));
	printf("%-9s %-10s %9.2f %9.2f\n", "counting", "add sorted (agg final)",
		   sorted_build(counting_new, counting_add_batch_op, 10000),
		   sorted_build(counting_new, counting_add_batch_op, cold_cap));
	counting_final_bench(10000);
	counting_final_bench(2000000);
	counting_occupancy_bench(10000, nprobe);
	counting_occupancy_bench(cold_cap, nprobe);
#endif
	printf("\n* misses a serialized probe waits for: (cold - hot) / that type's dram.  Cold filters:");
	for (int l = 0; l < NOPS; l++)
		printf(" %s %zu MB%s", filter_ops[l].name, res[l].cold_bytes >> 20, l + 1 < NOPS ? "," : "\n");
	(void) biggest;
	return 0;
}
