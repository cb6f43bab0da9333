/*
 * argcache.c
 *		The per-call-site detoast cache of filter arguments (fn_extra):
 *		a filter that stays the same value row after row is detoasted and
 *		copied 64-byte aligned once, not once per row.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "pg_common.h"
#include "typeops.h"


/* ---- detoast cache ---- */

/*
 * Several filters can be probed through one call site, e.g. a join of
 * per-host filters with links, where the filter changes from row to row:
 * keep the last few, least recently used out first, within a memory cap
 * (the value in use is always kept, even alone over the cap).
 */
#define PGBF_CACHE_ENTRIES	64
#define PGBF_CACHE_BYTES	((Size) 256 * 1024 * 1024)


typedef struct PgbfCacheEntry
{
	Size		keylen;			/* 0: empty */
	char	   *key;			/* raw (still toasted) bytes of the datum */
	char	   *raw;			/* allocation holding the aligned copy */
	const void *value;			/* 64-byte aligned detoasted value */
	Size		size;			/* of value, plus aux once built */
	uint64		last_used;
	uint64		uses;			/* lookups through pgbf_cached_arg_derived */
	PgbfDeriveFn derive;		/* what built aux; NULL: not built */
	void	   *aux;
	Size		aux_bytes;		/* of aux, counted in size */
} PgbfCacheEntry;

typedef struct PgbfArgCache
{
	PgbfCacheLast last;			/* first: read inline by pgbf_cached_arg */
	int			hit;			/* entry that answered last */
	uint64		clock;
	Size		bytes;			/* cached values in all */
	PgbfCacheEntry entries[PGBF_CACHE_ENTRIES];
} PgbfArgCache;

/* largest compressed inline datum we key the cache on by its bytes */
#define PGBF_CACHE_KEY_MAX 8192

static inline bool
cache_entry_matches(const PgbfCacheEntry *e, const struct varlena *raw, Size keylen)
{
	/* the common case, every row: an inline 18-byte compare */
	if (e->keylen != keylen)
		return false;
	if (keylen == TOAST_POINTER_SIZE)
		return memcmp(e->key, raw, TOAST_POINTER_SIZE) == 0;
	return memcmp(e->key, raw, keylen) == 0;
}

/* e answers now: the inline path's copy of it (toast pointers only) */
static void
cache_set_last(PgbfArgCache *cache, const PgbfCacheEntry *e)
{
	cache->last.value = NULL;
	if (e->keylen == TOAST_POINTER_SIZE)
	{
		memcpy(cache->last.key, e->key, TOAST_POINTER_SIZE);
		cache->last.value = e->value;
		cache->last.derive = e->derive;
		cache->last.aux = e->aux;
	}
}

static void
cache_evict(PgbfArgCache *cache, PgbfCacheEntry *e)
{
	if (cache->last.value == e->value)
		cache->last.value = NULL;
	pfree(e->key);
	pfree(e->raw);
	if (e->aux)
		pfree(e->aux);
	e->aux = NULL;
	e->aux_bytes = 0;
	e->derive = NULL;
	e->uses = 0;
	cache->bytes -= e->size;
	e->keylen = 0;
}


/*
 * The size of the value an on-disk toast pointer stands for, if it is
 * stored uncompressed (a filter's bits do not compress, so a big filter
 * is stored that way), else 0.
 */
Size
pgbf_toast_plain_size(struct varlena *raw)
{
	struct varatt_external tp;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return 0;
	VARATT_EXTERNAL_GET_POINTER(tp, raw);
	if (VARATT_EXTERNAL_IS_COMPRESSED(tp))
		return 0;
	return (Size) VARATT_EXTERNAL_GET_EXTSIZE(tp) + VARHDRSZ;
}

/*
 * Such a value's chunks read straight into dst (room for size bytes, from
 * toast_plain_size), as detoast_attr would read them into a new palloc
 * chunk.  The cache keeps its own aligned copy, so this spares a second
 * copy of a value of megabytes and the page faults of a second
 * allocation.
 */
static void
toast_fetch_into(struct varlena *raw, struct varlena *dst, Size size)
{
	struct varatt_external tp;
	int32		len = (int32) (size - VARHDRSZ);
	Relation	toastrel;

	VARATT_EXTERNAL_GET_POINTER(tp, raw);
	SET_VARSIZE(dst, size);
	if (len == 0)
		return;
	toastrel = table_open(tp.va_toastrelid, AccessShareLock);
	table_relation_fetch_toast_slice(toastrel, tp.va_valueid, len, 0, len, dst);
	table_close(toastrel, AccessShareLock);
}

