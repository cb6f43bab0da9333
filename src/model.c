/*
 * model.c
 *		False-positive model and size search for Bloom-style arrays of
 *		cells, no fmgr: the bits of a bloomfilter, the counters of a
 *		countingbloom (a probe fails on a zero cell either way).
 *
 * Cells come in blocks of block_cells (a key's k cells all in its block),
 * or block_cells = 0 for the standard layout (k cells across the array).
 */
#include "bfcore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double
bf_expected_fill(uint64_t n, uint64_t ncells, uint32_t k)
{
	return -expm1((double) k * (double) n * log1p(-1.0 / (double) ncells));
}

/*
 * Exact rate of one block of B cells after t cell-sets at uniform random
 * positions (with repeats), probed at k uniform positions: E[(c/B)^k]
 * over the occupancy distribution of c, by the exact dynamic programme
 * over t; and E[(c/B)^2k] for the variance.  They depend only on (B, k, t),
 * so each table is computed once per process (a few ms) and kept.  Past
 * t = 16 B a block is saturated (rate 1 to 7 digits).
 */
typedef struct BlockRates
{
	uint32_t	block_cells;
	uint32_t	k;
	uint32_t	tmax;			/* tables end here: 16 * block_cells */
	uint32_t	tnext;			/* r1, r2 are filled for t < tnext */
	double	   *r1;
	double	   *r2;
	double	   *occ;			/* occupancy distribution after tnext sets */
	double	   *pw;				/* (c/B)^k */
} BlockRates;

#define MAX_BLOCK_RATE_TABLES 256

static BlockRates block_rate_tables[MAX_BLOCK_RATE_TABLES];
static int	n_block_rate_tables;

/*
 * The tables for (B, k), filled at least up to t = tneed (capped at tmax).
 * They are extended only as far as asked (doubling), since most geometries
 * need t up to a few times B, and the whole table costs O(tmax B) per k:
 * the first filter of a backend is sized without filling tables it does
 * not read.
 */
static const BlockRates *
block_rates(uint32_t B, uint32_t k, uint64_t tneed)
{
	BlockRates *br = NULL;
	uint32_t	upto;
	double		invB;

	for (int i = 0; i < n_block_rate_tables; i++)
		if (block_rate_tables[i].block_cells == B && block_rate_tables[i].k == k)
		{
			br = &block_rate_tables[i];
			break;
		}
	if (br == NULL)
	{
		if (n_block_rate_tables == MAX_BLOCK_RATE_TABLES)
			n_block_rate_tables = 0;	/* more geometries than ever seen: recycle */
		br = &block_rate_tables[n_block_rate_tables];
		free(br->r1);
		free(br->r2);
		free(br->occ);
		free(br->pw);
		br->block_cells = 0;
		br->tmax = 16 * B;
		br->tnext = 0;
		br->r1 = malloc(sizeof(double) * (br->tmax + 1));
		br->r2 = malloc(sizeof(double) * (br->tmax + 1));
		br->occ = malloc(sizeof(double) * (B + 1));
		br->pw = malloc(sizeof(double) * (B + 1));
		if (!br->r1 || !br->r2 || !br->occ || !br->pw)
		{
			free(br->r1);
			free(br->r2);
			free(br->occ);
			free(br->pw);
			br->r1 = br->r2 = br->occ = br->pw = NULL;
			return NULL;
		}
		for (uint32_t c = 0; c <= B; c++)
		{
			br->pw[c] = pow((double) c / B, (double) k);
			br->occ[c] = 0.0;
		}
		br->occ[0] = 1.0;
		br->block_cells = B;
		br->k = k;
		n_block_rate_tables++;
	}
	if (tneed > br->tmax)
		tneed = br->tmax;
	if (tneed < br->tnext)
		return br;
	invB = (B & (B - 1)) == 0 ? 1.0 / B : 0.0;
	upto = (uint32_t) tneed;
	if (upto < 2 * br->tnext)
		upto = 2 * br->tnext < br->tmax ? 2 * br->tnext : br->tmax;
	for (uint32_t t = br->tnext; t <= upto; t++)
	{
		uint32_t	top = t < B ? t : B;
		double		sum = 0.0,
					sum2 = 0.0;
		double	   *occ = br->occ;

		for (uint32_t c = 1; c <= top; c++)
		{
			sum += occ[c] * br->pw[c];
			sum2 += occ[c] * br->pw[c] * br->pw[c];
		}
		br->r1[t] = sum;
		br->r2[t] = sum2;
		/*
		 * one more cell-set: stays at c with probability c/B, else c+1.
		 * For B a power of two, x / B and x * (1 / B) are the same exact
		 * scaling, so the same double, without a division's latency in
		 * this O(t B) loop.
		 */
		if (invB != 0.0)
			for (uint32_t c = (top + 1 < B ? top + 1 : B); c >= 1; c--)
				occ[c] = occ[c] * c * invB + occ[c - 1] * (B - c + 1) * invB;
		else
			for (uint32_t c = (top + 1 < B ? top + 1 : B); c >= 1; c--)
				occ[c] = occ[c] * c / B + occ[c - 1] * (B - c + 1) / B;
		occ[0] = 0.0;

		/*
		 * A table of a stage with many hashes takes seconds (t up to 16 B,
		 * B a step each), so the loop answers a cancel; the table is then
		 * exactly as filled as tnext says, occ advanced to it, and the
		 * next call goes on from there.
		 */
		br->tnext = t + 1;
		bf_check_interrupts_every(t, 16);
	}
	return br;
}

