/*
 * stable.h
 *		Stable Bloom filter maths (Deng and Rafiei, "Approximately detecting
 *		duplicates for streaming data using stable Bloom filters", SIGMOD
 *		2006), no fmgr: parameter choice, create, insert, probe, the
 *		stable-point and false-negative models, and the validator every input
 *		path shares.
 *
 * A stable Bloom filter has m cells of d bits (Max = 2^d - 1).  Inserting
 * an element first decrements P cells picked at random (a cell at 0 stays
 * 0), then sets the element's K cells to Max.  An element is reported
 * present when all its K cells are non-zero.  Old elements decay out, so
 * the fraction of zero cells converges and with it the false-positive rate;
 * the price is a false-negative rate that grows with the time since an
 * element was last inserted.
 *
 * Value layout (after the common BfHeader, see bfcore.h; little-endian):
 *
 *	offset	size	field
 *	7		1		hdr.flags	STABLE_FLAG_* below; 0 in every value that
 *								stable_bloom_create/add/agg return
 *	24		8		cells		m, 2 .. stable_max_cells(d) (1 GB value)
 *	32		1		cell_bits	d, 1 .. 8
 *	33		1		reserved	must be zero
 *	34		2		hashes		K, 1 .. STABLE_MAX_HASHES, K < m
 *	36		4		decrement	P, 1 .. STABLE_MAX_DECREMENT
 *	40		8		fpr			target false-positive rate, (0, 1)
 *	48		8		inserted	number of inserts so far
 *	56		8		nonzero		number of non-zero cells (checked on input)
 *	64		8		rng			splitmix64 state of the decrement PRNG
 *	72		8		reserved	must be zero
 *	80		...		cells: cell i is bits i*d .. i*d+d-1 of the payload,
 *					bit j of the payload being bit (j % 8) of byte j / 8;
 *					the payload is padded with zero bits to a multiple of
 *					8 bytes, and the value ends exactly there
 *
 * Hashing: one XXH3-64 hash h per element (seeded with hdr.seed); cell i
 * of the element is range64(x_i, m), x_0 = h, x_{i+1} = remix(x_i + STEP),
 * STEP = 0x9E3779B97F4A7C15 (as bloomfilter's standard layout).
 *
 * Decrements: each insert draws P values from splitmix64 (state += STEP,
 * output = the splitmix64 finalizer of the state) and decrements cell
 * range64(value, m) for each; positions may repeat.  The state starts at
 * STABLE_RNG_INIT ^ hdr.seed and lives in the value, so the same stream
 * gives the same bytes on every run and platform, across any mix of
 * single adds and aggregates.
 *
 * Parameters: for given m, d and target rate, for every K the smallest P
 * whose stable-point rate (Deng and Rafiei, eq. for FPS)
 *		p0  = (1 / (1 + 1 / (P (1/K - 1/m))))^Max	fraction of zero cells
 *		FPS = (1 - p0)^K
 * is at most the target, then the K whose element stays remembered longest
 * (largest memory half-life, below).
 *
 * False negatives (an element last inserted N inserts ago, the N inserts
 * since being of other elements): per later insert, one of its cells is
 * set to Max with probability q = K/m and (otherwise) decremented with
 * probability P/m, the same per-insert probabilities the paper's p0 rests
 * on.  Looking back from now, the cell is 0 exactly when the first Max
 * "events" (sets or decrements) are all decrements and at least Max events
 * happened in the N inserts.  With e = q + (1 - q) P/m the chance of an
 * event per insert and (1 - q) P/m / e = p0^(1/Max) the chance an event is
 * a decrement:
 *		z(N)   = p0 * Pr[Binomial(N, e) >= Max]		a given cell is 0
 *		FNR(N) = 1 - (1 - z(N))^K
 * so FNR(0..Max-1) = 0 and FNR(N) -> 1 - FPS: a forgotten element is
 * reported present exactly as often as one never seen.  The memory
 * half-life is the smallest N with FNR(N) >= (1 - FPS) / 2.
 */
#ifndef STABLE_H
#define STABLE_H

#include "bfcore.h"

#define STABLE_MAX_HASHES		32
#define STABLE_MAX_DECREMENT	65536
#define STABLE_MIN_CELLS		2
#define STABLE_HEADER_SIZE		80
#define STABLE_RNG_INIT			UINT64_C(0x5354424C424C4F4D)	/* "STBLBLOM" */

/* hdr.flags: only the stable_bloom_seen aggregate's state uses these */
#define STABLE_FLAG_LAST_SEEN	0x01	/* the latest row's element was present */
#define STABLE_FLAG_LAST_NULL	0x02	/* the latest row's element was NULL */
#define STABLE_FLAGS_ALL		0x03

/* default parameters of the aggregates */
#define STABLE_DEFAULT_CELLS	1000000
#define STABLE_DEFAULT_FPR		0.01
#define STABLE_DEFAULT_BITS		3

typedef struct StableFilter
{
	BfHeader	hdr;
	uint64_t	cells;
	uint8_t		cell_bits;
	uint8_t		reserved0;
	uint16_t	hashes;
	uint32_t	decrement;
	double		fpr;
	uint64_t	inserted;
	uint64_t	nonzero;
	uint64_t	rng;
	uint64_t	reserved1;
	uint8_t		data[];
} StableFilter;

/* K and P chosen for (m, d, fpr), and what they promise */
typedef struct StableParams
{
	uint32_t	hashes;
	uint32_t	decrement;
	double		fpr_bound;		/* FPS at the stable point */
	double		half_life;		/* inserts until FNR is half its limit */
} StableParams;

/* largest number of cells of cell_bits bits that fits in one value */
extern uint64_t stable_max_cells(int cell_bits);

/*
 * Check (cells, fpr, cell_bits) and choose K and P: BF_ERR_PARAM naming
 * the argument and its range, BF_ERR_TOO_LARGE when the value would not
 * fit (the message gives the largest cell count).
 */
extern BfStatus stable_choose(int64_t cells, double fpr, int cell_bits,
							  StableParams *out, char *errbuf);

extern size_t stable_size(uint64_t cells, int cell_bits);
extern void stable_init(void *buf, size_t size, uint64_t cells, int cell_bits,
						double fpr, const StableParams *p, uint64_t seed);

/* insert: returns whether the element was (probably) present before */
extern bool stable_add_hash(StableFilter *f, uint64_t h);
/* stable_add_hash of h[0 .. n) in order */
extern void stable_add_hashes(StableFilter *f, const uint64_t *h, size_t n);
extern bool stable_contains_hash(const StableFilter *f, uint64_t h);

/* the models of the header comment */
extern double stable_p0(uint64_t cells, uint32_t k, uint32_t p, int cell_bits);
extern double stable_fpr_bound(uint64_t cells, uint32_t k, uint32_t p, int cell_bits);
extern double stable_fnr_after(uint64_t cells, uint32_t k, uint32_t p, int cell_bits,
							   double n);
extern double stable_half_life(uint64_t cells, uint32_t k, uint32_t p, int cell_bits);

/* the false-positive rate now, from the fill (fill^K) */
extern double stable_fpr_now(const StableFilter *f);

/* value of cell i (exposed for tests) */
extern unsigned stable_cell(const StableFilter *f, uint64_t i);

/* check a value from outside: exact length, parameters, counters */
extern BfStatus stable_check(const void *data, size_t len, char *errbuf);

#endif							/* STABLE_H */