const void *
pgbf_cached_arg_slow(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	PgbfArgCache *cache = (PgbfArgCache *) fcinfo->flinfo->fn_extra;
	PgbfCacheEntry *e;
	Size		keylen;
	struct varlena *detoasted = NULL;
	Size		size;
	int			victim;
	char	   *alloc;

	/*
	 * A plain in-memory value costs nothing to use as it is.  A toast
	 * pointer (or a small compressed datum) is keyed by its own bytes: the
	 * same pointer means the same value.
	 */
	if (!VARATT_IS_EXTENDED(raw))
		return raw;
	if (VARATT_IS_EXTERNAL_ONDISK(raw))
		keylen = VARSIZE_EXTERNAL(raw);
	else if (VARATT_IS_COMPRESSED(raw) && VARSIZE(raw) <= PGBF_CACHE_KEY_MAX)
		keylen = VARSIZE(raw);
	else
		return PG_DETOAST_DATUM(d);

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PgbfArgCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	e = &cache->entries[cache->hit];
	if (cache_entry_matches(e, raw, keylen))
	{
		cache_set_last(cache, e);
		return e->value;
	}
	for (int i = 0; i < PGBF_CACHE_ENTRIES; i++)
	{
		e = &cache->entries[i];
		if (cache_entry_matches(e, raw, keylen))
		{
			cache->hit = i;
			e->last_used = ++cache->clock;
			cache_set_last(cache, e);
			return e->value;
		}
	}

	size = pgbf_toast_plain_size(raw);
	if (size == 0)
	{
		detoasted = PG_DETOAST_DATUM(d);
		size = VARSIZE(detoasted);
	}

	/* room: an empty entry, else the least recently used; then the cap */
	victim = 0;
	for (int i = 0; i < PGBF_CACHE_ENTRIES; i++)
	{
		if (cache->entries[i].keylen == 0)
		{
			victim = i;
			break;
		}
		if (cache->entries[i].last_used < cache->entries[victim].last_used)
			victim = i;
	}
	if (cache->entries[victim].keylen)
		cache_evict(cache, &cache->entries[victim]);
	while (cache->bytes + size > PGBF_CACHE_BYTES && cache->bytes > 0)
	{
		int			lru = -1;

		for (int i = 0; i < PGBF_CACHE_ENTRIES; i++)
			if (cache->entries[i].keylen &&
				(lru < 0 || cache->entries[i].last_used < cache->entries[lru].last_used))
				lru = i;
		cache_evict(cache, &cache->entries[lru]);
	}

	e = &cache->entries[victim];
	alloc = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, size + PGBF_VALUE_ALIGN);
	if (detoasted == NULL)
		toast_fetch_into(raw, (struct varlena *) TYPEALIGN(PGBF_VALUE_ALIGN, alloc), size);
	else
	{
		bf_copy((void *) TYPEALIGN(PGBF_VALUE_ALIGN, alloc), detoasted, size);
		if ((Pointer) detoasted != (Pointer) raw)
			pfree(detoasted);
	}
	e->raw = alloc;
	e->value = (const void *) TYPEALIGN(PGBF_VALUE_ALIGN, alloc);
	e->key = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, keylen);
	memcpy(e->key, raw, keylen);
	e->keylen = keylen;
	e->size = size;
	e->last_used = ++cache->clock;
	cache->bytes += size;
	cache->hit = victim;
	cache_set_last(cache, e);
	return e->value;
}

/*
 * Deriving costs about what a few thousand probes save, so unless eager
 * (the caller cannot do without it) it waits until the value has been
 * probed that often (a single lookup never pays it).
 */
const void *
pgbf_cached_arg_derived_slow(FunctionCallInfo fcinfo, int argno, PgbfDeriveFn derive,
							 Size (*aux_size) (const void *value), const void **aux,
							 bool eager)
{
	const void *value = pgbf_cached_arg(fcinfo, argno);
	PgbfArgCache *cache = (PgbfArgCache *) fcinfo->flinfo->fn_extra;
	PgbfCacheEntry *e;

	*aux = NULL;
	if (cache == NULL)
		return value;
	e = &cache->entries[cache->hit];
	if (e->keylen == 0 || e->value != value)
		return value;			/* not cached: a plain in-memory datum */
	if (e->derive != derive)
	{
		Size		bytes = aux_size(value);

		/*
		 * Build aux once the probes so far would have paid for it: about a
		 * probe per 256 bytes of value (a rent-or-buy rule, at most twice
		 * the better choice made in hindsight): deriving aux costs a
		 * fraction of a nanosecond a byte, and it saves a cache miss on
		 * each probe of a filter that has left the caches.
		 */
		if (bytes > 0 && !eager && ++e->uses < e->size / PGBF_DERIVE_BYTES_PER_USE)
			return value;
		if (e->aux)
		{
			pfree(e->aux);
			e->aux = NULL;
		}
		e->size -= e->aux_bytes;
		cache->bytes -= e->aux_bytes;

		/*
		 * derive may not return (its loops answer interrupts): until it
		 * does, the entry and the inline path's copy have no aux
		 */
		e->aux_bytes = 0;
		e->derive = NULL;
		cache_set_last(cache, e);
		if (bytes > 0)
			e->aux = derive(value, fcinfo->flinfo->fn_mcxt);
		e->derive = derive;
		e->aux_bytes = bytes;
		e->size += bytes;
		cache->bytes += bytes;
		cache_set_last(cache, e);
	}
	*aux = e->aux;
	return value;
}

const void *
pgbf_scan_filter_cached(FunctionCallInfo fcinfo, double expected_probes, const void **aux)
{
	*aux = NULL;
	return pgbf_cached_arg(fcinfo, 0);
}
