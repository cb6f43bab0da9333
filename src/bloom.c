/*
 * bloom.c
 *		Bloom filter maths, no fmgr.  See bloom.h for the value layout.
 */
#include "bloom.h"

#include <math.h>
#include <stdio.h>
#ifdef BF_AVX512_DISPATCH
#include <immintrin.h>
#endif


/* odd constant (2^64 / golden ratio) between successive remixes */
#define BLOOM_STEP UINT64_C(0x9E3779B97F4A7C15)

/*
 * The standard layout's position values x_i (bloom.h): x_0 = h, then
 * x_{i+1} = std_next(x_i, &c, chain) with c = h to start with and chain
 * true for format 1.  Both take one remix a position; format 2's inputs
 * do not wait for the one before (c steps by STEP), so the k remixes of a
 * probe run side by side.
 */
static inline bool
std_chain(const BloomFilter *f)
{
	return f->hdr.version < BLOOM_FORMAT_COUNTER;
}

static inline uint64_t
std_next(uint64_t x, uint64_t *c, bool chain)
{
	*c += BLOOM_STEP;
	return bf_remix(chain ? x + BLOOM_STEP : *c);
}

/*
 * The k positions of h in a standard stage of nbits bits.  Called with a
 * constant chain (see the callers), so that format 2's loop has no choice
 * left in it: as a cmov the choice made every x wait for the one before,
 * format 1's chain again.
 */
static inline __attribute__((always_inline)) void
std_positions(uint64_t *pos, uint64_t h, uint32_t k, uint64_t nbits, bool chain)
{
	uint64_t	x = h,
				c = h;

	for (uint32_t j = 0; j < k; j++, x = std_next(x, &c, chain))
		pos[j] = bf_range64(x, nbits);
}

/* are all k bits of h set?  Stops at the first that is not; chain as above */
static inline __attribute__((always_inline)) bool
std_contains(const uint64_t *w, uint64_t h, uint32_t k, uint64_t nbits, bool chain)
{
	uint64_t	x = h,
				c = h;

	for (uint32_t j = 0; j < k; j++, x = std_next(x, &c, chain))
	{
		uint64_t	pos = bf_range64(x, nbits);

		if (!(w[pos >> 6] & (UINT64_C(1) << (pos & 63))))
			return false;
	}
	return true;
}

int
bloom_parse_layout(const char *name)
{
	if (strcmp(name, "blocked") == 0)
		return BLOOM_LAYOUT_BLOCKED;
	if (strcmp(name, "standard") == 0)
		return BLOOM_LAYOUT_STANDARD;
	return -1;
}

const char *
bloom_layout_name(int layout)
{
	return layout == BLOOM_LAYOUT_BLOCKED ? "blocked" : "standard";
}

double
bloom_model_fpr(int layout, uint64_t n, uint64_t nbits, uint32_t k)
{
	return bf_model_fpr_cells(n, nbits, k,
							  layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 0);
}

/*
 * Smallest stage that meets fpr at capacity (see bf_cells_geometry for the
 * margins), in whole 64-bit words (standard) or 512-bit blocks; a standard
 * stage's k as above.
 */
BfStatus
bloom_geometry(int layout, uint64_t capacity, double fpr, BloomGeometry *g,
			   char *errbuf)
{
	uint64_t	unit = (layout == BLOOM_LAYOUT_BLOCKED) ? BLOOM_BLOCK_BITS : 64;
	uint32_t	k;
	BfStatus	st;

	st = bf_cells_geometry(layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 0,
						   unit, (BF_MAX_VALUE_BYTES * 8) / unit, capacity, fpr,
						   layout == BLOOM_LAYOUT_BLOCKED ? 0 : BLOOM_STANDARD_SLACK_PERMILLE,
						   &g->nbits, &k, errbuf);
	if (st != BF_OK)
		return st;
	g->nhashes = k;

	/* see bloom.h: standard stages are full at an exact set-bit count */
	if (layout == BLOOM_LAYOUT_STANDARD)
		g->fill_limit = (uint64_t) floor((double) g->nbits *
										 pow(fpr * BF_FILL_MARGIN, 1.0 / (double) k));
	else
		g->fill_limit = g->nbits;
	if (g->fill_limit < 1)
		g->fill_limit = 1;
	return BF_OK;
}

static size_t
header_size(int nstages)
{
	return bf_align64(sizeof(BloomFilter) + (size_t) nstages * sizeof(BloomStage));
}

static double
stage_fpr(double fpr, bool scalable, int i)
{
	return scalable ? ldexp(fpr * (1.0 - BLOOM_TIGHTENING), -i) : fpr;
}

static bool
stage_capacity(uint64_t capacity, int i, uint64_t *out)
{
	if (i >= 63 || capacity > (UINT64_MAX >> i))
		return false;
	*out = capacity << i;
	return true;
}

BfStatus
bloom_new_size(uint64_t capacity, double fpr, int layout, bool scalable,
			   size_t *size, char *errbuf)
{
	BloomGeometry g;
	BfStatus	st;

	st = bloom_geometry(layout, capacity, stage_fpr(fpr, scalable, 0), &g, errbuf);
	if (st != BF_OK)
		return st;
	if (header_size(1) + g.nbits / 8 > BF_MAX_VALUE_BYTES)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE, "filter too large");
	*size = header_size(1) + g.nbits / 8;
	return BF_OK;
}

static void
fill_stage(BloomStage *s, uint64_t offset, uint64_t capacity, double fpr,
		   const BloomGeometry *g)
{
	s->offset = offset;
	s->nbits = g->nbits;
	s->capacity = capacity;
	s->fill_limit = g->fill_limit;
	s->bits_set = 0;
	s->rate_units = 0;
	s->fpr = fpr;
	s->nhashes = g->nhashes;
	s->reserved = 0;
}

void
bloom_init(void *buf, size_t size, uint64_t capacity, double fpr, int layout,
		   bool scalable, uint64_t seed)
{
	BloomFilter *f = (BloomFilter *) buf;
	BloomGeometry g;
	double		r0 = stage_fpr(fpr, scalable, 0);

	/* the caller sized buf with bloom_new_size, so this cannot fail */
	(void) bloom_geometry(layout, capacity, r0, &g, NULL);
	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_BLOOM, seed);
	if (layout == BLOOM_LAYOUT_STANDARD)
		f->hdr.version = BLOOM_FORMAT_COUNTER;
	f->layout = (uint8_t) layout;
	f->scalable = scalable ? 1 : 0;
	f->nstages = 1;
	f->reserved = 0;
	f->fpr = fpr;
	f->capacity = capacity;
	fill_stage(&f->stages[0], header_size(1), capacity, r0, &g);
}

size_t
bloom_size(const BloomFilter *f)
{
	const BloomStage *last = &f->stages[f->nstages - 1];

	return (size_t) (last->offset + last->nbits / 8);
}

