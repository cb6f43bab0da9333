/*
 * keyset.c
 *		Set of distinct 64-bit hashes: the self-sizing aggregates' state.
 */
#include "keyset.h"

#include <stdlib.h>

static inline int
log2_slots(uint64_t nslots)
{
	return 63 - __builtin_clzll(nslots);
}

static inline uint64_t
home_slot(uint64_t h, uint64_t nslots)
{
	/* top bits: the hash is uniform, and sorting keeps slot order */
	return h >> (64 - log2_slots(nslots));
}

size_t
keyset_size_for_slots(uint64_t nslots)
{
	return sizeof(KeySet) + (size_t) nslots * sizeof(uint64_t);
}

void
keyset_init(void *buf, uint64_t nslots, BfKind target, int layout, double fpr,
			uint64_t capacity, uint64_t seed)
{
	KeySet	   *ks = (KeySet *) buf;

	memset((char *) buf + sizeof(uint32_t), 0,
		   keyset_size_for_slots(nslots) - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_KEYSET, seed);
	ks->target = (uint8_t) target;
	ks->layout = (uint16_t) layout;
	ks->fpr = fpr;
	ks->capacity = capacity;
	ks->nslots = nslots;
}

bool
keyset_needs_grow(const KeySet *ks)
{
	uint64_t	stored = ks->count - ks->has_zero;

	return (stored + 1) * KEYSET_MAX_LOAD_DEN > ks->nslots * KEYSET_MAX_LOAD_NUM;
}

uint64_t
keyset_slots_for(uint64_t count)
{
	return (count * KEYSET_MAX_LOAD_DEN) / KEYSET_MAX_LOAD_NUM + 1;
}

/*
 * Doubling, unless the aggregate was given a capacity and a quarter of it
 * is already in: then straight to the table that capacity needs (it can
 * never need more without failing the capacity check), instead of
 * doubling two or three more times.  Each doubling allocates and clears a
 * new table and rehashes everything into it; for 2M distinct inputs into
 * a capacity of 2M that was about half the keyset's time.  The table is
 * then at most 4-8x what the inputs so far need, and never more than the
 * declared capacity needs.
 */
uint64_t
keyset_grow_slots(const KeySet *ks)
{
	uint64_t	next = ks->nslots * 2;
	uint64_t	stored = ks->count - ks->has_zero;

	if (ks->capacity > 0 && stored >= ks->capacity / 4 &&
		ks->capacity <= KEYSET_MAX_COUNT)
	{
		uint64_t	want = keyset_slots_for(ks->capacity);

		while (next < want && next < KEYSET_MAX_SLOTS)
			next *= 2;
	}
	return next;
}

/* insert into the table only; no load check */
static bool
table_insert(KeySet *ks, uint64_t h)
{
	uint64_t	mask = ks->nslots - 1;
	uint64_t	i = home_slot(h, ks->nslots);

	for (;;)
	{
		uint64_t	v = ks->slots[i];

		if (v == 0)
		{
			ks->slots[i] = h;
			ks->count++;
			return true;
		}
		if (v == h)
			return false;
		i = (i + 1) & mask;
	}
}

bool
keyset_add(KeySet *ks, uint64_t h)
{
	if (h == 0)
	{
		if (ks->has_zero)
			return false;
		ks->has_zero = 1;
		ks->count++;
		return true;
	}
	return table_insert(ks, h);
}

bool
keyset_contains(const KeySet *ks, uint64_t h)
{
	uint64_t	mask = ks->nslots - 1;
	uint64_t	i;

	if (h == 0)
		return ks->has_zero != 0;
	i = home_slot(h, ks->nslots);
	for (uint64_t n = 0; n < ks->nslots; n++)
	{
		if (ks->slots[i] == h)
			return true;
		if (ks->slots[i] == 0)
			return false;
		i = (i + 1) & mask;
	}
	return false;
}

/*
 * The flush of a pending state: add h[0..n) in order, as keyset_add one by
 * one would, loading home slots a few hashes ahead, and stop before the
 * first new hash that would overload the table.  Returns how many were
 * taken; the caller grows the table and calls again with the rest.
 */
#define ADD_PREFETCH_AHEAD 64

size_t
keyset_add_many(KeySet *ks, const uint64_t *h, size_t n)
{
	uint64_t	mask = ks->nslots - 1;
	int			shift = 64 - log2_slots(ks->nslots);
	uint64_t	room = ks->nslots * KEYSET_MAX_LOAD_NUM;

	/* the first few have nothing before them to hide their misses behind */
	for (size_t e = 0; e < n && e < ADD_PREFETCH_AHEAD; e++)
		__builtin_prefetch(&ks->slots[h[e] >> shift], 1);
	for (size_t e = 0; e < n; e++)
	{
		uint64_t	x = h[e];
		uint64_t	i;

		if (e + ADD_PREFETCH_AHEAD < n)
			__builtin_prefetch(&ks->slots[h[e + ADD_PREFETCH_AHEAD] >> shift], 1);
		if (x == 0)
		{
			(void) keyset_add(ks, 0);
			continue;
		}
		for (i = x >> shift;; i = (i + 1) & mask)
		{
			uint64_t	v = ks->slots[i];

			if (v == x)
				break;
			if (v == 0)
			{
				/* a new hash: room for it under the load limit? */
				if ((ks->count - ks->has_zero + 1) * KEYSET_MAX_LOAD_DEN > room)
					return e;
				ks->slots[i] = x;
				ks->count++;
				break;
			}
		}
	}
	return n;
}

