/*
 * cuckoo.h
 *		Cuckoo filter maths, no fmgr: sizing, create, add, remove, probe,
 *		count, growth, estimates, and the validator every input path shares.
 *
 * Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically
 * Better Than Bloom" (CoNEXT 2014): partial-key cuckoo hashing, buckets of
 * four fingerprints, a victim slot, and here a sequence of tables so the
 * filter grows instead of failing an add.
 *
 * Value layout (after the common BfHeader, see bfcore.h):
 *
 *	offset	size	field
 *	24		2		ntables		1 .. CUCKOO_MAX_TABLES (so one key can be
 *							added about 9 * CUCKOO_MAX_TABLES times)
 *	26		2		reserved	must be zero
 *	28		4		deletes		format 2: successful removes since the filter
 *							was made, saturating at 2^32 - 1 (RedisBloom's
 *							"Number of items deleted"); format 1: zero
 *	32		8		fpr			overall false-positive target
 *	40		8		capacity	capacity asked for (cuckoo_agg: distinct inputs)
 *	48		48*n	tables[]	CuckooTable descriptors
 *	...				padding to a multiple of 64, zero
 *	offset_i		table i slots: 4 * nbuckets fingerprints of fp_bits bits
 *					each, bit-packed little-endian (slot s of bucket b is
 *					bits (4b + s) * fp_bits .. + fp_bits - 1 of the area,
 *					bit j of the area is bit j%8 of byte j/8), then zero
 *					bits to the end of the area (whole 8-byte words plus
 *					one spare word, so every slot is an unaligned 8-byte
 *					load, and one more byte for widths over 56).
 *					Tables follow each other; the value ends exactly
 *					after the last one.
 *
 * Fingerprint 0 marks an empty slot; stored fingerprints are 1 .. 2^f - 1.
 *
 * Hashing: one XXH3-64 hash h per element (seeded with hdr.seed), g =
 * remix(h).  In a table of m = m0 * 2^s buckets (s its shift) and f-bit
 * fingerprints (m0 and f0 are table 0's):
 *	fp = top f bits of g, or 1 if those are all zero
 *	b  = fp >> (f - f0), or 1 if zero (table 0's fingerprint of the key)
 *	i1 = range64(h, m)
 *	alt(i, fp) = (((H(b) - (i >> s)) mod m0) << s) | ((i mod 2^s) ^ G_s(b)),
 *		H(b) = range64(remix(b ^ ALT_KEY), m0), G_s(b) = top s bits of
 *		remix(b + KICK_KEY); i2 = alt(i1, fp).
 * alt is an involution (alt(i2) = i1), so a stored fingerprint moves
 * between its two buckets without its key, and m0 need not be a power of
 * two (tables are sized for ~95% load).  Widths and shifts never shrink
 * from table to table, and a bucket of a table shifted right by the
 * difference of shifts is the same element's bucket in an earlier table,
 * so two keys that share a fingerprint and a bucket pair in a later table
 * share them in every earlier one.
 *
 * Removes take a copy from the newest table that holds a match.  Because
 * of the nesting above this never takes an added element's last copy: if
 * the match in table j belongs to another key y, y matches x in every
 * earlier table too, and x's own copy (in table j or earlier, as j is the
 * newest match) now counts for y.  (Removing a key that was never added
 * but matches by a false positive still takes out someone else's copy,
 * as in every cuckoo filter.)
 *
 * Inserts: a free slot in i1, else in i2, else the shortest chain of
 * relocations (at most three) found by a breadth-first search, else a
 * random walk of kicks.  cuckoo_agg bulk loads an empty table from its
 * hashes in ascending order instead (cuckoo_load_sorted): each bucket's
 * first four in one sequential pass, then second buckets, then the rest
 * as above.
 *
 * Victim: an insert that still holds a displaced fingerprint after
 * CUCKOO_MAX_KICKS relocations parks it in the table's victim slot
 * (victim_fp, victim_bucket), which lookups also check.  Inserts only go
 * to a table whose victim slot is free, so no add ever loses an element;
 * a table with a victim is full, and the next add grows the filter.  A
 * remove that frees a slot in one of the victim's buckets moves it back.
 *
 * False-positive accounting.  A stored fingerprint matches a key that was
 * never added with probability at most 2q / m: equal fingerprints, q =
 * 2^-f + 2 * 4^-f (the sum of squares of the fingerprint distribution,
 * value 1 being twice as likely), and one of the key's two buckets is the
 * one it sits in (the victim likewise).  So a table holding c
 * fingerprints has rate at most bound = 2cq / m, and a full one (4m + 1
 * with the victim) at most worst = (8 + 2/m) q.  A lookup searches every
 * table, so the filter's rate is at most the sum of its tables' bounds.
 * Only the last table takes inserts and removes only lower a count, so
 * the filter keeps the invariant
 *		sum over sealed tables of bound + worst(last table) <= fpr
 * and its rate is at most fpr at every load it ever accepts:
 *	table 0:	the narrowest f >= 8 with worst <= fpr * (1 - 1/64) (the
 *				1/64 guarantees room to grow);
 *	table k:	twice the buckets of table k - 1 if that was sealed at
 *				least half full, else as many (it was sealed by a key added
 *				more often than two buckets hold); the narrowest f at least
 *				table k - 1's with worst <= (fpr - sum of the sealed
 *				tables' bounds) / 2, so half of what is left stays for
 *				later tables.
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include "bfcore.h"

#define CUCKOO_BUCKET_SLOTS		4
#define CUCKOO_MIN_FP_BITS		8
#define CUCKOO_MAX_FP_BITS		64
#define CUCKOO_MAX_TABLES		64
#define CUCKOO_MAX_KICKS		500
#define CUCKOO_MAX_BUCKETS		(UINT64_C(1) << 36)
#define CUCKOO_HEADER_ALIGN		64

/* design load: capacity = floor(nbuckets * 4 * 19 / 20) */
#define CUCKOO_LOAD_NUM			19
#define CUCKOO_LOAD_DEN			20

