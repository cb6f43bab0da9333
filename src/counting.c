/*
 * counting.c
 *		Counting Bloom filter maths, no fmgr.  See counting.h for the value
 *		layout.
 */
#include "counting.h"

#include <math.h>
#include <stdio.h>

/* odd constant (2^64 / golden ratio) between successive remixes */
#define COUNTING_STEP UINT64_C(0x9E3779B97F4A7C15)

/* largest block count whose value fits in BF_MAX_VALUE_BYTES */
#define COUNTING_MAX_BLOCKS \
	((BF_MAX_VALUE_BYTES - COUNTING_HEADER_BYTES) / COUNTING_BLOCK_BYTES)

/*
 * A crafted value could claim any capacity; past this many elements per
 * counter no geometry meets a rate under 1, and bounding it keeps the
 * model evaluation in the checker short.
 */
#define COUNTING_MAX_LOAD 64

/* the struct is the documented header: counters start at byte 64 */
typedef char counting_header_is_64_bytes[(sizeof(CountingBloom) == COUNTING_HEADER_BYTES) ? 1 : -1];

/*
 * The blocked Bloom model over 128-counter blocks, searched by the shared
 * code that sizes bloomfilter stages (margins and a small filter's luck
 * included): one model, so the two types' rates mean the same thing.
 */
BfStatus
counting_geometry(uint64_t capacity, double fpr, uint64_t *nblocks,
				  uint32_t *nhashes, char *errbuf)
{
	uint64_t	ncells;
	BfStatus	st;

	st = bf_cells_geometry(COUNTING_BLOCK_CELLS, COUNTING_BLOCK_CELLS,
						   COUNTING_MAX_BLOCKS, capacity, fpr, &ncells, nhashes,
						   errbuf);
	if (st != BF_OK)
		return st;
	*nblocks = ncells / COUNTING_BLOCK_CELLS;
	return BF_OK;
}

/* bytes of a new filter, so the caller can allocate before counting_init */
BfStatus
counting_new_size(uint64_t capacity, double fpr, size_t *size, char *errbuf)
{
	uint64_t	nblocks;
	uint32_t	k;
	BfStatus	st;

	st = counting_geometry(capacity, fpr, &nblocks, &k, errbuf);
	if (st != BF_OK)
		return st;
	*size = (size_t) (COUNTING_HEADER_BYTES + nblocks * COUNTING_BLOCK_BYTES);
	return BF_OK;
}

/* buf was sized with counting_new_size for the same parameters */
void
counting_init(void *buf, size_t size, uint64_t capacity, double fpr, uint64_t seed)
{
	CountingBloom *f = (CountingBloom *) buf;
	uint64_t	nblocks = 0;
	uint32_t	k = 1;

	(void) counting_geometry(capacity, fpr, &nblocks, &k, NULL);
	memset((char *) buf + sizeof(uint32_t), 0, size - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_COUNTING, seed);
	f->layout = COUNTING_LAYOUT_BLOCKED;
	f->counter_bits = COUNTING_COUNTER_BITS;
	f->reserved = 0;
	f->nhashes = k;
	f->fpr = fpr;
	f->capacity = capacity;
	f->count = 0;
	f->nblocks = nblocks;
}

