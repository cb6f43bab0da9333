/*
 * fuzz_counting.c
 *		libFuzzer harness for the countingbloom checker: any bytes either
 *		fail counting_check or make a value every operation can use safely
 *		(a packed one once unpacked, and counted in place the same).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *		test/fuzz/fuzz_counting.c src/bfcore.c src/counting.c -lm
 */
#include <stdlib.h>
#include <string.h>

#include "bfcore.h"
#include "counting.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	CountingBloom *f;
	CountingStats st;

	/* the checker sees the value as PostgreSQL hands it over: aligned */
	f = malloc(size ? size : 1);
	memcpy(f, data, size);
	if (counting_check(f, size, NULL) == BF_OK)
	{
		uint64_t	h = bf_hash_bytes(data, size < 16 ? size : 16, 0);

		/* packed: probed in place, then every operation on its counters */
		if (f->layout == COUNTING_LAYOUT_PACKED)
		{
			CountingBloom *plain = malloc(counting_size(f));
			CountingPackedCounts n;

			uint64_t   *rank = malloc(counting_rank_size(f));

			(void) counting_occupancy_contains(f, counting_occupancy_of(f), h);
			counting_unpack(f, plain);
			if (counting_packed_size(plain, &n) != size)
				abort();		/* the packed form of a value is unique */
			/* a count read in place is the count of the counters */
			counting_rank_build(f, rank);
			for (int i = 0; i < 8; i++)
				if (counting_packed_count_hash(f, rank, h + (uint64_t) i * 0x9E3779B97F4A7C15) !=
					counting_count_hash(plain, h + (uint64_t) i * 0x9E3779B97F4A7C15))
					abort();
			free(rank);
			/* and its figures read in place are the counters' */
			{
				CountingStats a,
							b;

				counting_stats(f, &a);
				counting_stats(plain, &b);
				if (a.nonzero != b.nonzero || a.saturated != b.saturated ||
					!(a.fpr_estimate == b.fpr_estimate))
					abort();
			}
			free(f);
			f = plain;
			size = counting_size(f);
		}

		(void) counting_contains_hash(f, h);
		(void) counting_count_hash(f, h);
		(void) counting_add_hash(f, h);
		(void) counting_remove_hash(f, h ^ 1);
		counting_stats(f, &st);
		(void) counting_model_fpr(f, f->capacity);
		if (counting_union_into(f, f, NULL) == BF_OK && counting_check(f, size, NULL) != BF_OK)
			abort();			/* a union of valid values must stay valid */
	}
	free(f);
	return 0;
}
