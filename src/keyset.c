/*
 * keyset.c
 *		Set of distinct 64-bit hashes, a sorted array: the self-sizing
 *		aggregates' state.
 */
#include "keyset.h"

#include <stdlib.h>

size_t
keyset_size_for(uint64_t count)
{
	return sizeof(KeySet) + (size_t) count * sizeof(uint64_t);
}

void
keyset_init(void *buf, BfKind target, int layout, double fpr, uint64_t capacity,
			uint64_t seed)
{
	KeySet	   *ks = (KeySet *) buf;

	memset((char *) buf + sizeof(uint32_t), 0, sizeof(KeySet) - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_KEYSET, seed);
	ks->target = (uint8_t) target;
	ks->layout = (uint16_t) layout;
	ks->fpr = fpr;
	ks->capacity = capacity;
}

static inline int
ceil_log2(uint64_t n)
{
	return n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);
}

size_t
keyset_queue_target(const KeySet *ks, size_t queued)
{
	uint64_t	want = ks->count > ks->capacity ? ks->count : ks->capacity;

	if (want <= KEYSET_MIN_QUEUE)
		want = KEYSET_MIN_QUEUE;
	else if (want >= KEYSET_MAX_QUEUE)
		want = KEYSET_MAX_QUEUE;
	else
		want = UINT64_C(1) << ceil_log2(want);
	return (size_t) (queued * 2 < want ? queued * 2 : want);
}

/* ---- sorting ---- */

/* bucket-sort digits: the top bits of a value, then the bits below them */
#define SORT_MAX_TOP_BITS	10		/* 1024 buckets: their counts stay in L1 */
#define SORT_MAX_SUB_BITS	12
#define SORT_TOP_TARGET		9		/* aim for ~2^9 values per top bucket */
#define SORT_SMALL			32		/* insertion sort alone up to this */

/* the top "bits" bits of v (0 for none, without a shift by 64) */
static inline uint64_t
top_digit(uint64_t v, int bits)
{
	return (v >> 1) >> (63 - bits);
}

/*
 * Insertion sort for input that is nearly in order (what the counting sort
 * of sort_bucket leaves: values out of order only within a sub-bucket of
 * one or two others, so most go into the last three places).  The two
 * greatest values so far stay in registers (m <= h) and each new value is
 * placed among them and the one below them without a branch: a branch on
 * where it goes would be a coin toss for random hashes.  Only a value
 * below all three (a rare sub-bucket of four or more) takes the shifting
 * loop.  Correct for any input, fast for this one (bench/micro.c
 * measures it against the textbook loop).
 */
