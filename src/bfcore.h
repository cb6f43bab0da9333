/*
 * bfcore.h
 *		Plain-C core shared by every filter type: the common value header,
 *		element hashing, index derivation and error reporting.
 *
 * Nothing in the core files (bfcore, bloom, keyset, ...) or the structure files (bloom.c, keyset.c, ...)
 * includes PostgreSQL headers, so the maths can be unit-tested, fuzzed and
 * benchmarked as ordinary C.  The SQL layer (pg_*.c, *_type.c) is thin glue.
 *
 * Every filter value is a PostgreSQL varlena whose bytes are laid out as
 * below, little-endian, 8-byte aligned fields:
 *
 *	offset	size	field
 *	0		4		vl_len_		varlena length word, owned by PostgreSQL
 *	4		1		kind		BF_KIND_* (which type these bytes are)
 *	5		1		version		format version (BF_FORMAT_VERSION, or a later one
 *								where the type's header file says so)
 *	6		1		hash_id		element hash (BF_HASH_XXH3_64)
 *	7		1		flags		type specific, 0 unless the type says otherwise
 *	8		8		seed		XXH3 seed every element of this value is hashed with
 *	16		8		reserved	must be zero
 *	24		...		type-specific header, then the type's payload
 *
 * Each type documents the rest of its layout in its own header file.
 */
#ifndef BFCORE_H
#define BFCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BF_FORMAT_VERSION	1
#define BF_HASH_XXH3_64		1
#define BF_DEFAULT_SEED		UINT64_C(0)

/* Largest value we will build: PostgreSQL's varlena limit is 1 GB. */
#define BF_MAX_VALUE_BYTES	((uint64_t) 0x3FFFFFFF - 64)

typedef enum BfKind
{
	BF_KIND_BLOOM = 1,
	BF_KIND_COUNTING = 2,
	BF_KIND_CUCKOO = 3,
	BF_KIND_STABLE = 4,
	BF_KIND_KEYSET = 5
} BfKind;

typedef struct BfHeader
{
	uint32_t	vl_len_;		/* varlena length word: do not touch */
	uint8_t		kind;
	uint8_t		version;
	uint8_t		hash_id;
	uint8_t		flags;
	uint64_t	seed;
	uint64_t	reserved;		/* must be zero */
} BfHeader;

/* Error buffer used by every checker: a message in PostgreSQL style. */
#define BF_ERRLEN 256

/*
 * Result of a checker: BF_OK, or the kind of problem.  The SQL layer maps
 * BF_ERR_CORRUPT to the input SQLSTATE of the path the bytes came in by.
 */
typedef enum BfStatus
{
	BF_OK = 0,
	BF_ERR_CORRUPT,				/* malformed bytes */
	BF_ERR_PARAM,				/* bad capacity / fpr / layout / ... */
	BF_ERR_TOO_LARGE,			/* would not fit in one value */
	BF_ERR_FULL,				/* non-scalable filter at capacity */
	BF_ERR_INCOMPATIBLE			/* two values that cannot be combined */
} BfStatus;