/* largest capacity whose new filter fits in one value, for error messages */
uint64_t
counting_max_capacity(double fpr)
{
	uint64_t	lo = 1,
				hi = UINT64_C(1) << 40;
	size_t		sz;

	if (counting_new_size(1, fpr, &sz, NULL) != BF_OK)
		return 0;
	while (lo + 1 < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (counting_new_size(mid, fpr, &sz, NULL) == BF_OK)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* the exact length a value of this geometry must have */
size_t
counting_size(const CountingBloom *f)
{
	return (size_t) (COUNTING_HEADER_BYTES + f->nblocks * COUNTING_BLOCK_BYTES);
}

/* ---- probing ---- */

/*
 * An element's counters: its block, and the set of its (distinct)
 * counters in that block as a 128-bit mask.  A set, because a counter
 * drawn twice must move by one per add and remove, or a counter shared
 * with itself would saturate early and over-report the count.
 */
typedef struct CountingProbe
{
	uint8_t    *block;
	uint64_t	mask[2];
} CountingProbe;

static inline void
probe_of(const CountingBloom *f, uint64_t h, CountingProbe *p)
{
	uint32_t	b = bf_range32((uint32_t) (h >> 32), (uint32_t) f->nblocks);
	uint64_t	g = bf_remix(h);

	p->block = (uint8_t *) f->counters + (uint64_t) b * COUNTING_BLOCK_BYTES;
	p->mask[0] = p->mask[1] = 0;
	for (uint32_t j = 0; j < f->nhashes; j++)
	{
		uint32_t	cell = (uint32_t) (g >> (7 * (j % 9))) & 127;

		p->mask[cell >> 6] |= UINT64_C(1) << (cell & 63);
		if (j % 9 == 8)
			g = bf_remix(g + COUNTING_STEP);
	}
}

/* counter i of a block: nibble i%2 of byte i/2, low nibble first */
static inline int
counter_get(const uint8_t *block, uint32_t cell)
{
	uint8_t		byte = block[cell >> 1];

	return (cell & 1) ? byte >> 4 : byte & 15;
}

/* v is 0 .. 15: callers never step past the saturation bound */
static inline void
counter_set(uint8_t *block, uint32_t cell, int v)
{
	uint8_t    *byte = &block[cell >> 1];

	if (cell & 1)
		*byte = (uint8_t) ((*byte & 0x0f) | (v << 4));
	else
		*byte = (uint8_t) ((*byte & 0xf0) | v);
}

/* smallest counter of the probe (0 .. 15) */
static inline int
probe_min(const CountingProbe *p)
{
	int			m = COUNTING_COUNTER_MAX;

	for (int w = 0; w < 2; w++)
	{
		uint64_t	bits = p->mask[w];

		while (bits)
		{
			uint32_t	cell = (uint32_t) (w * 64 + __builtin_ctzll(bits));
			int			v = counter_get(p->block, cell);

			if (v < m)
			{
				if (v == 0)
					return 0;
				m = v;
			}
			bits &= bits - 1;
		}
	}
	return m;
}

/* add (+1) or remove (-1) one occurrence; saturated counters never move */
static inline void
probe_step(const CountingProbe *p, int delta)
{
	for (int w = 0; w < 2; w++)
	{
		uint64_t	bits = p->mask[w];

		while (bits)
		{
			uint32_t	cell = (uint32_t) (w * 64 + __builtin_ctzll(bits));
			int			v = counter_get(p->block, cell);

			if (v < COUNTING_COUNTER_MAX && (delta > 0 || v > 0))
				counter_set(p->block, cell, v + delta);
			bits &= bits - 1;
		}
	}
}

/*
 * Capacity counts elements in (a multiset: an element added twice is in
 * twice), so an add at capacity fails before anything changes.
 */
CountingResult
counting_add_hash(CountingBloom *f, uint64_t h)
{
	CountingProbe p;

	if (f->count >= f->capacity)
		return COUNTING_FULL;
	probe_of(f, h, &p);
	probe_step(&p, +1);
	f->count++;
	return COUNTING_OK;
}

/*
 * An element reported absent was never added (or was already removed as
 * many times as added): removing it must not touch anything, or it would
 * decrement counters other elements rely on.  With count zero nothing is
 * in, whatever sticky saturated counters say.
 */
CountingResult
counting_remove_hash(CountingBloom *f, uint64_t h)
{
	CountingProbe p;

	if (f->count == 0)
		return COUNTING_ABSENT;
	probe_of(f, h, &p);
	if (probe_min(&p) == 0)
		return COUNTING_ABSENT;
	probe_step(&p, -1);
	f->count--;
	return COUNTING_OK;
}

/* a zero counter proves x is not in; all non-zero says probably in */
bool
counting_contains_hash(const CountingBloom *f, uint64_t h)
{
	CountingProbe p;

	probe_of(f, h, &p);
	return probe_min(&p) > 0;
}

/*
 * Each of x's counters was incremented once per add of x (and by other
 * elements), so the smallest is an upper bound of x's multiplicity; 15
 * means "15 or more".
 */
int
counting_count_hash(const CountingBloom *f, uint64_t h)
{
	CountingProbe p;

	probe_of(f, h, &p);
	return probe_min(&p);
}

/* ---- validation ---- */

/*
 * The one validator of bytes from outside (text, binary, bytea): every
 * field that sizes a loop or an offset is checked against the value's real
 * length before anything reads the counters.  Counters themselves are any
 * nibble, so they need no check.
 */
BfStatus
counting_check(const void *data, size_t len, char *errbuf)
{
	const CountingBloom *f = (const CountingBloom *) data;
	BfStatus	st;
	uint64_t	ncells;

	st = bf_check_header(data, len, COUNTING_HEADER_BYTES + COUNTING_BLOCK_BYTES,
						 BF_KIND_COUNTING, "countingbloom", errbuf);
	if (st != BF_OK)
		return st;
	if (f->hdr.flags != 0 || f->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "countingbloom reserved fields are not zero");
	if (f->layout != COUNTING_LAYOUT_BLOCKED)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid countingbloom layout %u", f->layout);
	if (f->counter_bits != COUNTING_COUNTER_BITS)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "unsupported countingbloom counter width %u", f->counter_bits);
	if (f->nhashes < 1 || f->nhashes > BF_MAX_HASHES)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid countingbloom hash count %u", f->nhashes);
	if (bf_check_params(f->capacity > (uint64_t) INT64_MAX ? -1 : (int64_t) f->capacity,
						f->fpr, NULL) != BF_OK)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid countingbloom parameters (capacity %llu, fpr %g)",
					   (unsigned long long) f->capacity, f->fpr);
	if (f->nblocks < 1 || f->nblocks > COUNTING_MAX_BLOCKS)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid countingbloom block count %llu",
					   (unsigned long long) f->nblocks);
	if (len != COUNTING_HEADER_BYTES + f->nblocks * COUNTING_BLOCK_BYTES)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "countingbloom value has %zu bytes, %llu blocks need %llu",
					   len, (unsigned long long) f->nblocks,
					   (unsigned long long) (COUNTING_HEADER_BYTES +
											 f->nblocks * COUNTING_BLOCK_BYTES));
	if (f->count > f->capacity)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "countingbloom holds %llu elements, more than its capacity of %llu",
					   (unsigned long long) f->count, (unsigned long long) f->capacity);

	/*
	 * The counters must really deliver the rate the value claims, or a
	 * crafted value could promise a target it cannot meet.
	 */
	ncells = f->nblocks * COUNTING_BLOCK_CELLS;
	if (f->capacity > ncells * COUNTING_MAX_LOAD ||
		bf_model_fpr_cells(f->capacity, ncells, f->nhashes, COUNTING_BLOCK_CELLS) > f->fpr)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "countingbloom of %llu blocks is too small for its capacity and rate",
					   (unsigned long long) f->nblocks);
	return BF_OK;
}