size_t
keyset_next_batch(const KeySet *ks, uint64_t *pos, uint64_t *out, size_t max)
{
	size_t		n = 0;
	uint64_t	i;

	/* *pos is 0 before the zero hash, then 1 + the next slot to read */
	if (*pos == 0)
	{
		*pos = 1;
		if (ks->has_zero && max > 0)
			out[n++] = 0;
	}
	for (i = *pos - 1; i < ks->nslots && n < max; i++)
	{
		/* about every other slot is empty: no branch on it */
		out[n] = ks->slots[i];
		n += ks->slots[i] != 0;
	}
	*pos = i + 1;
	return n;
}

/* dst is initialized (empty, same parameters) with more slots */
void
keyset_rehash_into(const KeySet *ks, KeySet *dst)
{
	dst->has_zero = ks->has_zero;
	dst->count = ks->has_zero;
	for (uint64_t i = 0; i < ks->nslots; i++)
		if (ks->slots[i] != 0)
			(void) table_insert(dst, ks->slots[i]);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

uint64_t
keyset_sorted(const KeySet *ks, uint64_t *sorted)
{
	uint64_t	n = 0;

	if (ks->has_zero)
		sorted[n++] = 0;
	for (uint64_t i = 0; i < ks->nslots; i++)
		if (ks->slots[i] != 0)
			sorted[n++] = ks->slots[i];
	qsort(sorted + ks->has_zero, n - ks->has_zero, sizeof(uint64_t), cmp_u64);
	return n;
}

BfStatus
keyset_check(const void *data, size_t len, char *errbuf)
{
	const KeySet *ks = (const KeySet *) data;
	uint64_t	stored = 0;
	BfStatus	st;

	st = bf_check_header(data, len, sizeof(KeySet), BF_KIND_KEYSET,
						 "bloom_keyset", errbuf);
	if (st != BF_OK)
		return st;
	if (ks->hdr.flags != 0 || ks->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "bloom_keyset reserved fields are not zero");
	if (ks->target != BF_KIND_BLOOM && ks->target != BF_KIND_COUNTING &&
		ks->target != BF_KIND_CUCKOO)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloom_keyset target type %u", ks->target);
	if (ks->has_zero > 1 || ks->layout > 1)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloom_keyset flags");
	if (!(ks->fpr >= 1e-15 && ks->fpr < 1.0) || ks->capacity > (uint64_t) INT64_MAX)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid bloom_keyset parameters (capacity %llu, fpr %g)",
					   (unsigned long long) ks->capacity, ks->fpr);
	if (ks->nslots < KEYSET_MIN_SLOTS || ks->nslots > KEYSET_MAX_SLOTS ||
		(ks->nslots & (ks->nslots - 1)) != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloom_keyset slot count %llu",
					   (unsigned long long) ks->nslots);
	if (len != keyset_size_for_slots(ks->nslots))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "bloom_keyset value has %zu bytes, %llu slots need %zu",
					   len, (unsigned long long) ks->nslots,
					   keyset_size_for_slots(ks->nslots));
	for (uint64_t i = 0; i < ks->nslots; i++)
		stored += ks->slots[i] != 0;
	if (stored + ks->has_zero != ks->count)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "bloom_keyset count %llu does not match its %llu stored hashes",
					   (unsigned long long) ks->count,
					   (unsigned long long) (stored + ks->has_zero));
	/* a table with no free slot would make every probe loop forever */
	if (stored * KEYSET_MAX_LOAD_DEN > ks->nslots * KEYSET_MAX_LOAD_NUM)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "bloom_keyset table is overloaded");

	/*
	 * Every hash is where a probe for it would look, and only once: else
	 * lookups miss it, an add stores it again and count overstates the
	 * distinct inputs.  This walks each hash's probe path once, as merging
	 * the state into another would.
	 */
	for (uint64_t i = 0; i < ks->nslots; i++)
	{
		uint64_t	h = ks->slots[i];
		uint64_t	j;

		if (h == 0)
			continue;
		for (j = home_slot(h, ks->nslots); j != i; j = (j + 1) & (ks->nslots - 1))
		{
			if (ks->slots[j] == 0)
				return bf_fail(errbuf, BF_ERR_CORRUPT,
							   "bloom_keyset hash in slot %llu is not on its probe path",
							   (unsigned long long) i);
			if (ks->slots[j] == h)
				return bf_fail(errbuf, BF_ERR_CORRUPT,
							   "bloom_keyset holds a hash twice (slots %llu and %llu)",
							   (unsigned long long) j, (unsigned long long) i);
		}
	}
	return BF_OK;
}