BfStatus
bloom_grown_size(const BloomFilter *f, size_t *size, char *errbuf)
{
	int			n = f->nstages;
	uint64_t	cap;
	BloomGeometry g;
	uint64_t	total;
	BfStatus	st;

	if (n >= BLOOM_MAX_STAGES || !stage_capacity(f->capacity, n, &cap))
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "scalable filter cannot grow past %d stages", n);
	st = bloom_geometry(f->layout, cap, stage_fpr(f->fpr, true, n), &g, errbuf);
	if (st != BF_OK)
		return st;
	total = header_size(n + 1);
	for (int i = 0; i < n; i++)
		total += bf_align64(f->stages[i].nbits / 8);
	total += g.nbits / 8;
	if (total > BF_MAX_VALUE_BYTES)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "scalable filter would grow past the 1 GB value limit (stage %d of %llu elements)",
					   n + 1, (unsigned long long) cap);
	*size = (size_t) total;
	return BF_OK;
}

void
bloom_grow_into(const BloomFilter *f, void *buf, size_t size)
{
	BloomFilter *nf = (BloomFilter *) buf;
	int			n = f->nstages;
	uint64_t	off = header_size(n + 1);
	uint64_t	cap = 0;
	BloomGeometry g;
	double		r = stage_fpr(f->fpr, true, n);

	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	memcpy((char *) buf + sizeof(uint32_t), (const char *) f + sizeof(uint32_t),
		   sizeof(BloomFilter) - sizeof(uint32_t));
	for (int i = 0; i < n; i++)
	{
		nf->stages[i] = f->stages[i];
		nf->stages[i].offset = off;
		bf_copy((char *) buf + off, bloom_stage_bits_const(f, i), f->stages[i].nbits / 8);
		off += bf_align64(f->stages[i].nbits / 8);
	}
	(void) stage_capacity(f->capacity, n, &cap);
	(void) bloom_geometry(f->layout, cap, r, &g, NULL);
	fill_stage(&nf->stages[n], off, cap, r, &g);
	nf->nstages = (uint16_t) (n + 1);
}

/* ---- exact rate of blocked stages ---- */

/*
 * T(c) of bloom.h for one stage geometry.  Adds call this for every
 * element, so the last table is kept (the core is single-threaded, as a
 * PostgreSQL backend is).
 */
typedef struct RateTable
{
	uint32_t	k;
	double		fpr;
	uint64_t	nblocks;
	uint64_t	t[BLOOM_BLOCK_BITS + 1];
} RateTable;

static RateTable rate_cache;

static const uint64_t *
rate_table_fill(const BloomStage *s, uint64_t nblocks)
{
	for (int c = 0; c <= BLOOM_BLOCK_BITS; c++)
	{
		double		v = pow((double) c / BLOOM_BLOCK_BITS, (double) s->nhashes) /
			s->fpr / (double) nblocks * (double) BLOOM_RATE_ONE;

		rate_cache.t[c] = v >= (double) BLOOM_RATE_CAP ? BLOOM_RATE_CAP : (uint64_t) llround(v);
	}
	rate_cache.k = s->nhashes;
	rate_cache.fpr = s->fpr;
	rate_cache.nblocks = nblocks;
	return rate_cache.t;
}

static inline const uint64_t *
rate_table(const BloomStage *s)
{
	uint64_t	nblocks = s->nbits / BLOOM_BLOCK_BITS;

	if (__builtin_expect(rate_cache.k == s->nhashes && rate_cache.fpr == s->fpr &&
						 rate_cache.nblocks == nblocks, 1))
		return rate_cache.t;
	return rate_table_fill(s, nblocks);
}

static inline int
block_popcount(const uint64_t *w)
{
	return bf_popcount_block(w);
}

/* rate_units of a blocked stage from its bits (saturating) */
static uint64_t
stage_rate_units(const BloomFilter *f, int i)
{
	const BloomStage *s = &f->stages[i];
	const uint64_t *t = rate_table(s);
	const uint64_t *w = (const uint64_t *) bloom_stage_bits_const(f, i);
	uint64_t	nblocks = s->nbits / BLOOM_BLOCK_BITS;
	uint64_t	sum = 0;

	for (uint64_t b = 0; b < nblocks; b++)
	{
		bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / 64);
		sum += t[block_popcount(w + b * 8)];
		if (sum > (UINT64_C(1) << 62))
			return UINT64_C(1) << 62;
	}
	return sum;
}

static inline bool
stage_full(const BloomFilter *f, const BloomStage *s)
{
	if (f->layout == BLOOM_LAYOUT_BLOCKED)
		return s->rate_units >= BLOOM_RATE_LIMIT;
	return s->bits_set >= s->fill_limit;
}

/* ---- probing ---- */

/*
 * Positions inside a 512-bit block: 9-bit slices of g = remix(h), seven
 * per 64-bit value, then g is remixed for the next seven.  Independent
 * uniform positions, as the sizing model assumes (double hashing in a
 * power-of-two space is not: an even step cycles over few bits).
 *
 * BLOCK_SLICES(g, k, SLICE) runs SLICE(t) for each of the k slices, t the
 * slice's place (0 .. 6) in the current g, which it remixes in between:
 * the one schedule that block_contains, block_set_bits and
 * block_insert_avx512 all follow.  Whole groups of seven are unrolled.
 */
#define BLOCK_SLICES(g, k, SLICE) \
	do { \
		uint32_t	slices_done_ = 0; \
		for (; (k) - slices_done_ >= 7; slices_done_ += 7) \
		{ \
			SLICE(0); SLICE(1); SLICE(2); SLICE(3); SLICE(4); SLICE(5); SLICE(6); \
			if (slices_done_ + 7 < (k)) \
				(g) = bf_remix((g) + BLOOM_STEP); \
		} \
		for (uint32_t t_ = 0; slices_done_ < (k); slices_done_++, t_++) \
			SLICE(t_); \
	} while (0)

/* byte offset of the block that holds h, in blocked bits of nblocks blocks */
static inline uint64_t
block_offset(uint32_t nblocks, uint64_t h)
{
	return (uint64_t) bf_range32((uint32_t) (h >> 32), nblocks) * 64;
}

/* byte offset in a blocked stage's bits of the block that holds h */
static inline uint64_t
stage_block_offset(const BloomStage *s, uint64_t h)
{
	return block_offset((uint32_t) (s->nbits / BLOOM_BLOCK_BITS), h);
}

/*
 * Is every one of h's k bits set in this 512-bit block?  Branch-free: the
 * bits are and-ed together instead of returning at the first clear one, so
 * a non-member (rejected at an unpredictable bit) costs no misprediction;
 * all k reads hit the one cache line of the block.
 */
static inline bool
block_contains(const uint64_t *w, uint64_t h, uint32_t k)
{
	uint64_t	g = bf_remix(h);
	uint64_t	all = 1;

	/* bit at 9-bit slice t of g: word (slice >> 6), bit (slice & 63) */
#define SLICE_BIT(t) (all &= w[(g >> (9 * (t) + 6)) & 7] >> ((g >> (9 * (t))) & 63))
	BLOCK_SLICES(g, k, SLICE_BIT);
#undef SLICE_BIT
	return (all & 1) != 0;
}

