/*
 * cuckoo.c
 *		Cuckoo filter maths, no fmgr.  See cuckoo.h for the value layout and
 *		the false-positive accounting.
 */
#include "cuckoo.h"

#include <math.h>
#include <stdio.h>

/* mixed into a fingerprint before it picks its alternate bucket */
#define CUCKOO_ALT_KEY		UINT64_C(0x5bd1e9955bd1e995)
/* seeds the relocation choices from the element hash */
#define CUCKOO_KICK_KEY		UINT64_C(0x2545f4914f6cdd1d)

/* floating-point slack when re-checking a sum computed elsewhere */
#define CUCKOO_RATE_SLACK	(1.0 + 1e-9)

/* ---- geometry ---- */

/* descriptors of every table, padded so the first table starts a cache line */
static size_t
header_size(int ntables)
{
	return bf_align64(sizeof(CuckooFilter) + (size_t) ntables * sizeof(CuckooTable));
}

/* whole 8-byte words of slots plus one spare word for unaligned loads */
static uint64_t
area_bytes(uint64_t nbuckets, uint32_t fp_bits)
{
	uint64_t	bits = nbuckets * CUCKOO_BUCKET_SLOTS * fp_bits;

	return (bits + 63) / 64 * 8 + 8;
}

uint64_t
cuckoo_buckets_for(uint64_t capacity)
{
	uint64_t	per = CUCKOO_BUCKET_SLOTS * CUCKOO_LOAD_NUM;

	if (capacity < 1)
		capacity = 1;
	if (capacity > CUCKOO_MAX_BUCKETS)
		return 0;
	return (capacity * CUCKOO_LOAD_DEN + per - 1) / per;
}

uint64_t
cuckoo_table_capacity(uint64_t nbuckets)
{
	return nbuckets * CUCKOO_BUCKET_SLOTS * CUCKOO_LOAD_NUM / CUCKOO_LOAD_DEN;
}

/* chance a stored fingerprint equals a new element's: 2^-f + 2 * 4^-f */
double
cuckoo_fp_match(uint32_t fp_bits)
{
	return ldexp(1.0, -(int) fp_bits) + ldexp(1.0, 1 - 2 * (int) fp_bits);
}

/* rate bound of a table with all 4m slots and its victim slot full */
double
cuckoo_worst_rate(uint64_t nbuckets, uint32_t fp_bits)
{
	return (2.0 * CUCKOO_BUCKET_SLOTS + 2.0 / (double) nbuckets) *
		cuckoo_fp_match(fp_bits);
}

/* rate bound of a table at its current contents (see cuckoo.h) */
double
cuckoo_table_bound(const CuckooTable *t)
{
	uint64_t	c = t->count + (t->victim_fp != 0);

	return 2.0 * (double) c / (double) t->nbuckets * cuckoo_fp_match(t->fp_bits);
}

/* a lookup searches every table: the rates add up (union bound) */
double
cuckoo_rate_bound(const CuckooFilter *f)
{
	double		s = 0.0;

	for (int i = 0; i < f->ntables; i++)
		s += cuckoo_table_bound(&f->tables[i]);
	return s;
}

/* narrowest fingerprint whose full table stays within budget; 0 if none */
static uint32_t
fp_bits_for(uint64_t nbuckets, double budget, uint32_t min_bits)
{
	for (uint32_t b = min_bits; b <= CUCKOO_MAX_FP_BITS; b++)
		if (cuckoo_worst_rate(nbuckets, b) <= budget)
			return b;
	return 0;
}

/* table 0's share of the target; the rest is kept for growth */
static double
first_budget(double fpr)
{
	return fpr * (1.0 - CUCKOO_GROWTH_RESERVE);
}

/* sum of the bounds of the tables before the last */
static double
sealed_bound(const CuckooFilter *f, int ntables)
{
	double		s = 0.0;

	for (int i = 0; i < ntables; i++)
		s += cuckoo_table_bound(&f->tables[i]);
	return s;
}

/* bytes of a new one-table filter; BF_ERR_* when it cannot be made */
BfStatus
cuckoo_new_size(uint64_t nbuckets, double fpr, size_t *size, char *errbuf)
{
	uint32_t	b;
	uint64_t	total;

	if (nbuckets < 1 || nbuckets > CUCKOO_MAX_BUCKETS)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE, "cuckoofilter too large");
	b = fp_bits_for(nbuckets, first_budget(fpr), CUCKOO_MIN_FP_BITS);
	if (b == 0)
		return bf_fail(errbuf, BF_ERR_PARAM,
					   "fpr %g is too small for a cuckoofilter", fpr);
	total = header_size(1) + area_bytes(nbuckets, b);
	if (total > BF_MAX_VALUE_BYTES)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE, "cuckoofilter too large");
	*size = (size_t) total;
	return BF_OK;
}

/* an empty table descriptor */
static void
fill_table(CuckooTable *t, uint64_t offset, uint64_t nbuckets, uint32_t shift,
		   uint32_t fp_bits)
{
	t->offset = offset;
	t->nbuckets = nbuckets;
	t->count = 0;
	t->victim_bucket = 0;
	t->victim_fp = 0;
	t->fp_bits = fp_bits;
	t->shift = shift;
}

/* an empty one-table filter in buf, sized by cuckoo_new_size */
void
cuckoo_init(void *buf, size_t size, uint64_t nbuckets, uint64_t capacity,
			double fpr, uint64_t seed)
{
	CuckooFilter *f = (CuckooFilter *) buf;

	/* the caller sized buf with cuckoo_new_size, so this cannot fail */
	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	bf_init_header(buf, BF_KIND_CUCKOO, seed);
	f->hdr.version = CUCKOO_FORMAT_DELETES;
	f->ntables = 1;
	f->fpr = fpr;
	f->capacity = capacity;
	fill_table(&f->tables[0], header_size(1), nbuckets, 0,
			   fp_bits_for(nbuckets, first_budget(fpr), CUCKOO_MIN_FP_BITS));
}

/* the value's length follows from its last table */
size_t
cuckoo_size(const CuckooFilter *f)
{
	const CuckooTable *last = &f->tables[f->ntables - 1];

	return (size_t) (last->offset + area_bytes(last->nbuckets, last->fp_bits));
}

/*
 * Geometry of the table a grown f would add; false if it cannot grow.  A
 * table sealed at least half full is followed by one twice its size; one
 * sealed early (a key added more often than its two buckets hold) by one
 * of the same size, so repeated keys do not blow the filter up.
 */
static bool
next_table(const CuckooFilter *f, uint64_t *nbuckets, uint32_t *shift, uint32_t *fp_bits)
{
	int			n = f->ntables;
	const CuckooTable *last = &f->tables[n - 1];
	uint64_t	used = last->count + (last->victim_fp != 0);
	double		left;

	if (n >= CUCKOO_MAX_TABLES)
		return false;
	*shift = last->shift;
	if (used * 2 >= last->nbuckets * CUCKOO_BUCKET_SLOTS)
		(*shift)++;
	if (*shift > 40 || f->tables[0].nbuckets > (CUCKOO_MAX_BUCKETS >> *shift))
		return false;
	*nbuckets = f->tables[0].nbuckets << *shift;
	left = f->fpr - sealed_bound(f, n);
	if (!(left > 0.0))
		return false;
	*fp_bits = fp_bits_for(*nbuckets, left / 2.0, last->fp_bits);
	return *fp_bits != 0;
}

