/*
 * bloomfilter_reader.h
 *		Read, probe and add to bloomfilter values outside PostgreSQL.
 *
 * A value is the bytes of `SELECT f::bytea` (doc/format.md): the library
 * validates them as the server's bytea cast does, then answers probes
 * with the server's own code (src/bfcore.c, src/bloom.c, src/model.c), so
 * an answer here is the server's answer.  Elements are hashed as the
 * server hashes them: text as its bytes (UTF-8 in a UTF-8 database),
 * bytea as its bytes, bigint as 8 little-endian bytes, uuid as its 16
 * bytes, with XXH3-64 and the value's seed.
 *
 * Threads: probes (bfr_contains*) of one filter may run in any number of
 * threads at once.  bfr_open, bfr_new, bfr_new_large and the adds share
 * process-wide caches (the size model's tables, the rate table of the
 * last stage added to): call them from one thread at a time.
 *
 * Little-endian hosts only (the format is little-endian and the code
 * reads its fields in place); bfr_open refuses to work elsewhere.
 */
#ifndef BLOOMFILTER_READER_H
#define BLOOMFILTER_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* room for any error message the library writes */
#define BFR_ERRLEN 256

#define BFR_LAYOUT_STANDARD 0
#define BFR_LAYOUT_BLOCKED	1

typedef struct bfr_filter bfr_filter;

/*
 * A filter from the bytes of f::bytea, copied and validated (exact
 * length, geometry, counters: whatever the server's cast refuses, this
 * refuses).  NULL on error, with a message in errbuf (BFR_ERRLEN bytes)
 * if errbuf is not NULL.
 */
extern bfr_filter *bfr_open(const void *bytes, size_t len, char *errbuf);

/*
 * An empty filter, as bloom_create(capacity, fpr, layout, scalable) but
 * with any seed: its bytes, sent to the server as bytea, make a
 * bloomfilter the server probes and adds to alike.
 */
extern bfr_filter *bfr_new(uint64_t capacity, double fpr, int layout, bool scalable,
						   uint64_t seed, char *errbuf);

/*
 * An empty blocked filter of one stage with no 1 GB bound (at most 2^32
 * blocks of 64 bytes): the geometry of a bloomfilter index's first stage
 * (bloom_paged_stage).  Adds past its capacity fail.  One under 1 GB is
 * the filter bfr_new(capacity, fpr, BFR_LAYOUT_BLOCKED, false, seed)
 * makes; a larger one cannot be sent to the server as a value.
 */
extern bfr_filter *bfr_new_large(uint64_t capacity, double fpr, uint64_t seed,
								 char *errbuf);

extern void bfr_free(bfr_filter *f);

/* its bytes as f::bytea would give them (valid until the next add) */
extern const uint8_t *bfr_bytes(const bfr_filter *f, size_t *len);

extern uint64_t bfr_seed(const bfr_filter *f);
extern int	bfr_layout(const bfr_filter *f);
extern int	bfr_format_version(const bfr_filter *f);
extern int	bfr_nstages(const bfr_filter *f);

/* ---- element hashes (the server's bloom_hash) ---- */
extern uint64_t bfr_hash_bytes(const void *data, size_t len, uint64_t seed);
extern uint64_t bfr_hash_int64(int64_t value, uint64_t seed);
extern uint64_t bfr_hash_uuid(const uint8_t uuid[16], uint64_t seed);

/* ---- probes: false means never added; true, probably added ---- */
extern bool bfr_contains_bytes(const bfr_filter *f, const void *data, size_t len);
extern bool bfr_contains_text(const bfr_filter *f, const char *s);	/* strlen(s) bytes */
extern bool bfr_contains_int64(const bfr_filter *f, int64_t value);
extern bool bfr_contains_uuid(const bfr_filter *f, const uint8_t uuid[16]);
/* an element already hashed with the filter's seed */
extern bool bfr_contains_hash(const bfr_filter *f, uint64_t h);

/*
 * out[i] = bfr_contains_*(element i), for n elements at once: a filter
 * bigger than the caches then loads each probe's memory ahead, so the
 * misses of a batch overlap.  Batches of a few hundred or more are best.
 */
extern void bfr_contains_many_hashes(const bfr_filter *f, const uint64_t *h, size_t n,
									 bool *out);
extern void bfr_contains_many_bytes(const bfr_filter *f, const void *const *data,
									const size_t *len, size_t n, bool *out);
extern void bfr_contains_many_int64(const bfr_filter *f, const int64_t *values, size_t n,
									bool *out);

/*
 * Adds: 1 if the filter changed, 0 if it already reported the element,
 * -1 on error (a filter of fixed size that is full, a scalable one that
 * cannot grow within 1 GB, no memory) with a message in errbuf.  The
 * bytes are then those the server's bloom_add gives.
 */
extern int	bfr_add_hash(bfr_filter *f, uint64_t h, char *errbuf);
extern int	bfr_add_bytes(bfr_filter *f, const void *data, size_t len, char *errbuf);
extern int	bfr_add_int64(bfr_filter *f, int64_t value, char *errbuf);
extern int	bfr_add_uuid(bfr_filter *f, const uint8_t uuid[16], char *errbuf);
/*
 * Add h[0..n), hashed with the filter's seed, in order, loading ahead (the
 * bytes are those of adding them one by one): 0, or -1 on error as above,
 * the hashes before the one that failed added.
 */
extern int	bfr_add_many_hashes(bfr_filter *f, const uint64_t *h, size_t n, char *errbuf);

#ifdef __cplusplus
}
#endif

#endif							/* BLOOMFILTER_READER_H */