/*
 * cuckoo_add_hashes loads ahead the buckets an insert's search will look
 * at only in a table at least this big.  In a smaller one the buckets
 * mostly come from the caches, and working out which to load costs more
 * than it saves; past the last-level cache the loads are misses, which
 * loading ahead overlaps.  A build may set it
 * (bench/micro.sh with MICRO_CFLAGS, MICRO_CUCKOO_N) to measure again.
 */
#ifndef CUCKOO_SEARCH_PREFETCH_MIN_BYTES
#define CUCKOO_SEARCH_PREFETCH_MIN_BYTES	(UINT64_C(8) << 20)
#endif

/* table 0 leaves at least this fraction of fpr for growth */
#define CUCKOO_GROWTH_RESERVE	(1.0 / 64.0)

typedef struct CuckooTable
{
	uint64_t	offset;			/* byte offset of the slots from value start */
	uint64_t	nbuckets;		/* m = m0 * 2^shift */
	uint64_t	count;			/* non-empty slots (the victim not included) */
	uint64_t	victim_bucket;	/* one of the victim's buckets; 0 if none */
	uint64_t	victim_fp;		/* parked fingerprint, 0 = no victim */
	uint32_t	fp_bits;		/* f, CUCKOO_MIN_FP_BITS .. CUCKOO_MAX_FP_BITS */
	uint32_t	shift;			/* s: nbuckets = nbuckets(0) << s */
} CuckooTable;

/*
 * Format 2 counts removes in the header's deletes field, which format 1
 * kept zero.  New filters are made in format 2; a format-1 value stays
 * format 1 through adds and removes (it has no count to start from), and
 * its info reports no count.
 */
#define CUCKOO_FORMAT_DELETES	2

typedef struct CuckooFilter
{
	BfHeader	hdr;
	uint16_t	ntables;
	uint16_t	reserved;
	uint32_t	deletes;		/* format 2 (CUCKOO_FORMAT_DELETES) */
	double		fpr;
	uint64_t	capacity;
	CuckooTable tables[];
} CuckooFilter;

typedef enum CuckooAddResult
{
	CUCKOO_ADDED,				/* in (possibly with a fingerprint now parked) */
	CUCKOO_NEEDS_TABLE			/* last table is full: grow, then add again */
} CuckooAddResult;

/* buckets for capacity elements at the design load (0 if too many) */
extern uint64_t cuckoo_buckets_for(uint64_t capacity);
extern uint64_t cuckoo_table_capacity(uint64_t nbuckets);

/* rate bounds (see above) */
extern double cuckoo_fp_match(uint32_t fp_bits);
extern double cuckoo_worst_rate(uint64_t nbuckets, uint32_t fp_bits);
extern double cuckoo_table_bound(const CuckooTable *t);
extern double cuckoo_rate_bound(const CuckooFilter *f);