/* bytes of f with one more table, or why it cannot grow */
BfStatus
cuckoo_grown_size(const CuckooFilter *f, size_t *size, char *errbuf)
{
	uint64_t	m = 0;
	uint32_t	b = 0,
				sh = 0;
	uint64_t	total;

	if (!next_table(f, &m, &sh, &b))
	{
		if (f->ntables >= CUCKOO_MAX_TABLES)
			return bf_fail(errbuf, BF_ERR_TOO_LARGE,
						   "cuckoofilter cannot have more than %d tables (one key fits about %d times in each)",
						   CUCKOO_MAX_TABLES, 2 * CUCKOO_BUCKET_SLOTS + 1);
		if (sh > 40 || f->tables[0].nbuckets > (CUCKOO_MAX_BUCKETS >> sh))
			return bf_fail(errbuf, BF_ERR_TOO_LARGE,
						   "cuckoofilter would grow past %llu buckets",
						   (unsigned long long) CUCKOO_MAX_BUCKETS);
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "cuckoofilter false-positive budget is used up: table %d would need fingerprints over %d bits to keep the rate under %g",
					   f->ntables + 1, CUCKOO_MAX_FP_BITS, f->fpr);
	}
	total = header_size(f->ntables + 1);
	for (int i = 0; i < f->ntables; i++)
		total += area_bytes(f->tables[i].nbuckets, f->tables[i].fp_bits);
	total += area_bytes(m, b);
	if (total > BF_MAX_VALUE_BYTES)
		return bf_fail(errbuf, BF_ERR_TOO_LARGE,
					   "cuckoofilter would grow past the 1 GB value limit (table %d of %llu buckets)",
					   f->ntables + 1, (unsigned long long) m);
	*size = (size_t) total;
	return BF_OK;
}

/*
 * f with one more (empty) table, into buf of cuckoo_grown_size bytes.  The
 * existing tables are copied as they are: nothing moves, nothing is lost.
 */
void
cuckoo_grow_into(const CuckooFilter *f, void *buf, size_t size)
{
	CuckooFilter *nf = (CuckooFilter *) buf;
	int			n = f->ntables;
	uint64_t	off = header_size(n + 1);
	uint64_t	m = 0;
	uint32_t	b = 0,
				sh = 0;

	(void) next_table(f, &m, &sh, &b);
	bf_zero((char *) buf + sizeof(uint32_t), size - sizeof(uint32_t));
	memcpy((char *) buf + sizeof(uint32_t), (const char *) f + sizeof(uint32_t),
		   sizeof(CuckooFilter) - sizeof(uint32_t));
	for (int i = 0; i < n; i++)
	{
		uint64_t	bytes = area_bytes(f->tables[i].nbuckets, f->tables[i].fp_bits);

		nf->tables[i] = f->tables[i];
		nf->tables[i].offset = off;
		bf_copy((char *) buf + off, (const char *) f + f->tables[i].offset, bytes);
		off += bytes;
	}
	fill_table(&nf->tables[n], off, m, sh, b);
	nf->ntables = (uint16_t) (n + 1);
}

/* ---- slots ---- */

static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline void
store_le64(uint8_t *p, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, 8);
}

static inline uint64_t
fp_mask(uint32_t fp_bits)
{
	return fp_bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << fp_bits) - 1;
}

/*
 * A slot is one unaligned 8-byte load, plus the next byte when a wide
 * fingerprint (over 56 bits) straddles it; the area's spare word keeps
 * both inside the value.
 */
static inline uint64_t
slot_get(const uint8_t *area, uint32_t fp_bits, uint64_t slot)
{
	uint64_t	bit = slot * fp_bits;
	const uint8_t *p = area + (bit >> 3);
	uint32_t	sh = (uint32_t) (bit & 7);
	uint64_t	v = load_le64(p) >> sh;

	if (sh + fp_bits > 64)
		v |= (uint64_t) p[8] << (64 - sh);
	return v & fp_mask(fp_bits);
}

static inline void
slot_set(uint8_t *area, uint32_t fp_bits, uint64_t slot, uint64_t fp)
{
	uint64_t	bit = slot * fp_bits;
	uint8_t    *p = area + (bit >> 3);
	uint32_t	sh = (uint32_t) (bit & 7);
	uint64_t	mask = fp_mask(fp_bits) << sh;
	uint64_t	w = load_le64(p);

	w = (w & ~mask) | (fp << sh);
	store_le64(p, w);
	if (sh + fp_bits > 64)
	{
		uint8_t		hmask = (uint8_t) ((1u << (sh + fp_bits - 64)) - 1);

		p[8] = (uint8_t) ((p[8] & ~hmask) | ((fp >> (64 - sh)) & hmask));
	}
}

static inline uint8_t *
table_area(CuckooFilter *f, const CuckooTable *t)
{
	return (uint8_t *) f + t->offset;
}

static inline const uint8_t *
table_area_const(const CuckooFilter *f, const CuckooTable *t)
{
	return (const uint8_t *) f + t->offset;
}

/* ---- hashing ---- */

/*
 * Fingerprint of width f: the top f bits of remix(h), 0 stored as 1.
 * Widths only grow from table to table, so equal fingerprints in a later
 * table mean equal fingerprints in every earlier one.
 */
static inline uint64_t
fingerprint(uint64_t g, uint32_t fp_bits)
{
	uint64_t	v = g >> (64 - fp_bits);

	return v ? v : 1;
}

/* table 0's fingerprint of an element whose table-k fingerprint is fp */
static inline uint64_t
base_fp(uint64_t fp, uint32_t fp_bits, uint32_t base_bits)
{
	uint64_t	v = fp >> (fp_bits - base_bits);

	return v ? v : 1;
}

/* how to find buckets in one table: its own size and width, and table 0's */
typedef struct CuckooGeom
{
	uint64_t	nbuckets;		/* m0 << k */
	uint64_t	base_buckets;	/* m0 */
	uint32_t	shift;			/* k */
	uint32_t	fp_bits;
	uint32_t	base_bits;		/* table 0's fingerprint width */
	const uint32_t *alt;		/* alt_offset of every table-0 fingerprint, or NULL */
} CuckooGeom;

static inline CuckooGeom
table_geom(const CuckooFilter *f, int k)
{
	CuckooGeom	g;

	g.nbuckets = f->tables[k].nbuckets;
	g.base_buckets = f->tables[0].nbuckets;
	g.shift = f->tables[k].shift;
	g.fp_bits = f->tables[k].fp_bits;
	g.base_bits = f->tables[0].fp_bits;
	g.alt = NULL;
	return g;
}

