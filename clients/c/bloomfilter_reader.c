/*
 * bloomfilter_reader.c
 *		The public API of bloomfilter_reader.h over the extension's own
 *		plain-C core, so that a probe here is the server's probe.
 *
 * The core works on a whole varlena: its stage offsets count from the
 * 4-byte length word that f::bytea leaves out.  A filter here keeps that
 * word in front of the bytes, the value starting on a 64-byte boundary
 * so that every block of a blocked stage is one cache line, as in the
 * server (pgbf_alloc_value_aligned).
 */
#include "bloomfilter_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfcore.h"
#include "bloom.h"

#define VARHDRSZ 4

struct bfr_filter
{
	BloomFilter *value;			/* the varlena: length word, then f::bytea */
	size_t		size;			/* of the varlena */
};

static void
set_error(char *errbuf, const char *fmt, const char *detail)
{
	if (errbuf)
		snprintf(errbuf, BFR_ERRLEN, fmt, detail);
}

static bool
little_endian_host(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *) &one == 1;
}

/* a zeroed varlena of size bytes, on a 64-byte boundary, its length set */
static BloomFilter *
alloc_value(size_t size, char *errbuf)
{
	size_t		rounded = (size + 63) & ~(size_t) 63;
	uint8_t    *p;
	uint32_t	word;

	if (rounded < size || (p = aligned_alloc(64, rounded)) == NULL)
	{
		set_error(errbuf, "out of memory for a filter value%s", "");
		return NULL;
	}
	bf_zero(p, rounded);
	/* PostgreSQL's 4-byte header on a little-endian host: size << 2 */
	word = size <= 0x3FFFFFFF ? (uint32_t) size << 2 : 0;
	memcpy(p, &word, 4);
	return (BloomFilter *) p;
}

static bfr_filter *
wrap(BloomFilter *value, size_t size, char *errbuf)
{
	bfr_filter *f = malloc(sizeof(bfr_filter));

	if (f == NULL)
	{
		free(value);
		set_error(errbuf, "out of memory%s", "");
		return NULL;
	}
	f->value = value;
	f->size = size;
	return f;
}

bfr_filter *
bfr_open(const void *bytes, size_t len, char *errbuf)
{
	BloomFilter *v;
	char		err[BF_ERRLEN];

	if (!little_endian_host())
	{
		set_error(errbuf, "bloomfilter_reader works on little-endian hosts only%s", "");
		return NULL;
	}
	if (len > BF_MAX_VALUE_BYTES)
	{
		set_error(errbuf, "bloomfilter value is larger than 1 GB%s", "");
		return NULL;
	}
	if ((v = alloc_value(len + VARHDRSZ, errbuf)) == NULL)
		return NULL;
	memcpy((uint8_t *) v + VARHDRSZ, bytes, len);
	if (bloom_check(v, len + VARHDRSZ, err) != BF_OK)
	{
		free(v);
		set_error(errbuf, "%s", err);
		return NULL;
	}
	return wrap(v, len + VARHDRSZ, errbuf);
}

bfr_filter *
bfr_new(uint64_t capacity, double fpr, int layout, bool scalable, uint64_t seed,
		char *errbuf)
{
	char		err[BF_ERRLEN];
	size_t		size;
	BloomFilter *v;

	if (layout != BFR_LAYOUT_STANDARD && layout != BFR_LAYOUT_BLOCKED)
	{
		set_error(errbuf, "layout must be BFR_LAYOUT_STANDARD or BFR_LAYOUT_BLOCKED%s", "");
		return NULL;
	}
	if (bf_check_params(capacity > INT64_MAX ? -1 : (int64_t) capacity, fpr, err) != BF_OK ||
		bloom_new_size(capacity, fpr, layout, scalable, &size, err) != BF_OK)
	{
		set_error(errbuf, "%s", err);
		return NULL;
	}
	if ((v = alloc_value(size, errbuf)) == NULL)
		return NULL;
	bloom_init(v, size, capacity, fpr, layout, scalable, seed);
	return wrap(v, size, errbuf);
}

bfr_filter *
bfr_new_large(uint64_t capacity, double fpr, uint64_t seed, char *errbuf)
{
	char		err[BF_ERRLEN];
	BloomStage	s;
	size_t		size;
	BloomFilter *v;

	if (bf_check_params(capacity > INT64_MAX ? -1 : (int64_t) capacity, fpr, err) != BF_OK ||
		bloom_paged_stage(capacity, fpr, false, 0, &s, err) != BF_OK)
	{
		set_error(errbuf, "%s", err);
		return NULL;
	}
	size = bf_align64(sizeof(BloomFilter) + sizeof(BloomStage)) + s.nbits / 8;
	if ((v = alloc_value(size, errbuf)) == NULL)
		return NULL;
	bloom_paged_value_init(v, size, capacity, fpr, false, &s, 1, seed);
	return wrap(v, size, errbuf);
}

void
bfr_free(bfr_filter *f)
{
	if (f)
	{
		free(f->value);
		free(f);
	}
}

const uint8_t *
bfr_bytes(const bfr_filter *f, size_t *len)
{
	*len = f->size - VARHDRSZ;
	return (const uint8_t *) f->value + VARHDRSZ;
}

uint64_t
bfr_seed(const bfr_filter *f)
{
	return f->value->hdr.seed;
}

int
bfr_layout(const bfr_filter *f)
{
	return f->value->layout;
}

