/*
 * fpr.c
 *		Measured false-positive rate against theory, by bits per element,
 *		for every filter type and layout in the core.
 *
 *	bench/fpr.sh [scale]     (compiles this with every plain-C core file)
 *	./fpr [scale] > fpr.dat		(bench/fpr.gp plots it)
 *
 * For each target rate the filter is built the way the extension builds
 * it (the geometry is the core's choice), filled with exactly its capacity
 * of distinct keys, and probed with keys never added.  One line per
 * filter: type, target, bits per element, k, measured rate, the rate the
 * core's sizing model predicts for that geometry, and the textbook
 * (1 - e^(-kn/m))^k.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bfcore.h"
#include "bloom.h"

/* the other types when their core is in the tree (see micro.c) */
#if !defined(MICRO_BLOOM_ONLY) && defined(__has_include)
#if __has_include("counting.h")
#include "counting.h"
#define FPR_COUNTING 1
#endif
#if __has_include("cuckoo.h")
#include "cuckoo.h"
#define FPR_CUCKOO 1
#endif
#endif

static uint64_t rng_state = 7;

static uint64_t
rng(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * Keys: XXH3 of a counter, so the hashes are real hashes of distinct
 * elements; probes use a disjoint counter range.
 */
static uint64_t
key_hash(uint64_t i)
{
	return bf_hash_int64((int64_t) i, 0);
}

static void
bloom_point(int layout, double target, uint64_t n, uint64_t probes)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	BloomFilter *f;
	uint64_t	fp = 0;
	const BloomStage *s;
	double		m,
				textbook;

	if (bloom_new_size(n, target, layout, false, &size, errbuf) != BF_OK)
		return;
	f = calloc(1, size);
	bloom_init(f, size, n, target, layout, false, 0);
	for (uint64_t i = 0; i < n; i++)
		if (bloom_add_hash(f, key_hash(i)) == BLOOM_FULL)
		{
			fprintf(stderr, "filter full after %llu of %llu\n",
					(unsigned long long) i, (unsigned long long) n);
			break;
		}
	for (uint64_t i = 0; i < probes; i++)
		fp += bloom_contains_hash(f, key_hash(UINT64_C(1) << 40 | i));
	s = &f->stages[0];
	m = (double) s->nbits;
	textbook = pow(-expm1(-(double) s->nhashes * (double) n / m), (double) s->nhashes);
	printf("bloom_%s\t%g\t%.4f\t%u\t%.6g\t%.6g\t%.6g\n",
		   bloom_layout_name(layout), target, m / (double) n, s->nhashes,
		   (double) fp / (double) probes,
		   bloom_model_fpr(layout, n, s->nbits, s->nhashes), textbook);
	free(f);
}

#ifdef FPR_COUNTING
/* model: the core's own (blocked 4-bit counters, same maths as bloom) */
static void
counting_point(double target, uint64_t n, uint64_t probes)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	CountingBloom *f;
	uint64_t	fp = 0;

	if (counting_new_size(n, target, &size, errbuf) != BF_OK)
		return;
	f = calloc(1, size);
	counting_init(f, size, n, target, 0);
	for (uint64_t i = 0; i < n; i++)
		(void) counting_add_hash(f, key_hash(i));
	for (uint64_t i = 0; i < probes; i++)
		fp += counting_contains_hash(f, key_hash(UINT64_C(1) << 40 | i));
	/* bits per element counts the 4-bit counters' bits */
	printf("countingbloom\t%g\t%.4f\t%d\t%.6g\t%.6g\t%.6g\n", target,
		   (double) (counting_size(f) - COUNTING_HEADER_BYTES) * 8 / (double) n, 0,
		   (double) fp / (double) probes, counting_model_fpr(f, n), counting_model_fpr(f, n));
	free(f);
}
#endif

#ifdef FPR_CUCKOO
/* model: 2 buckets x load x chance a fingerprint matches */
static void
cuckoo_point(double target, uint64_t n, uint64_t probes)
{
	size_t		size;
	char		errbuf[BF_ERRLEN];
	CuckooFilter *f;
	uint64_t	fp = 0;
	uint64_t	nbuckets = cuckoo_buckets_for(n);

	if (nbuckets == 0 || cuckoo_new_size(nbuckets, target, &size, errbuf) != BF_OK)
		return;
	f = calloc(1, size);
	cuckoo_init(f, size, nbuckets, n, target, 0);
	for (uint64_t i = 0; i < n; i++)
		if (cuckoo_add_hash(f, key_hash(i)) != CUCKOO_ADDED)
			break;				/* would grow: measure what it holds */
	for (uint64_t i = 0; i < probes; i++)
		fp += cuckoo_contains_hash(f, key_hash(UINT64_C(1) << 40 | i));
	printf("cuckoofilter\t%g\t%.4f\t%u\t%.6g\t%.6g\t%.6g\n", target,
		   (double) cuckoo_total_slot_bits(f) / (double) n, f->tables[0].fp_bits,
		   (double) fp / (double) probes, cuckoo_rate_bound(f), cuckoo_rate_bound(f));
	free(f);
}
#endif

int
main(int argc, char **argv)
{
	double		scale = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t	n = (uint64_t) (200000 * scale);
	uint64_t	probes = (uint64_t) (5000000 * scale);
	static const double targets[] = {0.3, 0.2, 0.1, 0.05, 0.03, 0.02, 0.01, 0.005,
	0.003, 0.002, 0.001, 0.0005, 0.0002, 0.0001};

	(void) rng;
	if (n < 1000)
		n = 1000;
	if (probes < 20000)
		probes = 20000;
	printf("# n=%llu elements per filter, %llu probes of keys never added\n",
		   (unsigned long long) n, (unsigned long long) probes);
	for (int layout = 0; layout <= 1; layout++)
	{
		if (layout > 0)
			printf("\n\n");	/* gnuplot: next data set */
		/* header row: gnuplot's columnhead(1) names the data set */
		printf("%s\ttarget\tbits_per_elem\tk\tmeasured\tmodel\ttextbook\n",
			   layout ? "bloom_blocked" : "bloom_standard");
		for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
			bloom_point(layout, targets[i], n, probes);
	}
#ifdef FPR_COUNTING
	printf("\n\ncountingbloom\ttarget\tbits_per_elem\tk\tmeasured\tmodel\ttextbook\n");
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		counting_point(targets[i], n, probes);
#endif
#ifdef FPR_CUCKOO
	printf("\n\ncuckoofilter\ttarget\tbits_per_elem\tfp_bits\tmeasured\tmodel\tmodel\n");
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		cuckoo_point(targets[i], n, probes);
#endif
	return 0;
}