/*
 * The other bucket of a fingerprint in bucket i.  A bucket of table k is
 * (c << k) | t, c in [0, m0) (i1's c is table 0's i1) and t the next k
 * bits; c moves by the involution c -> (H(b) - c) mod m0, t by t ^ G(b),
 * both from b = the table-0 fingerprint.  So alt is an involution, works
 * for any m0, and a bucket pair in table k + 1, shifted right by one, is
 * the pair in table k: keys that look alike in a later table look alike
 * in every earlier one (what makes removes safe, see cuckoo.h).
 */
static inline uint64_t
alt_offset(uint64_t b, uint64_t base_buckets)
{
	return bf_range64(bf_remix(b ^ CUCKOO_ALT_KEY), base_buckets);
}

/* the involution c -> (hc - c) mod m0 that pairs a table-0 bucket with its other */
static inline uint64_t
alt_index(uint64_t hc, uint64_t c, uint64_t m0)
{
	return hc >= c ? hc - c : hc + m0 - c;
}

/* alt_bucket, given b (the table-0 fingerprint) and hc = alt_offset(b, m0) */
static inline uint64_t
alt_bucket_of(const CuckooGeom *g, uint64_t i, uint64_t b, uint64_t hc)
{
	uint64_t	c = i >> g->shift;
	uint64_t	c2 = alt_index(hc, c, g->base_buckets);
	uint64_t	t = i & ((UINT64_C(1) << g->shift) - 1);

	if (g->shift > 0)
		t ^= bf_remix(b + CUCKOO_KICK_KEY) >> (64 - g->shift);
	return (c2 << g->shift) | t;
}

static inline uint64_t
alt_bucket(const CuckooGeom *g, uint64_t i, uint64_t fp)
{
	uint64_t	b = base_fp(fp, g->fp_bits, g->base_bits);

	return alt_bucket_of(g, i, b, g->alt ? g->alt[b] : alt_offset(b, g->base_buckets));
}

/* the element's two buckets and fingerprint in a table */
static inline void
locate(const CuckooGeom *g, uint64_t h, uint64_t *fp, uint64_t *i1, uint64_t *i2)
{
	*fp = fingerprint(bf_remix(h), g->fp_bits);
	*i1 = bf_range64(h, g->nbuckets);
	*i2 = alt_bucket(g, *i1, *fp);
}

/* widest fingerprint whose bucket (4f bits at any bit offset) is one 8-byte load */
#define CUCKOO_WORD_FP_BITS 14

/* a 1 in the lowest bit of each of a bucket's four fields */
static inline uint64_t
field_ones(uint32_t fp_bits)
{
	uint64_t	lo = 1 | UINT64_C(1) << fp_bits;

	return lo | lo << (2 * fp_bits);
}

/* bucket b's four fields in the low bits (fp_bits <= CUCKOO_WORD_FP_BITS) */
static inline uint64_t
bucket_word(const uint8_t *area, uint32_t fp_bits, uint64_t b)
{
	uint64_t	bit = b * CUCKOO_BUCKET_SLOTS * fp_bits;

	return load_le64(area + (bit >> 3)) >> (bit & 7);
}

/*
 * Nonzero iff a field of bucket word w equals fp: the has-a-zero-byte test
 * on w ^ fp-in-every-field, for fields of any width.  A borrow only runs
 * up from a zero field, so the lowest flagged bit is the top bit of the
 * lowest matching field; bits above the four fields are never looked at.
 */
static inline uint64_t
bucket_match(uint64_t w, uint32_t fp_bits, uint64_t fp)
{
	uint64_t	lo = field_ones(fp_bits);
	uint64_t	x = w ^ (fp * lo);

	return (x - lo) & ~x & (lo << (fp_bits - 1));
}

/* slot index of fp in bucket b, or -1 (fp 0 finds a free slot) */
static inline int
bucket_find(const uint8_t *area, uint32_t fp_bits, uint64_t b, uint64_t fp)
{
	if (fp_bits <= CUCKOO_WORD_FP_BITS)
	{
		uint64_t	m = bucket_match(bucket_word(area, fp_bits, b), fp_bits, fp);
		uint32_t	z;

		if (m == 0)
			return -1;
		z = (uint32_t) __builtin_ctzll(m);
		return (z >= fp_bits) + (z >= 2 * fp_bits) + (z >= 3 * fp_bits);
	}
	for (int s = 0; s < CUCKOO_BUCKET_SLOTS; s++)
		if (slot_get(area, fp_bits, b * CUCKOO_BUCKET_SLOTS + s) == fp)
			return s;
	return -1;
}

/* fp in bucket i1 or i2, with both buckets loaded independently, no early exit */
static inline bool
buckets_hold(const uint8_t *area, uint32_t fp_bits, uint64_t i1, uint64_t i2, uint64_t fp)
{
	if (fp_bits <= CUCKOO_WORD_FP_BITS)
		return (bucket_match(bucket_word(area, fp_bits, i1), fp_bits, fp) |
				bucket_match(bucket_word(area, fp_bits, i2), fp_bits, fp)) != 0;
	return ((bucket_find(area, fp_bits, i1, fp) + 1) |
			(bucket_find(area, fp_bits, i2, fp) + 1)) != 0;
}

/*
 * Start loading bucket b (its first and last byte: a bucket may straddle
 * two cache lines).  Always inlined: GCC judges a helper that only
 * prefetches pure and deletes calls to it that it did not inline.
 */
static inline __attribute__((always_inline)) void
prefetch_bucket(const uint8_t *area, uint32_t fp_bits, uint64_t b)
{
	uint64_t	bit = b * CUCKOO_BUCKET_SLOTS * fp_bits;

	__builtin_prefetch(area + (bit >> 3), 1);
	__builtin_prefetch(area + ((bit + CUCKOO_BUCKET_SLOTS * fp_bits - 1) >> 3), 1);
}

static inline uint32_t
bucket_count(const uint8_t *area, uint32_t fp_bits, uint64_t b, uint64_t fp)
{
	uint32_t	n = 0;

	for (int s = 0; s < CUCKOO_BUCKET_SLOTS; s++)
		n += slot_get(area, fp_bits, b * CUCKOO_BUCKET_SLOTS + s) == fp;
	return n;
}

/* put fp in a free slot of bucket b if there is one */
static inline bool
bucket_put(uint8_t *area, uint32_t fp_bits, uint64_t b, uint64_t fp)
{
	int			s = bucket_find(area, fp_bits, b, 0);

	if (s < 0)
		return false;
	slot_set(area, fp_bits, b * CUCKOO_BUCKET_SLOTS + s, fp);
	return true;
}