/*
 * The Poisson(lambda) probabilities of loads lo .. hi, lambda = n / nblocks.
 * They do not depend on k, and a size search asks for the same (n, nblocks)
 * with up to ten k in a row: the last set is kept.  Each weight is the same
 * expression as ever (log(lambda) is a pure function: computing it once
 * gives the same double), so the model's results are unchanged to the bit.
 */
static const double *
poisson_weights(uint64_t n, uint64_t nblocks, double lambda, uint64_t lo, uint64_t hi)
{
	static uint64_t last_n,
				last_nblocks;
	static double *w;
	static uint64_t w_len;
	double		loglambda;

	if (w != NULL && last_n == n && last_nblocks == nblocks)
		return w;
	if (hi - lo + 1 > w_len)
	{
		free(w);
		w_len = hi - lo + 1;
		w = malloc(sizeof(double) * w_len);
		if (w == NULL)
		{
			w_len = 0;
			return NULL;
		}
	}
	last_n = last_nblocks = 0;
	loglambda = log(lambda);
	for (uint64_t j = lo; j <= hi; j++)
		w[j - lo] = exp(-lambda + (double) j * loglambda - lgamma((double) j + 1.0));
	last_n = n;
	last_nblocks = nblocks;
	return w;
}

void
bf_model_rate_cells(uint64_t n, uint64_t ncells, uint32_t k, uint32_t block_cells,
					double *mean, double *sd)
{
	double		lambda,
				sum = 0.0,
				sum2 = 0.0,
				lsd;
	uint64_t	nblocks,
				lo,
				hi;
	const BlockRates *br;
	const double *weights;

	*mean = *sd = 0.0;
	if (n == 0)
		return;
	if (block_cells == 0)
	{
		double		m = (double) ncells;
		double		t = (double) k * (double) n;
		double		fill = bf_expected_fill(n, ncells, k);
		double		var = m * (m - 1) * exp(t * log1p(-2.0 / m)) + m * exp(t * log1p(-1.0 / m))
			- m * m * exp(2.0 * t * log1p(-1.0 / m));

		*mean = pow(fill, (double) k);
		/* delta method: the rate is (X/m)^k for X cells set */
		if (var > 0 && fill > 0)
			*sd = (double) k * pow(fill, (double) k - 1) * sqrt(var) / m;
		return;
	}

	/*
	 * Blocked: a block's load j is Poisson(n / nblocks); a key probes one
	 * block, so the rate is the mean over j of the exact block rate after
	 * k*j cell-sets, and a filter's rate is the mean of nblocks such.
	 */
	nblocks = ncells / block_cells;
	lambda = (double) n / (double) nblocks;

	/*
	 * Past 64 probes per cell every block is full to within e^-64: the
	 * rate is 1.  Say so at once, or the sum below would take ~24*sqrt(n)
	 * steps: hours for a crafted value claiming a capacity near 2^62, in a
	 * loop no query cancel can reach.
	 */
	if ((double) k * lambda > 64.0 * (double) block_cells)
	{
		*mean = 1.0;
		return;
	}
	lsd = sqrt(lambda);
	lo = (lambda - 12 * lsd - 12 > 0) ? (uint64_t) (lambda - 12 * lsd - 12) : 0;
	hi = (uint64_t) (lambda + 12 * lsd + 24);
	br = block_rates(block_cells, k, (uint64_t) k * hi);
	weights = poisson_weights(n, nblocks, lambda, lo, hi);
	if (br == NULL || weights == NULL)
	{
		*mean = *sd = 1.0;		/* out of memory: claim nothing */
		return;
	}
	for (uint64_t j = lo; j <= hi; j++)
	{
		double		p = weights[j - lo];
		uint64_t	t = (uint64_t) k * j;

		sum += p * (t <= br->tmax ? br->r1[t] : 1.0);
		sum2 += p * (t <= br->tmax ? br->r2[t] : 1.0);
	}
	*mean = sum;
	*sd = sum2 > sum * sum ? sqrt((sum2 - sum * sum) / (double) nblocks) : 0.0;
}