/* Or h's k bits in a block, the positions block_contains reads, into w. */
static inline __attribute__((always_inline)) void
block_set_bits(uint64_t *w, uint64_t h, uint32_t k)
{
	uint64_t	g = bf_remix(h);

#define SLICE_SET(t) \
	(w[(g >> (9 * (t) + 6)) & 7] |= UINT64_C(1) << ((g >> (9 * (t))) & 63))
	BLOCK_SLICES(g, k, SLICE_SET);
#undef SLICE_SET
}

/* inlined into the probe loop: it runs once per row of a scan */
static inline __attribute__((always_inline)) bool
stage_contains(const BloomFilter *f, int i, uint64_t h)
{
	const BloomStage *s = &f->stages[i];
	const uint8_t *bits = bloom_stage_bits_const(f, i);
	uint32_t	k = s->nhashes;

	if (f->layout == BLOOM_LAYOUT_BLOCKED)
		return block_contains((const uint64_t *) (bits + stage_block_offset(s, h)), h, k);
	else if (std_chain(f))
		return std_contains((const uint64_t *) bits, h, k, s->nbits, true);
	else
		return std_contains((const uint64_t *) bits, h, k, s->nbits, false);
}

/*
 * A blocked stage's add that takes a block from before to after bits set:
 * counted in *units, the stage's rate_units (true), unless that would pass
 * the stage's limit (false: the add must not happen).  t is the stage's
 * rate_table.  The batch adds keep *units in a local while they run (see
 * add_run_blocked), so it is a pointer rather than the stage.
 */
static inline bool
rate_admit(const uint64_t *t, uint64_t *units, int before, int after)
{
	uint64_t	delta = t[after] - t[before];

	if (*units + delta > BLOOM_RATE_LIMIT)
		return false;
	*units += delta;
	return true;
}

/*
 * The blocked part of stage_insert: or h's k bits into block w unless the
 * stage (rate table t, rate_units *units) cannot take them (-1); returns
 * how many bits were new.  The k bits become a mask first, so that the
 * block is counted before and after.  __builtin_popcountll is one
 * instruction in the BF_TARGET_POPCNT copies of the add loops this is
 * inlined into.
 */
static inline __attribute__((always_inline)) int
block_insert(uint64_t *w, uint64_t h, uint32_t k, const uint64_t *t, uint64_t *units)
{
	uint64_t	m[8] = {0};
	int			before = 0,
				after = 0;

	block_set_bits(m, h, k);
	for (int wi = 0; wi < 8; wi++)
	{
		before += __builtin_popcountll(w[wi]);
		after += __builtin_popcountll(w[wi] | m[wi]);
	}
	if (after > before)
	{
		if (!rate_admit(t, units, before, after))
			return -1;
		for (int wi = 0; wi < 8; wi++)
			w[wi] |= m[wi];
	}
	return after - before;
}

#ifdef BF_AVX512_DISPATCH
/*
 * The block operations with the 512-bit block and h's mask in AVX-512
 * registers: the same positions, bits and rate_units as block_set_bits and
 * block_insert, with no memory traffic for the mask.  Bit p of the block
 * is bit p - 64 i of lane i; VPSLLVQ shifts 1 by (p - 64 i) in every lane
 * at once, and gives 0 in the lanes where that is not 0..63 (a negative
 * count is a huge unsigned one).  In block_insert_avx512, VPOPCNTQ then
 * counts the block's bits and the new ones, summed in one reduction with
 * the new count in the high half.  Not always_inline: clang refuses that
 * even in the generic copies' dead branch; the AVX-512 copies of the
 * loops are flattened instead.
 */
BF_TARGET_AVX512 static inline __m512i
block_mask_avx512(uint64_t h, uint32_t k)
{
	const __m512i lane_base = _mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
	const __m512i one = _mm512_set1_epi64(1);
	__m512i		m = _mm512_setzero_si512();
	uint64_t	g = bf_remix(h);

#define SLICE_MASK(t) \
	(m = _mm512_or_si512(m, _mm512_sllv_epi64(one, \
		_mm512_sub_epi64(_mm512_set1_epi64((int64_t) ((g >> (9 * (t))) & 511)), lane_base))))
	BLOCK_SLICES(g, k, SLICE_MASK);
#undef SLICE_MASK
	return m;
}

/* block_set_bits with the mask in a register, or-ed in whole */
BF_TARGET_AVX512 static inline void
block_or_avx512(uint64_t *w, uint64_t h, uint32_t k)
{
	_mm512_storeu_si512((void *) w, _mm512_or_si512(_mm512_loadu_si512((const void *) w),
													 block_mask_avx512(h, k)));
}

BF_TARGET_AVX512 static inline int
block_insert_avx512(uint64_t *w, uint64_t h, uint32_t k, const uint64_t *t, uint64_t *units)
{
	__m512i		m = block_mask_avx512(h, k);
	__m512i		block,
				fresh,
				counts;
	uint64_t	sum;
	int			before,
				added;

	block = _mm512_loadu_si512((const void *) w);
	fresh = _mm512_andnot_si512(block, m);
	counts = _mm512_add_epi64(_mm512_popcnt_epi64(block),
							  _mm512_slli_epi64(_mm512_popcnt_epi64(fresh), 32));
	sum = (uint64_t) _mm512_reduce_add_epi64(counts);
	before = (int) (uint32_t) sum;
	added = (int) (sum >> 32);
	if (added)
	{
		if (!rate_admit(t, units, before, before + added))
			return -1;
		_mm512_storeu_si512((void *) w, _mm512_or_si512(block, m));
	}
	return added;
}
#endif

/* block_insert in the copy of the add loops it is inlined into */
static inline __attribute__((always_inline)) int
blocked_insert(uint64_t *w, uint64_t h, uint32_t k, const uint64_t *t, uint64_t *units,
			   bool avx512)
{
#ifdef BF_AVX512_DISPATCH
	if (avx512)
		return block_insert_avx512(w, h, k, t, units);
#endif
	return block_insert(w, h, k, t, units);
}

/*
 * Set x's bits in stage i, unless that would take the stage's real rate
 * past its limit (97.5% of its budget): then nothing changes and the
 * result is -1.  Otherwise the result is how many bits were newly set.
 * Trying first, rather than stopping after the limit is crossed, keeps
 * every stage under its budget however coarse one insert is (a tiny
 * filter's single insert can move its rate by several percent).
 */
