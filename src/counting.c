/*
 * counting.c
 *		Counting Bloom filter maths, no fmgr.  See counting.h for the value
 *		layout.
 */
#include "counting.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef BF_AVX512_DISPATCH
#include <immintrin.h>
#endif

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
 *
 * Unlike a bloomfilter's bits, counters compress: most are 0 or 1, and
 * the packed layout (counting.h) stores a 4-bit counter in fewer bits
 * than TOAST's pglz would.  The fewer hashes per element, the more
 * counters stay at zero, so the sizing takes the fewest hashes that need
 * at most COUNTING_SLACK_PERMILLE per mille more counters than the
 * smallest geometry: a few more counters, stored smaller, and every add,
 * remove and count touches fewer of them.
 */
#define COUNTING_SLACK_PERMILLE 100

BfStatus
counting_geometry(uint64_t capacity, double fpr, uint64_t *nblocks,
				  uint32_t *nhashes, char *errbuf)
{
	uint64_t	ncells;
	BfStatus	st;

	st = bf_cells_geometry(COUNTING_BLOCK_CELLS, COUNTING_BLOCK_CELLS,
						   COUNTING_MAX_BLOCKS, capacity, fpr, COUNTING_SLACK_PERMILLE,
						   &ncells, nhashes, errbuf);
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
	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
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
 * Probes and updates are branch-free: a hit and a miss run the same
 * instructions, so a scan of non-members (rejected at an unpredictable
 * counter) pays no misprediction, and duplicates among an element's
 * cells are merged by building a mask rather than by testing.
 */

/* the block of h: the top 32 bits, mapped onto nblocks without division */
static inline uint64_t
block_index(const CountingBloom *f, uint64_t h)
{
	return bf_range32((uint32_t) (h >> 32), (uint32_t) f->nblocks);
}

/* its counters, in the blocked layout */
static inline uint8_t *
block_of(const CountingBloom *f, uint64_t h)
{
	return (uint8_t *) f->counters + block_index(f, h) * COUNTING_BLOCK_BYTES;
}

/*
 * Start loading the block an add of h writes.  Always inlined: GCC 12
 * judges a function whose only statement is a prefetch pure, and deletes
 * calls to it that it did not inline.
 */
static inline __attribute__((always_inline)) void
prefetch_block(const CountingBloom *f, uint64_t h)
{
	__builtin_prefetch(block_of(f, h), 1);
}

/*
 * Cell t (0 .. 8) of the current g: 7-bit slices, nine per 64-bit value,
 * then g = remix(g + STEP) for the next nine.  CELLS_WALK runs CELL_DO(t)
 * for h's k cells in order: whole groups of nine unrolled, then the rest
 * of the last group, each cell behind a test of k mod 9, which is the same
 * for every call on a filter and so predicts (measured a little faster
 * than a loop over the rest).
 */
#define CELL(t) ((uint32_t) (g >> (7 * (t))) & 127)

#define CELLS_WALK(h, k) \
	do { \
		uint64_t	g = bf_remix(h); \
		uint32_t	left = (k); \
		for (; left >= 9; left -= 9, g = bf_remix(g + COUNTING_STEP)) \
		{ \
			CELL_DO(0); CELL_DO(1); CELL_DO(2); CELL_DO(3); CELL_DO(4); \
			CELL_DO(5); CELL_DO(6); CELL_DO(7); CELL_DO(8); \
		} \
		if (left > 0) CELL_DO(0); \
		if (left > 1) CELL_DO(1); \
		if (left > 2) CELL_DO(2); \
		if (left > 3) CELL_DO(3); \
		if (left > 4) CELL_DO(4); \
		if (left > 5) CELL_DO(5); \
		if (left > 6) CELL_DO(6); \
		if (left > 7) CELL_DO(7); \
	} while (0)

/* counter c of a block: nibble c%2 of byte c/2, low nibble first */
#define COUNTER(block, c) (((block)[(c) >> 1] >> (((c) & 1) << 2)) & 15)

/*
 * Smallest of h's counters (0 .. 15), for counting_count_hash: a min of
 * conditional moves, no early exit.
 */
static inline uint32_t
probe_min(const uint8_t *block, uint64_t h, uint32_t k)
{
	uint32_t	m = COUNTING_COUNTER_MAX;

#define CELL_DO(t) \
	do { \
		uint32_t	v = COUNTER(block, CELL(t)); \
		m = v < m ? v : m; \
	} while (0)
	CELLS_WALK(h, k);
#undef CELL_DO
	return m;
}

/*
 * Are all of h's counters non-zero?  (v + 15) >> 4 is 1 for v in 1 .. 15
 * and 0 for v = 0: and-ed together, without a branch.
 */
static inline bool
probe_all_nonzero(const uint8_t *block, uint64_t h, uint32_t k)
{
	uint32_t	all = 1;

#define CELL_DO(t) (all &= (COUNTER(block, CELL(t)) + 15) >> 4)
	CELLS_WALK(h, k);
#undef CELL_DO
	return all != 0;
}

/*
 * A block as eight 64-bit words of sixteen counters each: counter c is
 * bits 4*(c%16) .. 4*(c%16)+3 of word c/16 read little-endian (the byte
 * layout above), so whole words of counters move at once.
 */
#define NIBBLE_LOW UINT64_C(0x1111111111111111)

static inline uint64_t
load_word(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline void
store_word(uint8_t *p, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, sizeof(w));
}

/* bit 0 of each nibble set where that counter is 15 (saturated: sticky) */
static inline uint64_t
nibbles_saturated(uint64_t w)
{
	return w & (w >> 1) & (w >> 2) & (w >> 3) & NIBBLE_LOW;
}

/* bit 0 of each nibble set where that counter is not zero */
static inline uint64_t
nibbles_nonzero(uint64_t w)
{
	return (w | (w >> 1) | (w >> 2) | (w >> 3)) & NIBBLE_LOW;
}

/*
 * The set of h's distinct counters, as a 1 in bit 0 of each one's nibble.
 * A set, because a counter drawn twice must move by one per add and
 * remove, or a counter shared with itself would saturate early and
 * over-report the count: or-ing a bit in twice is the same as once.
 */
static inline __attribute__((always_inline)) void
probe_mask(uint64_t h, uint32_t k, uint64_t m[8])
{
	for (int w = 0; w < 8; w++)
		m[w] = 0;
#define CELL_DO(t) \
	do { \
		uint32_t	c = CELL(t); \
		m[c >> 4] |= UINT64_C(1) << ((c & 15) << 2); \
	} while (0)
	CELLS_WALK(h, k);
#undef CELL_DO
}

/*
 * +1 on each of h's counters below 15.  No carry can leave a nibble: only
 * counters at 14 or less are incremented.
 */
static inline __attribute__((always_inline)) void
block_increment(uint8_t *block, uint64_t h, uint32_t k)
{
	uint64_t	m[8];

	probe_mask(h, k, m);
	for (int w = 0; w < 8; w++)
	{
		uint64_t	x = load_word(block + 8 * w);

		store_word(block + 8 * w, x + (m[w] & ~nibbles_saturated(x)));
	}
}

#ifdef BF_AVX512_DISPATCH
/*
 * block_increment with the 64-byte block in one AVX-512 register, in two
 * parts (block_mask_avx512, block_add_avx512) so that a run of adds to one
 * block can keep it in the register (add_run_avx512): counter c is bits
 * 4c .. 4c+3 of the block, so 1 << (4c - 64 i) in every lane i at once
 * (VPSLLVQ gives 0 where that is not 0 .. 63) builds h's set of counters,
 * the saturated ones are found lane by lane with shifts, and one add moves
 * them all, where the scalar copy moves one counter at a time.  The same
 * counters and bytes as the scalar copy (bench/micro.c, "counting add
 * batch", compares them).
 */
BF_TARGET_AVX512 static inline __m512i
block_mask_avx512(uint64_t h, uint32_t k)
{
	const __m512i lane_base = _mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
	const __m512i one = _mm512_set1_epi64(1);
	__m512i		m = _mm512_setzero_si512();

#define CELL_DO(t) \
	(m = _mm512_or_si512(m, _mm512_sllv_epi64(one, \
		_mm512_sub_epi64(_mm512_set1_epi64((int64_t) (CELL(t) << 2)), lane_base))))
	CELLS_WALK(h, k);
#undef CELL_DO
	return m;
}

/* block x with +1 on each counter in m below 15 */
BF_TARGET_AVX512 static inline __m512i
block_add_avx512(__m512i x, __m512i m)
{
	__m512i		sat;

	sat = _mm512_and_si512(_mm512_and_si512(x, _mm512_srli_epi64(x, 1)),
						   _mm512_and_si512(_mm512_srli_epi64(x, 2), _mm512_srli_epi64(x, 3)));
	sat = _mm512_and_si512(sat, _mm512_set1_epi64((int64_t) NIBBLE_LOW));
	return _mm512_add_epi64(x, _mm512_andnot_si512(sat, m));
}

BF_TARGET_AVX512 static inline void
block_increment_avx512(uint8_t *block, uint64_t h, uint32_t k)
{
	__m512i		m = block_mask_avx512(h, k);

	_mm512_storeu_si512((void *) block,
						block_add_avx512(_mm512_loadu_si512((const void *) block), m));
}
#endif

static inline __attribute__((always_inline)) void
increment(uint8_t *block, uint64_t h, uint32_t k, bool avx512)
{
#ifdef BF_AVX512_DISPATCH
	if (avx512)
	{
		block_increment_avx512(block, h, k);
		return;
	}
#endif
	block_increment(block, h, k);
}

/*
 * Capacity counts elements in (a multiset: an element added twice is in
 * twice), so an add at capacity fails before anything changes.
 */
static inline __attribute__((always_inline)) CountingResult
add_one(CountingBloom *f, uint64_t h, bool avx512)
{
	if (f->count >= f->capacity)
		return COUNTING_FULL;
	increment(block_of(f, h), h, f->nhashes, avx512);
	f->count++;
	return COUNTING_OK;
}

/*
 * Builds add many hashes: their blocks are loaded ADD_PREFETCH_AHEAD adds
 * ahead, so the cache misses of a filter larger than the cache overlap.
 */
#define ADD_PREFETCH_AHEAD 16

#ifdef BF_AVX512_DISPATCH
/*
 * A build from a keyset adds its hashes in ascending order, so by block:
 * about n / nblocks adds in a row go to one block.  The AVX-512 copy keeps
 * the block in a register while they do and stores it once, instead of
 * each add loading what the add before stored (a store-to-load delay on
 * every add's critical path), which makes sorted adds faster and random
 * ones no slower (bench/micro.c, "counting add sorted").  The
 * baseline copy does not: its block is eight registers besides the eight
 * of the mask, too many to hold without spilling, which costs random
 * order more than ascending order gains.  The bytes are those of one add
 * after another.
 */
BF_TARGET_AVX512 static inline void
add_run_avx512(CountingBloom *f, const uint64_t *h, size_t n, uint32_t k)
{
	size_t		i = 0;

	while (i < n)
	{
		uint8_t    *b = block_of(f, h[i]);
		__m512i		x = _mm512_loadu_si512((const void *) b);

		do
		{
			if (i + ADD_PREFETCH_AHEAD < n)
				prefetch_block(f, h[i + ADD_PREFETCH_AHEAD]);
			x = block_add_avx512(x, block_mask_avx512(h[i], k));
			i++;
		} while (i < n && block_of(f, h[i]) == b);
		_mm512_storeu_si512((void *) b, x);
	}
}
#endif

static inline __attribute__((always_inline)) size_t
add_many(CountingBloom *f, const uint64_t *h, size_t n, bool avx512)
{
	uint32_t	k = f->nhashes;
	size_t		room = (size_t) (f->capacity - f->count);

	if (n > room)
		n = room;
	for (size_t i = 0; i < n && i < ADD_PREFETCH_AHEAD; i++)
		prefetch_block(f, h[i]);
#ifdef BF_AVX512_DISPATCH
	if (avx512)
		add_run_avx512(f, h, n, k);
	else
#endif
		for (size_t i = 0; i < n; i++)
		{
			if (i + ADD_PREFETCH_AHEAD < n)
				prefetch_block(f, h[i + ADD_PREFETCH_AHEAD]);
			block_increment(block_of(f, h[i]), h[i], k);
		}
	f->count += n;
	return n;
}

#ifdef BF_AVX512_DISPATCH
BF_TARGET_AVX512 __attribute__((flatten)) static CountingResult
add_one_avx512(CountingBloom *f, uint64_t h)
{
	return add_one(f, h, true);
}

BF_TARGET_AVX512 __attribute__((flatten)) static size_t
add_many_avx512(CountingBloom *f, const uint64_t *h, size_t n)
{
	return add_many(f, h, n, true);
}
#endif

CountingResult
counting_add_hash(CountingBloom *f, uint64_t h)
{
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
		return add_one_avx512(f, h);
#endif
	return add_one(f, h, false);
}

static size_t
add_many_dispatch(CountingBloom *f, const uint64_t *h, size_t n)
{
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
		return add_many_avx512(f, h, n);
#endif
	return add_many(f, h, n, false);
}

/* a chunk at a time, so that a long array can be interrupted (bfcore.h) */
size_t
counting_add_hashes(CountingBloom *f, const uint64_t *h, size_t n)
{
	size_t		done = 0;

	while (done < n)
	{
		size_t		c = bf_chunk(n - done);
		size_t		took;

		if (done > 0)
			bf_check_interrupts();
		took = add_many_dispatch(f, h + done, c);
		done += took;
		if (took < c)
			break;
	}
	return done;
}

/*
 * An element reported absent was never added (or was already removed as
 * many times as added): removing it must not touch anything, or it would
 * decrement counters other elements rely on.  With count zero nothing is
 * in, whatever sticky saturated counters say.  Otherwise every one of its
 * counters is at least 1, so -1 on those below 15 cannot borrow.
 */
CountingResult
counting_remove_hash(CountingBloom *f, uint64_t h)
{
	uint8_t    *block;
	uint64_t	m[8],
				x[8],
				zero = 0;

	if (f->count == 0)
		return COUNTING_ABSENT;
	block = block_of(f, h);
	probe_mask(h, f->nhashes, m);
	for (int w = 0; w < 8; w++)
	{
		x[w] = load_word(block + 8 * w);
		zero |= m[w] & ~nibbles_nonzero(x[w]);
	}
	if (zero)
		return COUNTING_ABSENT;
	for (int w = 0; w < 8; w++)
		store_word(block + 8 * w, x[w] - (m[w] & ~nibbles_saturated(x[w])));
	f->count--;
	return COUNTING_OK;
}

/* a zero counter proves x is not in; all non-zero says probably in */
bool
counting_contains_hash(const CountingBloom *f, uint64_t h)
{
	return probe_all_nonzero(block_of(f, h), h, f->nhashes);
}

static __attribute__((noinline)) void
contains_many(const CountingBloom *f, const uint64_t *h, size_t n, bool *out)
{
#define PREFETCH(i) prefetch_block(f, h[i])
#define PROBE(i) (out[i] = counting_contains_hash(f, h[i]))
	BF_PROBE_MANY(counting_size(f), n, ADD_PREFETCH_AHEAD, PREFETCH, PROBE);
#undef PREFETCH
#undef PROBE
}

void
counting_contains_hashes(const CountingBloom *f, const uint64_t *h, size_t n, bool *out)
{
	for (; n > BF_INTERRUPT_CHUNK; h += BF_INTERRUPT_CHUNK, out += BF_INTERRUPT_CHUNK,
		 n -= BF_INTERRUPT_CHUNK)
	{
		contains_many(f, h, BF_INTERRUPT_CHUNK, out);
		bf_check_interrupts();
	}
	contains_many(f, h, n, out);
}

/*
 * Each of x's counters was incremented once per add of x (and by other
 * elements), so the smallest is an upper bound of x's multiplicity; 15
 * means "15 or more".
 */
int
counting_count_hash(const CountingBloom *f, uint64_t h)
{
	return (int) probe_min(block_of(f, h), h, f->nhashes);
}

/* ---- occupancy: which counters are non-zero ---- */

/*
 * A probe only asks "counter != 0", so a filter probed many times can
 * answer from one bit per counter: 16 bytes per block instead of 64, a
 * quarter of the cache footprint (a 1M-element 1% filter: 1.4 MB, which
 * a 1 MB L2 nearly holds, against 5.5 MB that a scan streaming past
 * evicts from L3).  Derived from the counters, never stored: the value's
 * bytes do not change.  The SQL probes can use it once the detoast cache
 * can keep a structure derived from a cached value (pg_common).
 */
size_t
counting_occupancy_size(const CountingBloom *f)
{
	return (size_t) (f->nblocks * 2 * sizeof(uint64_t));
}

/* bits 0, 4, .., 60 of x to bits 0 .. 15 */
static inline uint64_t
gather_nibble_bits(uint64_t x)
{
	x = (x | (x >> 3)) & UINT64_C(0x0303030303030303);
	x = (x | (x >> 6)) & UINT64_C(0x000F000F000F000F);
	x = (x | (x >> 12)) & UINT64_C(0x000000FF000000FF);
	return (x | (x >> 24)) & UINT64_C(0xFFFF);
}

/*
 * occ has counting_occupancy_size(f) bytes: bit c % 64 of word 2b + c / 64
 * (little-endian, as in the packed layout) is set when counter c of block
 * b is not zero.
 */
void
counting_occupancy(const CountingBloom *f, uint64_t *occ)
{
	for (uint64_t b = 0; b < f->nblocks; b++)
	{
		const uint8_t *block = f->counters + b * COUNTING_BLOCK_BYTES;
		uint64_t	o[2] = {0, 0};

		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);

		for (int w = 0; w < 8; w++)
			o[w >> 2] |= gather_nibble_bits(nibbles_nonzero(load_word(block + 8 * w))) << (16 * (w & 3));
		store_word((uint8_t *) (occ + 2 * b), o[0]);
		store_word((uint8_t *) (occ + 2 * b + 1), o[1]);
	}
}