static void
insertion_sort(uint64_t *a, size_t n)
{
	uint64_t	m,
				h,
				below = 0;		/* a[i - 3]: 0 below everything */

	if (n < 2)
		return;
	m = a[0] < a[1] ? a[0] : a[1];
	h = a[0] < a[1] ? a[1] : a[0];
	for (size_t i = 2; i < n; i++)
	{
		uint64_t	x = a[i];
		bool		xm = x < m,
					xh = x < h;

		if (__builtin_expect(x < below, 0))
		{
			size_t		j = i;

			a[i - 2] = m;
			a[i - 1] = h;
			while (j > 0 && a[j - 1] > x)
			{
				a[j] = a[j - 1];
				j--;
			}
			a[j] = x;
			below = a[i - 2];
			m = a[i - 1];
			h = a[i];
			continue;
		}
		/* m, h and x put in order: the least is final, at i - 2 */
		below = xm ? x : m;
		a[i - 2] = below;
		m = xh ? (xm ? m : x) : h;
		h = xh ? h : x;
	}
	a[n - 2] = m;
	a[n - 1] = h;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* top bits of the first digit for n values: about 2^SORT_TOP_TARGET per bucket */
static int
sort_top_bits(size_t n)
{
	int			topbits = ceil_log2(n) - SORT_TOP_TARGET;

	return topbits < 0 ? 0 : topbits > SORT_MAX_TOP_BITS ? SORT_MAX_TOP_BITS : topbits;
}

/*
 * Hashes are uniform, so a bucket sort needs next to no comparisons: a
 * first digit of the top bits into buckets of a few hundred (a few kB, in
 * cache), then the second digit in each bucket.
 *
 * The second digit: run[0..c), values that share their top "topbits"
 * bits, sorted into out[0..c) (another buffer): a counting sort by the
 * next bits into about one value per sub-bucket, then an insertion sort
 * fixes what is left.  A sub-bucket that is still big (values that share
 * their top 24 bits: repeats, or inputs chosen to collide) is sorted by
 * qsort first, so no input makes the insertion sort quadratic.
 */
static void
sort_bucket(const uint64_t *run, size_t c, uint64_t *out, int topbits)
{
	uint32_t	sub[(1 << SORT_MAX_SUB_BITS) + 1];
	int			subbits = ceil_log2(c);
	uint64_t	ns;

	subbits = subbits > SORT_MAX_SUB_BITS ? SORT_MAX_SUB_BITS : subbits;
	ns = UINT64_C(1) << subbits;
	memset(sub, 0, sizeof(uint32_t) * (ns + 1));
	for (size_t i = 0; i < c; i++)
		sub[top_digit(run[i] << topbits, subbits) + 1]++;
	for (uint64_t d = 0; d < ns; d++)
		sub[d + 1] += sub[d];
	for (size_t i = 0; i < c; i++)
		out[sub[top_digit(run[i] << topbits, subbits)]++] = run[i];
	/* sub[d] is now the end of sub-bucket d */
	for (uint64_t d = 0; d < ns; d++)
	{
		uint32_t	lo = d == 0 ? 0 : sub[d - 1];

		if (sub[d] - lo > SORT_SMALL)
			qsort(out + lo, sub[d] - lo, sizeof(uint64_t), cmp_u64);
	}
	insertion_sort(out, c);
}

size_t
keyset_sort_buffer_len(size_t n)
{
	size_t		per_bucket = (n >> sort_top_bits(n)) + 1;
	size_t		len = 2 * per_bucket + 64;

	return len < n ? len : n;
}

/*
 * The first digit: src[0..n) scattered into dst[0..n) by their top
 * "topbits" bits.  start[b] is then the end of bucket b (start has room
 * for 2^topbits + 1 entries).
 */
static void
scatter_top(const uint64_t *src, size_t n, uint64_t *dst, uint32_t *start, int topbits)
{
	uint64_t	nb = UINT64_C(1) << topbits;

	memset(start, 0, sizeof(uint32_t) * (nb + 1));
	for (size_t i = 0; i < n; i++)
		start[top_digit(src[i], topbits) + 1]++;
	for (uint64_t b = 0; b < nb; b++)
		start[b + 1] += start[b];
	for (size_t i = 0; i < n; i++)
		dst[start[top_digit(src[i], topbits)]++] = src[i];
}

/*
 * The second digit of both sorts below: the buckets of "from" (bounds in
 * start, as scatter_top leaves them) each sorted into the same place of
 * "to".  from == to: in place, each bucket through buf (room for buflen);
 * one bigger than buf (values that bunch up: a few buckets hold
 * everything) is left to qsort where it lies.
 */
static void
sort_buckets(const uint32_t *start, int topbits, const uint64_t *from, uint64_t *to,
			 uint64_t *buf, size_t buflen)
{
	for (uint64_t b = 0; b < (UINT64_C(1) << topbits); b++)
	{
		size_t		s = b == 0 ? 0 : start[b - 1];
		size_t		c = start[b] - s;

		/* a bucket holds about 2^SORT_TOP_TARGET values */
		bf_check_interrupts_every(b, BF_INTERRUPT_CHUNK >> SORT_TOP_TARGET);
		if (c <= SORT_SMALL)
		{
			if (from != to)
				memcpy(to + s, from + s, c * sizeof(uint64_t));
			insertion_sort(to + s, c);
		}
		else if (from != to)
			sort_bucket(from + s, c, to + s, topbits);
		else if (c <= buflen)
		{
			memcpy(buf, to + s, c * sizeof(uint64_t));
			sort_bucket(buf, c, to + s, topbits);
		}
		else
			qsort(to + s, c, sizeof(uint64_t), cmp_u64);
	}
}

/*
 * src[0..n) sorted ascending into dst (room for n, apart from src), with
 * no scratch the size of the input: scatter by the top bits straight into
 * dst, then each bucket is copied out to buf (room for buflen,
 * keyset_sort_buffer_len; it may be src, which is not read again after
 * the scatter) and sorted back into place.
 */
static void
sort_into(const uint64_t *src, size_t n, uint64_t *dst, uint64_t *buf, size_t buflen)
{
	uint32_t	start[(1 << SORT_MAX_TOP_BITS) + 1];
	int			topbits = sort_top_bits(n);

	scatter_top(src, n, dst, start, topbits);
	sort_buckets(start, topbits, dst, dst, buf, buflen);
}

/*
 * a[0..n) sorted in place, with room[0..n) (apart from a) to pass through:
 * scattered into room, then each bucket sorted back into a.
 */
static void
sort_through(uint64_t *a, size_t n, uint64_t *room)
{
	uint32_t	start[(1 << SORT_MAX_TOP_BITS) + 1];
	int			topbits = sort_top_bits(n);

	scatter_top(a, n, room, start, topbits);
	sort_buckets(start, topbits, room, a, NULL, 0);
}

/* drop repeats from a sorted a[0..n), in place; returns how many are left */
static size_t
unique_sorted(uint64_t *a, size_t n)
{
	size_t		u = 0;

	if (n == 0)
		return 0;
	for (size_t i = 1; i < n; i++)
	{
		/* branch-free: repeats are rare or everywhere, never predictable */
		a[u + 1] = a[i];
		u += a[i] != a[u];
	}
	return u + 1;
}

/*
 * The same sort in place: into scratch, with a itself (free once it has
 * been scattered) as the bucket buffer, then copied back.
 */
size_t
keyset_sort_unique(uint64_t *a, size_t n, uint64_t *scratch)
{
	sort_into(a, n, scratch, a, n);
	memcpy(a, scratch, n * sizeof(uint64_t));
	return unique_sorted(a, n);
}

/*
 * out = a merged with b, both strictly ascending; returns the length.
 * Branch-free: which side comes next is a coin toss for random hashes.
 * a is apart from out; b may lie inside out at or after out + na: the
 * k-th value written is at most the (i + j)-th read, so a write never
 * passes the b value still to be read (i < na while both sides remain).
 * In rounds that each end once either side has given BF_INTERRUPT_CHUNK
 * values (the same two bounds tested as in one loop), so that a merge of
 * millions can be interrupted.
 */
static uint64_t
merge_unique(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
			 uint64_t *out)
{
	uint64_t	i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		uint64_t	ilim = na - i > BF_INTERRUPT_CHUNK ? i + BF_INTERRUPT_CHUNK : na,
					jlim = nb - j > BF_INTERRUPT_CHUNK ? j + BF_INTERRUPT_CHUNK : nb;

		if (k > 0)
			bf_check_interrupts();
		while (i < ilim && j < jlim)
		{
			uint64_t	x = a[i],
						y = b[j];

			out[k++] = x <= y ? x : y;
			i += x <= y;
			j += y <= x;
		}
	}
	bf_copy(out + k, a + i, (na - i) * sizeof(uint64_t));
	k += na - i;
	/* b may sit in out itself, at or after where its rest goes */
	if (out + k != b + j)
		memmove(out + k, b + j, (nb - j) * sizeof(uint64_t));
	k += nb - j;
	return k;
}

