/*
 * counting_k.c
 *		Why countingbloom's sizing takes the fewest hashes within 10% of the
 *		smallest geometry: for each k, the smallest 128-counter-block
 *		geometry that meets the rate with k hashes (bf_sizing_rate, the
 *		search's own rate), filled with its capacity of random hashes, and
 *		compressed with pglz and PostgreSQL's default strategy, as TOAST
 *		stores it.  Prints memory and stored bytes per element by k, the
 *		entropy of the counters, and marks the smallest geometry and the one
 *		counting_new_size picks.
 *
 * Built by bench/counting_k.sh with the core and libpgcommon.a (pglz).
 *	counting_k [capacity [fpr]]		defaults 1000000 and 0.01
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfcore.h"
#include "counting.h"

/* from common/pg_lzcompress.h, which needs the server's c.h */
typedef struct PGLZ_Strategy PGLZ_Strategy;
extern const PGLZ_Strategy *const PGLZ_strategy_default;
extern int32_t pglz_compress(const char *source, int32_t slen, char *dest,
							 const PGLZ_Strategy *strategy);

int
main(int argc, char **argv)
{
	uint64_t	n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	double		fpr = argc > 2 ? atof(argv[2]) : 0.01;
	uint64_t	best_blocks,
				chosen_blocks;
	uint32_t	best_k,
				chosen_k;
	uint64_t	best_cells;
	uint64_t   *h = malloc(sizeof(uint64_t) * n);

	if (h == NULL || n < 1 || !(fpr > 0 && fpr < 1))
	{
		fprintf(stderr, "usage: counting_k [capacity [fpr]]\n");
		return 2;
	}
	if (bf_cells_geometry(COUNTING_BLOCK_CELLS, COUNTING_BLOCK_CELLS, UINT64_C(1) << 40,
						  n, fpr, 0, &best_cells, &best_k, NULL) != BF_OK ||
		counting_geometry(n, fpr, &chosen_blocks, &chosen_k, NULL) != BF_OK)
	{
		fprintf(stderr, "no geometry for capacity %llu at %g\n", (unsigned long long) n, fpr);
		return 1;
	}
	best_blocks = best_cells / COUNTING_BLOCK_CELLS;
	/* distinct, uniform: the core's bijective mixer over a counter */
	for (uint64_t i = 0; i < n; i++)
		h[i] = bf_remix(i + UINT64_C(0x5eed));
	printf("countingbloom, capacity %llu at %g, filled to capacity with random hashes\n",
		   (unsigned long long) n, fpr);
	printf("%3s %10s %12s %12s %12s %12s  %s\n", "k", "counters/e", "memory B/e",
		   "pglz B/e", "stored/mem", "entropy b/e", "");
	for (uint32_t k = 1; k <= best_k + 2; k++)
	{
		uint64_t	nb = bf_smallest_units_k(n, fpr, k, COUNTING_BLOCK_CELLS,
											 COUNTING_BLOCK_CELLS, 1, 4 * best_blocks);
		size_t		size;
		CountingBloom *f;
		char	   *dst;
		int32_t		c;
		double		cnt[16] = {0},
					ent = 0,
					cells;

		if (nb == 0)
			continue;
		size = COUNTING_HEADER_BYTES + nb * COUNTING_BLOCK_BYTES;
		if (size > INT32_MAX / 2)
			continue;
		f = calloc(1, size);
		dst = malloc(size + size / 2 + 64);
		if (f == NULL || dst == NULL)
			return 1;
		/* a header for this geometry (counting_init sizes by capacity) */
		counting_init(f, COUNTING_HEADER_BYTES, n, fpr, 0);
		f->nblocks = nb;
		f->nhashes = k;
		if (counting_add_hashes(f, h, n) != n)
			return 1;
		c = pglz_compress((const char *) f, (int32_t) size, dst, PGLZ_strategy_default);
		if (c < 0)
			c = (int32_t) size;	/* pglz gave up: stored as is */
		cells = (double) nb * COUNTING_BLOCK_CELLS;
		for (uint64_t i = 0; i < nb * COUNTING_BLOCK_BYTES; i++)
		{
			cnt[f->counters[i] & 15]++;
			cnt[f->counters[i] >> 4]++;
		}
		for (int v = 0; v < 16; v++)
			if (cnt[v] > 0)
				ent -= cnt[v] / cells * log2(cnt[v] / cells);
		printf("%3u %10.2f %12.3f %12.3f %12.3f %12.2f  %s%s\n", k, cells / n,
			   (double) size / n, (double) c / n, (double) c / size, ent * cells / n,
			   (k == best_k && nb == best_blocks) ? "smallest" : "",
			   (k == chosen_k && nb == chosen_blocks) ? " <- counting_new_size" : "");
		free(f);
		free(dst);
	}
	free(h);
	return 0;
}