/* ---- union ---- */

/* counters line up only when every position is derived the same way */
BfStatus
counting_check_compatible(const CountingBloom *a, const CountingBloom *b, char *errbuf)
{
	if (a->hdr.seed != b->hdr.seed)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine counting filters with different hash seeds");
	if (a->capacity != b->capacity || a->fpr != b->fpr ||
		a->nblocks != b->nblocks || a->nhashes != b->nhashes ||
		a->layout != b->layout)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine counting filters of different geometry (capacity %llu, fpr %g vs capacity %llu, fpr %g)",
					   (unsigned long long) a->capacity, a->fpr,
					   (unsigned long long) b->capacity, b->fpr);
	return BF_OK;
}

/*
 * Counters add, saturating at 15 (a saturated counter stays one, so the
 * sum never under-reports).  The result holds both sides' elements, so it
 * must have room for them: checked before anything changes.
 */
BfStatus
counting_union_into(CountingBloom *dst, const CountingBloom *b, char *errbuf)
{
	uint64_t	nbytes = dst->nblocks * COUNTING_BLOCK_BYTES;

	if (b->count > dst->capacity - dst->count)
		return bf_fail(errbuf, BF_ERR_FULL,
					   "union would hold %llu elements, more than the capacity of %llu",
					   (unsigned long long) (dst->count + b->count),
					   (unsigned long long) dst->capacity);
	for (uint64_t i = 0; i < nbytes; i++)
	{
		uint8_t		x = dst->counters[i],
					y = b->counters[i];
		int			lo = (x & 15) + (y & 15),
					hi = (x >> 4) + (y >> 4);

		if (lo > COUNTING_COUNTER_MAX)
			lo = COUNTING_COUNTER_MAX;
		if (hi > COUNTING_COUNTER_MAX)
			hi = COUNTING_COUNTER_MAX;
		dst->counters[i] = (uint8_t) (lo | (hi << 4));
	}
	dst->count += b->count;
	return BF_OK;
}

/* ---- estimates ---- */

/*
 * One pass over the counters for info: nothing is cached in the header,
 * so a value's header can never disagree with its counters.
 */
void
counting_stats(const CountingBloom *f, CountingStats *st)
{
	double		sum = 0.0;

	st->nonzero = 0;
	st->saturated = 0;
	for (uint64_t b = 0; b < f->nblocks; b++)
	{
		const uint8_t *block = f->counters + b * COUNTING_BLOCK_BYTES;
		int			nz = 0;

		for (int i = 0; i < COUNTING_BLOCK_BYTES; i++)
		{
			uint8_t		x = block[i];

			nz += ((x & 15) != 0) + ((x >> 4) != 0);
			st->saturated += ((x & 15) == 15) + ((x >> 4) == 15);
		}
		st->nonzero += (uint64_t) nz;
		if (nz)
			sum += pow((double) nz / COUNTING_BLOCK_CELLS, (double) f->nhashes);
	}
	st->fpr_estimate = sum / (double) f->nblocks;
}

/* the sizing model's rate with n elements in */
double
counting_model_fpr(const CountingBloom *f, uint64_t n)
{
	return bf_model_fpr_cells(n, f->nblocks * COUNTING_BLOCK_CELLS, f->nhashes,
							  COUNTING_BLOCK_CELLS);
}