/* counting_contains_hash(f, h), read from f's occupancy */
bool
counting_occupancy_contains(const CountingBloom *f, const uint64_t *occ, uint64_t h)
{
	const uint8_t *o = (const uint8_t *) (occ + 2 * block_index(f, h));
	uint64_t	all = 1;

#define CELL_DO(t) \
	do { \
		uint32_t	c = CELL(t); \
		all &= load_word(o + 8 * (c >> 6)) >> (c & 63); \
	} while (0)
	CELLS_WALK(h, f->nhashes);
#undef CELL_DO
	return (all & 1) != 0;
}

#ifdef BF_AVX512_DISPATCH
/* h's counters as bits 0 .. 127 of an xmm (counter c: bit c % 64 of lane c / 64) */
BF_TARGET_AVX512 static inline __attribute__((always_inline)) __m128i
block_bits128(uint64_t h, uint32_t k)
{
	const __m128i lane_base = _mm_set_epi64x(64, 0);
	const __m128i one = _mm_set1_epi64x(1);
	__m128i		m = _mm_setzero_si128();

#define CELL_DO(t) \
	(m = _mm_or_si128(m, _mm_sllv_epi64(one, \
		_mm_sub_epi64(_mm_set1_epi64x((int64_t) CELL(t)), lane_base))))
	CELLS_WALK(h, k);
#undef CELL_DO
	return m;
}
#endif