static inline __attribute__((always_inline)) int
stage_insert(BloomFilter *f, int i, uint64_t h, bool avx512)
{
	BloomStage *s = &f->stages[i];
	uint8_t    *bits = bloom_stage_bits(f, i);
	uint32_t	k = s->nhashes;
	uint32_t	added = 0;

	if (f->layout == BLOOM_LAYOUT_BLOCKED)
	{
		uint64_t   *w = (uint64_t *) (bits + stage_block_offset(s, h));
		int			r;

		r = blocked_insert(w, h, k, rate_table(s), &s->rate_units, avx512);
		if (r < 0)
			return -1;
		added = (uint32_t) r;
	}
	else
	{
		uint64_t   *w = (uint64_t *) bits;
		uint64_t	pos[BLOOM_MAX_HASHES];
		uint32_t	unset = 0;

		if (std_chain(f))
			std_positions(pos, h, k, s->nbits, true);
		else
			std_positions(pos, h, k, s->nbits, false);
		for (uint32_t j = 0; j < k; j++)
			unset += (w[pos[j] >> 6] & (UINT64_C(1) << (pos[j] & 63))) == 0;
		/* unset counts a repeated position twice: an upper bound */
		if (unset && s->bits_set + unset > s->fill_limit)
			return -1;
		for (uint32_t j = 0; j < k; j++)
		{
			uint64_t	m = UINT64_C(1) << (pos[j] & 63);

			added += (w[pos[j] >> 6] & m) == 0;
			w[pos[j] >> 6] |= m;
		}
	}
	s->bits_set += added;
	return (int) added;
}

bool
bloom_contains_hash(const BloomFilter *f, uint64_t h)
{
	for (int i = 0; i < f->nstages; i++)
		if (stage_contains(f, i, h))
			return true;
	return false;
}

/* start loading the block a probe of h reads in every stage (blocked layout) */
static inline __attribute__((always_inline)) void
prefetch_contains(const BloomFilter *f, uint64_t h)
{
	for (int i = 0; i < f->nstages; i++)
		__builtin_prefetch((const uint8_t *) f + f->stages[i].offset +
						   stage_block_offset(&f->stages[i], h));
}

#define PROBE_PREFETCH_AHEAD 16
#define BLOOM_PROBE_BATCH 64

/*
 * A standard stage's probes of many hashes, in rounds: the first bit of
 * every candidate, then the second bit of those whose first was set, and
 * so on, k rounds at most.  A round's loads do not wait for one another
 * or for a branch: each candidate's bit decides, without a branch,
 * whether it stays in the list (idx, v compacted in place), so the
 * round's cache misses overlap.  A probe reads exactly the lines it reads
 * one by one with its early exit.  v is each candidate's position state
 * for std_next: format 2's counter h + j * STEP, format 1's last x (chain,
 * a constant where this is inlined).  Returns how many of the m candidates have all
 * k bits set; they are idx[0 .. that).
 *
 * One by one, a non-member's exit at its first clear bit is a branch that
 * waits for that bit's cache miss, and a wrong guess throws away the work
 * begun after it; in rounds only the loop branches are left.
 */
static inline __attribute__((always_inline)) size_t
std_rounds(const uint64_t *w, uint64_t nbits, uint32_t k, bool chain,
		   uint16_t *idx, uint64_t *v, size_t m)
{
	size_t		kept = 0;

	/* round 0: x_0 = h, which v holds */
	for (size_t t = 0; t < m; t++)
	{
		uint64_t	pos = bf_range64(v[t], nbits);

		idx[kept] = idx[t];
		v[kept] = v[t];
		kept += (w[pos >> 6] >> (pos & 63)) & 1;
	}
	for (uint32_t j = 1; j < k && kept > 0; j++)
	{
		m = kept;
		kept = 0;
		for (size_t t = 0; t < m; t++)
		{
			uint64_t	c = v[t];
			uint64_t	x = std_next(v[t], &c, chain);
			uint64_t	pos = bf_range64(x, nbits);

			idx[kept] = idx[t];
			v[kept] = chain ? x : c;
			kept += (w[pos >> 6] >> (pos & 63)) & 1;
		}
	}
	return kept;
}

/* candidates a round list holds at most: idx is 16 bits */
#define STD_ROUNDS_BATCH 512

/*
 * bloom_contains_hashes for the standard layout: up to STD_ROUNDS_BATCH
 * hashes at a time, each stage in rounds over the hashes no stage before
 * it reported.
 */
static void
std_contains_many(const BloomFilter *f, const uint64_t *h, size_t n, bool *out)
{
	bool		chain = std_chain(f);

	for (size_t base = 0; base < n; base += STD_ROUNDS_BATCH)
	{
		size_t		c = n - base < STD_ROUNDS_BATCH ? n - base : STD_ROUNDS_BATCH;
		uint16_t	pending[STD_ROUNDS_BATCH];
		uint16_t	idx[STD_ROUNDS_BATCH];
		uint64_t	v[STD_ROUNDS_BATCH];
		size_t		npending = c;

		for (size_t j = 0; j < c; j++)
		{
			pending[j] = (uint16_t) j;
			out[base + j] = false;
		}
		for (int i = 0; i < f->nstages && npending > 0; i++)
		{
			const BloomStage *s = &f->stages[i];
			const uint64_t *w = (const uint64_t *) bloom_stage_bits_const(f, i);
			size_t		found;
			size_t		left = 0;

			for (size_t t = 0; t < npending; t++)
			{
				idx[t] = pending[t];
				v[t] = h[base + pending[t]];
			}
			found = chain ? std_rounds(w, s->nbits, s->nhashes, true, idx, v, npending)
				: std_rounds(w, s->nbits, s->nhashes, false, idx, v, npending);
			for (size_t t = 0; t < found; t++)
				out[base + idx[t]] = true;
			/* the ones still not found, for the next stage */
			for (size_t t = 0; t < npending; t++)
			{
				pending[left] = pending[t];
				left += !out[base + pending[t]];
			}
			npending = left;
		}
	}
}

static __attribute__((noinline)) void
contains_many(const BloomFilter *f, const uint64_t *h, size_t n, bool *out)
{
	if (f->layout == BLOOM_LAYOUT_STANDARD)
	{
		std_contains_many(f, h, n, out);
		return;
	}

	/*
	 * One blocked stage in memory worth loading ahead: a batch's blocks
	 * found and loaded first, then checked, each block offset computed
	 * once.
	 */
	if (f->layout == BLOOM_LAYOUT_BLOCKED && f->nstages == 1 &&
		bloom_size(f) >= BF_PROBE_PREFETCH_MIN_BYTES)
	{
		const BloomStage *s = &f->stages[0];
		const uint8_t *bits = bloom_stage_bits_const(f, 0);
		uint32_t	k = s->nhashes;

		for (size_t base = 0; base < n; base += BLOOM_PROBE_BATCH)
		{
			size_t		c = n - base < BLOOM_PROBE_BATCH ? n - base : BLOOM_PROBE_BATCH;
			const uint64_t *w[BLOOM_PROBE_BATCH];

			for (size_t j = 0; j < c; j++)
			{
				w[j] = (const uint64_t *) (bits + stage_block_offset(s, h[base + j]));
				__builtin_prefetch(w[j]);
			}
			for (size_t j = 0; j < c; j++)
				out[base + j] = block_contains(w[j], h[base + j], k);
		}
		return;
	}
#define PREFETCH(i) prefetch_contains(f, h[i])
#define PROBE(i) (out[i] = bloom_contains_hash(f, h[i]))
	BF_PROBE_MANY(bloom_size(f), n, PROBE_PREFETCH_AHEAD, PREFETCH, PROBE);
#undef PREFETCH
#undef PROBE
}

