/*
 * keyset.h
 *		The build state of self-sizing aggregates: the set of distinct
 *		64-bit element hashes seen so far, plus the filter to build from it.
 *
 * bloom_agg(x), counting_bloom_agg(x), cuckoo_agg(x) (and the sized
 * counting/cuckoo aggregates, which must insert each distinct input once)
 * cannot size a filter before they have seen their input, so they collect
 * hashes here and build the filter in the final function, sized for the
 * exact distinct count.  A filter only ever looks at an element's hash, so
 * building from hashes is the same as building from the elements.
 *
 * Value layout (after the common BfHeader, see bfcore.h):
 *
 *	offset	size	field
 *	24		1		target		BF_KIND_* of the filter the final function builds
 *	25		1		reserved0	must be zero
 *	26		2		layout		layout for the built filter (bloom only)
 *	28		4		reserved	must be zero
 *	32		8		fpr			false-positive target of the built filter
 *	40		8		capacity	capacity asked for, 0 = size from the count
 *	48		8		count		distinct hashes in the set
 *	56		8*count	hashes[]	strictly ascending (so distinct), 0 allowed
 *
 * A sorted array, not a hash table: the bytes are a function of the set
 * alone (the same for any arrival order, batching or plan), a check is one
 * pass, a combine is a merge, and the final functions walk the hashes in
 * an order that does not depend on how the rows arrived.
 *
 * The transition function does not insert hashes one at a time: it queues
 * them (a queue about as long as the set, see keyset_queue_target) and
 * keyset_merge_queue sorts the queue and merges it in (into a new value;
 * a big set in place, keyset_merge_queue_inplace).  Each hash is
 * written a few times, in sequential passes over cache-sized runs, instead
 * of one random access to a table far bigger than the caches.
 */
#ifndef KEYSET_H
#define KEYSET_H

#include "bfcore.h"

/* most distinct hashes a keyset holds: 512 MB of them */
#define KEYSET_MAX_COUNT	(UINT64_C(1) << 26)
/* the longest queue, and the shortest once the set is that big */
#define KEYSET_MAX_QUEUE	(1 << 22)
#define KEYSET_MIN_QUEUE	16
/*
 * The SQL flush merges a set this big in place (keyset_merge_queue_inplace):
 * about half the peak memory of a merge into a new value.  Not below:
 * growing the block in place and faulting in its pages cost more than
 * the memory saved is worth for a small set (the sort and merge cost the
 * same either way).
 */
#define KEYSET_INPLACE_MIN_COUNT	KEYSET_MAX_QUEUE

typedef struct KeySet
{
	BfHeader	hdr;
	uint8_t		target;
	uint8_t		reserved0;
	uint16_t	layout;
	uint32_t	reserved;
	double		fpr;
	uint64_t	capacity;
	uint64_t	count;
	uint64_t	hashes[];
} KeySet;

extern size_t keyset_size_for(uint64_t count);
/* an empty set: buf has room for keyset_size_for(0) bytes at least */
extern void keyset_init(void *buf, BfKind target, int layout, double fpr,
						uint64_t capacity, uint64_t seed);

/*
 * Queue length to grow to when a queue of "queued" hashes is full; at most
 * "queued" itself means: merge now.  The queue doubles, up to the power of
 * two at or above the larger of the set's count and the declared capacity,
 * kept within KEYSET_MIN_QUEUE .. KEYSET_MAX_QUEUE.  So a merge
 * (which rewrites the set) comes once per about as many new inputs as the
 * set holds, a sized aggregate sorts its inputs about once, and a small
 * group of a GROUP BY keeps a short queue.
 */
extern size_t keyset_queue_target(const KeySet *ks, size_t queued);

/*
 * Sort a[0..n) ascending and drop repeats; returns how many are left.
 * scratch has room for n; n < 2^32.  A bucket sort on the top bits
 * (hashes are uniform), robust to values that bunch up.
 */
extern size_t keyset_sort_unique(uint64_t *a, size_t n, uint64_t *scratch);

/*
 * The buffer the functions below sort n values through: about two top
 * buckets' worth (a few thousand values for millions), at most n.  They
 * sort into their destination directly (a scatter by the top bits) and
 * pass each bucket through this buffer, so the only space the size of
 * the input is the destination itself.
 */
extern size_t keyset_sort_buffer_len(size_t n);

/*
 * dst = ks with the hashes queue[0..n) added (repeats and hashes already
 * in the set allowed): the queue is sorted into dst's tail and the set
 * merged in ahead of it.  The queue is not changed.  scratch has room for
 * keyset_sort_buffer_len(n).  dst has room for keyset_size_for(ks->count
 * + n) bytes and may not be ks; its header is copied from ks.  Returns
 * dst->count; the caller sets the varlena size (keyset_size_for(dst->count)).
 */
extern uint64_t keyset_merge_queue(const KeySet *ks, const uint64_t *queue, size_t n,
								   uint64_t *scratch, KeySet *dst);

/*
 * The same merge into ks itself, which has room for keyset_size_for(
 * ks->count + n) bytes: the queue is sorted through the room after the
 * set (so no space the size of the set besides ks and the queue) and is
 * overwritten.  Sets ks->count and returns it; the caller sets the varlena
 * size.  The same hashes as keyset_merge_queue, so the same bytes.
 */
extern uint64_t keyset_merge_queue_inplace(KeySet *ks, uint64_t *queue, size_t n);

/* dst = a united with b (same parameters), room as above; returns count */
extern uint64_t keyset_union(const KeySet *a, const KeySet *b, KeySet *dst);

extern bool keyset_contains(const KeySet *ks, uint64_t h);

extern BfStatus keyset_check(const void *data, size_t len, char *errbuf);
extern BfStatus keyset_check_compatible(const KeySet *a, const KeySet *b, char *errbuf);

#endif							/* KEYSET_H */