/* h's k counters in its block (0 .. 127, repeats kept), for the packed count */
static inline void
cells_of(uint64_t h, uint32_t k, uint32_t *cells)
{
	uint32_t	n = 0;

#define CELL_DO(t) (cells[n++] = CELL(t))
	CELLS_WALK(h, k);
#undef CELL_DO
}

#undef CELL
#undef CELLS_WALK
#undef COUNTER

/* ---- packed layout (counting.h) ---- */

/* bits 0, 4, .., 60 of each: counter >= 2, counter >= 3 */
static inline uint64_t
nibbles_ge2(uint64_t w)
{
	return ((w >> 1) | (w >> 2) | (w >> 3)) & NIBBLE_LOW;
}

static inline uint64_t
nibbles_ge3(uint64_t w)
{
	return ((w & (w >> 1)) | (w >> 2) | (w >> 3)) & NIBBLE_LOW;
}

#define PACKED_OCC(f) ((uint8_t *) (f) + COUNTING_HEADER_BYTES)

static inline uint64_t
words_for(uint64_t nbits, uint32_t per_word_bits)
{
	return (nbits + per_word_bits - 1) / per_word_bits;
}

static inline size_t
packed_bytes(uint64_t nblocks, uint64_t n1, uint64_t n2, uint64_t n3)
{
	return (size_t) (COUNTING_HEADER_BYTES + nblocks * 16 +
					 8 * (words_for(n1, 64) + words_for(n2, 64) + words_for(n3 * 4, 64)));
}

/* append the low n bits of v (nothing above them) to a stream of words */
typedef struct BitWriter
{
	uint8_t    *out;
	uint64_t	acc;
	uint32_t	n;				/* bits in acc, 0 .. 63 */
} BitWriter;

static inline void
bits_put(BitWriter *w, uint64_t v, uint32_t n)
{
	uint32_t	t = w->n + n;
	uint64_t	acc = w->acc | (v << w->n),
				carry = (v >> 1) >> (63 - w->n),	/* v >> (64 - w->n), 0 when w->n is 0 */
				full = (uint64_t) (t >> 6), /* 0 or 1: t < 128 */
				keep = full - 1;	/* all ones when the word is not full */

	if (n == 0)
		return;					/* w->out may be past the stream's end */

	/*
	 * Without a branch on whether the word filled, which no predictor can
	 * guess: the word is stored every time, and arithmetic moves on.
	 */
	store_word(w->out, acc);
	w->out += 8 * full;
	w->acc = (acc & keep) | (carry & ~keep);
	w->n = t & 63;
}

static inline void
bits_flush(BitWriter *w)
{
	if (w->n)
		store_word(w->out, w->acc);
}