void
bloom_contains_hashes(const BloomFilter *f, const uint64_t *h, size_t n, bool *out)
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
 * Add one element.  Earlier stages are sealed: an element they already
 * report is not added again, so duplicates never fill a new stage.
 */
static inline __attribute__((always_inline)) BloomAddResult
add_one(BloomFilter *f, uint64_t h, bool avx512)
{
	int			last = f->nstages - 1;
	BloomStage *s = &f->stages[last];
	int			added;

	for (int i = 0; i < last; i++)
		if (stage_contains(f, i, h))
			return BLOOM_PRESENT;
	added = stage_full(f, s) ? (stage_contains(f, last, h) ? 0 : -1)
		: stage_insert(f, last, h, avx512);
	if (added < 0)
		return f->scalable ? BLOOM_NEEDS_STAGE : BLOOM_FULL;
	return added ? BLOOM_ADDED : BLOOM_PRESENT;
}

/*
 * Start loading what bloom_add_hash(f, h) will write (the block in the
 * last stage, or the first position for the standard layout), so a loop
 * over many hashes can overlap their cache misses.  No effect on f.
 *
 * Always inlined: GCC 12 judges a function whose only statement is a
 * prefetch to be pure, and deletes calls to it that it did not inline.
 */
static inline __attribute__((always_inline)) void
prefetch_add(const BloomFilter *f, uint64_t h)
{
	const BloomStage *s = &f->stages[f->nstages - 1];
	const uint8_t *bits = (const uint8_t *) f + s->offset;

	if (f->layout == BLOOM_LAYOUT_BLOCKED)
		__builtin_prefetch(bits + stage_block_offset(s, h), 1);
	else
		__builtin_prefetch(bits + bf_range64(h, s->nbits) / 8, 1);
}

/*
 * Add h[0..n) in order, loading blocks a few hashes ahead so that their
 * cache misses overlap.  Stops before the first hash the filter cannot
 * take as it is (*stop: BLOOM_NEEDS_STAGE or BLOOM_FULL), leaving the
 * filter as if the hashes before it had been added one by one.
 */
#define ADD_PREFETCH_AHEAD 64

static inline __attribute__((always_inline)) size_t
add_many_each(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop,
			  bool avx512)
{
	/* the first few have nothing before them to hide their misses behind */
	for (size_t i = 0; i < n && i < ADD_PREFETCH_AHEAD; i++)
		prefetch_add(f, h[i]);
	for (size_t i = 0; i < n; i++)
	{
		BloomAddResult r;

		if (i + ADD_PREFETCH_AHEAD < n)
			prefetch_add(f, h[i + ADD_PREFETCH_AHEAD]);
		r = add_one(f, h[i], avx512);
		if (r == BLOOM_NEEDS_STAGE || r == BLOOM_FULL)
		{
			*stop = r;
			return i;
		}
	}
	*stop = BLOOM_ADDED;
	return n;
}

/* does a sealed stage (any but the last) report h?  Out of line: rare */
static __attribute__((noinline)) bool
sealed_contains(const BloomFilter *f, uint64_t h)
{
	for (int i = 0; i < f->nstages - 1; i++)
		if (stage_contains(f, i, h))
			return true;
	return false;
}

/*
 * add_many_each for the blocked layout, with the last stage's geometry,
 * rate table and counts in locals: the block stores go through a
 * uint64_t pointer, which could alias the stage's counts, so through the
 * stage every add would reload them (bench/micro.c "blocked add batch"
 * measures it).  The same adds in the same order.
 * Returns how many it took: it stops at a full stage or at an add the
 * stage must refuse, which add_many_each then decides as add_one does.
 * sealed (a constant where this is inlined): are there stages before the
 * last, which are probed first?
 */
static inline __attribute__((always_inline)) size_t
add_run_blocked(BloomFilter *f, const uint64_t *h, size_t n, bool sealed, bool avx512)
{
	BloomStage *s = &f->stages[f->nstages - 1];
	uint8_t    *bits = bloom_stage_bits(f, f->nstages - 1);
	const uint64_t *t = rate_table(s);
	uint32_t	nblocks = (uint32_t) (s->nbits / BLOOM_BLOCK_BITS);
	uint32_t	k = s->nhashes;
	uint64_t	units = s->rate_units;
	uint64_t	set = s->bits_set;
	size_t		i;

	for (i = 0; i < n && i < ADD_PREFETCH_AHEAD; i++)
		__builtin_prefetch(bits + block_offset(nblocks, h[i]), 1);
	for (i = 0; i < n; i++)
	{
		int			r;

		if (i + ADD_PREFETCH_AHEAD < n)
			__builtin_prefetch(bits + block_offset(nblocks, h[i + ADD_PREFETCH_AHEAD]), 1);
		if (sealed && sealed_contains(f, h[i]))
			continue;
		if (units >= BLOOM_RATE_LIMIT)
			break;
		r = blocked_insert((uint64_t *) (bits + block_offset(nblocks, h[i])), h[i], k, t,
						   &units, avx512);
		if (r < 0)
			break;
		set += (uint64_t) r;
	}
	s->rate_units = units;
	s->bits_set = set;
	return i;
}

static inline __attribute__((always_inline)) size_t
add_many(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop,
		 bool avx512)
{
	size_t		i = 0;

	if (f->layout == BLOOM_LAYOUT_BLOCKED)
	{
		i = f->nstages > 1 ? add_run_blocked(f, h, n, true, avx512)
			: add_run_blocked(f, h, n, false, avx512);
		if (i == n)
		{
			*stop = BLOOM_ADDED;
			return n;
		}
	}
	return i + add_many_each(f, h + i, n - i, stop, avx512);
}

/*
 * The blocked layout counts bits on every add: a copy of the add loops for
 * each instruction set they are dispatched to (bfcore.h).
 */
#ifdef BF_POPCNT_DISPATCH
BF_TARGET_POPCNT static BloomAddResult
add_one_popcnt(BloomFilter *f, uint64_t h)
{
	return add_one(f, h, false);
}

BF_TARGET_POPCNT static size_t
add_many_popcnt(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop)
{
	return add_many(f, h, n, stop, false);
}
#endif

#ifdef BF_AVX512_DISPATCH
BF_TARGET_AVX512 __attribute__((flatten)) static BloomAddResult
add_one_avx512(BloomFilter *f, uint64_t h)
{
	return add_one(f, h, true);
}