extern BfStatus bf_fail(char *errbuf, BfStatus status, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/*
 * Interrupts.  A loop whose length a caller controls (the elements of an
 * array, the hashes of a keyset, the cells of a big value, the decrements
 * of stable inserts) calls bf_check_interrupts about once per
 * BF_INTERRUPT_CHUNK units of work: a unit is an element added or probed,
 * a hash sorted or merged, a cell, counter or slot read, a decrement;
 * BF_INTERRUPT_BYTES bytes of a pass over a value count as a chunk.  The
 * SQL layer's hook answers a query cancel or a statement timeout
 * (CHECK_FOR_INTERRUPTS), so it may not return: the core calls it only
 * between elements (a filter being added to is as the elements before
 * would leave it) and never while it holds memory of its own (malloc).
 * NULL, the default, is plain C's: tests, fuzzers, benchmarks.
 *
 * Hot loops check once per chunk, outside their inner loop, so the
 * inner loop is the same code as without the check.
 */
typedef void (*BfInterruptHook) (void);
extern BfInterruptHook bf_interrupt_hook;

#define BF_INTERRUPT_CHUNK	((size_t) 1 << 14)
#define BF_INTERRUPT_BYTES	((size_t) 1 << 22)

static inline void
bf_check_interrupts(void)
{
	if (bf_interrupt_hook != NULL)
		bf_interrupt_hook();
}

/* in a loop over i, at every multiple of every (a power of two) but 0 */
static inline void
bf_check_interrupts_every(uint64_t i, uint64_t every)
{
	if ((i & (every - 1)) == 0 && i > 0)
		bf_check_interrupts();
}

/*
 * memset(p, 0, n) and memcpy(dst, src, n) for values of up to 1 GB, a
 * stretch of BF_INTERRUPT_BYTES at a time with interrupt checks between:
 * they write a new value's pages for the first time, and faulting in a
 * gigabyte of them takes seconds.
 */
extern void bf_zero(void *p, size_t n);
extern void bf_copy(void *dst, const void *src, size_t n);

/* the first chunk of what is left: at most BF_INTERRUPT_CHUNK */
static inline size_t
bf_chunk(size_t left)
{
	return left < BF_INTERRUPT_CHUNK ? left : BF_INTERRUPT_CHUNK;
}

/*
 * Header checks shared by every type's validator: bf_check_header takes
 * format version BF_FORMAT_VERSION only; a type with later formats passes
 * the last one it reads and checks what each version allows itself.
 */
extern BfStatus bf_check_header(const void *data, size_t len, size_t min_len,
								BfKind kind, const char *type_name,
								char *errbuf);
extern BfStatus bf_check_header_versions(const void *data, size_t len, size_t min_len,
										 BfKind kind, const char *type_name,
										 uint8_t max_version, char *errbuf);
extern BfStatus bf_check_params(int64_t capacity, double fpr, char *errbuf);
extern void bf_init_header(void *data, BfKind kind, uint64_t seed);

/* ---- element hashing: the one place a key becomes bits ---- */
extern uint64_t bf_hash_bytes(const void *data, size_t len, uint64_t seed);
extern uint64_t bf_hash_int64(int64_t value, uint64_t seed);
extern uint64_t bf_hash_uuid(const uint8_t bytes[16], uint64_t seed);

/*
 * A second, independent-looking 64-bit value derived from the element hash
 * (the murmur3 finalizer, a bijection).  Probe positions that need more
 * than one hash (double hashing) take h and bf_remix(h), so each element is
 * still hashed exactly once.
 */
static inline uint64_t
bf_remix(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/* Map a uniform 64-bit value onto [0, n) without division (Lemire). */
static inline uint64_t
bf_range64(uint64_t x, uint64_t n)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t) (((unsigned __int128) x * n) >> 64);
#else
	uint64_t	xl = x & 0xffffffff,
				xh = x >> 32,
				nl = n & 0xffffffff,
				nh = n >> 32;
	uint64_t	ll = xl * nl,
				lh = xl * nh,
				hl = xh * nl,
				hh = xh * nh;
	uint64_t	mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);

	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

static inline uint32_t
bf_range32(uint32_t x, uint32_t n)
{
	return (uint32_t) (((uint64_t) x * n) >> 32);
}

static inline uint64_t
bf_align64(uint64_t x)
{
	return (x + 63) & ~(uint64_t) 63;
}

/*
 * The false-positive model and size search over cells (model.c): bits of
 * a bloomfilter, counters of a countingbloom (a probe fails on a zero cell
 * either way), in blocks of block_cells cells, or 0 for the standard
 * layout (k cells across the whole array).
 *
 * bf_cells_geometry finds the smallest array of whole units (unit cells
 * each, at most max_units) and its best k such that, holding capacity
 * elements, the expected rate is at most fpr * BF_SIZING_MARGIN and the
 * rate three standard deviations up (a small filter's luck) at most
 * fpr * BF_FILL_MARGIN: filters refuse (or grow) an add that would take
 * their real rate past fpr * BF_FILL_MARGIN, and this keeps that from
 * happening before capacity.
 *
 * With slack_permille > 0 it trades a little memory for fewer hashes: it
 * takes the fewest hashes whose smallest array is at most slack_permille
 * per mille larger than that best one (see fewer_hashes in model.c): a
 * countingbloom's value then compresses better, and a standard-layout
 * bloomfilter's probe reads fewer cache lines.
 */
#define BF_MAX_HASHES		64
#define BF_SIZING_MARGIN	0.95
#define BF_FILL_MARGIN		0.975

extern double bf_expected_fill(uint64_t n, uint64_t ncells, uint32_t k);
extern void bf_model_rate_cells(uint64_t n, uint64_t ncells, uint32_t k,
								uint32_t block_cells, double *mean, double *sd);