double
bf_model_fpr_cells(uint64_t n, uint64_t ncells, uint32_t k, uint32_t block_cells)
{
	double		mean,
				sd;

	bf_model_rate_cells(n, ncells, k, block_cells, &mean, &sd);
	return mean;
}

/*
 * What sizing compares with the target: the expected rate over the
 * sizing margin, and the rate three standard deviations up over the fill
 * margin, so that a filter fed its capacity reaches it before it is full
 * in all but about one case in a thousand.
 */
double
bf_sizing_rate(uint64_t n, uint64_t ncells, uint32_t k, uint32_t block_cells)
{
	double		mean,
				sd,
				a,
				b;

	bf_model_rate_cells(n, ncells, k, block_cells, &mean, &sd);
	a = mean / BF_SIZING_MARGIN;
	b = (mean + 3.0 * sd) / BF_FILL_MARGIN;
	return a > b ? a : b;
}

/*
 * Best k for a given size.  The rate is unimodal in k, so walk from the
 * standard layout's optimum, ncells/n * ln 2, downhill.  A blocked layout's
 * optimum can lie far below that one when the rate is low (at 1e-4 with
 * 128-cell blocks, k = 10 against 22), so the walk is not bounded: a
 * fixed window around ln 2 * ncells/n missed it there and sized such
 * filters several times too big.
 */
static double
best_rate(uint64_t n, uint64_t ncells, uint32_t block_cells, uint32_t *best_k)
{
	double		ideal = (double) ncells / (double) n * M_LN2;
	uint32_t	start = ideal < 1.0 ? 1 :
		ideal >= BF_MAX_HASHES ? BF_MAX_HASHES : (uint32_t) (ideal + 0.5);
	uint32_t	k = start;
	double		best = bf_sizing_rate(n, ncells, k, block_cells);

	while (k > 1)
	{
		double		r = bf_sizing_rate(n, ncells, k - 1, block_cells);

		if (!(r < best))
			break;
		best = r;
		k--;
	}
	if (k == start)
	{
		while (k < BF_MAX_HASHES)
		{
			double		r = bf_sizing_rate(n, ncells, k + 1, block_cells);

			if (!(r < best))
				break;
			best = r;
			k++;
		}
	}
	*best_k = k;
	return best;
}

/*
 * Sizing searches the model tens of times, each a sum over a block's
 * loads.  A query that creates one filter per group (bloom_agg
 * with GROUP BY, bloom_create in a select list) mostly asks for the same few
 * geometries over and over, so the answers are kept, by their inputs, in a
 * small direct-mapped table.
 */
typedef struct GeometryMemo
{
	uint32_t	block_cells;
	uint32_t	nhashes;
	uint32_t	slack_permille;
	uint64_t	unit;
	uint64_t	max_units;
	uint64_t	capacity;
	double		fpr;
	uint64_t	ncells;			/* 0: empty slot */
} GeometryMemo;

#define GEOMETRY_MEMO_SLOTS 1024

static GeometryMemo geometry_memo[GEOMETRY_MEMO_SLOTS];

static GeometryMemo *
geometry_memo_slot(uint32_t block_cells, uint64_t unit, uint64_t max_units,
				   uint64_t capacity, double fpr, uint32_t slack_permille)
{
	uint64_t	fbits;
	uint64_t	x;

	memcpy(&fbits, &fpr, sizeof(fbits));
	x = bf_remix(capacity ^ bf_remix(fbits ^ bf_remix(unit ^ ((uint64_t) block_cells << 32) ^
													 bf_remix(max_units ^ ((uint64_t) slack_permille << 48)))));
	return &geometry_memo[x % GEOMETRY_MEMO_SLOTS];
}

static BfStatus cells_geometry_search(uint32_t block_cells, uint64_t unit,
									  uint64_t max_units, uint64_t capacity,
									  double fpr, uint64_t *ncells,
									  uint32_t *nhashes, char *errbuf);
static void fewer_hashes(uint32_t block_cells, uint64_t unit, uint64_t max_units,
						 uint64_t capacity, double fpr, uint32_t slack_permille,
						 uint64_t *ncells, uint32_t *nhashes);