BF_TARGET_AVX512 __attribute__((flatten)) static size_t
add_many_avx512(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop)
{
	return add_many(f, h, n, stop, true);
}
#endif

BloomAddResult
bloom_add_hash(BloomFilter *f, uint64_t h)
{
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
		return add_one_avx512(f, h);
#endif
#ifdef BF_POPCNT_DISPATCH
	if (bf_have_popcnt())
		return add_one_popcnt(f, h);
#endif
	return add_one(f, h, false);
}

static size_t
add_many_dispatch(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop)
{
#ifdef BF_AVX512_DISPATCH
	if (bf_have_avx512())
		return add_many_avx512(f, h, n, stop);
#endif
#ifdef BF_POPCNT_DISPATCH
	if (bf_have_popcnt())
		return add_many_popcnt(f, h, n, stop);
#endif
	return add_many(f, h, n, stop, false);
}

/* a chunk at a time, so that a long array can be interrupted (bfcore.h) */
size_t
bloom_add_hashes(BloomFilter *f, const uint64_t *h, size_t n, BloomAddResult *stop)
{
	size_t		done = 0;

	*stop = BLOOM_ADDED;
	while (done < n)
	{
		size_t		c = bf_chunk(n - done);
		size_t		took;

		if (done > 0)
			bf_check_interrupts();
		took = add_many_dispatch(f, h + done, c, stop);
		done += took;
		if (took < c)
			break;
	}
	return done;
}

/*
 * Building a fresh one-stage blocked filter from a set known in advance
 * (the self-sizing aggregates' final step): the bits of a set do not depend
 * on the order it is added in, and neither does the stage's rate_units, a
 * sum over blocks of T(popcount).  So set every bit first and count once
 * at the end, instead of counting each block on every add.  An add is
 * refused only when it would take rate_units past the limit, and
 * rate_units only grows, so if the end result is under the limit no add
 * of a one-by-one build would have been refused: the bytes are the same.
 * If it is not under, bloom_finish_unchecked clears the filter again and
 * the caller adds one by one (and grows a stage where that build would).
 */
bool
bloom_can_build_unchecked(const BloomFilter *f)
{
	return f->layout == BLOOM_LAYOUT_BLOCKED && f->nstages == 1 &&
		f->stages[0].bits_set == 0;
}

/*
 * Or each h's bits into its block: the mask built apart (in a register
 * with AVX-512) and or-ed in whole, rather than k read-modify-writes of
 * the block, and the geometry in locals, which the block stores cannot
 * alias.
 */
static inline __attribute__((always_inline)) void
set_unchecked(BloomFilter *f, const uint64_t *h, size_t n, bool avx512)
{
	BloomStage *s = &f->stages[0];
	uint8_t    *bits = bloom_stage_bits(f, 0);
	uint32_t	nblocks = (uint32_t) (s->nbits / BLOOM_BLOCK_BITS);
	uint32_t	k = s->nhashes;

	for (size_t e = 0; e < n && e < ADD_PREFETCH_AHEAD; e++)
		__builtin_prefetch(bits + block_offset(nblocks, h[e]), 1);
	for (size_t e = 0; e < n; e++)
	{
		uint64_t   *w = (uint64_t *) (bits + block_offset(nblocks, h[e]));

		if (e + ADD_PREFETCH_AHEAD < n)
			__builtin_prefetch(bits + block_offset(nblocks, h[e + ADD_PREFETCH_AHEAD]), 1);
#ifdef BF_AVX512_DISPATCH
		if (avx512)
		{
			block_or_avx512(w, h[e], k);
			continue;
		}
#endif
		{
			uint64_t	m[8] = {0};

			block_set_bits(m, h[e], k);
			for (int wi = 0; wi < 8; wi++)
				w[wi] |= m[wi];
		}
	}
}

#ifdef BF_AVX512_DISPATCH
BF_TARGET_AVX512 __attribute__((flatten)) static void
set_unchecked_avx512(BloomFilter *f, const uint64_t *h, size_t n)
{
	set_unchecked(f, h, n, true);
}
#endif

void
bloom_set_unchecked(BloomFilter *f, const uint64_t *h, size_t n)
{
	for (size_t done = 0; done < n; done += BF_INTERRUPT_CHUNK)
	{
		size_t		c = bf_chunk(n - done);

		if (done > 0)
			bf_check_interrupts();
#ifdef BF_AVX512_DISPATCH
		if (bf_have_avx512())
		{
			set_unchecked_avx512(f, h + done, c);
			continue;
		}
#endif
		set_unchecked(f, h + done, c, false);
	}
}

bool
bloom_finish_unchecked(BloomFilter *f)
{
	BloomStage *s = &f->stages[0];
	uint8_t    *bits = bloom_stage_bits(f, 0);

	s->rate_units = stage_rate_units(f, 0);
	if (s->rate_units < BLOOM_RATE_LIMIT)
	{
		s->bits_set = bf_popcount_bytes(bits, s->nbits / 8);
		return true;
	}
	bf_zero(bits, s->nbits / 8);
	s->rate_units = 0;
	s->bits_set = 0;
	return false;
}

/* ---- validation ---- */

/* another platform's pow() may round T(c) differently by one unit */
static bool
rate_units_match(uint64_t stored, uint64_t computed, uint64_t nblocks)
{
	uint64_t	diff = stored > computed ? stored - computed : computed - stored;

	return diff <= nblocks;
}

