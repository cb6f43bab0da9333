/*
 * bloom.h
 *		Bloom filter maths, no fmgr: sizing, create, add, probe, union,
 *		estimates, and the validator every input path shares.
 *
 * Value layout (after the common BfHeader, see bfcore.h):
 *
 *	offset	size	field
 *	24		1		layout		BLOOM_LAYOUT_STANDARD (0) or BLOOM_LAYOUT_BLOCKED (1)
 *	25		1		scalable	1: add a stage when full; 0: error when full
 *	26		2		nstages		1 .. BLOOM_MAX_STAGES
 *	28		4		reserved	must be zero
 *	32		8		fpr			overall false-positive target
 *	40		8		capacity	capacity of stage 0 (what the user asked for)
 *	48		64*n	stages[]	BloomStage descriptors
 *	...				padding to a multiple of 64, zero
 *	offset_i		stage i bits (nbits/8 bytes); stages follow each other,
 *					each starting at a multiple of 64 from the start of the
 *					value, and the value ends exactly after the last one
 *
 * Hashing: one XXH3-64 hash h per element (seeded with hdr.seed); every
 * probe position in every stage is derived from h and bf_remix(h):
 *	blocked:	block = range32(h >> 32, nblocks); bit i inside the block's
 *				512 bits is bits 9*(i%7) .. 9*(i%7)+8 of g, where g starts
 *				as remix(h) and becomes remix(g + STEP) after every 7th bit;
 *	standard:	position i = range64(x_i, nbits), x_0 = h, STEP =
 *				0x9E3779B97F4A7C15, and for i >= 1
 *				format 2:	x_i = remix(h + i * STEP): every x_i is one
 *							remix from h, so a probe's k remixes, and its
 *							k loads, can run side by side;
 *				format 1:	x_i = remix(x_{i-1} + STEP), a chain: x_6 is
 *							six remixes (~80 cycles) after h.
 *				The two agree on x_0 and x_1.
 *
 * Format versions (hdr.version): a standard filter is made as format 2; a
 * blocked one as format 1, its bytes being the same in both.  Format 1
 * standard filters (made by builds before format 2) are still read,
 * probed, added to and grown with their own positions; filters of
 * different formats are not combined.  (Double hashing, x_i = h + i * g,
 * would be as fast but is not what the rate model assumes: a small
 * filter's real rate came out up to 36 times its target.)
 *
 * Scalable filters (Almeida et al. 2007): stage i holds capacity * 2^i
 * elements at rate fpr * 2^-(i+1), so the rates sum to less than fpr.
 *
 * A stage is full when adding one more element would take its real
 * false-positive rate, computed from its bits, past 97.5% of its budget
 * (the add is refused before anything changes); stages are sized so that
 * this happens a little after capacity.  Tracking the rate itself rather than counting
 * adds makes the promise exact whatever the duplicates and whatever the
 * luck of a small filter, and gives the same bytes for a serial build and
 * a union of partial builds:
 *	standard:	rate = (bits_set / nbits)^k, so bits_set never passes
 *				fill_limit = floor(nbits * (0.975 fpr)^(1/k));
 *	blocked:	rate = mean over blocks of (popcount / 512)^k; rate_units
 *				holds sum over blocks of T(popcount), with
 *				T(c) = min(2^41, round((c/512)^k / fpr / nblocks * 2^40)),
 *				kept up to date on every add, so rate / fpr =
 *				rate_units / 2^40, never past 0.975.
 */
#ifndef BLOOM_H
#define BLOOM_H

#include "bfcore.h"

/* the format of standard filters made now (see Format versions above) */
#define BLOOM_FORMAT_COUNTER		2

#define BLOOM_LAYOUT_STANDARD	0
#define BLOOM_LAYOUT_BLOCKED	1

/*
 * A standard stage takes the fewest hashes whose array is at most this many
 * per mille larger than the smallest that meets its rate.  The rate's
 * optimal k sits on a flat minimum: at 0.5% (a scalable 1% filter's first
 * stage) k = 8 needs 11.14 bits an element, k = 7 0.26% more and k = 6
 * 2.09% more (k = 5: 6.8%), and at 1% k = 7 needs 9.70, k = 6 0.36% more
 * (k = 5: 2.9%).  Each hash fewer is a cache line fewer for a member's
 * probe and for every add, and a non-member's probe, which stops at the
 * first clear bit, meets one sooner: at 0.5%, k = 6 reads 3.85 lines a
 * probe where k = 8 reads 5.02 (half members, half not).  The blocked
 * layout reads one line whatever k is; it keeps its smallest array.
 */