uint64_t
keyset_merge_queue(const KeySet *ks, const uint64_t *queue, size_t n, uint64_t *scratch,
				   KeySet *dst)
{
	/* the queue sorted into dst's tail, then the set merged in ahead of it */
	uint64_t   *tail = dst->hashes + ks->count;

	sort_into(queue, n, tail, scratch, keyset_sort_buffer_len(n));
	n = unique_sorted(tail, n);
	memcpy(dst, ks, sizeof(KeySet));
	dst->count = merge_unique(ks->hashes, ks->count, tail, n, dst->hashes);
	return dst->count;
}

/*
 * The set and the sorted queue merged from the top down, in place: the
 * k-th value from the top is written at or above where the set's next
 * value to be read lies (each step writes one value and consumes one or,
 * for a hash in both, two), so nothing is overwritten before it is read.
 * Each hash in both leaves one slot free between the set's values still
 * in place at the bottom and those written from the top; the top part is
 * moved down over them at the end.
 */
uint64_t
keyset_merge_queue_inplace(KeySet *ks, uint64_t *queue, size_t n)
{
	uint64_t   *h = ks->hashes;
	uint64_t	i = ks->count,
				j,
				w,
				top;

	/* a set still empty (a sized aggregate's one flush): sort straight in */
	if (i == 0)
	{
		sort_into(queue, n, h, queue, n);
		ks->count = unique_sorted(h, n);
		return ks->count;
	}
	sort_through(queue, n, h + ks->count);
	j = unique_sorted(queue, n);
	top = w = i + j;
	while (i > 0 && j > 0)
	{
		/* in rounds, as merge_unique */
		uint64_t	ilo = i > BF_INTERRUPT_CHUNK ? i - BF_INTERRUPT_CHUNK : 0,
					jlo = j > BF_INTERRUPT_CHUNK ? j - BF_INTERRUPT_CHUNK : 0;

		if (w < top)
			bf_check_interrupts();
		while (i > ilo && j > jlo)
		{
			uint64_t	x = h[i - 1],
						y = queue[j - 1];

			/* branch-free, as merge_unique */
			h[--w] = x >= y ? x : y;
			i -= x >= y;
			j -= y >= x;
		}
	}
	/* what is left of either side is the smallest: the queue's goes just
	 * below what was written, the set's, h[0..i), is already in place */
	w -= j;
	memcpy(h + w, queue, j * sizeof(uint64_t));
	if (w > i)
		memmove(h + i, h + w, (top - w) * sizeof(uint64_t));
	ks->count = i + (top - w);
	return ks->count;
}