BfStatus
bloom_check(const void *data, size_t len, char *errbuf)
{
	const BloomFilter *f = (const BloomFilter *) data;
	BfStatus	st;
	uint64_t	off;

	st = bf_check_header_versions(data, len, sizeof(BloomFilter) + sizeof(BloomStage),
								  BF_KIND_BLOOM, "bloomfilter", BLOOM_FORMAT_COUNTER, errbuf);
	if (st != BF_OK)
		return st;
	if (f->hdr.flags != 0 || f->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "bloomfilter reserved fields are not zero");
	if (f->layout != BLOOM_LAYOUT_STANDARD && f->layout != BLOOM_LAYOUT_BLOCKED)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloomfilter layout %u", f->layout);
	if (f->layout == BLOOM_LAYOUT_BLOCKED && f->hdr.version != BF_FORMAT_VERSION)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid bloomfilter format version %u for the blocked layout (blocked filters are format %u)",
					   f->hdr.version, BF_FORMAT_VERSION);
	if (f->scalable > 1)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloomfilter scalable flag %u", f->scalable);
	if (f->nstages < 1 || f->nstages > BLOOM_MAX_STAGES ||
		(!f->scalable && f->nstages != 1))
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloomfilter stage count %u", f->nstages);
	if (bf_check_params((f->capacity > (uint64_t) INT64_MAX) ? -1 : (int64_t) f->capacity,
						   f->fpr, NULL) != BF_OK)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid bloomfilter parameters (capacity %llu, fpr %g)",
					   (unsigned long long) f->capacity, f->fpr);
	if (len < header_size(f->nstages))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "bloomfilter value is too short for %u stages", f->nstages);
	for (size_t i = sizeof(BloomFilter) + f->nstages * sizeof(BloomStage);
		 i < header_size(f->nstages); i++)
		if (((const uint8_t *) data)[i] != 0)
			return bf_fail(errbuf, BF_ERR_CORRUPT, "bloomfilter header padding is not zero");

	off = header_size(f->nstages);
	for (int i = 0; i < f->nstages; i++)
	{
		const BloomStage *s = &f->stages[i];
		uint64_t	unit = f->layout == BLOOM_LAYOUT_BLOCKED ? BLOOM_BLOCK_BITS : 64;
		uint64_t	cap;
		double		model;

		if (off > len)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter value is truncated before stage %d", i);
		if (s->offset != off)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d starts at byte %llu, expected %llu",
						   i, (unsigned long long) s->offset, (unsigned long long) off);
		if (s->nbits == 0 || s->nbits % unit != 0 || s->nbits / 8 > BF_MAX_VALUE_BYTES)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d has an invalid size of %llu bits",
						   i, (unsigned long long) s->nbits);
		if (s->nbits / 8 > len - off)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter value is truncated: stage %d needs %llu bytes at %llu, value has %zu",
						   i, (unsigned long long) (s->nbits / 8),
						   (unsigned long long) off, len);
		if (s->nhashes < 1 || s->nhashes > BLOOM_MAX_HASHES)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d has an invalid hash count %u", i, s->nhashes);
		if (s->reserved != 0)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d reserved field is not zero", i);
		if (!stage_capacity(f->capacity, f->scalable ? i : 0, &cap) || s->capacity != cap ||
			s->fpr != stage_fpr(f->fpr, f->scalable, i))
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d parameters do not follow from the filter's", i);
		if (s->fill_limit < 1 || s->fill_limit > s->nbits ||
			(f->layout == BLOOM_LAYOUT_BLOCKED && s->fill_limit != s->nbits))
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d has an invalid fill limit", i);

		/*
		 * The stage must really deliver its rate, or a crafted value could
		 * claim a target it cannot meet.
		 */
		if (f->layout == BLOOM_LAYOUT_STANDARD)
			model = pow((double) s->fill_limit / (double) s->nbits, (double) s->nhashes);
		else
			model = 0.0;
		if (model > s->fpr ||
			bloom_model_fpr(f->layout, s->capacity, s->nbits, s->nhashes) > s->fpr)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d is too small for its capacity and rate", i);
		if (bf_popcount_bytes((const uint8_t *) data + off, s->nbits / 8) != s->bits_set)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d bit count does not match its bits", i);
		if (f->layout == BLOOM_LAYOUT_STANDARD ? s->rate_units != 0 :
			!rate_units_match(s->rate_units, stage_rate_units(f, i), s->nbits / BLOOM_BLOCK_BITS))
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloomfilter stage %d rate does not match its bits", i);
		if (i < f->nstages - 1)
		{
			off += bf_align64(s->nbits / 8);
			for (uint64_t p = off - (bf_align64(s->nbits / 8) - s->nbits / 8); p < off && p < len; p++)
				if (((const uint8_t *) data)[p] != 0)
					return bf_fail(errbuf, BF_ERR_CORRUPT, "bloomfilter stage padding is not zero");
		}
		else
			off += s->nbits / 8;
	}
	if (off != len)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "bloomfilter value has %zu bytes, its stages account for %llu",
					   len, (unsigned long long) off);
	return BF_OK;
}

/* ---- union / intersection ---- */

BfStatus
bloom_check_compatible(const BloomFilter *a, const BloomFilter *b, bool intersect,
					   char *errbuf)
{
	int			n = a->nstages < b->nstages ? a->nstages : b->nstages;

	if (a->layout != b->layout)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine a %s filter with a %s filter",
					   bloom_layout_name(a->layout), bloom_layout_name(b->layout));
	if (a->hdr.seed != b->hdr.seed)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine filters with different hash seeds");
	if (a->hdr.version != b->hdr.version)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine a format %u filter with a format %u filter: their elements set different bits (rebuild the format %u one from its elements)",
					   a->hdr.version, b->hdr.version,
					   a->hdr.version < b->hdr.version ? a->hdr.version : b->hdr.version);
	if (a->capacity != b->capacity || a->fpr != b->fpr || a->scalable != b->scalable)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine filters of different geometry (capacity %llu, fpr %g%s vs capacity %llu, fpr %g%s)",
					   (unsigned long long) a->capacity, a->fpr, a->scalable ? "" : ", not scalable",
					   (unsigned long long) b->capacity, b->fpr, b->scalable ? "" : ", not scalable");
	for (int i = 0; i < n; i++)
		if (a->stages[i].nbits != b->stages[i].nbits ||
			a->stages[i].nhashes != b->stages[i].nhashes ||
			a->stages[i].fill_limit != b->stages[i].fill_limit ||
			a->stages[i].fpr != b->stages[i].fpr)
			return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
						   "cannot combine filters whose stage %d geometry differs", i);
	if (intersect && (a->nstages > 1 || b->nstages > 1))
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot intersect filters that have grown past one stage: an element may sit in different stages of each");
	return BF_OK;
}

/* dst must have at least as many stages as b */
BfStatus
bloom_union_into(BloomFilter *dst, const BloomFilter *b, char *errbuf)
{
	for (int i = 0; i < b->nstages; i++)
	{
		uint64_t   *d = (uint64_t *) bloom_stage_bits(dst, i);
		const uint64_t *s = (const uint64_t *) bloom_stage_bits_const(b, i);
		uint64_t	nwords = dst->stages[i].nbits / 64;
		uint64_t	set = 0;

		for (uint64_t w = 0; w < nwords; w++)
		{
			bf_check_interrupts_every(w, BF_INTERRUPT_BYTES / 8);
			d[w] |= s[w];
			set += (uint64_t) bf_popcount64(d[w]);
		}
		dst->stages[i].bits_set = set;
		if (dst->layout == BLOOM_LAYOUT_BLOCKED)
			dst->stages[i].rate_units = stage_rate_units(dst, i);

		/*
		 * A blocked stage takes no add past its limit (97.5% of its rate),
		 * nor a union: so a union, like bloom_agg's combine, fails exactly
		 * when adding the same elements one by one would have.  A standard
		 * stage may end up to k bits past its fill limit.
		 */
		if (dst->layout == BLOOM_LAYOUT_BLOCKED ? dst->stages[i].rate_units > BLOOM_RATE_LIMIT :
			set > dst->stages[i].fill_limit + dst->stages[i].nhashes)
			return bf_fail(errbuf, BF_ERR_FULL,
						   "union would exceed the false-positive target: stage %d would hold more than its capacity of %llu elements",
						   i, (unsigned long long) dst->stages[i].capacity);
	}
	return BF_OK;
}