extern double bf_model_fpr_cells(uint64_t n, uint64_t ncells, uint32_t k,
								 uint32_t block_cells);
/* what the size search compares with fpr: the larger of the two margins' rates */
extern double bf_sizing_rate(uint64_t n, uint64_t ncells, uint32_t k,
							 uint32_t block_cells);
/* the fewest units in lo .. hi meeting fpr with k hashes, 0 if none */
extern uint64_t bf_smallest_units_k(uint64_t n, double fpr, uint32_t k,
									uint32_t block_cells, uint64_t unit,
									uint64_t lo, uint64_t hi);
extern BfStatus bf_cells_geometry(uint32_t block_cells, uint64_t unit,
								  uint64_t max_units, uint64_t capacity,
								  double fpr, uint32_t slack_permille,
								  uint64_t *ncells, uint32_t *nhashes,
								  char *errbuf);

/*
 * The array probes load each probe's lines ahead only in a filter at least
 * this big: smaller ones stay in the caches, and working out where a probe
 * will read twice would only cost.
 */
#define BF_PROBE_PREFETCH_MIN_BYTES ((size_t) 512 * 1024)

/*
 * The loop of every array probe's core (bloom_contains_hashes and kin):
 * PROBE(i) for i in 0 .. n, and in a filter of size bytes that is big
 * enough, PREFETCH(i) ahead of it (the first ahead of them before the
 * loop, as nothing comes before them to hide their misses behind).
 */
#define BF_PROBE_MANY(size, n, ahead, PREFETCH, PROBE) \
	do { \
		bool		ahead_ = (size) >= BF_PROBE_PREFETCH_MIN_BYTES; \
		for (size_t i_ = 0; ahead_ && i_ < (n) && i_ < (ahead); i_++) \
			PREFETCH(i_); \
		for (size_t i_ = 0; i_ < (n); i_++) \
		{ \
			if (ahead_ && i_ + (ahead) < (n)) \
				PREFETCH(i_ + (ahead)); \
			PROBE(i_); \
		} \
	} while (0)

/*
 * PostgreSQL builds for the baseline ISA; where that lacks POPCNT, code
 * that counts bits in a hot loop is compiled twice, once as BF_TARGET_POPCNT,
 * and picks the copy with bf_have_popcnt() (cpuid, checked once).
 */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define BF_POPCNT_DISPATCH 1
#define BF_TARGET_POPCNT __attribute__((target("popcnt")))
extern bool bf_have_popcnt(void);
#endif

/*
 * A blocked filter's 512-bit block is one AVX-512 register: where the CPU
 * (and the OS, which must save the registers) has AVX-512F with VPOPCNTQ,
 * the blocked add builds its mask and counts its bits there instead
 * (bloom.c).  x86-64 only.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define BF_AVX512_DISPATCH 1
#define BF_TARGET_AVX512 __attribute__((target("popcnt,avx512f,avx512vpopcntdq")))
extern bool bf_have_avx512(void);
/*
 * AVX-512 as above plus AVX512BW (byte compares into 64-bit masks) and
 * BMI2 (PEXT/PDEP, fast on every CPU with AVX-512): countingbloom's
 * packed form (counting.c).
 */
#define BF_TARGET_AVX512BW __attribute__((target("popcnt,bmi,bmi2,avx512f,avx512bw,avx512vpopcntdq")))
extern bool bf_have_avx512bw(void);
#endif

/*
 * Highest instruction-set level the dispatchers above may pick: 2 (all,
 * the default), 1 (POPCNT but not AVX-512), 0 (baseline).  For tests and
 * benchmarks that compare the copies; returns the previous limit.
 */
extern int	bf_set_isa_limit(int limit);

extern int	bf_popcount64(uint64_t x);
/* bits set in one 64-byte block (8 words) */
extern int	bf_popcount_block(const uint64_t *w);
extern uint64_t bf_popcount_bytes(const uint8_t *p, size_t len);

/* ---- text encoding of values (base64, RFC 4648, no line breaks) ---- */
extern size_t bf_base64_encoded_len(size_t len);
extern void bf_base64_encode(const uint8_t *src, size_t len, char *dst);
/* Returns decoded length, or (size_t) -1 if src is not strict base64. */
extern size_t bf_base64_decoded_maxlen(size_t len);
extern size_t bf_base64_decode(const char *src, size_t len, uint8_t *dst);

#endif							/* BFCORE_H */