BfStatus
keyset_check_compatible(const KeySet *a, const KeySet *b, char *errbuf)
{
	if (a->target != b->target || a->fpr != b->fpr || a->capacity != b->capacity ||
		a->layout != b->layout || a->hdr.seed != b->hdr.seed)
		return bf_fail(errbuf, BF_ERR_INCOMPATIBLE,
					   "cannot combine aggregate states built with different parameters");
	return BF_OK;
}

/* ---- walk in remixed order ---- */

/* bucket-sort digits: the top bits of a value, then the bits below them */
#define ORDER_MAX_TOP_BITS	12
#define ORDER_MAX_SUB_BITS	12
#define ORDER_TOP_TARGET	9		/* aim for ~2^9 values per top bucket */
#define ORDER_SMALL_RUN		16		/* insertion sort alone below this */

static inline int
ceil_log2(uint64_t n)
{
	return n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);
}

/* the top "bits" bits of v (0 for none, without a shift by 64) */
static inline uint64_t
top_digit(uint64_t v, int bits)
{
	return (v >> 1) >> (63 - bits);
}

/* sorts a run that is already sorted up to short disorder */
static void
insertion_sort(uint64_t *a, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
	{
		uint64_t	v = a[i];
		uint64_t	j = i;

		while (j > 0 && a[j - 1] > v)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/*
 * Remixed values are uniform, so a bucket sort needs no comparisons to
 * speak of: scatter by the top bits into buckets of a few hundred (a few
 * kB, in cache), counting-sort each bucket by its next bits into about
 * one value per sub-bucket, and an insertion sort fixes what is left.
 * The sorted values are turned back into hashes on the way out.
 */
uint64_t
keyset_remix_ordered(const KeySet *ks, uint64_t order_key, uint64_t *out,
					 uint64_t *scratch)
{
	uint32_t	start[(1 << ORDER_MAX_TOP_BITS) + 1];
	uint32_t	sub[(1 << ORDER_MAX_SUB_BITS) + 1];
	int			topbits = ceil_log2(ks->count) - ORDER_TOP_TARGET;
	uint64_t	nb;
	uint64_t	n = 0;

	topbits = topbits < 0 ? 0 : topbits > ORDER_MAX_TOP_BITS ? ORDER_MAX_TOP_BITS : topbits;
	nb = UINT64_C(1) << topbits;
	memset(start, 0, sizeof(uint32_t) * (nb + 1));

	/* remixed values, counted per top bucket */
	if (ks->has_zero)
	{
		scratch[n] = bf_remix(order_key);
		start[top_digit(scratch[n++], topbits) + 1]++;
	}
	/*
	 * Branch-free: about every other slot is empty, which no predictor
	 * guesses.  An empty slot's value is written and then overwritten;
	 * the walk stops at the last hash, so no write passes count.
	 */
	for (uint64_t i = 0; i < ks->nslots && n < ks->count; i++)
	{
		uint64_t	h = ks->slots[i];
		uint64_t	v = bf_remix(h ^ order_key);

		scratch[n] = v;
		start[top_digit(v, topbits) + 1] += h != 0;
		n += h != 0;
	}
	for (uint64_t b = 0; b < nb; b++)
		start[b + 1] += start[b];

	/* scatter into top buckets (start[b] ends up at bucket b's end) */
	for (uint64_t i = 0; i < n; i++)
		out[start[top_digit(scratch[i], topbits)]++] = scratch[i];

	for (uint64_t b = 0; b < nb; b++)
	{
		uint64_t	e = start[b];
		uint64_t	s = b == 0 ? 0 : start[b - 1];
		uint64_t	c = e - s;
		uint64_t   *run = out + s;
		uint64_t   *sorted = run;

		if (c > ORDER_SMALL_RUN)
		{
			int			subbits = ceil_log2(c);
			uint64_t	ns;

			subbits = subbits > ORDER_MAX_SUB_BITS ? ORDER_MAX_SUB_BITS : subbits;
			ns = UINT64_C(1) << subbits;
			memset(sub, 0, sizeof(uint32_t) * (ns + 1));
			for (uint64_t i = 0; i < c; i++)
				sub[top_digit(run[i] << topbits, subbits) + 1]++;
			for (uint64_t d = 0; d < ns; d++)
				sub[d + 1] += sub[d];
			for (uint64_t i = 0; i < c; i++)
				scratch[s + sub[top_digit(run[i] << topbits, subbits)]++] = run[i];
			sorted = scratch + s;
		}
		insertion_sort(sorted, c);
		for (uint64_t i = 0; i < c; i++)
			run[i] = bf_unremix(sorted[i]) ^ order_key;
	}
	return n;
}