/* relocation choices: cheap, and the same on every platform */
static inline uint64_t
xorshift64(uint64_t *state)
{
	uint64_t	x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/*
 * The cuckoo walk, when the breadth-first search below found no short
 * path.  Relocations are chosen by a PRNG seeded from h, so the same adds
 * in the same order give the same bytes.  The fingerprint left over after
 * the last kick is parked in the victim slot, never dropped.
 */
static void
table_kick(CuckooTable *t, const CuckooGeom *g, uint8_t *area, uint64_t h,
		   uint64_t fp, uint64_t i1, uint64_t i2)
{
	uint32_t	fb = t->fp_bits;
	uint64_t	rng = (h ^ CUCKOO_KICK_KEY) | 1;
	uint64_t	i = (xorshift64(&rng) >> 63) ? i2 : i1;

	for (int n = 0; n < CUCKOO_MAX_KICKS; n++)
	{
		uint64_t	slot = i * CUCKOO_BUCKET_SLOTS + (xorshift64(&rng) >> 62);
		uint64_t	old = slot_get(area, fb, slot);

		slot_set(area, fb, slot, fp);
		fp = old;
		i = alt_bucket(g, i, fp);
		if (bucket_put(area, fb, i, fp))
		{
			t->count++;
			return;
		}
	}
	t->victim_fp = fp;
	t->victim_bucket = i;
}

/*
 * The bucket the fingerprint in slot s of bucket b would move to: a child
 * of b in the search (table_bfs), and what prefetch_search loads ahead.
 */
static inline uint64_t
slot_alt(const CuckooGeom *g, const uint8_t *area, uint64_t b, int s)
{
	return alt_bucket(g, b, slot_get(area, g->fp_bits, b * CUCKOO_BUCKET_SLOTS + s));
}

/*
 * Breadth-first search for a short chain of relocations, when both of a
 * new fingerprint's buckets are full (Li, Andersen, Kaminsky and Freedman,
 * "Algorithmic improvements for fast concurrent cuckoo hashing", EuroSys
 * 2014).  Level by level, every fingerprint of every bucket reached so far
 * could move to its other bucket; a bucket's four children are prefetched
 * together, then looked at, so they cost one wait for memory where the
 * random walk waits once per kick, and the children of the level's later
 * buckets are only computed if these have no room.  The first bucket with
 * a free slot, in a fixed order (level, parent, slot), ends the search,
 * and the chain is moved from its far end
 * back, each fingerprint into its other bucket (alt is an involution), so
 * every step leaves the table valid.  A bucket already on a node's chain
 * is not a child of it, so no chain touches a bucket twice.  Deterministic:
 * the same table and fingerprint give the same moves.  False if no bucket
 * within CUCKOO_BFS_LEVELS moves has room (the table is then very full,
 * and the walk takes over).
 */
#define CUCKOO_BFS_LEVELS 3
#define CUCKOO_BFS_NODES (2 + 8 + 32 + 128)	/* 2 * 4^L summed, L = 0..3 */

typedef struct CuckooBfsNode
{
	uint64_t	bucket;
	int32_t		parent;			/* index of the node it moves out of, -1 for a root */
	int32_t		slot;			/* which of the parent's slots moves here */
} CuckooBfsNode;

static bool
on_chain(const CuckooBfsNode *nodes, int j, uint64_t b)
{
	for (; j >= 0; j = nodes[j].parent)
		if (nodes[j].bucket == b)
			return true;
	return false;
}

/* node j's bucket has a free slot: move its chain, far end first, then fp in */
static void
move_chain(CuckooTable *t, uint8_t *area, const CuckooBfsNode *nodes, int j,
		   int free_slot, uint64_t fp)
{
	uint32_t	fb = t->fp_bits;
	uint64_t	dst = nodes[j].bucket;
	int			dst_slot = free_slot;

	for (; nodes[j].parent >= 0; j = nodes[j].parent)
	{
		uint64_t	src = nodes[nodes[j].parent].bucket;

		slot_set(area, fb, dst * CUCKOO_BUCKET_SLOTS + dst_slot,
				 slot_get(area, fb, src * CUCKOO_BUCKET_SLOTS + nodes[j].slot));
		dst = src;
		dst_slot = nodes[j].slot;
	}
	slot_set(area, fb, dst * CUCKOO_BUCKET_SLOTS + dst_slot, fp);
	t->count++;
}

/*
 * flat: table 0's geometry (shift 0, fingerprints of table 0's width, so
 * a field indexes the alt_offset table as it is) with that table built,
 * four fields to a bucket word (a sized bulk load's table): a parent's
 * four children then come from one load of its bucket, each through one
 * lookup in that table, instead of four slot_alt (a load, base_fp, the
 * shift's branch).  The same nodes in the same order either way, so the
 * same moves.
 */
static inline __attribute__((always_inline)) bool
bfs_core(CuckooTable *t, const CuckooGeom *g, uint8_t *area, uint64_t fp,
		 uint64_t i1, uint64_t i2, const bool flat)
{
	CuckooBfsNode nodes[CUCKOO_BFS_NODES];
	uint32_t	fb = t->fp_bits;
	uint64_t	mask = fp_mask(fb);
	int			n = 0,
				lo = 0,
				hi;

	nodes[n++] = (CuckooBfsNode) {i1, -1, 0};
	if (i2 != i1)
		nodes[n++] = (CuckooBfsNode) {i2, -1, 0};
	hi = n;
	for (int level = 0; level < CUCKOO_BFS_LEVELS; level++)
	{
		/* every node of this level is a full bucket: expand it, slot by slot */
		for (int p = lo; p < hi; p++)
		{
			uint64_t	b = nodes[p].bucket;
			uint64_t	w = flat ? bucket_word(area, fb, b) : 0;
			int			first = n;

			for (int s = 0; s < CUCKOO_BUCKET_SLOTS; s++)
			{
				uint64_t	c;

				/* a full bucket's fingerprints are never 0 */
				if (flat)
					c = alt_index(g->alt[(w >> (s * fb)) & mask], b, g->base_buckets);
				else
					c = slot_alt(g, area, b, s);
				if (on_chain(nodes, p, c))
					continue;
				prefetch_bucket(area, fb, c);
				nodes[n++] = (CuckooBfsNode) {c, p, s};
			}
			for (int j = first; j < n; j++)
			{
				int			free_slot = bucket_find(area, fb, nodes[j].bucket, 0);

				if (free_slot >= 0)
				{
					move_chain(t, area, nodes, j, free_slot, fp);
					return true;
				}
			}
		}
		lo = hi;
		hi = n;
	}
	return false;
}

static bool
table_bfs(CuckooTable *t, const CuckooGeom *g, uint8_t *area, uint64_t fp,
		  uint64_t i1, uint64_t i2)
{
	/* table 0's geometry: a later table may keep shift 0 with wider fingerprints */
	if (g->shift == 0 && t->fp_bits == g->base_bits && g->alt != NULL &&
		t->fp_bits <= CUCKOO_WORD_FP_BITS)
		return bfs_core(t, g, area, fp, i1, i2, true);
	return bfs_core(t, g, area, fp, i1, i2, false);
}

/* insert a located element into table t, which has no victim */
static inline void
insert_located(CuckooTable *t, const CuckooGeom *g, uint8_t *area, uint64_t h,
			   uint64_t fp, uint64_t i1, uint64_t i2)
{
	if (bucket_put(area, t->fp_bits, i1, fp) || bucket_put(area, t->fp_bits, i2, fp))
		t->count++;
	else if (!table_bfs(t, g, area, fp, i1, i2))
		table_kick(t, g, area, h, fp, i1, i2);
}

/* add one copy: only the newest table takes inserts, while its victim slot is free */
CuckooAddResult
cuckoo_add_hash(CuckooFilter *f, uint64_t h)
{
	int			k = f->ntables - 1;
	CuckooTable *t = &f->tables[k];
	CuckooGeom	g = table_geom(f, k);
	uint64_t	fp,
				i1,
				i2;

	if (t->victim_fp != 0)
		return CUCKOO_NEEDS_TABLE;
	locate(&g, h, &fp, &i1, &i2);
	insert_located(t, &g, table_area(f, t), h, fp, i1, i2);
	return CUCKOO_ADDED;
}

/* hashes located ahead of their insert, their buckets loading meanwhile */
#define CUCKOO_PREFETCH_AHEAD 16	/* a power of two */

typedef struct CuckooLocated
{
	uint64_t	h;
	uint64_t	fp;
	uint64_t	i1;
	uint64_t	i2;
} CuckooLocated;

static inline __attribute__((always_inline)) void
locate_ahead(const CuckooGeom *g, const uint8_t *area, uint64_t h, CuckooLocated *l)
{
	l->h = h;
	locate(g, h, &l->fp, &l->i1, &l->i2);
	prefetch_bucket(area, g->fp_bits, l->i1);
	prefetch_bucket(area, g->fp_bits, l->i2);
}

/*
 * An insert that finds both its buckets full searches the buckets their
 * fingerprints move to (table_bfs).  CUCKOO_SEARCH_AHEAD adds early, when
 * its own two buckets have arrived, a located hash whose buckets are both
 * full has those eight loaded too.  Only a hint: the adds in between may
 * change what the search will find.
 */
#define CUCKOO_SEARCH_AHEAD 6	/* less than CUCKOO_PREFETCH_AHEAD */

static inline __attribute__((always_inline)) void
prefetch_search(const CuckooGeom *g, const uint8_t *area, const CuckooLocated *l)
{
	uint32_t	fb = g->fp_bits;

	if (bucket_find(area, fb, l->i1, 0) >= 0 || bucket_find(area, fb, l->i2, 0) >= 0)
		return;
	for (int s = 0; s < CUCKOO_BUCKET_SLOTS; s++)
	{
		prefetch_bucket(area, fb, slot_alt(g, area, l->i1, s));
		prefetch_bucket(area, fb, slot_alt(g, area, l->i2, s));
	}
}

/*
 * The bulk adds below find second buckets through the table of
 * alt_offset (cuckoo_alt_table, 4 kB for 10-bit fingerprints) instead of
 * computing it, when there are at least as many adds as entries: in the
 * search for a free slot (table_bfs) each fingerprint looked at needs
 * its other bucket.  The same buckets either way, so the same bytes.
 * buf has room for 2^CUCKOO_ALT_TABLE_MAX_BITS entries.
 */
static void
geom_table_alt(CuckooGeom *g, const CuckooFilter *f, uint32_t *buf, size_t n)
{
	if (cuckoo_alt_table_size(f) != 0 && n >= ((size_t) 1 << g->base_bits))
	{
		cuckoo_alt_table(f, buf);
		g->alt = buf;
	}
}

/*
 * cuckoo_add_hash over hashes[0 .. n) in order, the same bytes, but with
 * each hash located CUCKOO_PREFETCH_AHEAD adds early and both its buckets
 * prefetched: a filter of millions is far bigger than the caches.  g is
 * the last table's geometry.
 */
static size_t
add_hashes(CuckooFilter *f, const CuckooGeom *gp, const uint64_t *hashes, size_t n)
{
	int			k = f->ntables - 1;
	CuckooTable *t = &f->tables[k];
	CuckooGeom	g = *gp;
	uint8_t    *area = table_area(f, t);
	CuckooLocated ring[CUCKOO_PREFETCH_AHEAD];
	bool		search_ahead = area_bytes(t->nbuckets, t->fp_bits) >= CUCKOO_SEARCH_PREFETCH_MIN_BYTES;

	if (t->victim_fp != 0)
		return 0;
	for (size_t j = 0; j < n && j < CUCKOO_PREFETCH_AHEAD; j++)
		locate_ahead(&g, area, hashes[j], &ring[j]);
	for (size_t j = 0; j < n; j++)
	{
		CuckooLocated *l = &ring[j & (CUCKOO_PREFETCH_AHEAD - 1)];

		if (search_ahead && j + CUCKOO_SEARCH_AHEAD < n)
			prefetch_search(&g, area, &ring[(j + CUCKOO_SEARCH_AHEAD) & (CUCKOO_PREFETCH_AHEAD - 1)]);
		insert_located(t, &g, area, l->h, l->fp, l->i1, l->i2);
		if (t->victim_fp != 0)
			return j + 1;
		if (j + CUCKOO_PREFETCH_AHEAD < n)
			locate_ahead(&g, area, hashes[j + CUCKOO_PREFETCH_AHEAD], l);
	}
	return n;
}

/* add_hashes a chunk at a time, so that a long array can be interrupted */
static size_t
add_hashes_chunked(CuckooFilter *f, const CuckooGeom *g, const uint64_t *hashes, size_t n)
{
	size_t		done = 0;

	while (done < n)
	{
		size_t		c = bf_chunk(n - done);
		size_t		took;

		if (done > 0)
			bf_check_interrupts();
		took = add_hashes(f, g, hashes + done, c);
		done += took;
		if (took < c)
			break;
	}
	return done;
}

size_t
cuckoo_add_hashes(CuckooFilter *f, const uint64_t *hashes, size_t n)
{
	uint32_t	alt[1 << CUCKOO_ALT_TABLE_MAX_BITS];
	CuckooGeom	g = table_geom(f, f->ntables - 1);

	geom_table_alt(&g, f, alt, n);
	return add_hashes_chunked(f, &g, hashes, n);
}

/* add_hashes of src[0 .. n), what it did not add moved to left */
static size_t
add_rest(CuckooFilter *f, const CuckooGeom *g, const uint64_t *src, size_t n,
		 uint64_t *left)
{
	size_t		done = add_hashes_chunked(f, g, src, n);

	memmove(left, src + done, (n - done) * sizeof(uint64_t));
	return n - done;
}

/*
 * Bulk load of an empty table from ascending hashes.  A hash's first
 * bucket is its top bits scaled (bf_range64), so ascending hashes visit
 * the buckets in order, and the first pass fills each bucket with its
 * first four hashes' fingerprints, in slot order (an empty table is all
 * zero bits, so a fingerprint is ORed in).  That pass has no branch on
 * the data: whether a hash starts a bucket, fits in it, or goes on is a
 * coin toss for random hashes, so a branch on it would be mispredicted
 * half the time.  A hash that does not fit is ORed in as zero and goes on, still ascending,
 * to the second pass, which puts each in its second bucket if that has
 * room (buckets prefetched as in cuckoo_add_hashes); what is left after
 * that is inserted the usual way (search, then walk), where it may park
 * a victim.  Both find second buckets through the alt_offset table
 * (geom_table_alt).
 *
 * A hash whose first bucket lies behind the stream (input out of order)
 * skips the first pass, so no slot is written twice.  left[nl], nl <= j,
 * is written only after hashes[j] is read, so left may alias hashes; the
 * second pass likewise.
 *
 * Only the first pass can leave more hashes than it was given room for
 * (the second writes in place, and the rest moves what it does not add to
 * the front); if it would, the table is zeroed again and the call returns
 * CUCKOO_LOAD_NO_ROOM, so a retry with more room gives the same bytes.
 */
size_t
cuckoo_load_sorted(CuckooFilter *f, const uint64_t *hashes, size_t n, uint64_t *left,
				   size_t left_room)
{
	int			k = f->ntables - 1;
	CuckooTable *t = &f->tables[k];
	CuckooGeom	g = table_geom(f, k);
	uint8_t    *area = table_area(f, t);
	uint32_t	fb = g.fp_bits;
	uint32_t	alt[1 << CUCKOO_ALT_TABLE_MAX_BITS];
	size_t		nl = 0,
				nl2 = 0;
	uint64_t	cur = 0,
				filled = 0,
				added = 0;

	geom_table_alt(&g, f, alt, n);
	if (t->count != 0 || t->victim_fp != 0)
		return left_room < n ? CUCKOO_LOAD_NO_ROOM : add_rest(f, &g, hashes, n, left);

	/*
	 * first buckets, in order: the first four hashes of each (a chunk at
	 * a time, so that a big load can be interrupted)
	 */
	for (size_t base = 0; base < n; base += BF_INTERRUPT_CHUNK)
	{
		size_t		end = base + bf_chunk(n - base);

		if (base > 0)
			bf_check_interrupts();
		for (size_t j = base; j < end; j++)
		{
			uint64_t	h = hashes[j];
			uint64_t	i1 = bf_range64(h, g.nbuckets);
			uint64_t	fp = fingerprint(bf_remix(h), fb);
			uint64_t	next = (uint64_t) (i1 > cur);
			uint64_t	fits,
						bit;
			uint8_t    *p;

			/* all arithmetic: compilers turn ?: here into branches */
			filled &= next - 1;
			fits = (uint64_t) (i1 >= cur) & (uint64_t) (filled < CUCKOO_BUCKET_SLOTS);
			cur ^= (cur ^ i1) & (0 - next);
			if (__builtin_expect(nl == left_room, 0) && !fits)
			{
				memset(area, 0, area_bytes(g.nbuckets, fb));
				return CUCKOO_LOAD_NO_ROOM;
			}

			/*
			 * The slot's bits go into the aligned word they start in and the
			 * next (the area's spare word is the next of the last word).
			 */
			bit = (i1 * CUCKOO_BUCKET_SLOTS + (filled & (CUCKOO_BUCKET_SLOTS - 1))) * fb;
			p = area + 8 * (bit >> 6);
			fp &= 0 - fits;
			store_le64(p, load_le64(p) | fp << (bit & 63));
			store_le64(p + 8, load_le64(p + 8) | (fp >> 1) >> (63 - (bit & 63)));
			if (__builtin_expect(nl < left_room, 1))
				left[nl] = h;
			nl += 1 - fits;
			filled += fits;
			added += fits;
		}
	}
	t->count = added;

	/* second buckets */
	{
		CuckooLocated ring[CUCKOO_PREFETCH_AHEAD];

		for (size_t j = 0; j < nl && j < CUCKOO_PREFETCH_AHEAD; j++)
			locate_ahead(&g, area, left[j], &ring[j]);
		for (size_t base = 0; base < nl; base += BF_INTERRUPT_CHUNK)
		{
			size_t		end = base + bf_chunk(nl - base);

			if (base > 0)
				bf_check_interrupts();
			for (size_t j = base; j < end; j++)
			{
				CuckooLocated *l = &ring[j & (CUCKOO_PREFETCH_AHEAD - 1)];

				if (bucket_put(area, fb, l->i2, l->fp))
					t->count++;
				else
					left[nl2++] = l->h;
				if (j + CUCKOO_PREFETCH_AHEAD < nl)
					locate_ahead(&g, area, left[j + CUCKOO_PREFETCH_AHEAD], l);
			}
		}
	}

	/* the rest: search, then walk */
	return add_rest(f, &g, left, nl2, left);
}

/* the victim is one more slot shared by its two buckets (branch-free) */
static inline bool
victim_matches(const CuckooTable *t, uint64_t fp, uint64_t i1, uint64_t i2)
{
	return (int) (t->victim_fp == fp) &
		((int) (t->victim_bucket == i1) | (int) (t->victim_bucket == i2));
}

/*
 * Copies of h's fingerprint in its two buckets and victim slot, summed over
 * tables: at least the number of copies of h that were added and not
 * removed (other keys with the same fingerprint and buckets count too).
 */
uint32_t
cuckoo_count_hash(const CuckooFilter *f, uint64_t h)
{
	uint32_t	n = 0;

	for (int k = 0; k < f->ntables; k++)
	{
		const CuckooTable *t = &f->tables[k];
		const uint8_t *area = table_area_const(f, t);
		CuckooGeom	g = table_geom(f, k);
		uint64_t	fp,
					i1,
					i2;

		locate(&g, h, &fp, &i1, &i2);
		n += bucket_count(area, t->fp_bits, i1, fp);
		if (i2 != i1)
			n += bucket_count(area, t->fp_bits, i2, fp);
		n += victim_matches(t, fp, i1, i2);
	}
	return n;
}

/*
 * cuckoo_count_hash() > 0, in every table.  Both buckets are loaded
 * independently and there is no early exit: whether a row is a member is
 * what the branch predictor cannot guess.  With alt (cuckoo_alt_table),
 * the second bucket's offset is read from it instead of computed, which
 * takes a remix and a multiply off the path to the second bucket's load.
 */
static inline __attribute__((always_inline)) bool
contains_hash(const CuckooFilter *f, const uint32_t *alt, uint64_t h)
{
	bool		found = false;

	/* one table (a filter that never grew): its alt_bucket, shift 0 */
	if (f->ntables == 1)
	{
		const CuckooTable *t = &f->tables[0];
		uint32_t	fb = t->fp_bits;
		uint64_t	m = t->nbuckets,
					fp = fingerprint(bf_remix(h), fb),
					i1 = bf_range64(h, m),
					i2 = alt_index(alt ? alt[fp] : alt_offset(fp, m), i1, m);

		return (int) buckets_hold(table_area_const(f, t), fb, i1, i2, fp) |
			(int) victim_matches(t, fp, i1, i2);
	}
	for (int k = 0; k < f->ntables; k++)
	{
		const CuckooTable *t = &f->tables[k];
		CuckooGeom	g = table_geom(f, k);
		uint64_t	fp,
					i1,
					i2;

		g.alt = alt;
		locate(&g, h, &fp, &i1, &i2);
		found |= (int) buckets_hold(table_area_const(f, t), t->fp_bits, i1, i2, fp) |
			(int) victim_matches(t, fp, i1, i2);
	}
	return found;
}

bool
cuckoo_contains_hash(const CuckooFilter *f, uint64_t h)
{
	return contains_hash(f, NULL, h);
}

size_t
cuckoo_alt_table_size(const CuckooFilter *f)
{
	if (f->tables[0].fp_bits > CUCKOO_ALT_TABLE_MAX_BITS ||
		f->tables[0].nbuckets > UINT32_MAX)
		return 0;
	return ((size_t) 1 << f->tables[0].fp_bits) * sizeof(uint32_t);
}

void
cuckoo_alt_table(const CuckooFilter *f, uint32_t *alt)
{
	uint64_t	m0 = f->tables[0].nbuckets;

	for (uint64_t b = 0; b < (UINT64_C(1) << f->tables[0].fp_bits); b++)
		alt[b] = (uint32_t) alt_offset(b, m0);
}

bool
cuckoo_contains_hash_alt(const CuckooFilter *f, const uint32_t *alt, uint64_t h)
{
	return contains_hash(f, alt, h);
}

/* start loading both buckets of h in every table */
static inline __attribute__((always_inline)) void
prefetch_contains(const CuckooFilter *f, uint64_t h)
{
	for (int k = 0; k < f->ntables; k++)
	{
		CuckooGeom	g = table_geom(f, k);
		CuckooLocated l;

		locate_ahead(&g, table_area_const(f, &f->tables[k]), h, &l);
	}
}

static __attribute__((noinline)) void
contains_many(const CuckooFilter *f, const uint64_t *h, size_t n, bool *out)
{
#define PREFETCH(i) prefetch_contains(f, h[i])
#define PROBE(i) (out[i] = cuckoo_contains_hash(f, h[i]))
	BF_PROBE_MANY(cuckoo_size(f), n, CUCKOO_PREFETCH_AHEAD, PREFETCH, PROBE);
#undef PREFETCH
#undef PROBE
}

/* a chunk at a time, so that a long array can be interrupted (bfcore.h) */
void
cuckoo_contains_hashes(const CuckooFilter *f, const uint64_t *h, size_t n, bool *out)
{
	for (; n > BF_INTERRUPT_CHUNK; h += BF_INTERRUPT_CHUNK, out += BF_INTERRUPT_CHUNK,
		 n -= BF_INTERRUPT_CHUNK)
	{
		contains_many(f, h, BF_INTERRUPT_CHUNK, out);
		bf_check_interrupts();
	}
	contains_many(f, h, n, out);
}

/*
 * As cuckoo_contains_hashes, through the alternate-bucket offsets alt
 * (cuckoo_alt_table; NULL: computed).  A filter of one table locates a
 * batch of hashes first, loading both buckets of each, and then checks
 * them: each hash is located once, where the prefetch-ahead loop located
 * it twice (to load ahead, then to probe).
 */
#define CUCKOO_BATCH 64

static __attribute__((noinline)) void
contains_many_alt(const CuckooFilter *f, const uint32_t *alt, const uint64_t *h,
				  size_t n, bool *out)
{
	const CuckooTable *t;
	const uint8_t *area;
	uint32_t	fb;
	uint64_t	m;

	if (f->ntables != 1)
	{
#define PREFETCH(i) prefetch_contains(f, h[i])
#define PROBE(i) (out[i] = contains_hash(f, alt, h[i]))
		BF_PROBE_MANY(cuckoo_size(f), n, CUCKOO_PREFETCH_AHEAD, PREFETCH, PROBE);
#undef PREFETCH
#undef PROBE
		return;
	}
	t = &f->tables[0];
	area = table_area_const(f, t);
	fb = t->fp_bits;
	m = t->nbuckets;
	for (size_t base = 0; base < n; base += CUCKOO_BATCH)
	{
		size_t		c = n - base < CUCKOO_BATCH ? n - base : CUCKOO_BATCH;
		uint64_t	fp[CUCKOO_BATCH],
					i1[CUCKOO_BATCH],
					i2[CUCKOO_BATCH];

		for (size_t j = 0; j < c; j++)
		{
			uint64_t	x = h[base + j];

			fp[j] = fingerprint(bf_remix(x), fb);
			i1[j] = bf_range64(x, m);
			i2[j] = alt_index(alt ? alt[fp[j]] : alt_offset(fp[j], m), i1[j], m);
			prefetch_bucket(area, fb, i1[j]);
			prefetch_bucket(area, fb, i2[j]);
		}
		for (size_t j = 0; j < c; j++)
			out[base + j] = (int) buckets_hold(area, fb, i1[j], i2[j], fp[j]) |
				(int) victim_matches(t, fp[j], i1[j], i2[j]);
	}
}

void
cuckoo_contains_hashes_alt(const CuckooFilter *f, const uint32_t *alt, const uint64_t *h,
						   size_t n, bool *out)
{
	for (; n > BF_INTERRUPT_CHUNK; h += BF_INTERRUPT_CHUNK, out += BF_INTERRUPT_CHUNK,
		 n -= BF_INTERRUPT_CHUNK)
	{
		contains_many_alt(f, alt, h, BF_INTERRUPT_CHUNK, out);
		bf_check_interrupts();
	}
	contains_many_alt(f, alt, h, n, out);
}

/* a slot of t was freed: the victim, if it has a bucket with room, moves in */
static void
replace_victim(CuckooFilter *f, int k)
{
	CuckooTable *t = &f->tables[k];
	CuckooGeom	g = table_geom(f, k);
	uint8_t    *area = table_area(f, t);
	uint64_t	b = t->victim_bucket;

	if (t->victim_fp == 0)
		return;
	if (bucket_put(area, t->fp_bits, b, t->victim_fp) ||
		bucket_put(area, t->fp_bits, alt_bucket(&g, b, t->victim_fp),
				   t->victim_fp))
	{
		t->count++;
		t->victim_fp = 0;
		t->victim_bucket = 0;
	}
}

/*
 * Take one copy out, newest table first (the one taking inserts, where a
 * freed slot is most useful).  Removing a key that was never added can
 * take out another key's matching fingerprint: only remove what you added.
 */
/* one more successful remove, in a format that counts them */
static void
count_delete(CuckooFilter *f)
{
	if (f->hdr.version >= CUCKOO_FORMAT_DELETES && f->deletes < UINT32_MAX)
		f->deletes++;
}

bool
cuckoo_remove_hash(CuckooFilter *f, uint64_t h)
{
	for (int k = f->ntables - 1; k >= 0; k--)
	{
		CuckooTable *t = &f->tables[k];
		uint8_t    *area = table_area(f, t);
		CuckooGeom	g = table_geom(f, k);
		uint64_t	fp,
					i1,
					i2,
					b;
		int			s;

		locate(&g, h, &fp, &i1, &i2);
		b = i1;
		s = bucket_find(area, t->fp_bits, i1, fp);
		if (s < 0)
		{
			b = i2;
			s = bucket_find(area, t->fp_bits, i2, fp);
		}
		if (s >= 0)
		{
			slot_set(area, t->fp_bits, b * CUCKOO_BUCKET_SLOTS + s, 0);
			t->count--;
			replace_victim(f, k);
			count_delete(f);
			return true;
		}
		if (victim_matches(t, fp, i1, i2))
		{
			t->victim_fp = 0;
			t->victim_bucket = 0;
			count_delete(f);
			return true;
		}
	}
	return false;
}

/* ---- validation ---- */

/*
 * Every value from outside passes here before anything reads it: exact
 * length, geometry that cannot make a probe read outside the value,
 * counts that match the slots, zero padding, and a rate invariant that
 * keeps the false-positive promise (so a value cannot claim a target its
 * fingerprints do not deliver).
 */
BfStatus
cuckoo_check(const void *data, size_t len, char *errbuf)
{
	const CuckooFilter *f = (const CuckooFilter *) data;
	const uint8_t *bytes = (const uint8_t *) data;
	BfStatus	st;
	uint64_t	off;
	double		sealed = 0.0;

	st = bf_check_header_versions(data, len, sizeof(CuckooFilter) + sizeof(CuckooTable),
								  BF_KIND_CUCKOO, "cuckoofilter", CUCKOO_FORMAT_DELETES,
								  errbuf);
	if (st != BF_OK)
		return st;
	if (f->hdr.flags != 0 || f->reserved != 0 ||
		(f->hdr.version < CUCKOO_FORMAT_DELETES && f->deletes != 0))
		return bf_fail(errbuf, BF_ERR_CORRUPT, "cuckoofilter reserved fields are not zero");
	if (f->ntables < 1 || f->ntables > CUCKOO_MAX_TABLES)
		return bf_fail(errbuf, BF_ERR_CORRUPT, "invalid cuckoofilter table count %u",
					   f->ntables);
	if (bf_check_params((f->capacity > (uint64_t) INT64_MAX) ? -1 : (int64_t) f->capacity,
						f->fpr, NULL) != BF_OK)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "invalid cuckoofilter parameters (capacity %llu, fpr %g)",
					   (unsigned long long) f->capacity, f->fpr);
	if (len < header_size(f->ntables))
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "cuckoofilter value is too short for %u tables", f->ntables);
	for (size_t i = sizeof(CuckooFilter) + f->ntables * sizeof(CuckooTable);
		 i < header_size(f->ntables); i++)
		if (bytes[i] != 0)
			return bf_fail(errbuf, BF_ERR_CORRUPT, "cuckoofilter header padding is not zero");

	off = header_size(f->ntables);
	for (int k = 0; k < f->ntables; k++)
	{
		const CuckooTable *t = &f->tables[k];
		uint64_t	area,
					nslots,
					used = 0,
					endbit;
		uint32_t	fb = t->fp_bits;

		if (t->offset != off)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter table %d starts at byte %llu, expected %llu",
						   k, (unsigned long long) t->offset, (unsigned long long) off);
		if (fb < CUCKOO_MIN_FP_BITS || fb > CUCKOO_MAX_FP_BITS ||
			(k > 0 && fb < f->tables[k - 1].fp_bits))
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter table %d has an invalid fingerprint width %u", k, fb);
		if (t->nbuckets < 1 || t->nbuckets > CUCKOO_MAX_BUCKETS ||
			(k == 0 ? t->shift != 0 :
			 (t->shift != f->tables[k - 1].shift && t->shift != f->tables[k - 1].shift + 1) ||
			 t->shift > 40 || f->tables[0].nbuckets > (CUCKOO_MAX_BUCKETS >> t->shift) ||
			 t->nbuckets != f->tables[0].nbuckets << t->shift))
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter table %d has an invalid bucket count %llu",
						   k, (unsigned long long) t->nbuckets);
		area = area_bytes(t->nbuckets, fb);
		if (area > len - off)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter value is truncated: table %d needs %llu bytes at %llu, value has %zu",
						   k, (unsigned long long) area, (unsigned long long) off, len);
		nslots = t->nbuckets * CUCKOO_BUCKET_SLOTS;
		for (uint64_t s = 0; s < nslots; s++)
		{
			bf_check_interrupts_every(s, BF_INTERRUPT_BYTES);
			used += slot_get(bytes + off, fb, s) != 0;
		}
		if (used != t->count)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter table %d count %llu does not match its %llu stored fingerprints",
						   k, (unsigned long long) t->count, (unsigned long long) used);
		/* bits after the last slot are zero */
		endbit = nslots * fb;
		if ((endbit & 7) && (bytes[off + (endbit >> 3)] >> (endbit & 7)) != 0)
			return bf_fail(errbuf, BF_ERR_CORRUPT, "cuckoofilter table %d padding is not zero", k);
		for (uint64_t p = (endbit + 7) >> 3; p < area; p++)
			if (bytes[off + p] != 0)
				return bf_fail(errbuf, BF_ERR_CORRUPT,
							   "cuckoofilter table %d padding is not zero", k);
		if (t->victim_fp == 0 ? t->victim_bucket != 0 :
			(t->victim_fp & ~fp_mask(fb)) != 0 || t->victim_bucket >= t->nbuckets)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter table %d has an invalid victim", k);

		/* the rate promise: see cuckoo.h */
		if (k < f->ntables - 1)
			sealed += cuckoo_table_bound(t);
		else if (sealed + cuckoo_worst_rate(t->nbuckets, fb) > f->fpr * CUCKOO_RATE_SLACK)
			return bf_fail(errbuf, BF_ERR_CORRUPT,
						   "cuckoofilter fingerprints are too short for its false-positive target %g",
						   f->fpr);
		off += area;
	}
	if (off != len)
		return bf_fail(errbuf, BF_ERR_CORRUPT,
					   "cuckoofilter value has %zu bytes, its tables account for %llu",
					   len, (unsigned long long) off);
	return BF_OK;
}

