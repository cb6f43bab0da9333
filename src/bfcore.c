/*
 * bfcore.c
 *		Shared plain-C pieces: header checks, element hashing, base64.
 */
#include "bfcore.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

BfStatus
bf_fail(char *errbuf, BfStatus status, const char *fmt,...)
{
	va_list		ap;

	if (errbuf)
	{
		va_start(ap, fmt);
		vsnprintf(errbuf, BF_ERRLEN, fmt, ap);
		va_end(ap);
	}
	return status;
}

void
bf_init_header(void *data, BfKind kind, uint64_t seed)
{
	BfHeader   *h = (BfHeader *) data;

	h->kind = (uint8_t) kind;
	h->version = BF_FORMAT_VERSION;
	h->hash_id = BF_HASH_XXH3_64;
	h->flags = 0;
	h->seed = seed;
	h->reserved = 0;
}

/*
 * The checks every value passes before its type looks at it.  Flags are
 * type specific, so they are left to the caller.
 */
BfStatus
bf_check_header(const void *data, size_t len, size_t min_len, BfKind kind,
				const char *type_name, char *errbuf)
{
	const BfHeader *h = (const BfHeader *) data;

	if (len < sizeof(BfHeader) || len < min_len)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "%s value is too short (%zu bytes, need at least %zu)",
					   type_name, len, min_len > sizeof(BfHeader) ? min_len : sizeof(BfHeader));
	if (h->kind != (uint8_t) kind)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "value is not a %s (type tag %u, expected %u)",
					   type_name, h->kind, (unsigned) kind);
	if (h->version != BF_FORMAT_VERSION)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "unsupported %s format version %u (this build reads version %u)",
					   type_name, h->version, BF_FORMAT_VERSION);
	if (h->hash_id != BF_HASH_XXH3_64)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "unsupported %s hash function %u", type_name, h->hash_id);
	if (h->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "%s header reserved field is not zero", type_name);
	return BF_OK;
}

/* capacity and fpr checks shared by every create function and aggregate */
BfStatus
bf_check_params(int64_t capacity, double fpr, char *errbuf)
{
	if (capacity < 1)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "capacity must be at least 1 (got %lld)", (long long) capacity);
	if (!(fpr > 0.0 && fpr < 1.0))
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be greater than 0 and less than 1 (got %g)", fpr);
	if (fpr < 1e-15)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr must be at least 1e-15 (got %g)", fpr);
	return BF_OK;
}

uint64_t
bf_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(data, len, seed);
}

/* bigint elements hash as their 8 little-endian bytes on every platform */
uint64_t
bf_hash_int64(int64_t value, uint64_t seed)
{
	uint8_t		b[8];
	uint64_t	v = (uint64_t) value;

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t) (v >> (8 * i));
	return XXH3_64bits_withSeed(b, 8, seed);
}

uint64_t
bf_hash_uuid(const uint8_t bytes[16], uint64_t seed)
{
	return XXH3_64bits_withSeed(bytes, 16, seed);
}

int
bf_popcount64(uint64_t x)
{
	return __builtin_popcountll(x);
}

uint64_t
bf_popcount_bytes(const uint8_t *p, size_t len)
{
	uint64_t	n = 0;
	size_t		i = 0;

	for (; i + 8 <= len; i += 8)
	{
		uint64_t	w;

		memcpy(&w, p + i, 8);
		n += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < len; i++)
		n += (uint64_t) __builtin_popcount(p[i]);
	return n;
}

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
bf_base64_encoded_len(size_t len)
{
	return (len + 2) / 3 * 4;
}

void
bf_base64_encode(const uint8_t *src, size_t len, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= len; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64_alphabet[(v >> 18) & 63];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = b64_alphabet[(v >> 6) & 63];
		*dst++ = b64_alphabet[v & 63];
	}
	if (len - i == 1)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		*dst++ = b64_alphabet[(v >> 18) & 63];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = '=';
		*dst++ = '=';
	}
	else if (len - i == 2)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8);

		*dst++ = b64_alphabet[(v >> 18) & 63];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = b64_alphabet[(v >> 6) & 63];
		*dst++ = '=';
	}
}

size_t
bf_base64_decoded_maxlen(size_t len)
{
	return len / 4 * 3;
}

static int
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Strict decoder: length a multiple of 4, padding only at the end, unused
 * bits of the last group zero.  So every value has exactly one text form.
 */
size_t
bf_base64_decode(const char *src, size_t len, uint8_t *dst)
{
	size_t		out = 0;

	if (len % 4 != 0)
		return (size_t) -1;
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			pad = 0;
		bool		last = (i + 4 == len);

		for (int j = 0; j < 4; j++)
		{
			char		c = src[i + j];

			if (c == '=' && last && j >= 2)
			{
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad > 0)
				return (size_t) -1;	/* data after padding */
			v[j] = b64_value(c);
			if (v[j] < 0)
				return (size_t) -1;
		}
		if (pad == 2 && (v[1] & 15) != 0)
			return (size_t) -1;
		if (pad == 1 && (v[2] & 3) != 0)
			return (size_t) -1;
		{
			uint32_t	w = ((uint32_t) v[0] << 18) | ((uint32_t) v[1] << 12) |
				((uint32_t) v[2] << 6) | (uint32_t) v[3];

			dst[out++] = (uint8_t) (w >> 16);
			if (pad < 2)
				dst[out++] = (uint8_t) (w >> 8);
			if (pad < 1)
				dst[out++] = (uint8_t) w;
		}
	}
	return out;
}