BfStatus
bf_cells_geometry(uint32_t block_cells, uint64_t unit, uint64_t max_units,
				  uint64_t capacity, double fpr, uint32_t slack_permille,
				  uint64_t *ncells, uint32_t *nhashes, char *errbuf)
{
	GeometryMemo *m = geometry_memo_slot(block_cells, unit, max_units, capacity,
										 fpr, slack_permille);
	BfStatus	st;

	if (m->ncells != 0 && m->block_cells == block_cells && m->unit == unit &&
		m->max_units == max_units && m->capacity == capacity && m->fpr == fpr &&
		m->slack_permille == slack_permille)
	{
		*ncells = m->ncells;
		*nhashes = m->nhashes;
		return BF_OK;
	}
	st = cells_geometry_search(block_cells, unit, max_units, capacity, fpr,
							   ncells, nhashes, errbuf);
	if (st == BF_OK && slack_permille > 0)
		fewer_hashes(block_cells, unit, max_units, capacity, fpr, slack_permille,
					 ncells, nhashes);
	if (st == BF_OK)
	{
		m->block_cells = block_cells;
		m->slack_permille = slack_permille;
		m->unit = unit;
		m->max_units = max_units;
		m->capacity = capacity;
		m->fpr = fpr;
		m->ncells = *ncells;
		m->nhashes = *nhashes;
	}
	return st;
}

static BfStatus
cells_geometry_search(uint32_t block_cells, uint64_t unit, uint64_t max_units,
					  uint64_t capacity, double fpr, uint64_t *ncells,
					  uint32_t *nhashes, char *errbuf)
{
	double		ideal_cells = -(double) capacity * log(fpr * BF_SIZING_MARGIN) / (M_LN2 * M_LN2);
	uint64_t	lo,
				hi;
	uint32_t	k;

	/* the smallest size that could possibly work, and one that surely does */
	lo = (uint64_t) (ideal_cells * 0.9 / (double) unit);
	if (lo < 1)
		lo = 1;
	if (lo > max_units)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE, "filter too large");
	hi = lo;
	while (best_rate(capacity, hi * unit, block_cells, &k) > fpr)
	{
		if (hi >= max_units)
			return bf_fail(errbuf, BF_ERR_TOO_LARGE, "filter too large");
		lo = hi;
		hi = hi * 2 > max_units ? max_units : hi * 2;
	}
	/* invariant: hi works; lo does not (or lo == hi) */
	while (lo + 1 < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (best_rate(capacity, mid * unit, block_cells, &k) <= fpr)
			hi = mid;
		else
			lo = mid;
	}
	if (lo != hi && best_rate(capacity, lo * unit, block_cells, &k) <= fpr)
		hi = lo;
	*ncells = hi * unit;
	(void) best_rate(capacity, *ncells, block_cells, &k);
	*nhashes = k;
	return BF_OK;
}

/*
 * Given the smallest geometry (*ncells, *nhashes), the fewest hashes whose
 * own smallest array is at most slack_permille per mille larger, and that
 * array.  Fewer hashes per element leave more cells at zero, and the fewer
 * cells are set, the less there is to store: this is the trade of
 * compressed Bloom filters (Mitzenmacher 2002), a little more memory for a
 * value that compresses much better.  Fewer hashes are also fewer cells to
 * read: in the standard layout each is a cache line of its own.  Every k
 * tried meets the same sizing rate, so the margins hold whatever k is
 * chosen.
 */
static void
fewer_hashes(uint32_t block_cells, uint64_t unit, uint64_t max_units,
			 uint64_t capacity, double fpr, uint32_t slack_permille, uint64_t *ncells,
			 uint32_t *nhashes)
{
	uint64_t	best_units = *ncells / unit;
	uint64_t	limit = best_units + best_units * slack_permille / 1000;

	if (limit > max_units)
		limit = max_units;

	for (uint32_t k = 1; k < *nhashes; k++)
	{
		uint64_t	units = bf_smallest_units_k(capacity, fpr, k, block_cells, unit,
												best_units, limit);

		if (units != 0)
		{
			*ncells = units * unit;
			*nhashes = k;
			return;
		}
	}
}

/*
 * The fewest units in lo .. hi (each unit cells) meeting fpr with k
 * hashes, or 0 if hi does not: the rate falls as the array grows, k fixed.
 */
uint64_t
bf_smallest_units_k(uint64_t n, double fpr, uint32_t k, uint32_t block_cells,
					uint64_t unit, uint64_t lo, uint64_t hi)
{
	if (lo < 1)
		lo = 1;
	if (hi < lo || bf_sizing_rate(n, hi * unit, k, block_cells) > fpr)
		return 0;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (bf_sizing_rate(n, mid * unit, k, block_cells) <= fpr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
