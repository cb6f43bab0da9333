/*
 * stable.c
 *		Stable Bloom filter maths, no fmgr.  See stable.h for the value
 *		layout and the models.
 */
#include "stable.h"

#include <math.h>
#include <stdio.h>

/* odd constant (2^64 / golden ratio): remix chain step and splitmix64 */
#define STABLE_STEP UINT64_C(0x9E3779B97F4A7C15)

/* the splitmix64 generator: tiny state, passes BigCrush, trivially portable */
static inline uint64_t
splitmix64_next(uint64_t *state)
{
	uint64_t	z = (*state += STABLE_STEP);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline unsigned
cell_max(int cell_bits)
{
	return (1u << cell_bits) - 1;
}

/* payload bytes of m cells of d bits: whole 8-byte words */
static uint64_t
payload_bytes(uint64_t cells, int cell_bits)
{
	uint64_t	bytes = (cells * (uint64_t) cell_bits + 7) / 8;

	return (bytes + 7) & ~(uint64_t) 7;
}

uint64_t
stable_max_cells(int cell_bits)
{
	uint64_t	bytes = (BF_MAX_VALUE_BYTES - STABLE_HEADER_SIZE) & ~(uint64_t) 7;

	return bytes * 8 / (uint64_t) cell_bits;
}

size_t
stable_size(uint64_t cells, int cell_bits)
{
	return (size_t) (STABLE_HEADER_SIZE + payload_bytes(cells, cell_bits));
}

/*
 * Cells straddle byte boundaries for widths that do not divide 8, so read
 * and write through a 16-bit window; the second byte is touched only when
 * the cell really reaches into it, so no padding byte is needed.
 */
static inline unsigned
get_cell(const uint8_t *data, uint64_t i, int d)
{
	uint64_t	bit = i * (uint64_t) d;
	uint64_t	byte = bit >> 3;
	unsigned	sh = (unsigned) (bit & 7);
	unsigned	w = data[byte];

	if (sh + (unsigned) d > 8)
		w |= (unsigned) data[byte + 1] << 8;
	return (w >> sh) & cell_max(d);
}

static inline void
put_cell(uint8_t *data, uint64_t i, int d, unsigned v)
{
	uint64_t	bit = i * (uint64_t) d;
	uint64_t	byte = bit >> 3;
	unsigned	sh = (unsigned) (bit & 7);
	unsigned	mask = cell_max(d) << sh;
	unsigned	w = data[byte];

	if (sh + (unsigned) d > 8)
		w |= (unsigned) data[byte + 1] << 8;
	w = (w & ~mask) | ((v << sh) & mask);
	data[byte] = (uint8_t) w;
	if (sh + (unsigned) d > 8)
		data[byte + 1] = (uint8_t) (w >> 8);
}

unsigned
stable_cell(const StableFilter *f, uint64_t i)
{
	return get_cell(f->data, i, f->cell_bits);
}

/* ---- models ---- */

/* Deng and Rafiei's fraction of zero cells at the stable point */
double
stable_p0(uint64_t cells, uint32_t k, uint32_t p, int cell_bits)
{
	double		t = (double) p * (1.0 / (double) k - 1.0 / (double) cells);

	return pow(1.0 / (1.0 + 1.0 / t), (double) cell_max(cell_bits));
}

double
stable_fpr_bound(uint64_t cells, uint32_t k, uint32_t p, int cell_bits)
{
	return pow(1.0 - stable_p0(cells, k, p, cell_bits), (double) k);
}

/*
 * Pr[Binomial(n, e) >= M] for 1 <= M <= 255 and n up to 2^53: the upper
 * tail summed directly when it is small (so tiny rates keep their
 * precision), else one minus the lower M terms.  log C(n, i) is built up
 * term by term, exact enough for huge n where lgamma differences are not.
 */
static double
binomial_tail(double n, double e, unsigned M)
{
	double		lr,
				lp,
				sum = 0.0;

	if (n < (double) M || e <= 0.0)
		return 0.0;
	if (e >= 1.0)
		return 1.0;
	lr = log(e) - log1p(-e);
	lp = n * log1p(-e);			/* log Pr[X = 0] */
	if (n * e < (double) M)
	{
		for (unsigned i = 0; i < M; i++)
			lp += log((n - i) / (i + 1.0)) + lr;
		for (double i = M; i <= n; i += 1.0)
		{
			double		t = exp(lp);

			sum += t;
			if (t <= sum * 1e-17 || i > M + 100000.0)
				break;
			lp += log((n - i) / (i + 1.0)) + lr;
		}
		return sum < 1.0 ? sum : 1.0;
	}
	for (unsigned i = 0; i < M; i++)
	{
		sum += exp(lp);
		lp += log((n - i) / (i + 1.0)) + lr;
	}
	return sum < 1.0 ? 1.0 - sum : 0.0;
}

double
stable_fnr_after(uint64_t cells, uint32_t k, uint32_t p, int cell_bits, double n)
{
	double		m = (double) cells;
	double		q = (double) k / m;
	double		dec = (double) p / m;
	double		e = q + (1.0 - q) * (dec < 1.0 ? dec : 1.0);
	double		z;

	if (e > 1.0)
		e = 1.0;
	z = stable_p0(cells, k, p, cell_bits) * binomial_tail(n, e, cell_max(cell_bits));
	return -expm1((double) k * log1p(-z));
}

/* smallest N at which FNR(N) reaches half its limit 1 - FPS */
double
stable_half_life(uint64_t cells, uint32_t k, uint32_t p, int cell_bits)
{
	double		target = (1.0 - stable_fpr_bound(cells, k, p, cell_bits)) / 2.0;
	double		lo = 0.0,
				hi = (double) cell_max(cell_bits);

	if (!(target > 0.0))
		return 0.0;

	/*
	 * A step can sum 100,000 binomial terms (binomial_tail), and
	 * stable_choose finds a half-life for every K it tries: interruptible
	 * step by step.
	 */
	while (stable_fnr_after(cells, k, p, cell_bits, hi) < target)
	{
		bf_check_interrupts();
		lo = hi;
		hi *= 2.0;
		if (hi > 9e15)
			return hi;
	}
	/* invariant: FNR(lo) < target <= FNR(hi), integers */
	while (hi - lo > 1.0)
	{
		double		mid = floor((lo + hi) / 2.0);

		bf_check_interrupts();
		if (stable_fnr_after(cells, k, p, cell_bits, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* ---- parameters ---- */

BfStatus
stable_choose(int64_t cells, double fpr, int cell_bits, StableParams *out,
			  char *errbuf)
{
	unsigned	M;
	uint64_t	m;
	uint32_t	kmax;
	bool		found = false;

	if (cell_bits < 1 || cell_bits > 8)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "cell_bits must be between 1 and 8 (got %d)", cell_bits);
	if (cells < STABLE_MIN_CELLS)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "cells must be at least %d (got %lld)", STABLE_MIN_CELLS,
					   (long long) cells);
	if (!(fpr > 0.0 && fpr < 1.0))
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be greater than 0 and less than 1 (got %g)", fpr);
	if (fpr < 1e-15)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be at least 1e-15 (got %g)", fpr);
	if ((uint64_t) cells > stable_max_cells(cell_bits))
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "a stablebloom of %lld cells of %d bits would exceed the 1 GB value limit (at most %llu cells)",
					   (long long) cells, cell_bits,
					   (unsigned long long) stable_max_cells(cell_bits));

	m = (uint64_t) cells;
	M = cell_max(cell_bits);
	kmax = m - 1 < STABLE_MAX_HASHES ? (uint32_t) (m - 1) : STABLE_MAX_HASHES;
	for (uint32_t k = 1; k <= kmax; k++)
	{
		double		p0 = 1.0 - pow(fpr, 1.0 / k);	/* zero fraction needed */
		double		x = pow(p0, -1.0 / M) - 1.0;
		double		pstar = 1.0 / (x * (1.0 / k - 1.0 / (double) m));
		uint32_t	p;
		double		hl;

		if (!(pstar <= STABLE_MAX_DECREMENT + 1.0))
			continue;
		p = pstar < 1.0 ? 1 : (uint32_t) ceil(pstar);
		/* settle rounding either way: the smallest P that meets the rate */
		while (p <= STABLE_MAX_DECREMENT && stable_fpr_bound(m, k, p, cell_bits) > fpr)
			p++;
		while (p > 1 && stable_fpr_bound(m, k, p - 1, cell_bits) <= fpr)
			p--;
		if (p > STABLE_MAX_DECREMENT)
			continue;
		hl = stable_half_life(m, k, p, cell_bits);
		if (!found || hl > out->half_life)
		{
			out->hashes = k;
			out->decrement = p;
			out->half_life = hl;
			out->fpr_bound = stable_fpr_bound(m, k, p, cell_bits);
			found = true;
		}
	}
	if (!found)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr %g cannot be reached with %lld cells of %d bits (it would take more than %d decrements per insert)",
					   fpr, (long long) cells, cell_bits, STABLE_MAX_DECREMENT);
	return BF_OK;
}

void
stable_init(void *buf, size_t size, uint64_t cells, int cell_bits, double fpr,
			const StableParams *p, uint64_t seed)
{
	StableFilter *f = (StableFilter *) buf;

	bf_zero((uint8_t *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_STABLE, seed);
	f->cells = cells;
	f->cell_bits = (uint8_t) cell_bits;
	f->hashes = (uint16_t) p->hashes;
	f->decrement = p->decrement;
	f->fpr = fpr;
	f->inserted = 0;
	f->nonzero = 0;
	f->rng = STABLE_RNG_INIT ^ seed;
}

/* ---- insert and probe ---- */

static inline void
element_cells(const StableFilter *f, uint64_t h, uint64_t *pos)
{
	uint64_t	x = h;

	for (uint32_t i = 0; i < f->hashes; i++)
	{
		pos[i] = bf_range64(x, f->cells);
		x = bf_remix(x + STABLE_STEP);
	}
}

bool
stable_contains_hash(const StableFilter *f, uint64_t h)
{
	uint64_t	x = h;

	for (uint32_t i = 0; i < f->hashes; i++)
	{
		if (get_cell(f->data, bf_range64(x, f->cells), f->cell_bits) == 0)
			return false;
		x = bf_remix(x + STABLE_STEP);
	}
	return true;
}

/*
 * The paper's insert: probe, decrement P random cells, set the element's
 * K cells to Max.  The probe comes first so the answer is "seen before
 * this insert", what duplicate detection on a stream asks.
 */
bool
stable_add_hash(StableFilter *f, uint64_t h)
{
	uint64_t	pos[STABLE_MAX_HASHES];
	int			d = f->cell_bits;
	unsigned	M = cell_max(d);
	bool		present = true;
	uint64_t	rng = f->rng;

	element_cells(f, h, pos);
	for (uint32_t i = 0; i < f->hashes; i++)
		if (get_cell(f->data, pos[i], d) == 0)
		{
			present = false;
			break;
		}

	for (uint32_t j = 0; j < f->decrement; j++)
	{
		uint64_t	c = bf_range64(splitmix64_next(&rng), f->cells);
		unsigned	v = get_cell(f->data, c, d);

		if (v > 0)
		{
			put_cell(f->data, c, d, v - 1);
			if (v == 1)
				f->nonzero--;
		}
	}
	f->rng = rng;

	for (uint32_t i = 0; i < f->hashes; i++)
	{
		if (get_cell(f->data, pos[i], d) == 0)
			f->nonzero++;
		put_cell(f->data, pos[i], d, M);
	}
	f->inserted++;
	return present;
}

/*
 * An insert updates P + K cells, P up to STABLE_MAX_DECREMENT, so the
 * interrupt checks of a long array come by that work rather than by
 * elements: between inserts, never inside one.
 */
void
stable_add_hashes(StableFilter *f, const uint64_t *h, size_t n)
{
	uint64_t	per = (uint64_t) f->decrement + f->hashes,
				work = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (work >= BF_INTERRUPT_CHUNK)
		{
			bf_check_interrupts();
			work = 0;
		}
		(void) stable_add_hash(f, h[i]);
		work += per;
	}
}

double
stable_fpr_now(const StableFilter *f)
{
	return pow((double) f->nonzero / (double) f->cells, (double) f->hashes);
}

/* ---- validation ---- */

/*
 * Everything a value from outside could get wrong: lengths, parameter
 * ranges (so no loop runs away and no cell index leaves the payload), a
 * K and P that really deliver the stated rate, zero padding, and the
 * non-zero count.
 */
BfStatus
stable_check(const void *data, size_t len, char *errbuf)
{
	const StableFilter *f = (const StableFilter *) data;
	BfStatus	st;
	uint64_t	payload,
				used_bits,
				count = 0;

	st = bf_check_header(data, len, STABLE_HEADER_SIZE, BF_KIND_STABLE,
						 "stablebloom", errbuf);
	if (st != BF_OK)
		return st;
	if ((f->hdr.flags & ~STABLE_FLAGS_ALL) != 0 ||
		(f->hdr.flags & STABLE_FLAGS_ALL) == STABLE_FLAGS_ALL)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom flags 0x%02x",
					   f->hdr.flags);
	if (f->reserved0 != 0 || f->reserved1 != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "stablebloom reserved fields are not zero");
	if (f->cell_bits < 1 || f->cell_bits > 8)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom cell width %u",
					   f->cell_bits);
	if (f->cells < STABLE_MIN_CELLS || f->cells > stable_max_cells(f->cell_bits))
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom cell count %llu",
					   (unsigned long long) f->cells);
	if (len != stable_size(f->cells, f->cell_bits))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "stablebloom value has %zu bytes, its geometry needs %zu",
					   len, stable_size(f->cells, f->cell_bits));
	if (f->hashes < 1 || f->hashes > STABLE_MAX_HASHES || f->hashes >= f->cells)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom hash count %u",
					   f->hashes);
	if (f->decrement < 1 || f->decrement > STABLE_MAX_DECREMENT)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom decrement count %u",
					   f->decrement);
	if (bf_check_params(1, f->fpr, NULL) != BF_OK)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid stablebloom fpr %g", f->fpr);
	if (stable_fpr_bound(f->cells, f->hashes, f->decrement, f->cell_bits) > f->fpr * (1.0 + 1e-9))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "stablebloom hashes %u and decrement %u do not deliver its fpr %g",
					   f->hashes, f->decrement, f->fpr);

	payload = len - STABLE_HEADER_SIZE;
	used_bits = f->cells * f->cell_bits;
	for (uint64_t b = used_bits; b < payload * 8; b++)
		if (f->data[b >> 3] & (1u << (b & 7)))
			return bf_fail(errbuf, BF_ERR_CORRUPT, "stablebloom padding bits are not zero");
	for (uint64_t i = 0; i < f->cells; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES);
		count += get_cell(f->data, i, f->cell_bits) != 0;
	}
	if (count != f->nonzero)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "stablebloom non-zero cell count is %llu, its cells have %llu",
					   (unsigned long long) f->nonzero, (unsigned long long) count);
	return BF_OK;
}