/* the next n bits (0 .. 64) of a stream; never reads a word it does not need */
typedef struct BitReader
{
	const uint8_t *in;
	uint64_t	cur;
	uint32_t	avail;			/* bits left in cur */
} BitReader;

static inline uint64_t
bits_get(BitReader *r, uint32_t n)
{
	uint64_t	v,
				next;
	uint32_t	rest;

	if (n == 0)
		return 0;
	if (n <= r->avail)
	{
		v = n == 64 ? r->cur : r->cur & ((UINT64_C(1) << n) - 1);
		r->cur = n == 64 ? 0 : r->cur >> n;
		r->avail -= n;
		return v;
	}
	next = load_word(r->in);
	r->in += 8;
	rest = n - r->avail;		/* 1 .. 64 taken from next */
	v = r->cur | (r->avail ? next << r->avail : next);
	if (n < 64)
		v &= (UINT64_C(1) << n) - 1;
	r->cur = rest == 64 ? 0 : next >> rest;
	r->avail = 64 - rest;
	return v;
}

/* the streams of packed p, positioned at their starts */
typedef struct PackedStreams
{
	uint64_t	n1,
				n2,
				n3;
	uint8_t    *ge2,
			   *ge3,
			   *high;
} PackedStreams;

static void
packed_streams(const CountingBloom *p, uint64_t n1, uint64_t n2, uint64_t n3, PackedStreams *s)
{
	s->n1 = n1;
	s->n2 = n2;
	s->n3 = n3;
	s->ge2 = PACKED_OCC(p) + p->nblocks * 16;
	s->ge3 = s->ge2 + 8 * words_for(n1, 64);
	s->high = s->ge3 + 8 * words_for(n2, 64);
}

/* bits of v at the set bits of m, packed low (PEXT), one bit at a time */
static inline uint64_t
extract_bits(uint64_t v, uint64_t m)
{
	uint64_t	r = 0;

	for (uint32_t i = 0; m; m &= m - 1, i++)
		r |= ((v >> __builtin_ctzll(m)) & 1) << i;
	return r;
}

/* the low bits of v spread to the set bits of m (PDEP) */
static inline uint64_t
deposit_bits(uint64_t v, uint64_t m)
{
	uint64_t	r = 0;

	for (; m; m &= m - 1, v >>= 1)
		r |= (v & 1) << __builtin_ctzll(m);
	return r;
}

/* n1, n2, n3 of a plain filter */
static void
plain_counts(const CountingBloom *f, uint64_t *n1, uint64_t *n2, uint64_t *n3)
{
	uint64_t	a = 0,
				b = 0,
				c = 0;
	const uint8_t *p = f->counters;

	for (uint64_t i = 0; i < f->nblocks * 8; i++, p += 8)
	{
		uint64_t	x = load_word(p);

		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES / 8);
		if (x == 0)
			continue;
		a += (uint64_t) bf_popcount64(nibbles_nonzero(x));
		b += (uint64_t) bf_popcount64(nibbles_ge2(x));
		c += (uint64_t) bf_popcount64(nibbles_ge3(x));
	}
	*n1 = a;
	*n2 = b;
	*n3 = c;
}

#ifdef BF_AVX512_DISPATCH
BF_TARGET_AVX512 static void
plain_counts_avx512(const CountingBloom *f, uint64_t *n1, uint64_t *n2, uint64_t *n3)
{
	const __m512i low = _mm512_set1_epi64((int64_t) NIBBLE_LOW);
	__m512i		a = _mm512_setzero_si512(),
				b = _mm512_setzero_si512(),
				c = _mm512_setzero_si512();

	for (uint64_t i = 0; i < f->nblocks; i++)
	{
		__m512i		x = _mm512_loadu_si512((const void *) (f->counters + 64 * i)),
					x1 = _mm512_srli_epi64(x, 1),
					x2 = _mm512_srli_epi64(x, 2),
					x3 = _mm512_srli_epi64(x, 3),
					hi = _mm512_or_si512(x2, x3);

		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
		a = _mm512_add_epi64(a, _mm512_popcnt_epi64(
			_mm512_and_si512(_mm512_or_si512(_mm512_or_si512(x, x1), hi), low)));
		b = _mm512_add_epi64(b, _mm512_popcnt_epi64(
			_mm512_and_si512(_mm512_or_si512(x1, hi), low)));
		c = _mm512_add_epi64(c, _mm512_popcnt_epi64(
			_mm512_and_si512(_mm512_or_si512(_mm512_and_si512(x, x1), hi), low)));
	}
	*n1 = (uint64_t) _mm512_reduce_add_epi64(a);
	*n2 = (uint64_t) _mm512_reduce_add_epi64(b);
	*n3 = (uint64_t) _mm512_reduce_add_epi64(c);
}
#endif

static void
counts_of(const CountingBloom *f, uint64_t *n1, uint64_t *n2, uint64_t *n3)
{
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
	{
		plain_counts_avx512(f, n1, n2, n3);
		return;
	}
#endif
	plain_counts(f, n1, n2, n3);
}

size_t
counting_packed_size(const CountingBloom *f, CountingPackedCounts *n)
{
	counts_of(f, &n->n1, &n->n2, &n->n3);
	return packed_bytes(f->nblocks, n->n1, n->n2, n->n3);
}

/* counters of a plain block-half word: 16 of them, streams appended */
static inline void
pack_word(uint64_t x, uint64_t *occ, uint32_t shift, BitWriter *w2, BitWriter *w3, BitWriter *wh)
{
	uint64_t	o,
				g2,
				g3;

	if (x == 0)
		return;
	o = gather_nibble_bits(nibbles_nonzero(x));
	g2 = gather_nibble_bits(nibbles_ge2(x));
	g3 = gather_nibble_bits(nibbles_ge3(x));
	*occ |= o << shift;
	bits_put(w2, extract_bits(g2, o), (uint32_t) bf_popcount64(o));
	if (g2)
		bits_put(w3, extract_bits(g3, g2), (uint32_t) bf_popcount64(g2));
	for (; g3; g3 &= g3 - 1)
		bits_put(wh, ((x >> (4 * __builtin_ctzll(g3))) & 15) - 3, 4);
}

/* one block of counters (blocked layout) onto the streams */
static inline void
pack_block_plain(const uint8_t *block, uint8_t *occ_out, BitWriter *w2, BitWriter *w3, BitWriter *wh)
{
	for (int half = 0; half < 2; half++)
	{
		uint64_t	o = 0;

		for (int w = 0; w < 4; w++)
			pack_word(load_word(block + 8 * (4 * half + w)), &o, 16 * w, w2, w3, wh);
		store_word(occ_out + 8 * half, o);
	}
}

static void
pack_plain(const CountingBloom *f, uint8_t *occ_out, BitWriter *w2p, BitWriter *w3p, BitWriter *whp)
{
	BitWriter	w2s = *w2p,
				w3s = *w3p,
				whs = *whp;

	for (uint64_t b = 0; b < f->nblocks; b++)
	{
		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
		pack_block_plain(f->counters + b * COUNTING_BLOCK_BYTES, occ_out + 16 * b,
						 &w2s, &w3s, &whs);
	}
	*w2p = w2s;
	*w3p = w3s;
	*whp = whs;
}

#ifdef BF_AVX512_DISPATCH
/*
 * The same streams from a whole block in a register: its 64 bytes widened
 * to its 128 counters one a byte (in counter order), three byte compares
 * give the masks of counters >= 1, >= 2 and >= 3 of 64 counters at once,
 * and PEXT packs each mask's bits under the one before.
 */
