/*
 * counting.h
 *		Counting Bloom filter maths, no fmgr: sizing, create, add, remove,
 *		probe, count, union, estimates, and the validator every input path
 *		shares.
 *
 * Value layout (after the common BfHeader, see bfcore.h):
 *
 *	offset	size	field
 *	24		1		layout			COUNTING_LAYOUT_BLOCKED (1), the only one
 *	25		1		counter_bits	4
 *	26		2		reserved		must be zero
 *	28		4		nhashes			k, 1 .. BLOOM_MAX_HASHES
 *	32		8		fpr				false-positive target at capacity
 *	40		8		capacity		most elements in at once
 *	48		8		count			elements in now: adds minus removes
 *	56		8		nblocks			number of 64-byte blocks
 *	64		64*n	counters		block b is bytes 64 + 64b .. 64 + 64b + 63;
 *									its counter i (0 .. 127) is the low
 *									nibble of byte i/2 when i is even, the
 *									high nibble when i is odd
 *
 * The value ends exactly after the last block.
 *
 * Packed layout (layout byte COUNTING_LAYOUT_PACKED, 2): the same header,
 * then the counters as bit streams, each made of little-endian 64-bit
 * words whose bits past the stream's end are zero:
 *
 *	occupancy	16 bytes per block: bit c % 64 of word 2b + c / 64 is set
 *				when counter c of block b is not zero (n1 bits set)
 *	ge2			ceil(n1 / 64) words: bit i says whether the i-th non-zero
 *				counter, in order of block then counter, is at least 2
 *				(n2 bits set)
 *	ge3			ceil(n2 / 64) words: bit i, whether the i-th counter of at
 *				least 2 is at least 3 (n3 bits set)
 *	high		ceil(n3 / 16) words: nibble i % 16 of word i / 16 is the
 *				i-th counter of at least 3, minus 3 (0 .. 12)
 *
 * Most counters are 0 or 1, so this is about 1.4 bits a counter where the
 * blocked layout takes 4 (1M elements at 1%: 2.0 MB against 5.9 MB), and a
 * probe reads the occupancy where it lies: no decompression, no copy of
 * the counters.  Values are written packed unless that would be larger;
 * both layouts are read.
 *
 * Hashing: one XXH3-64 hash h per element (seeded with hdr.seed).  Its
 * block is range32(h >> 32, nblocks); its counters inside the block are
 * bits 7*(j%9) .. 7*(j%9)+6 of g, j = 0 .. k-1, where g starts as
 * remix(h) and becomes remix(g + STEP) after every 9th counter (the same
 * scheme as a blocked bloomfilter, 7-bit slices for 128 counters).  A
 * counter drawn twice for one element is one counter of that element: add
 * and remove touch each of its distinct counters once.
 *
 * Counters saturate at 15 and are sticky: a counter at 15 is never
 * decremented, so however many elements share it, no remove can bring it
 * to zero under an element still in (no false negatives from overflow).
 *
 * Sizing: the blocked Bloom model of bloom.c over cells (a probe fails on
 * a zero counter just as on a zero bit), 128 cells per block, so the
 * model rate at capacity is at most 0.95 * fpr; of the geometries within
 * 10% of the smallest, the one with the fewest hashes, because its value
 * compresses best (counting.c, COUNTING_SLACK_PCT).  The value records
 * its geometry, so filters sized by an older release keep theirs.
 */
#ifndef COUNTING_H
#define COUNTING_H

#include "bfcore.h"

#define COUNTING_LAYOUT_BLOCKED		1
#define COUNTING_LAYOUT_PACKED		2
#define COUNTING_COUNTER_BITS		4
#define COUNTING_COUNTER_MAX		15
#define COUNTING_BLOCK_BYTES		64
#define COUNTING_BLOCK_CELLS		128
#define COUNTING_HEADER_BYTES		64

typedef struct CountingBloom
{
	BfHeader	hdr;
	uint8_t		layout;
	uint8_t		counter_bits;
	uint16_t	reserved;
	uint32_t	nhashes;
	double		fpr;
	uint64_t	capacity;
	uint64_t	count;
	uint64_t	nblocks;
	uint8_t		counters[];
} CountingBloom;

typedef enum CountingResult
{
	COUNTING_OK,				/* added / removed */
	COUNTING_ABSENT,			/* remove of an element reported absent: unchanged */
	COUNTING_FULL				/* add at capacity: unchanged, caller errors */
} CountingResult;

typedef struct CountingStats
{
	uint64_t	nonzero;		/* counters above zero */
	uint64_t	saturated;		/* counters at 15 */
	double		fpr_estimate;	/* mean over blocks of (nonzero/128)^k */
} CountingStats;

