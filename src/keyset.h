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
 *	25		1		has_zero	1 if the hash value 0 is in the set
 *	26		2		layout		layout for the built filter (bloom only)
 *	28		4		reserved	must be zero
 *	32		8		fpr			false-positive target of the built filter
 *	40		8		capacity	capacity asked for, 0 = size from the count
 *	48		8		count		distinct hashes in the set (has_zero included)
 *	56		8		nslots		power of two, 16 .. KEYSET_MAX_SLOTS
 *	64		8*n		slots[]		open addressing, linear probing from the
 *								slot given by the hash's top bits; 0 = empty
 */
#ifndef KEYSET_H
#define KEYSET_H

#include "bfcore.h"

#define KEYSET_MIN_SLOTS	16
#define KEYSET_MAX_SLOTS	(UINT64_C(1) << 26)	/* 512 MB of slots */
#define KEYSET_MAX_LOAD_NUM 7	/* grow beyond 7/10 full */
#define KEYSET_MAX_LOAD_DEN 10

typedef struct KeySet
{
	BfHeader	hdr;
	uint8_t		target;
	uint8_t		has_zero;
	uint16_t	layout;
	uint32_t	reserved;
	double		fpr;
	uint64_t	capacity;
	uint64_t	count;
	uint64_t	nslots;
	uint64_t	slots[];
} KeySet;

/* most distinct hashes a keyset can hold */
#define KEYSET_MAX_COUNT	(KEYSET_MAX_SLOTS / KEYSET_MAX_LOAD_DEN * KEYSET_MAX_LOAD_NUM)

extern size_t keyset_size_for_slots(uint64_t nslots);
extern void keyset_init(void *buf, uint64_t nslots, BfKind target, int layout,
						double fpr, uint64_t capacity, uint64_t seed);

/* true if adding one more hash would overload the table: grow first */
extern bool keyset_needs_grow(const KeySet *ks);
/* slots needed to hold count hashes under the load limit */
extern uint64_t keyset_slots_for(uint64_t count);
/* slots (a power of two) a full keyset grows to */
extern uint64_t keyset_grow_slots(const KeySet *ks);
extern void keyset_rehash_into(const KeySet *ks, KeySet *dst);

/* returns true if h was new */
extern bool keyset_add(KeySet *ks, uint64_t h);
/* keyset_add of h[0..n) up to the first that needs the table grown */
extern size_t keyset_add_many(KeySet *ks, const uint64_t *h, size_t n);
extern bool keyset_contains(const KeySet *ks, uint64_t h);

/*
 * The hashes of ks in slot order (0 first, if has_zero), a batch at a
 * time, for the final functions' batch adds: start with *pos = 0; each
 * call writes up to max of them to out and returns how many, 0 at the end.
 */
extern size_t keyset_next_batch(const KeySet *ks, uint64_t *pos, uint64_t *out, size_t max);

/*
 * Walk every hash in a fixed order (has_zero's 0 first, then ascending
 * hash value) so that whatever the final function builds does not depend on
 * the order rows arrived in, or on how a parallel plan split them.
 * "sorted" is caller-provided space for count uint64s.
 */
extern uint64_t keyset_sorted(const KeySet *ks, uint64_t *sorted);

/*
 * Walk every hash (0 too, if has_zero) in ascending order of
 * bf_remix(h ^ order_key): an order unrelated to where the hashes sit in
 * a filter.  bf_remix is a bijection, so the order is total and the same
 * on every plan.  A bucket sort on the (uniform) remixed values, two
 * passes and cache-sized buckets, instead of a comparison sort.  "out"
 * and "scratch" are caller-provided space for count uint64s each.
 */
extern uint64_t keyset_remix_ordered(const KeySet *ks, uint64_t order_key,
									 uint64_t *out, uint64_t *scratch);

extern BfStatus keyset_check(const void *data, size_t len, char *errbuf);
extern BfStatus keyset_check_compatible(const KeySet *a, const KeySet *b, char *errbuf);

#endif							/* KEYSET_H */