BF_TARGET_AVX512BW static inline __attribute__((always_inline)) void
pack_half_avx512(__m512i z, uint8_t *occ_out, BitWriter *w2, BitWriter *w3, BitWriter *wh)
{
	const __m512i one = _mm512_set1_epi8(1);
	const __m512i two = _mm512_set1_epi8(2);
	uint64_t	o = _mm512_test_epi8_mask(z, z),
				g2 = _mm512_cmpgt_epu8_mask(z, one),
				g3 = _mm512_cmpgt_epu8_mask(z, two);

	store_word(occ_out, o);
	bits_put(w2, _pext_u64(g2, o), (uint32_t) _mm_popcnt_u64(o));
	bits_put(w3, _pext_u64(g3, g2), (uint32_t) _mm_popcnt_u64(g2));
	/* the counters of at least 3 (few): one a byte in z */
	if (g3)
	{
		uint8_t		zb[64];

		_mm512_storeu_si512((void *) zb, z);
		for (; g3; g3 &= g3 - 1)
			bits_put(wh, (uint64_t) zb[__builtin_ctzll(g3)] - 3, 4);
	}
}

BF_TARGET_AVX512BW static inline __attribute__((always_inline)) void
pack_block_avx512(__m512i x, uint8_t *occ_out, BitWriter *w2, BitWriter *w3, BitWriter *wh)
{
	const __m512i low = _mm512_set1_epi16(0x0F0F);

	for (int half = 0; half < 2; half++)
	{
		__m512i		w = _mm512_cvtepu8_epi16(half ? _mm512_extracti64x4_epi64(x, 1)
											 : _mm512_castsi512_si256(x));

		pack_half_avx512(_mm512_and_si512(_mm512_or_si512(w, _mm512_slli_epi16(w, 4)), low),
						 occ_out + 8 * half, w2, w3, wh);
	}
}

BF_TARGET_AVX512BW static void
pack_avx512(const CountingBloom *f, uint8_t *occ_out, BitWriter *w2p, BitWriter *w3p, BitWriter *whp)
{
	/* local copies, in registers: the stores through out may alias *w2p */
	BitWriter	w2s = *w2p,
				w3s = *w3p,
				whs = *whp;

	for (uint64_t b = 0; b < f->nblocks; b++)
	{
		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
		pack_block_avx512(_mm512_loadu_si512((const void *) (f->counters + b * COUNTING_BLOCK_BYTES)),
						  occ_out + 16 * b, &w2s, &w3s, &whs);
	}
	*w2p = w2s;
	*w3p = w3s;
	*whp = whs;
}
#endif

void
counting_pack(const CountingBloom *f, const CountingPackedCounts *n, void *out)
{
	CountingBloom *p = (CountingBloom *) out;
	PackedStreams s;
	BitWriter	w2 = {0},
				w3 = {0},
				wh = {0};

	memcpy((char *) p + sizeof(uint32_t), (const char *) f + sizeof(uint32_t),
		   COUNTING_HEADER_BYTES - sizeof(uint32_t));
	p->layout = COUNTING_LAYOUT_PACKED;
	packed_streams(p, n->n1, n->n2, n->n3, &s);
	w2.out = s.ge2;
	w3.out = s.ge3;
	wh.out = s.high;
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512bw())
		pack_avx512(f, PACKED_OCC(p), &w2, &w3, &wh);
	else
#endif
		pack_plain(f, PACKED_OCC(p), &w2, &w3, &wh);
	bits_flush(&w2);
	bits_flush(&w3);
	bits_flush(&wh);
}

/* ---- building packed from ascending hashes ---- */

/*
 * A build from a keyset has its hashes ascending, so its adds come block
 * by block (a block is chosen by the top bits, monotonically).  Each
 * block's counters are summed where they are (registers, or 64 bytes on
 * the stack) and packed as soon as its last add is done: the blocked
 * layout of the whole filter (6 bytes an element at 1%) is never written,
 * zeroed or read back.  The bytes are those of counting_init, then
 * counting_add_hashes, then counting_pack.
 *
 * The ge2 stream starts at a fixed offset (after the occupancy), so it is
 * written in place; ge3 and high start after streams whose lengths are
 * known only at the end, so they go to scratch and are moved at the end.
 * An element adds to at most k counters, so n1 <= n k, 2 n2 <= n k and
 * 3 n3 <= n k bound the streams (and never more than one per counter).
 */
static void
build_bounds(const CountingBloom *f, uint64_t n, uint64_t *max1, uint64_t *max2, uint64_t *max3)
{
	uint64_t	cells = f->nblocks * COUNTING_BLOCK_CELLS,
				adds = n * f->nhashes;

	*max1 = adds < cells ? adds : cells;
	*max2 = adds / 2 < cells ? adds / 2 : cells;
	*max3 = adds / 3 < cells ? adds / 3 : cells;
}

void
counting_build_bounds(const CountingBloom *f, uint64_t n, size_t *out_bytes, size_t *scratch_bytes)
{
	uint64_t	m1,
				m2,
				m3;

	build_bounds(f, n, &m1, &m2, &m3);
	/* the header, occupancy and ge2 (at most 32 bytes a block) always fit */
	*out_bytes = packed_bytes(f->nblocks, m1, m2, m3);
	if (*out_bytes > counting_size(f))
		*out_bytes = counting_size(f);
	*scratch_bytes = (size_t) (8 * (words_for(m2, 64) + words_for(m3 * 4, 64)));
}

/*
 * Sum and pack the blocks of h[0 .. n); false if h's blocks are not in
 * order.  The occupancy of blocks no hash reaches is written zero.
 */
static bool
build_plain(const CountingBloom *f, const uint64_t *h, size_t n, uint8_t *occ_out,
			BitWriter *w2p, BitWriter *w3p, BitWriter *whp)
{
	BitWriter	w2s = *w2p,
				w3s = *w3p,
				whs = *whp;
	uint64_t	next = 0;
	uint32_t	k = f->nhashes;
	size_t		i = 0,
				check_at = BF_INTERRUPT_CHUNK;

	while (i < n)
	{
		uint64_t	b = block_index(f, h[i]);
		uint8_t		block[COUNTING_BLOCK_BYTES] = {0};

		if (i >= check_at)
		{
			bf_check_interrupts();
			check_at = i + BF_INTERRUPT_CHUNK;
		}
		if (b < next)
			return false;
		memset(occ_out + 16 * next, 0, 16 * (b - next));
		do
			block_increment(block, h[i++], k);
		while (i < n && block_index(f, h[i]) == b);
		pack_block_plain(block, occ_out + 16 * b, &w2s, &w3s, &whs);
		next = b + 1;
	}
	memset(occ_out + 16 * next, 0, 16 * (f->nblocks - next));
	*w2p = w2s;
	*w3p = w3s;
	*whp = whs;
	return true;
}

#ifdef BF_AVX512_DISPATCH
/*
 * The same with a block's counters one a byte, in two registers (counters
 * 0 .. 63 and 64 .. 127): an add is a byte add, saturating at 255, under
 * the mask of h's counters (block_bits128, in an xmm), and min(x, 15) at
 * the end is what adds saturating at 15, one after another, give (an add
 * raises each of its counters by one).  The bytes are then packed as they
 * are, with nothing to widen: cheaper than adding into nibbles and
 * packing them afterwards, and cheaper still with k a constant
 * (build_avx512 below).
 */