uint64_t
keyset_union(const KeySet *a, const KeySet *b, KeySet *dst)
{
	memcpy(dst, a, sizeof(KeySet));
	dst->count = merge_unique(a->hashes, a->count, b->hashes, b->count, dst->hashes);
	return dst->count;
}

bool
keyset_contains(const KeySet *ks, uint64_t h)
{
	uint64_t	lo = 0,
				hi = ks->count;

	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (ks->hashes[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ks->count && ks->hashes[lo] == h;
}

/* ---- checks ---- */

BfStatus
keyset_check(const void *data, size_t len, char *errbuf)
{
	const KeySet *ks = (const KeySet *) data;
	BfStatus	st;

	st = bf_check_header(data, len, sizeof(KeySet), BF_KIND_KEYSET,
						 "bloom_keyset", errbuf);
	if (st != BF_OK)
		return st;
	if (ks->hdr.flags != 0 || ks->reserved0 != 0 || ks->reserved != 0)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "bloom_keyset reserved fields are not zero");
	if (ks->target != BF_KIND_BLOOM && ks->target != BF_KIND_COUNTING &&
		ks->target != BF_KIND_CUCKOO)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloom_keyset target type %u", ks->target);
	if (ks->layout > 1)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid bloom_keyset layout %u", ks->layout);
	if (!(ks->fpr >= 1e-15 && ks->fpr < 1.0) || ks->capacity > (uint64_t) INT64_MAX)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid bloom_keyset parameters (capacity %llu, fpr %g)",
					   (unsigned long long) ks->capacity, ks->fpr);
	if (ks->count > KEYSET_MAX_COUNT)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "bloom_keyset count %llu is over the limit of %llu",
					   (unsigned long long) ks->count,
					   (unsigned long long) KEYSET_MAX_COUNT);
	if (len != keyset_size_for(ks->count))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "bloom_keyset value has %zu bytes, %llu hashes need %zu",
					   len, (unsigned long long) ks->count, keyset_size_for(ks->count));

	/*
	 * Ascending without repeats: else a merge keeps a repeat, the count
	 * overstates the distinct inputs, and the filter is sized for more.
	 */
	for (uint64_t i = 1; i < ks->count; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES / 8);
		if (ks->hashes[i - 1] >= ks->hashes[i])
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "bloom_keyset hashes are not strictly ascending (at %llu)",
						   (unsigned long long) i);
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