/* ---- the Bloom false-positive model, shared by the bit and counter filters ---- */

/* fraction of bits set after n elements of k positions each, uniform */
static double
expected_fill(uint64_t n, uint64_t nbits, uint32_t k)
{
	return -expm1((double) k * (double) n * log1p(-1.0 / (double) nbits));
}

/*
 * The model in terms of cells (bits, or counters of a counting filter:
 * a probe fails on a zero cell either way), so every blocked structure
 * shares it whatever its block holds.  block_cells == 0: standard layout.
 */
double
bf_model_fpr_cells(uint64_t n, uint64_t ncells, uint32_t k, uint32_t block_cells)
{
	double		lambda,
				sum = 0.0,
				lq,
				sd;
	uint64_t	nblocks,
				lo,
				hi;

	if (n == 0)
		return 0.0;
	if (block_cells == 0)
		return pow(expected_fill(n, ncells, k), (double) k);

	/*
	 * Blocked: a block's load is Poisson(n / nblocks); a key probes one
	 * block, so the rate is the mean over loads of that block's rate.
	 */
	nblocks = ncells / block_cells;
	lambda = (double) n / (double) nblocks;

	/*
	 * Past 64 probes per cell every block is full to within e^-64: the
	 * rate is 1.  Say so at once, or the sum below would take ~24*sqrt(n)
	 * steps: hours for a crafted value claiming a capacity near 2^62, in
	 * a loop no query cancel can reach.
	 */
	if ((double) k * lambda > 64.0 * (double) block_cells)
		return 1.0;
	lq = log1p(-1.0 / (double) block_cells);
	sd = sqrt(lambda);
	lo = (lambda - 12 * sd - 12 > 0) ? (uint64_t) (lambda - 12 * sd - 12) : 0;
	hi = (uint64_t) (lambda + 12 * sd + 24);
	for (uint64_t j = lo; j <= hi; j++)
	{
		double		p = exp(-lambda + (double) j * log(lambda) - lgamma((double) j + 1.0));
		double		t = (double) k * (double) j;
		double		fill = -expm1(t * lq);
		double		mb = (double) block_cells;
		double		var,
					rate;

		/*
		 * A block's rate is E[(c/B)^k] over its non-zero cell count c,
		 * which Jensen puts above (E[c]/B)^k; add the second-order term
		 * with the occupancy variance of t = k*j balls in B bins.
		 */
		var = mb * (mb - 1) * exp(t * log1p(-2.0 / mb)) + mb * exp(t * lq)
			- mb * mb * exp(2.0 * t * lq);
		var = var > 0 ? var / (mb * mb) : 0.0;
		rate = pow(fill, (double) k);
		if (fill > 0 && k >= 2)
			rate += 0.5 * (double) k * (double) (k - 1) * pow(fill, (double) k - 2) * var;
		sum += p * rate;
	}
	return sum;
}

/* best k for a given size: the model rate is unimodal in k */
static double
best_rate(uint32_t block_cells, uint64_t n, uint64_t ncells, uint32_t *best_k)
{
	double		ideal = (double) ncells / (double) n * M_LN2;
	uint32_t	kmin,
				kmax;
	double		best = 2.0;

	kmin = ideal > 7 ? (uint32_t) (ideal - 6) : 1;
	kmax = (uint32_t) (ideal + 3);
	if (kmax > BF_MAX_HASHES)
		kmax = BF_MAX_HASHES;
	if (kmin > kmax)
		kmin = kmax;
	*best_k = kmin;
	for (uint32_t k = kmin; k <= kmax; k++)
	{
		double		r = bf_model_fpr_cells(n, ncells, k, block_cells);

		if (r < best)
		{
			best = r;
			*best_k = k;
		}
	}
	return best;
}

/*
 * Smallest array of whole units (a 64-bit word, or a block of block_cells
 * cells) whose model rate at capacity is at most target, and its best k:
 * binary search.  Shared by bloomfilter stages and countingbloom.
 */
BfStatus
bf_cells_geometry(uint32_t block_cells, uint64_t unit, uint64_t max_units,
					 uint64_t capacity, double target, uint64_t *ncells,
					 uint32_t *nhashes, char *errbuf)
{
	double		ideal_bits = -(double) capacity * log(target) / (M_LN2 * M_LN2);
	uint64_t	lo,
				hi;
	uint32_t	k;

	/* the smallest size that could possibly work, and one that surely does */
	lo = (uint64_t) (ideal_bits * 0.9 / (double) unit);
	if (lo < 1)
		lo = 1;
	if (lo > max_units)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE, "filter too large");
	hi = lo;
	while (best_rate(block_cells, capacity, hi * unit, &k) > target)
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

		if (best_rate(block_cells, capacity, mid * unit, &k) <= target)
			hi = mid;
		else
			lo = mid;
	}
	if (lo != hi && best_rate(block_cells, capacity, lo * unit, &k) <= target)
		hi = lo;
	*ncells = hi * unit;
	(void) best_rate(block_cells, capacity, *ncells, &k);
	*nhashes = k;
	return BF_OK;
}