BF_TARGET_AVX512BW static inline __attribute__((always_inline)) bool
build_avx512_k(const CountingBloom *f, const uint64_t *h, size_t n, uint8_t *occ_out,
			   BitWriter *w2p, BitWriter *w3p, BitWriter *whp, uint32_t k)
{
	BitWriter	w2s = *w2p,
				w3s = *w3p,
				whs = *whp;
	const __m512i one = _mm512_set1_epi8(1);
	const __m512i top = _mm512_set1_epi8(COUNTING_COUNTER_MAX);
	uint64_t	next = 0,
				b = n > 0 ? block_index(f, h[0]) : 0,
				nb;
	size_t		i = 0,
				check_at = BF_INTERRUPT_CHUNK;

	for (; i < n; b = nb)
	{
		__m512i		lo = _mm512_setzero_si512(),
					hi = _mm512_setzero_si512();

		if (i >= check_at)
		{
			bf_check_interrupts();
			check_at = i + BF_INTERRUPT_CHUNK;
		}
		if (b < next)
			return false;
		memset(occ_out + 16 * next, 0, 16 * (b - next));
		do
		{
			__m128i		m = block_bits128(h[i++], k);

			lo = _mm512_mask_adds_epu8(lo, (__mmask64) _mm_cvtsi128_si64(m), lo, one);
			hi = _mm512_mask_adds_epu8(hi, (__mmask64) _mm_extract_epi64(m, 1), hi, one);
			nb = i < n ? block_index(f, h[i]) : UINT64_MAX;
		} while (nb == b);
		pack_half_avx512(_mm512_min_epu8(lo, top), occ_out + 16 * b, &w2s, &w3s, &whs);
		pack_half_avx512(_mm512_min_epu8(hi, top), occ_out + 16 * b + 8, &w2s, &w3s, &whs);
		next = b + 1;
	}
	memset(occ_out + 16 * next, 0, 16 * (f->nblocks - next));
	*w2p = w2s;
	*w3p = w3s;
	*whp = whs;
	return true;
}

/*
 * With k known at compile time the cells of an add are straight-line
 * code, without the tests for k's last group of nine (CELLS_WALK).
 */
BF_TARGET_AVX512BW static bool
build_avx512(const CountingBloom *f, const uint64_t *h, size_t n, uint8_t *occ_out,
			 BitWriter *w2p, BitWriter *w3p, BitWriter *whp)
{
	switch (f->nhashes)
	{
#define BUILD_K(kk) case kk: return build_avx512_k(f, h, n, occ_out, w2p, w3p, whp, kk)
			BUILD_K(3);
			BUILD_K(4);
			BUILD_K(5);
			BUILD_K(6);
			BUILD_K(7);
			BUILD_K(8);
			BUILD_K(9);
#undef BUILD_K
		default:
			return build_avx512_k(f, h, n, occ_out, w2p, w3p, whp, f->nhashes);
	}
}
#endif

/* bits written to a stream that started at start */
static inline uint64_t
bits_written(const BitWriter *w, const uint8_t *start)
{
	return (uint64_t) (w->out - start) * 8 + w->n;
}

size_t
counting_build_packed(const CountingBloom *f, const uint64_t *h, size_t n,
					  void *out, void *scratch)
{
	CountingBloom *p = (CountingBloom *) out;
	uint64_t	m1,
				m2,
				m3,
				n1,
				n2,
				n3;
	uint8_t    *ge2 = PACKED_OCC(p) + f->nblocks * 16,
			   *ge3 = (uint8_t *) scratch,
			   *high;
	BitWriter	w2 = {0},
				w3 = {0},
				wh = {0};
	bool		ok;
	size_t		size;
	PackedStreams s;

	if (f->count != 0 || n > f->capacity)
		return 0;
	build_bounds(f, n, &m1, &m2, &m3);
	high = ge3 + 8 * words_for(m2, 64);
	w2.out = ge2;
	w3.out = ge3;
	wh.out = high;
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512bw())
		ok = build_avx512(f, h, n, PACKED_OCC(p), &w2, &w3, &wh);
	else
#endif
		ok = build_plain(f, h, n, PACKED_OCC(p), &w2, &w3, &wh);
	if (!ok)
		return 0;
	n1 = bits_written(&w2, ge2);
	n2 = bits_written(&w3, ge3);
	n3 = bits_written(&wh, high) / 4;
	bits_flush(&w2);
	bits_flush(&w3);
	bits_flush(&wh);
	size = packed_bytes(f->nblocks, n1, n2, n3);
	if (size >= counting_size(f))
		return 0;
	memcpy((char *) p + sizeof(uint32_t), (const char *) f + sizeof(uint32_t),
		   COUNTING_HEADER_BYTES - sizeof(uint32_t));
	p->layout = COUNTING_LAYOUT_PACKED;
	p->count = n;
	packed_streams(p, n1, n2, n3, &s);
	memcpy(s.ge3, ge3, 8 * words_for(n2, 64));
	memcpy(s.high, high, 8 * words_for(n3 * 4, 64));
	return size;
}

/* bits 0 .. 15 of x to bits 0, 4, .., 60 */
static inline uint64_t
spread_nibble_bits(uint64_t x)
{
	x &= 0xFFFF;
	x = (x | (x << 24)) & UINT64_C(0x000000FF000000FF);
	x = (x | (x << 12)) & UINT64_C(0x000F000F000F000F);
	x = (x | (x << 6)) & UINT64_C(0x0303030303030303);
	return (x | (x << 3)) & NIBBLE_LOW;
}

static void
unpack_plain(const CountingBloom *p, CountingBloom *out, const PackedStreams *s)
{
	BitReader	r2 = {s->ge2, 0, 0},
				r3 = {s->ge3, 0, 0},
				rh = {s->high, 0, 0};
	const uint8_t *occ = PACKED_OCC(p);

	for (uint64_t b = 0; b < p->nblocks; b++)
	{
		uint8_t    *block = out->counters + b * COUNTING_BLOCK_BYTES;

		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
		for (int half = 0; half < 2; half++)
		{
			uint64_t	o64 = load_word(occ + 16 * b + 8 * half);

			for (int w = 0; w < 4; w++)
			{
				uint64_t	o = (o64 >> (16 * w)) & 0xFFFF,
							g2 = 0,
							g3 = 0,
							x;

				if (o)
					g2 = deposit_bits(bits_get(&r2, (uint32_t) bf_popcount64(o)), o);
				if (g2)
					g3 = deposit_bits(bits_get(&r3, (uint32_t) bf_popcount64(g2)), g2);
				x = spread_nibble_bits(o) + spread_nibble_bits(g2) + spread_nibble_bits(g3);
				for (; g3; g3 &= g3 - 1)
					x += bits_get(&rh, 4) << (4 * __builtin_ctzll(g3));
				store_word(block + 8 * (4 * half + w), x);
			}
		}
	}
}

#ifdef BF_AVX512_DISPATCH
/*
 * The inverse of pack_avx512: PDEP puts each stream's bits back under the
 * mask before, masked byte adds make the 64 counters of a half block, and
 * VPMADDUBSW (c0 + 16 c1 per pair) with VPMOVWB packs them two a byte.
 */