void
bloom_intersect_into(BloomFilter *dst, const BloomFilter *b)
{
	uint64_t   *d = (uint64_t *) bloom_stage_bits(dst, 0);
	const uint64_t *s = (const uint64_t *) bloom_stage_bits_const(b, 0);
	uint64_t	nwords = dst->stages[0].nbits / 64;
	uint64_t	set = 0;

	for (uint64_t w = 0; w < nwords; w++)
	{
		bf_check_interrupts_every(w, BF_INTERRUPT_BYTES / 8);
		d[w] &= s[w];
		set += (uint64_t) bf_popcount64(d[w]);
	}
	dst->stages[0].bits_set = set;
	if (dst->layout == BLOOM_LAYOUT_BLOCKED)
		dst->stages[0].rate_units = stage_rate_units(dst, 0);
}

/* ---- estimates ---- */

double
bloom_estimate_cardinality(const BloomFilter *f)
{
	double		n = 0.0;

	for (int i = 0; i < f->nstages; i++)
	{
		const BloomStage *s = &f->stages[i];
		double		m = (double) s->nbits;
		double		x = (double) s->bits_set;

		if (x >= m)
			x = m - 0.5;
		/* Swamidass & Baldi 2007 */
		n += -m / (double) s->nhashes * log1p(-x / m);
	}
	return n;
}

double
bloom_estimate_fpr(const BloomFilter *f)
{
	double		miss = 1.0;

	for (int i = 0; i < f->nstages; i++)
	{
		const BloomStage *s = &f->stages[i];
		double		rate;

		if (f->layout == BLOOM_LAYOUT_BLOCKED)
		{
			const uint64_t *w = (const uint64_t *) bloom_stage_bits_const(f, i);
			uint64_t	nblocks = s->nbits / BLOOM_BLOCK_BITS;
			double		sum = 0.0;

			for (uint64_t b = 0; b < nblocks; b++)
			{
				int			c = bf_popcount_block(w + b * 8);

				bf_check_interrupts_every(b, BF_INTERRUPT_BYTES / 64);
				if (c)
					sum += pow((double) c / BLOOM_BLOCK_BITS, (double) s->nhashes);
			}
			rate = sum / (double) nblocks;
		}
		else
			rate = pow((double) s->bits_set / (double) s->nbits, (double) s->nhashes);
		miss *= 1.0 - rate;
	}
	return 1.0 - miss;
}

uint64_t
bloom_total_bits(const BloomFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->nstages; i++)
		n += f->stages[i].nbits;
	return n;
}

uint64_t
bloom_total_bits_set(const BloomFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->nstages; i++)
		n += f->stages[i].bits_set;
	return n;
}

uint64_t
bloom_total_capacity(const BloomFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->nstages; i++)
		n += f->stages[i].capacity;
	return n;
}

/* largest capacity whose new filter fits in one value, for error messages */
uint64_t
bloom_max_capacity(double fpr, int layout, bool scalable)
{
	uint64_t	lo = 1,
				hi = UINT64_C(1) << 40;
	size_t		sz;

	if (bloom_new_size(1, fpr, layout, scalable, &sz, NULL) != BF_OK)
		return 0;
	while (lo + 1 < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (bloom_new_size(mid, fpr, layout, scalable, &sz, NULL) == BF_OK)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---- stages kept in pages (the bloomfilter index access method) ---- */

BfStatus
bloom_paged_stage(uint64_t capacity, double fpr, bool scalable, int i,
				  BloomStage *s, char *errbuf)
{
	uint64_t	cap;
	double		r = stage_fpr(fpr, scalable, i);
	BloomGeometry g;
	BfStatus	st;

	if (i >= BLOOM_MAX_STAGES || !stage_capacity(capacity, scalable ? i : 0, &cap))
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "scalable filter cannot grow past %d stages", i);
	st = bf_cells_geometry(BLOOM_BLOCK_BITS, BLOOM_BLOCK_BITS, BLOOM_PAGED_MAX_BLOCKS,
						   cap, r, 0, &g.nbits, &g.nhashes, errbuf);
	if (st != BF_OK)
		return st;
	g.fill_limit = g.nbits;
	fill_stage(s, 0, cap, r, &g);
	return BF_OK;
}

bool
bloom_block_contains(const uint64_t *w, uint64_t h, uint32_t k)
{
	return block_contains(w, h, k);
}

int
bloom_block_preview(const uint64_t *w, uint64_t h, const BloomStage *s, uint64_t *delta)
{
	uint64_t	m[8] = {0};
	int			before,
				after;
	const uint64_t *t;

	block_set_bits(m, h, s->nhashes);
	/* popcounts through bf_popcount_block: the instruction where there is one */
	before = bf_popcount_block(w);
	for (int wi = 0; wi < 8; wi++)
		m[wi] |= w[wi];
	after = bf_popcount_block(m);
	*delta = 0;
	if (after == before)
		return 0;
	t = rate_table(s);
	*delta = t[after] - t[before];
	return after - before;
}

void
bloom_block_set(uint64_t *w, uint64_t h, uint32_t k)
{
	block_set_bits(w, h, k);
}

uint64_t
bloom_block_units(const uint64_t *w, const BloomStage *s)
{
	return rate_table(s)[block_popcount(w)];
}

BfStatus
bloom_paged_value_size(const BloomStage *stages, int nstages, size_t *size, char *errbuf)
{
	uint64_t	total = header_size(nstages);

	for (int i = 0; i < nstages; i++)
		total += i < nstages - 1 ? bf_align64(stages[i].nbits / 8) : stages[i].nbits / 8;
	if (total > BF_MAX_VALUE_BYTES)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "a filter of %llu bytes does not fit in one bloomfilter value (at most 1 GB)",
					   (unsigned long long) total);
	*size = (size_t) total;
	return BF_OK;
}

void
bloom_paged_value_init(void *buf, size_t size, uint64_t capacity, double fpr,
					   bool scalable, const BloomStage *stages, int nstages,
					   uint64_t seed)
{
	BloomFilter *f = (BloomFilter *) buf;
	uint64_t	off = header_size(nstages);

	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_BLOOM, seed);
	f->layout = BLOOM_LAYOUT_BLOCKED;
	f->scalable = scalable ? 1 : 0;
	f->nstages = (uint16_t) nstages;
	f->fpr = fpr;
	f->capacity = capacity;
	for (int i = 0; i < nstages; i++)
	{
		f->stages[i] = stages[i];
		f->stages[i].offset = off;
		f->stages[i].bits_set = 0;
		f->stages[i].rate_units = 0;
		off += bf_align64(stages[i].nbits / 8);
	}
}

void
bloom_recount(BloomFilter *f)
{
	for (int i = 0; i < f->nstages; i++)
	{
		BloomStage *s = &f->stages[i];

		s->bits_set = bf_popcount_bytes(bloom_stage_bits(f, i), s->nbits / 8);
		s->rate_units = f->layout == BLOOM_LAYOUT_BLOCKED ? stage_rate_units(f, i) : 0;
	}
}