/* geometry and bytes of a new filter; BF_ERR_TOO_LARGE if it would not fit */
extern BfStatus counting_geometry(uint64_t capacity, double fpr, uint64_t *nblocks,
								  uint32_t *nhashes, char *errbuf);
extern BfStatus counting_new_size(uint64_t capacity, double fpr, size_t *size,
								  char *errbuf);
extern void counting_init(void *buf, size_t size, uint64_t capacity, double fpr,
						  uint64_t seed);
extern uint64_t counting_max_capacity(double fpr);

extern size_t counting_size(const CountingBloom *f);

extern CountingResult counting_add_hash(CountingBloom *f, uint64_t h);

/*
 * Add h[0..n) as counting_add_hash one by one would, prefetching ahead:
 * for builds.  Stops where the filter is full; returns how many were added
 * (n unless the filter filled up).
 */
extern size_t counting_add_hashes(CountingBloom *f, const uint64_t *h, size_t n);
extern CountingResult counting_remove_hash(CountingBloom *f, uint64_t h);
extern bool counting_contains_hash(const CountingBloom *f, uint64_t h);
/* out[i] = counting_contains_hash(f, h[i]), i < n, blocks loaded ahead */
extern void counting_contains_hashes(const CountingBloom *f, const uint64_t *h,
									 size_t n, bool *out);
extern int	counting_count_hash(const CountingBloom *f, uint64_t h);

/* one bit per counter, "not zero", for filters probed many times */
extern size_t counting_occupancy_size(const CountingBloom *f);
extern void counting_occupancy(const CountingBloom *f, uint64_t *occ);
extern bool counting_occupancy_contains(const CountingBloom *f, const uint64_t *occ,
										uint64_t h);

/*
 * The packed layout.  counting_packed_size gives the bytes counting_pack
 * writes for plain f (blocked layout), and the counts counting_pack then
 * takes; counting_pack writes them (the caller allocated them, and sets
 * the varlena length).  counting_unpack
 * writes the blocked layout of packed p into out, counting_size(p) bytes.
 * counting_occupancy_of is the occupancy of a packed value, in place, for
 * counting_occupancy_contains.
 */
typedef struct CountingPackedCounts
{
	uint64_t	n1,
				n2,
				n3;				/* counters >= 1, >= 2, >= 3 */
} CountingPackedCounts;

extern size_t counting_packed_size(const CountingBloom *f, CountingPackedCounts *n);
extern void counting_pack(const CountingBloom *f, const CountingPackedCounts *n, void *out);
extern void counting_unpack(const CountingBloom *p, CountingBloom *out);
extern const uint64_t *counting_occupancy_of(const CountingBloom *p);
/*
 * counting_count_hash of a packed value where it lies: rank, of
 * counting_rank_size(p) bytes, filled by counting_rank_build(p, rank).
 */
extern size_t counting_rank_size(const CountingBloom *p);
extern void counting_rank_build(const CountingBloom *p, uint64_t *rank);
extern int	counting_packed_count_hash(const CountingBloom *p, const uint64_t *rank, uint64_t h);

/*
 * The packed value counting_init + counting_add_hashes(h, n) +
 * counting_pack would give, for h in ascending order, without the blocked
 * layout in between.  f: a new filter's header (counting_init; its
 * counters are not read, so a COUNTING_HEADER_BYTES buffer will do).  out
 * and scratch have the room counting_build_bounds gives.  Returns the
 * bytes written to out (the caller sets the varlena length), or 0 when
 * the packed form would not be smaller than the blocked one, h's blocks
 * go backwards somewhere (ascending h never do), or n is more than the
 * capacity: then build the blocked layout.
 */
extern void counting_build_bounds(const CountingBloom *f, uint64_t n, size_t *out_bytes,
								  size_t *scratch_bytes);
extern size_t counting_build_packed(const CountingBloom *f, const uint64_t *h, size_t n,
									void *out, void *scratch);

/* counting_occupancy_contains over h[0 .. n), occupancy loaded ahead */
extern void counting_occupancy_contains_hashes(const CountingBloom *f, const uint64_t *occ,
											   const uint64_t *h, size_t n, bool *out);

/* check a value from outside (either layout): exact length, geometry, fields */
extern BfStatus counting_check(const void *data, size_t len, char *errbuf);

/* union: counters added, saturating; dst already a copy of a */
extern BfStatus counting_check_compatible(const CountingBloom *a, const CountingBloom *b,
										  char *errbuf);
extern BfStatus counting_union_into(CountingBloom *dst, const CountingBloom *b,
									char *errbuf);

/* either layout */
extern void counting_stats(const CountingBloom *f, CountingStats *st);
extern double counting_model_fpr(const CountingBloom *f, uint64_t n);

#endif							/* COUNTING_H */