BF_TARGET_AVX512BW static void
unpack_avx512(const CountingBloom *p, CountingBloom *out, const PackedStreams *s)
{
	BitReader	r2 = {s->ge2, 0, 0},
				r3 = {s->ge3, 0, 0},
				rh = {s->high, 0, 0};
	const uint8_t *occ = PACKED_OCC(p);
	const __m512i one = _mm512_set1_epi8(1);
	const __m512i pair = _mm512_set1_epi16(0x1001);

	for (uint64_t b = 0; b < p->nblocks; b++)
	{
		uint8_t    *block = out->counters + b * COUNTING_BLOCK_BYTES;

		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
		for (int half = 0; half < 2; half++)
		{
			uint64_t	o = load_word(occ + 16 * b + 8 * half),
						g2 = 0,
						g3 = 0;
			__m512i		z;

			if (o)
				g2 = _pdep_u64(bits_get(&r2, (uint32_t) _mm_popcnt_u64(o)), o);
			if (g2)
				g3 = _pdep_u64(bits_get(&r3, (uint32_t) _mm_popcnt_u64(g2)), g2);
			z = _mm512_maskz_mov_epi8(o, one);
			z = _mm512_mask_add_epi8(z, g2, z, one);
			z = _mm512_mask_add_epi8(z, g3, z, one);
			if (g3)
			{
				uint8_t		v[64];

				_mm512_storeu_si512((void *) v, z);
				for (; g3; g3 &= g3 - 1)
					v[__builtin_ctzll(g3)] += (uint8_t) bits_get(&rh, 4);
				z = _mm512_loadu_si512((const void *) v);
			}
			_mm256_storeu_si256((__m256i *) (block + 32 * half),
								_mm512_cvtepi16_epi8(_mm512_maddubs_epi16(z, pair)));
		}
	}
}
#endif

/*
 * n1, n2, n3 of packed p from its streams, each stream counted only once
 * len bytes are known to hold it: false when they do not (need: the bytes
 * the streams counted so far take).  The checker's count, and unpack's
 * (len unbounded: counting_check has passed).
 */
static bool
packed_counts_in(const CountingBloom *p, size_t len, uint64_t *n1, uint64_t *n2, uint64_t *n3,
				 size_t *need)
{
	const uint8_t *ge2 = PACKED_OCC(p) + p->nblocks * 16;

	*n2 = *n3 = 0;
	*n1 = bf_popcount_bytes(PACKED_OCC(p), p->nblocks * 16);
	*need = packed_bytes(p->nblocks, *n1, 0, 0);
	if (len < *need)
		return false;
	*n2 = bf_popcount_bytes(ge2, 8 * words_for(*n1, 64));
	*need = packed_bytes(p->nblocks, *n1, *n2, 0);
	if (len < *need)
		return false;
	*n3 = bf_popcount_bytes(ge2 + 8 * words_for(*n1, 64), 8 * words_for(*n2, 64));
	*need = packed_bytes(p->nblocks, *n1, *n2, *n3);
	return true;
}

/* n1, n2, n3 of packed p, whose length was checked (counting_check) */
static void
packed_counts(const CountingBloom *p, uint64_t *n1, uint64_t *n2, uint64_t *n3)
{
	size_t		need;

	(void) packed_counts_in(p, SIZE_MAX, n1, n2, n3, &need);
}

void
counting_unpack(const CountingBloom *p, CountingBloom *out)
{
	uint64_t	n1,
				n2,
				n3;
	PackedStreams s;

	packed_counts(p, &n1, &n2, &n3);
	packed_streams(p, n1, n2, n3, &s);
	memcpy((char *) out + sizeof(uint32_t), (const char *) p + sizeof(uint32_t),
		   COUNTING_HEADER_BYTES - sizeof(uint32_t));
	out->layout = COUNTING_LAYOUT_BLOCKED;
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512bw())
	{
		unpack_avx512(p, out, &s);
		return;
	}
#endif
	unpack_plain(p, out, &s);
}

const uint64_t *
counting_occupancy_of(const CountingBloom *p)
{
	return (const uint64_t *) PACKED_OCC(p);
}

static __attribute__((noinline)) void
occupancy_contains_many(const CountingBloom *f, const uint64_t *occ, const uint64_t *h,
						size_t n, bool *out)
{
#define PREFETCH(i) \
	__builtin_prefetch(occ + 2 * block_index(f, h[i]))
#define PROBE(i) (out[i] = counting_occupancy_contains(f, occ, h[i]))
	BF_PROBE_MANY(f->nblocks * 16, n, ADD_PREFETCH_AHEAD, PREFETCH, PROBE);
#undef PREFETCH
#undef PROBE
}

void
counting_occupancy_contains_hashes(const CountingBloom *f, const uint64_t *occ,
								   const uint64_t *h, size_t n, bool *out)
{
	for (; n > BF_INTERRUPT_CHUNK; h += BF_INTERRUPT_CHUNK, out += BF_INTERRUPT_CHUNK,
		 n -= BF_INTERRUPT_CHUNK)
	{
		occupancy_contains_many(f, occ, h, BF_INTERRUPT_CHUNK, out);
		bf_check_interrupts();
	}
	occupancy_contains_many(f, occ, h, n, out);
}

/*
 * The streams of a packed value from outside: each exactly as long as the
 * one before says, no bit set past its end, every high nibble at most 12
 * (a counter is at most 15).  len was checked to be at least the header
 * and the occupancy.
 */
static BfStatus
check_packed(const CountingBloom *p, size_t len, char *errbuf)
{
	uint64_t	n1,
				n2,
				n3;
	size_t		need;
	PackedStreams s;

	if (!packed_counts_in(p, len, &n1, &n2, &n3, &need) || len != need)
		goto short_value;
	packed_streams(p, n1, n2, n3, &s);
	if ((n1 % 64 && load_word(s.ge2 + 8 * (n1 / 64)) >> (n1 % 64)) ||
		(n2 % 64 && load_word(s.ge3 + 8 * (n2 / 64)) >> (n2 % 64)) ||
		(n3 % 16 && load_word(s.high + 8 * (n3 / 16)) >> (4 * (n3 % 16))))
		return bf_fail(errbuf, BF_ERR_CORRUPT, "countingbloom packed counters have bits past their end");
	for (uint64_t i = 0; i < words_for(n3, 16); i++)
	{
		uint64_t	x = load_word(s.high + 8 * i);

		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES / 8);
		/* a nibble of 13 .. 15 is 11xx with bit 2 or bit 0 set */
		if ((x >> 3) & (x >> 2) & ((x >> 1) | x) & NIBBLE_LOW)
			return bf_fail(errbuf, BF_ERR_CORRUPT, "countingbloom packed counter above 15");
	}
	return BF_OK;

short_value:
	return bf_fail(errbuf, BF_ERR_CORRUPT,
				   "countingbloom packed value has %zu bytes, its counters need %zu",
				   len, need);
}

/* ---- counting in place: a rank directory ---- */

/*
 * counting_bloom_count on a packed value without unpacking it.  A counter
 * is found by rank: its occupancy bit, then the ge2 bit at the number of
 * occupancy bits before it, the ge3 bit at the number of ge2 bits before
 * that, the high nibble likewise.  The directory holds, for each of the
 * three bit streams, the bits set before every 512-bit group (one cache
 * line) and then the stream's total, so a rank is one entry plus at most
 * eight popcounts in one line.  It is an eighth of the streams' bytes, and
 * building it is one pass over the bits, an order of magnitude less than
 * writing out every counter by unpacking.  A probe through
 * it reads up to three streams and their directories a counter, so the
 * SQL count uses it only for a value it cannot keep unpacked for the
 * query (countingbloom_type.c).
 */