#define BLOOM_STANDARD_SLACK_PERMILLE 25

#define BLOOM_BLOCK_BITS		512
#define BLOOM_MAX_STAGES		48
#define BLOOM_MAX_HASHES		BF_MAX_HASHES
#define BLOOM_GROWTH			2	/* capacity multiplier per stage */
#define BLOOM_TIGHTENING		0.5 /* rate multiplier per stage */

typedef struct BloomStage
{
	uint64_t	offset;			/* byte offset of the bits from value start */
	uint64_t	nbits;			/* multiple of 64 (standard) or 512 (blocked) */
	uint64_t	capacity;		/* elements this stage is designed for */
	uint64_t	fill_limit;		/* standard: full once bits_set reaches this;
								 * blocked: nbits */
	uint64_t	bits_set;		/* popcount of this stage's bits */
	uint64_t	rate_units;		/* blocked: sum of T(popcount) over blocks;
								 * standard: 0 */
	double		fpr;			/* design rate of this stage */
	uint32_t	nhashes;		/* k */
	uint32_t	reserved;		/* must be zero */
} BloomStage;

#define BLOOM_RATE_ONE		(UINT64_C(1) << 40)	/* rate_units at rate == fpr */
#define BLOOM_RATE_CAP		(UINT64_C(1) << 41)	/* T(c) never exceeds this */
#define BLOOM_RATE_LIMIT	(BLOOM_RATE_ONE / 40 * 39)	/* 0.975: full */

typedef struct BloomFilter
{
	BfHeader	hdr;
	uint8_t		layout;
	uint8_t		scalable;
	uint16_t	nstages;
	uint32_t	reserved;
	double		fpr;
	uint64_t	capacity;
	BloomStage	stages[];
} BloomFilter;

/* Geometry of one stage, from (capacity, fpr, layout). */
typedef struct BloomGeometry
{
	uint64_t	nbits;
	uint32_t	nhashes;
	uint64_t	fill_limit;
} BloomGeometry;

typedef enum BloomAddResult
{
	BLOOM_ADDED,				/* new bits were set */
	BLOOM_PRESENT,				/* already (probably) in: nothing changed */
	BLOOM_NEEDS_STAGE,			/* scalable and full: grow, then add again */
	BLOOM_FULL					/* not scalable and full: caller errors */
} BloomAddResult;

/* parameter checks shared by create and the aggregates */
extern int	bloom_parse_layout(const char *name);	/* -1 if unknown */
extern const char *bloom_layout_name(int layout);

/* false-positive rate of a stage geometry holding n elements (model) */
extern double bloom_model_fpr(int layout, uint64_t n, uint64_t nbits, uint32_t k);
extern BfStatus bloom_geometry(int layout, uint64_t capacity, double fpr,
							   BloomGeometry *g, char *errbuf);

/* bytes of a new filter; 0 + errbuf set when it would not fit */
extern BfStatus bloom_new_size(uint64_t capacity, double fpr, int layout,
							   bool scalable, size_t *size, char *errbuf);
extern void bloom_init(void *buf, size_t size, uint64_t capacity, double fpr,
					   int layout, bool scalable, uint64_t seed);

/* bytes after adding one stage; BF_ERR_TOO_LARGE when it would not fit */
extern BfStatus bloom_grown_size(const BloomFilter *f, size_t *size, char *errbuf);
extern void bloom_grow_into(const BloomFilter *f, void *buf, size_t size);

extern size_t bloom_size(const BloomFilter *f);

extern BloomAddResult bloom_add_hash(BloomFilter *f, uint64_t h);
/*
 * Add h[0..n) in order, as bloom_add_hash one by one would, but faster.
 * Stops before the first hash that needs a new stage (or that a full
 * fixed filter refuses): returns how many were taken, *stop says why.
 */
extern size_t bloom_add_hashes(BloomFilter *f, const uint64_t *h, size_t n,
							   BloomAddResult *stop);