int
bfr_format_version(const bfr_filter *f)
{
	return f->value->hdr.version;
}

int
bfr_nstages(const bfr_filter *f)
{
	return f->value->nstages;
}

/* ---- hashes ---- */

uint64_t
bfr_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	return bf_hash_bytes(data, len, seed);
}

uint64_t
bfr_hash_int64(int64_t value, uint64_t seed)
{
	return bf_hash_int64(value, seed);
}

uint64_t
bfr_hash_uuid(const uint8_t uuid[16], uint64_t seed)
{
	return bf_hash_uuid(uuid, seed);
}

/* ---- probes ---- */

bool
bfr_contains_hash(const bfr_filter *f, uint64_t h)
{
	return bloom_contains_hash(f->value, h);
}

bool
bfr_contains_bytes(const bfr_filter *f, const void *data, size_t len)
{
	return bloom_contains_hash(f->value, bf_hash_bytes(data, len, f->value->hdr.seed));
}

bool
bfr_contains_text(const bfr_filter *f, const char *s)
{
	return bfr_contains_bytes(f, s, strlen(s));
}

bool
bfr_contains_int64(const bfr_filter *f, int64_t value)
{
	return bloom_contains_hash(f->value, bf_hash_int64(value, f->value->hdr.seed));
}

bool
bfr_contains_uuid(const bfr_filter *f, const uint8_t uuid[16])
{
	return bloom_contains_hash(f->value, bf_hash_uuid(uuid, f->value->hdr.seed));
}

void
bfr_contains_many_hashes(const bfr_filter *f, const uint64_t *h, size_t n, bool *out)
{
	bloom_contains_hashes(f->value, h, n, out);
}

/*
 * Hashes a batch of this many at a time into a buffer on the stack: the
 * hashes of one batch are computed before its probes load anything, so
 * the core can load ahead within it.
 */
#define HASH_BATCH 1024

void
bfr_contains_many_bytes(const bfr_filter *f, const void *const *data, const size_t *len,
						size_t n, bool *out)
{
	uint64_t	h[HASH_BATCH];
	uint64_t	seed = f->value->hdr.seed;

	for (size_t base = 0; base < n; base += HASH_BATCH)
	{
		size_t		c = n - base < HASH_BATCH ? n - base : HASH_BATCH;

		for (size_t i = 0; i < c; i++)
			h[i] = bf_hash_bytes(data[base + i], len[base + i], seed);
		bloom_contains_hashes(f->value, h, c, out + base);
	}
}

void
bfr_contains_many_int64(const bfr_filter *f, const int64_t *values, size_t n, bool *out)
{
	uint64_t	h[HASH_BATCH];
	uint64_t	seed = f->value->hdr.seed;

	for (size_t base = 0; base < n; base += HASH_BATCH)
	{
		size_t		c = n - base < HASH_BATCH ? n - base : HASH_BATCH;

		for (size_t i = 0; i < c; i++)
			h[i] = bf_hash_int64(values[base + i], seed);
		bloom_contains_hashes(f->value, h, c, out + base);
	}
}

/* ---- adds ---- */

/* a scalable filter's next stage: the value moves to a larger buffer */
static bool
grow(bfr_filter *f, char *errbuf)
{
	char		err[BF_ERRLEN];
	size_t		size;
	BloomFilter *v;

	if (bloom_grown_size(f->value, &size, err) != BF_OK)
	{
		set_error(errbuf, "%s", err);
		return false;
	}
	if ((v = alloc_value(size, errbuf)) == NULL)
		return false;
	bloom_grow_into(f->value, v, size);
	free(f->value);
	f->value = v;
	f->size = size;
	return true;
}

int
bfr_add_hash(bfr_filter *f, uint64_t h, char *errbuf)
{
	for (;;)
	{
		switch (bloom_add_hash(f->value, h))
		{
			case BLOOM_ADDED:
				return 1;
			case BLOOM_PRESENT:
				return 0;
			case BLOOM_NEEDS_STAGE:
				if (!grow(f, errbuf))
					return -1;
				break;
			case BLOOM_FULL:
				{
					char		cap[32];

					snprintf(cap, sizeof(cap), "%llu",
							 (unsigned long long) f->value->capacity);
					set_error(errbuf, "bloomfilter is full: it is not scalable and holds its capacity of %s elements",
							  cap);
					return -1;
				}
		}
	}
}

int
bfr_add_many_hashes(bfr_filter *f, const uint64_t *h, size_t n, char *errbuf)
{
	size_t		done = 0;

	while (done < n)
	{
		BloomAddResult stop;

		done += bloom_add_hashes(f->value, h + done, n - done, &stop);
		if (done == n)
			break;
		/* the one that stopped it: grows the filter, or says it is full */
		if (bfr_add_hash(f, h[done], errbuf) < 0)
			return -1;
		done++;
	}
	return 0;
}

int
bfr_add_bytes(bfr_filter *f, const void *data, size_t len, char *errbuf)
{
	return bfr_add_hash(f, bf_hash_bytes(data, len, f->value->hdr.seed), errbuf);
}

int
bfr_add_int64(bfr_filter *f, int64_t value, char *errbuf)
{
	return bfr_add_hash(f, bf_hash_int64(value, f->value->hdr.seed), errbuf);
}

int
bfr_add_uuid(bfr_filter *f, const uint8_t uuid[16], char *errbuf)
{
	return bfr_add_hash(f, bf_hash_uuid(uuid, f->value->hdr.seed), errbuf);
}