/* bytes of a new one-table filter of nbuckets buckets at rate fpr */
extern BfStatus cuckoo_new_size(uint64_t nbuckets, double fpr, size_t *size,
								char *errbuf);
extern void cuckoo_init(void *buf, size_t size, uint64_t nbuckets,
						uint64_t capacity, double fpr, uint64_t seed);

/* bytes after adding a table; BF_ERR_TOO_LARGE when it cannot grow */
extern BfStatus cuckoo_grown_size(const CuckooFilter *f, size_t *size, char *errbuf);
extern void cuckoo_grow_into(const CuckooFilter *f, void *buf, size_t size);

extern size_t cuckoo_size(const CuckooFilter *f);
extern CuckooAddResult cuckoo_add_hash(CuckooFilter *f, uint64_t h);
/*
 * cuckoo_add_hash over hashes[0 .. n) in order (the same bytes), stopping
 * right after an add that parks a fingerprint in the victim slot: returns
 * how many were added, 0 if the last table already has a victim (grow).
 */
extern size_t cuckoo_add_hashes(CuckooFilter *f, const uint64_t *hashes, size_t n);
/*
 * Bulk load, for hashes in ascending order (cuckoo_agg's final): fill
 * the last table, if it is empty, bucket by bucket, then the second
 * buckets, then the rest as cuckoo_add_hashes would.  The same hashes in
 * the same order give the same bytes.  Returns how many were not placed
 * (the table got a victim); they are in left[0 .. r), still ascending,
 * for the next table.  left has room for left_room hashes and may be
 * hashes itself.  Room for n is always enough; with less (an empty table
 * at its design load leaves about a sixth of n to the second pass, see
 * CUCKOO_LOAD_ROOM), a load that would need more returns
 * CUCKOO_LOAD_NO_ROOM with f as it was, to be called again with room for
 * n.  Any order is correct; out-of-order hashes just take the slow path.
 */
#define CUCKOO_LOAD_NO_ROOM		SIZE_MAX
/* room for left that a load of n hashes into a table sized for them needs */
#define CUCKOO_LOAD_ROOM(n)		((n) < 4096 ? (n) : (n) / 4 + 1024)
extern size_t cuckoo_load_sorted(CuckooFilter *f, const uint64_t *hashes, size_t n,
								 uint64_t *left, size_t left_room);
extern uint32_t cuckoo_count_hash(const CuckooFilter *f, uint64_t h);
extern bool cuckoo_contains_hash(const CuckooFilter *f, uint64_t h);

/*
 * The offsets every table's alternate buckets are computed from depend
 * only on table 0's fingerprint and bucket count, so a caller that probes
 * one filter many times can table them: cuckoo_alt_table_size(f) bytes
 * (0 when table 0's fingerprints are wider than CUCKOO_ALT_TABLE_MAX_BITS,
 * and tabling does not pay), filled by cuckoo_alt_table(f, alt).
 * cuckoo_contains_hash_alt(f, alt, h) then answers as cuckoo_contains_hash,
 * with less work before the second bucket's load.
 */
#define CUCKOO_ALT_TABLE_MAX_BITS 12
extern size_t cuckoo_alt_table_size(const CuckooFilter *f);
extern void cuckoo_alt_table(const CuckooFilter *f, uint32_t *alt);
extern bool cuckoo_contains_hash_alt(const CuckooFilter *f, const uint32_t *alt, uint64_t h);
extern void cuckoo_contains_hashes_alt(const CuckooFilter *f, const uint32_t *alt,
									   const uint64_t *h, size_t n, bool *out);
/* out[i] = cuckoo_contains_hash(f, h[i]), i < n, buckets loaded ahead */
extern void cuckoo_contains_hashes(const CuckooFilter *f, const uint64_t *h,
								   size_t n, bool *out);
/* false (and f unchanged) when h is not in */
extern bool cuckoo_remove_hash(CuckooFilter *f, uint64_t h);

/* check a value from outside: exact length, geometry, counts, rate */
extern BfStatus cuckoo_check(const void *data, size_t len, char *errbuf);

/* totals over tables */
extern uint64_t cuckoo_total_count(const CuckooFilter *f);	/* victims too */
extern uint64_t cuckoo_total_slots(const CuckooFilter *f);
extern uint64_t cuckoo_total_capacity(const CuckooFilter *f);
extern uint64_t cuckoo_total_slot_bits(const CuckooFilter *f);
extern uint64_t cuckoo_max_capacity(double fpr);

#endif							/* CUCKOO_H */