/* ---- totals ---- */

uint64_t
cuckoo_total_count(const CuckooFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->ntables; i++)
		n += f->tables[i].count + (f->tables[i].victim_fp != 0);
	return n;
}

uint64_t
cuckoo_total_slots(const CuckooFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->ntables; i++)
		n += f->tables[i].nbuckets * CUCKOO_BUCKET_SLOTS;
	return n;
}

uint64_t
cuckoo_total_capacity(const CuckooFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->ntables; i++)
		n += cuckoo_table_capacity(f->tables[i].nbuckets);
	return n;
}

uint64_t
cuckoo_total_slot_bits(const CuckooFilter *f)
{
	uint64_t	n = 0;

	for (int i = 0; i < f->ntables; i++)
		n += f->tables[i].nbuckets * CUCKOO_BUCKET_SLOTS * f->tables[i].fp_bits;
	return n;
}

/* largest capacity whose new filter fits in one value, for error messages */
uint64_t
cuckoo_max_capacity(double fpr)
{
	uint64_t	lo = 1,
				hi = CUCKOO_MAX_BUCKETS;
	size_t		sz;

	if (cuckoo_new_size(cuckoo_buckets_for(1), fpr, &sz, NULL) != BF_OK)
		return 0;
	while (lo + 1 < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;
		uint64_t	m = cuckoo_buckets_for(mid);

		if (m != 0 && cuckoo_new_size(m, fpr, &sz, NULL) == BF_OK)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