extern bool bloom_contains_hash(const BloomFilter *f, uint64_t h);
/*
 * out[i] = bloom_contains_hash(f, h[i]) for i in 0..n, so that the cache
 * misses of a filter bigger than the caches overlap instead of following
 * one another: blocked, each probe's block loaded ahead; standard, the
 * probes in rounds of one bit each (std_contains_many in bloom.c).
 */
extern void bloom_contains_hashes(const BloomFilter *f, const uint64_t *h, size_t n,
								  bool *out);

/*
 * Fast build of a fresh filter from a known set (see bloom.c): if
 * bloom_can_build_unchecked(f), bloom_set_unchecked over all the hashes
 * then bloom_finish_unchecked gives the bytes of adding them one by one;
 * if that returns false, f is fresh again and must be built one by one.
 */
extern bool bloom_can_build_unchecked(const BloomFilter *f);
extern void bloom_set_unchecked(BloomFilter *f, const uint64_t *h, size_t n);
extern bool bloom_finish_unchecked(BloomFilter *f);

/* check a value from outside: exact length, geometry, counters */
extern BfStatus bloom_check(const void *data, size_t len, char *errbuf);

/* union/intersection into dst (same geometry as a, already a copy of a) */
extern BfStatus bloom_check_compatible(const BloomFilter *a, const BloomFilter *b,
									   bool intersect, char *errbuf);
extern BfStatus bloom_union_into(BloomFilter *dst, const BloomFilter *b, char *errbuf);
extern void bloom_intersect_into(BloomFilter *dst, const BloomFilter *b);

/* estimates */
extern double bloom_estimate_cardinality(const BloomFilter *f);
extern double bloom_estimate_fpr(const BloomFilter *f);
extern uint64_t bloom_total_bits(const BloomFilter *f);
extern uint64_t bloom_total_bits_set(const BloomFilter *f);
extern uint64_t bloom_total_capacity(const BloomFilter *f);
extern uint64_t bloom_max_capacity(double fpr, int layout, bool scalable);

static inline uint8_t *
bloom_stage_bits(BloomFilter *f, int i)
{
	return (uint8_t *) f + f->stages[i].offset;
}

static inline const uint8_t *
bloom_stage_bits_const(const BloomFilter *f, int i)
{
	return (const uint8_t *) f + f->stages[i].offset;
}

/*
 * Stages kept in pages (the bloomfilter index access method): blocked
 * stages of the same geometry, hashing and rate accounting as a value's,
 * but with each 64-byte block wherever the caller keeps it, and no 1 GB
 * bound (bf_range32 picks the block, so at most 2^32 blocks a stage).
 * bloom_paged_stage gives stage i's descriptor (offset 0, nothing set);
 * for a stage under 1 GB it is the stage a value of the same parameters
 * would have.  bloom_block_preview says how many new bits adding h to
 * block w would set and how many rate_units the block would gain, without
 * changing it; bloom_block_set sets them.  bloom_paged_value_* make a
 * value of such stages (a snapshot): init lays it out with every bit
 * clear, the caller copies the blocks in, bloom_recount counts them.
 */
#define BLOOM_PAGED_MAX_BLOCKS	((uint64_t) UINT32_MAX)

static inline uint64_t
bloom_block_index(uint64_t h, uint64_t nblocks)
{
	return bf_range32((uint32_t) (h >> 32), (uint32_t) nblocks);
}

extern BfStatus bloom_paged_stage(uint64_t capacity, double fpr, bool scalable, int i,
								  BloomStage *s, char *errbuf);
extern bool bloom_block_contains(const uint64_t *w, uint64_t h, uint32_t k);
extern int	bloom_block_preview(const uint64_t *w, uint64_t h, const BloomStage *s,
								uint64_t *delta);
extern void bloom_block_set(uint64_t *w, uint64_t h, uint32_t k);
extern uint64_t bloom_block_units(const uint64_t *w, const BloomStage *s);
extern BfStatus bloom_paged_value_size(const BloomStage *stages, int nstages,
									   size_t *size, char *errbuf);
extern void bloom_paged_value_init(void *buf, size_t size, uint64_t capacity, double fpr,
								   bool scalable, const BloomStage *stages, int nstages,
								   uint64_t seed);
extern void bloom_recount(BloomFilter *f);

#endif							/* BLOOM_H */