static inline uint64_t
groups_for(uint64_t nwords)
{
	return (nwords + 7) / 8;
}

size_t
counting_rank_size(const CountingBloom *p)
{
	uint64_t	n1,
				n2,
				n3;

	packed_counts(p, &n1, &n2, &n3);
	return (size_t) (8 * (groups_for(2 * p->nblocks) + groups_for(words_for(n1, 64)) +
						  groups_for(words_for(n2, 64)) + 3));
}

/* dir[g] = bits set in words[0 .. 8g), g = 0 .. groups; returns the total */
static uint64_t
rank_stream(const uint8_t *words, uint64_t nwords, uint64_t *dir)
{
	uint64_t	total = 0,
				g;

	for (g = 0; g < groups_for(nwords); g++)
	{
		uint64_t	end = 8 * g + 8 < nwords ? 8 * g + 8 : nwords;

		bf_check_interrupts_every(g, BF_INTERRUPT_BYTES / 64);
		dir[g] = total;
		total += bf_popcount_bytes(words + 64 * g, 8 * (end - 8 * g));
	}
	dir[g] = total;
	return total;
}

void
counting_rank_build(const CountingBloom *p, uint64_t *rank)
{
	uint64_t	n1,
				n2;
	const uint8_t *ge2 = PACKED_OCC(p) + p->nblocks * 16;

	n1 = rank_stream(PACKED_OCC(p), 2 * p->nblocks, rank);
	rank += groups_for(2 * p->nblocks) + 1;
	n2 = rank_stream(ge2, words_for(n1, 64), rank);
	rank += groups_for(words_for(n1, 64)) + 1;
	(void) rank_stream(ge2 + 8 * words_for(n1, 64), words_for(n2, 64), rank);
}

/* bit i of a stream, and the bits set before it (dir: its directory) */
static inline bool
stream_bit(const uint8_t *words, const uint64_t *dir, uint64_t i, uint64_t *before)
{
	uint64_t	w = i / 64,
				r = dir[i / 512],
				x = load_word(words + 8 * w);

	for (uint64_t j = i / 512 * 8; j < w; j++)
		r += (uint64_t) bf_popcount64(load_word(words + 8 * j));
	*before = r + (uint64_t) bf_popcount64(x & ((UINT64_C(1) << (i % 64)) - 1));
	return (x >> (i % 64)) & 1;
}

int
counting_packed_count_hash(const CountingBloom *p, const uint64_t *rank, uint64_t h)
{
	uint32_t	cells[BF_MAX_HASHES];
	uint64_t	base = block_index(p, h) * COUNTING_BLOCK_CELLS;
	const uint64_t *dir1 = rank,
			   *dir2 = dir1 + groups_for(2 * p->nblocks) + 1;
	uint64_t	n1 = dir2[-1];
	const uint64_t *dir3 = dir2 + groups_for(words_for(n1, 64)) + 1;
	uint64_t	n2 = dir3[-1];
	const uint8_t *ge2 = PACKED_OCC(p) + p->nblocks * 16,
			   *ge3 = ge2 + 8 * words_for(n1, 64),
			   *high = ge3 + 8 * words_for(n2, 64);
	int			least = COUNTING_COUNTER_MAX;

	cells_of(h, p->nhashes, cells);
	for (uint32_t j = 0; j < p->nhashes && least > 0; j++)
	{
		uint64_t	i1,
					i2,
					i3;
		int			v;

		if (!stream_bit(PACKED_OCC(p), dir1, base + cells[j], &i1))
			v = 0;
		else if (!stream_bit(ge2, dir2, i1, &i2))
			v = 1;
		else if (!stream_bit(ge3, dir3, i2, &i3))
			v = 2;
		else
			v = 3 + (int) ((load_word(high + 8 * (i3 / 16)) >> (4 * (i3 % 16))) & 15);
		least = v < least ? v : least;
	}
	return least;
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

	/* the smallest value: one block, packed (16 bytes of occupancy) */
	st = bf_check_header(data, len, COUNTING_HEADER_BYTES + 16,
						 BF_KIND_COUNTING, "countingbloom", errbuf);
	if (st != BF_OK)
		return st;
	if (f->hdr.flags != 0 || f->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "countingbloom reserved fields are not zero");
	if (f->layout != COUNTING_LAYOUT_BLOCKED && f->layout != COUNTING_LAYOUT_PACKED)
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
	if (f->layout == COUNTING_LAYOUT_PACKED)
	{
		if (len < COUNTING_HEADER_BYTES + f->nblocks * 16)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "countingbloom value has %zu bytes, the occupancy of %llu blocks needs %llu",
						   len, (unsigned long long) f->nblocks,
						   (unsigned long long) (COUNTING_HEADER_BYTES + f->nblocks * 16));
		st = check_packed(f, len, errbuf);
		if (st != BF_OK)
			return st;
	}
	else if (len != COUNTING_HEADER_BYTES + f->nblocks * COUNTING_BLOCK_BYTES)
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
	if (a->capacity != b->capacity || a->fpr != b->fpr)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine counting filters of different geometry (capacity %llu, fpr %g vs capacity %llu, fpr %g)",
					   (unsigned long long) a->capacity, a->fpr,
					   (unsigned long long) b->capacity, b->fpr);
	/* same parameters, sized differently: one was made by another release */
	if (a->nblocks != b->nblocks || a->nhashes != b->nhashes ||
		a->layout != b->layout)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine counting filters of different geometry (%llu blocks, %u hashes vs %llu blocks, %u hashes)",
					   (unsigned long long) a->nblocks, a->nhashes,
					   (unsigned long long) b->nblocks, b->nhashes);
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

		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES);
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
 * counting_stats of a packed value, read where it lies: a block's non-zero
 * counters are its occupancy bits, and a counter at 15 is a high nibble
 * of 12.  The same sums in the same order as over the counters.
 */
static void
packed_stats(const CountingBloom *p, CountingStats *st)
{
	uint64_t	n1,
				n2,
				n3;
	PackedStreams s;
	double		sum = 0.0;

	packed_counts(p, &n1, &n2, &n3);
	packed_streams(p, n1, n2, n3, &s);
	for (uint64_t b = 0; b < p->nblocks; b++)
	{
		int			nz = bf_popcount64(load_word(PACKED_OCC(p) + 16 * b)) +
			bf_popcount64(load_word(PACKED_OCC(p) + 16 * b + 8));

		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / 16);
		st->nonzero += (uint64_t) nz;
		if (nz)
			sum += pow((double) nz / COUNTING_BLOCK_CELLS, (double) p->nhashes);
	}
	for (uint64_t i = 0; i < words_for(n3, 16); i++)
	{
		uint64_t	x = load_word(s.high + 8 * i),
					twelve = (x >> 3) & (x >> 2) & NIBBLE_LOW;

		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES / 8);
		/* 11xx is 12 (the checker refuses more); bits past n3 are zero */
		st->saturated += (uint64_t) bf_popcount64(twelve);
	}
	st->fpr_estimate = sum / (double) p->nblocks;
}

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
	if (f->layout == COUNTING_LAYOUT_PACKED)
	{
		packed_stats(f, st);
		return;
	}
	for (uint64_t b = 0; b < f->nblocks; b++)
	{
		const uint8_t *block = f->counters + b * COUNTING_BLOCK_BYTES;
		int			nz = 0;

		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / COUNTING_BLOCK_BYTES);
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
