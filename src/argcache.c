/*
 * argcache.c
 *		The per-call-site detoast cache of filter arguments (fn_extra):
 *		a filter that stays the same value row after row is detoasted and
 *		copied 64-byte aligned once, not once per row.  Behind it, the
 *		session cache: a stored filter probed by statement after statement
 *		of a session is read from its TOAST table once, and checked, not
 *		read, by each later statement.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "catalog/pg_am.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

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


typedef struct PgbfSessionValue PgbfSessionValue;

typedef struct PgbfCacheEntry
{
	Size		keylen;			/* 0: empty */
	char	   *key;			/* raw (still toasted) bytes of the datum */
	char	   *raw;			/* allocation holding the aligned copy, or NULL */
	PgbfSessionValue *session;	/* else the session cache's value, pinned */
	const void *value;			/* 64-byte aligned detoasted value */
	Size		vsize;			/* of value */
	Size		size;			/* counted in the call site's cap: the copy
								 * (not a session value), plus aux once built */
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
	MemoryContextCallback release;	/* unpins session values at the end */
	PgbfCacheEntry entries[PGBF_CACHE_ENTRIES];
} PgbfArgCache;

/* largest compressed inline datum we key the cache on by its bytes */
#define PGBF_CACHE_KEY_MAX 8192

static void session_unpin(PgbfSessionValue *v);

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
	if (e->raw)
		pfree(e->raw);
	if (e->session)
		session_unpin(e->session);
	e->raw = NULL;
	e->session = NULL;
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
 * The call site's memory is going (end of the query, or an error): let go
 * of the session values it holds.  Its own copies go with the memory.
 */
static void
cache_release(void *arg)
{
	PgbfArgCache *cache = (PgbfArgCache *) arg;

	for (int i = 0; i < PGBF_CACHE_ENTRIES; i++)
	{
		if (cache->entries[i].session)
			session_unpin(cache->entries[i].session);
		cache->entries[i].session = NULL;
	}
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

/* raw's value, detoasted into dst (room for size bytes, 64-byte aligned) */
static void
detoast_into(Datum d, char *dst, Size size)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *detoasted;

	if (pgbf_toast_plain_size(raw) == size)
	{
		toast_fetch_into(raw, (struct varlena *) dst, size);
		return;
	}
	detoasted = PG_DETOAST_DATUM(d);
	Assert(VARSIZE(detoasted) == size);
	bf_copy(dst, detoasted, size);
	if ((Pointer) detoasted != (Pointer) raw)
		pfree(detoasted);
}


/* ---- session cache ---- */

/*
 * A stored filter is read again by every statement that probes it: 264 us
 * for a 1.46 MB filter, more than the probes of a batch of a thousand
 * links.  So the backend keeps the values it has read, keyed by their
 * toast pointer (toast relation, value OID, sizes), least recently used
 * out first within bloomfilter.session_cache_size, and each statement
 * that meets the pointer again checks, with one index probe, that the
 * value is still the one it read; the call site's cache above then holds
 * it (pinned) for the rest of the statement.  Reading a new value of a
 * toast relation drops the unused copies of that relation's values that
 * have been deleted since (an updated filter's old versions).  aux
 * (pgbf_cached_arg_derived) stays with the call site.
 *
 * Why the check cannot be fooled.  A toast value is never changed in
 * place, but its OID can be given to a new value once the old one is
 * gone: after its chunks were removed (VACUUM, or pruning, of a value
 * deleted or inserted by an aborted transaction), after a TRUNCATE (a new
 * file, an empty index), after the table was dropped and its toast
 * relation's OID reused, and a VACUUM FULL or CLUSTER copies each value
 * under its own OID.  Call the chunks one toast_save_datum wrote under
 * one OID a generation: they all carry the XID X of the (sub)transaction
 * that wrote them.  The check compares the chunk_seq 0 tuple present now
 * (under the TOAST snapshot a fetch uses: what detoast would read) with
 * the one the cache read: the toast relation's file number, the tuple's
 * TID and its raw xmin (freezing keeps the raw xmin), and is bounded in
 * time (next full XID <= valid_below).
 *   - A value is kept only if X had committed when it was read (or chunk
 *     0 was frozen): X writes nothing afterwards, so the generation read
 *     is the last X left under that OID in that file.  (X may have
 *     written another before it there and removed it, e.g. around a
 *     TRUNCATE done in place in the transaction that created the table;
 *     a value still in its writing transaction is used for its statement
 *     only.)
 *   - Any generation written later under that OID is written by another
 *     XID, which has X's 32 bits only 2^32 XIDs away: valid_below is the
 *     first full XID that could (X's own full XID, known while chunk 0 is
 *     unfrozen, + 2^32; for a frozen one, the first XID with those 32
 *     bits at or above the active snapshot's xmin at the read, below
 *     which no transaction that could still write has its XID), and a
 *     generation present at the check has an XID below the next XID read
 *     after it.
 * A match therefore is the very generation the cache read, and while its
 * chunk 0 exists GetNewOidWithIndex never hands its OID out again (the
 * rewrite path, which keeps OIDs, writes a new file and skips an OID
 * already there), so every chunk a detoast reads now is the cached one's.
 * At a load, chunk 0 is probed before and after the fetch, and a value
 * whose two probes differ (or that has no chunk 0, or is not in a heap
 * toast relation) is kept for the call site only.  Rolled-back inserts (the TOAST snapshot hides
 * aborted chunks: no match), another backend's writes and a hot standby's
 * replay (the pages the probe reads, the next XID replay advances) need no
 * more; an older snapshot of the session holds older pointers, whose
 * values the check finds as they are.  A VACUUM FULL or CLUSTER, which
 * rewrites a value with the same bytes under the same OID, costs one
 * reload.  A pointer whose chunks are being vacuumed away (so that a
 * detoast now would fail) is never passed to a function under a snapshot
 * that sees its row; the cache answers with the value it stood for.
 * doc/reliability.md says the same for users.
 */
typedef struct PgbfToastIdentity
{
	Oid			relfile;		/* the toast relation's file number */
	ItemPointerData tid;		/* of chunk 0 */
	TransactionId xmin;			/* of chunk 0, raw */
	bool		frozen;
	bool		committed;		/* xmin had committed (or is frozen) */
} PgbfToastIdentity;

struct PgbfSessionValue
{
	struct varatt_external key; /* the toast pointer */
	dlist_node	lru;			/* in session_lru while in the hash */
	bool		in_hash;		/* else freed when the last pin goes */
	int			pins;			/* call sites holding it */
	char	   *raw;			/* allocation holding the aligned copy */
	const void *value;			/* 64-byte aligned detoasted value */
	Size		size;			/* of value */
	PgbfToastIdentity id;		/* chunk 0 when it was read */
	uint64		valid_below;	/* full XID from which id could be another */
};

typedef struct PgbfSessionHashEntry
{
	struct varatt_external key;
	PgbfSessionValue *v;
} PgbfSessionHashEntry;

static int	session_cache_kb = 256 * 1024;
static char *session_stats_unused;
static MemoryContext session_cxt;
static HTAB *session_hash;
static dlist_head session_lru = DLIST_STATIC_INIT(session_lru);	/* newest first */
static Size session_bytes;		/* of every session value, pinned or not */
static uint64 session_hits,
			session_loads,
			session_stale,
			session_evictions;

static Size
session_cap(void)
{
	return (Size) session_cache_kb * 1024;
}

static const char *
session_stats_show(void)
{
	static char buf[200];

	snprintf(buf, sizeof(buf),
			 "entries=%ld bytes=%zu hits=" UINT64_FORMAT " loads=" UINT64_FORMAT
			 " stale=" UINT64_FORMAT " evictions=" UINT64_FORMAT,
			 session_hash ? (long) hash_get_num_entries(session_hash) : 0L, session_bytes,
			 session_hits, session_loads, session_stale, session_evictions);
	return buf;
}

void
pgbf_argcache_init(void)
{
	DefineCustomIntVariable("bloomfilter.session_cache_size",
							"Memory a session may keep stored filters in between statements.",
							"A filter read from its TOAST table is kept, checked by each "
							"later statement with one index probe, and not read again. "
							"0 keeps filters for one statement only.",
							&session_cache_kb, 256 * 1024, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomStringVariable("bloomfilter.session_cache_stats",
							   "The session cache's entries, bytes and counters.",
							   NULL, &session_stats_unused, "", PGC_INTERNAL,
							   GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							   NULL, NULL, session_stats_show);
}

static void
session_free(PgbfSessionValue *v)
{
	session_bytes -= v->size;
	pfree(v->raw);
	pfree(v);
}

/* out of the hash; freed now, or by its last call site */
static void
session_drop(PgbfSessionValue *v)
{
	bool		found;

	Assert(v->in_hash);
	hash_search(session_hash, &v->key, HASH_REMOVE, &found);
	Assert(found);
	dlist_delete(&v->lru);
	v->in_hash = false;
	if (v->pins == 0)
		session_free(v);
}

static void
session_unpin(PgbfSessionValue *v)
{
	Assert(v->pins > 0);
	if (--v->pins == 0 && !v->in_hash)
		session_free(v);
}

/* evict unpinned values, oldest first, until need more bytes fit the cap */
static bool
session_make_room(Size need)
{
	dlist_node *n;

	if (need > session_cap())
		return false;
	n = dlist_is_empty(&session_lru) ? NULL : dlist_tail_node(&session_lru);
	while (n != NULL && session_bytes + need > session_cap())
	{
		dlist_node *prev = dlist_has_prev(&session_lru, n) ? dlist_prev_node(&session_lru, n) : NULL;
		PgbfSessionValue *v = dlist_container(PgbfSessionValue, lru, n);

		if (v->pins == 0)
		{
			session_evictions++;
			session_drop(v);
		}
		n = prev;
	}
	return session_bytes + need <= session_cap();
}

/*
 * chunk 0 of valueid in toastrel now, as a detoast would read it (the
 * TOAST snapshot, through the toast index): its TID and a copy of its
 * tuple header; false if there is none
 */
static bool
toast_chunk0(Relation toastrel, Oid valueid, ItemPointer tid, HeapTupleHeaderData *hdr)
{
	Relation   *idxs;
	int			nidx;
	int			valid;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	SnapshotData snapbuf;
	bool		found = false;

	valid = toast_open_indexes(toastrel, AccessShareLock, &idxs, &nidx);
	ScanKeyInit(&key[0], (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(valueid));
	ScanKeyInit(&key[1], (AttrNumber) 2, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(0));
	scan = systable_beginscan_ordered(toastrel, idxs[valid], pgbf_toast_snapshot(&snapbuf),
									  2, key);
	tup = systable_getnext_ordered(scan, ForwardScanDirection);
	if (tup != NULL)
	{
		*tid = tup->t_self;
		memcpy(hdr, tup->t_data, SizeofHeapTupleHeader);
		found = true;
	}
	systable_endscan_ordered(scan);
	toast_close_indexes(idxs, nidx, AccessShareLock);
	return found;
}

/* the identity of valueid's chunk 0 in toastrel now */
static bool
toast_identity(Relation toastrel, Oid valueid, PgbfToastIdentity *id)
{
	HeapTupleHeaderData h;

	memset(id, 0, sizeof(*id));
	id->relfile = pgbf_rel_file_number(toastrel);
	if (!toast_chunk0(toastrel, valueid, &id->tid, &h))
		return false;
	id->xmin = HeapTupleHeaderGetRawXmin(&h);
	id->frozen = HeapTupleHeaderXminFrozen(&h);
	/* (a frozen xmin may be older than the commit log keeps) */
	id->committed = id->frozen || HeapTupleHeaderXminCommitted(&h) ||
		!TransactionIdIsNormal(id->xmin) || TransactionIdDidCommit(id->xmin);
	return true;
}

static bool
toast_identity_equal(const PgbfToastIdentity *a, const PgbfToastIdentity *b)
{
	return a->relfile == b->relfile && ItemPointerEquals((ItemPointer) &a->tid,
														 (ItemPointer) &b->tid) &&
		a->xmin == b->xmin;
}

/* the toast relation of tp, if the session cache can check its values */
static Relation
toast_open_checkable(const struct varatt_external *tp)
{
	Relation	rel = try_relation_open(tp->va_toastrelid, AccessShareLock);

	if (rel == NULL)
		return NULL;
	if (rel->rd_rel->relkind != RELKIND_TOASTVALUE ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID)
	{
		relation_close(rel, AccessShareLock);
		return NULL;
	}
	return rel;
}

/* the 64-bit XID of xid, assigned before next (within 2^32 of it) */
static uint64
full_xid_before(uint64 next, TransactionId xid)
{
	uint64		f = (next & ~(uint64) 0xFFFFFFFF) | xid;

	if (f >= next && f >= ((uint64) 1 << 32))
		f -= (uint64) 1 << 32;
	return f;
}

/*
 * The first 64-bit XID at which another generation could have chunk 0
 * with id's raw xmin (the argument above); 0 if none can be bounded.
 */
static uint64
generation_bound(const PgbfToastIdentity *id)
{
	uint64		next = U64FromFullTransactionId(ReadNextFullTransactionId());
	uint64		low,
				f;

	if (!TransactionIdIsNormal(id->xmin))
		return PG_UINT64_MAX;	/* no transaction has its XID */
	if (!id->frozen)
		return full_xid_before(next, id->xmin) + ((uint64) 1 << 32);
	if (!ActiveSnapshotSet() || !TransactionIdIsNormal(GetActiveSnapshot()->xmin))
		return 0;
	low = full_xid_before(next, GetActiveSnapshot()->xmin);
	f = (low & ~(uint64) 0xFFFFFFFF) | id->xmin;
	if (f < low)
		f += (uint64) 1 << 32;
	return f;
}

static bool
next_xid_below(uint64 bound)
{
	return U64FromFullTransactionId(ReadNextFullTransactionId()) <= bound;
}

/*
 * Whether valueid in toastrel still has a chunk 0 that no committed
 * transaction has deleted.  A value deleted (an UPDATE's old version) is
 * seen only by older snapshots, so its copy is rarely worth its memory;
 * dropping one only costs a read if it is met again.
 */
static bool
toast_value_live(Relation toastrel, Oid valueid)
{
	ItemPointerData tid;
	HeapTupleHeaderData h;

	if (!toast_chunk0(toastrel, valueid, &tid, &h))
		return false;
	return (h.t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) ||
		HEAP_XMAX_IS_LOCKED_ONLY(h.t_infomask) ||
		!((h.t_infomask & HEAP_XMAX_COMMITTED) ||
		  TransactionIdDidCommit(HeapTupleHeaderGetRawXmax(&h)));
}

/*
 * A new value of toastrel was read: drop the unused copies of its other
 * values that have since been deleted or removed (the versions a filter
 * that is updated batch after batch leaves behind).
 */
static void
session_sweep(Relation toastrel, const PgbfSessionValue *keep)
{
	dlist_mutable_iter it;

	dlist_foreach_modify(it, &session_lru)
	{
		PgbfSessionValue *v = dlist_container(PgbfSessionValue, lru, it.cur);

		if (v == keep || v->pins > 0 ||
			v->key.va_toastrelid != keep->key.va_toastrelid ||
			toast_value_live(toastrel, v->key.va_valueid))
			continue;
		session_evictions++;
		session_drop(v);
	}
}

/*
 * The session's value for toast pointer raw, checked as above and pinned,
 * or NULL (not held, or no longer the value raw stands for: dropped).
 */
static PgbfSessionValue *
session_lookup(struct varlena *raw)
{
	struct varatt_external tp;
	PgbfSessionHashEntry *he;
	PgbfSessionValue *v;
	Relation	rel;
	PgbfToastIdentity now;
	bool		same = false;

	if (session_hash == NULL)
		return NULL;
	if (session_bytes > session_cap())
		(void) session_make_room(0);	/* the cap was lowered */
	VARATT_EXTERNAL_GET_POINTER(tp, raw);
	he = hash_search(session_hash, &tp, HASH_FIND, NULL);
	if (he == NULL)
		return NULL;
	v = he->v;
	rel = toast_open_checkable(&tp);
	if (rel != NULL)
	{
		same = toast_identity(rel, tp.va_valueid, &now) &&
			toast_identity_equal(&now, &v->id) && next_xid_below(v->valid_below);
		relation_close(rel, AccessShareLock);
	}
	if (!same)
	{
		session_stale++;
		session_drop(v);
		return NULL;
	}
	session_hits++;
	v->pins++;
	dlist_move_head(&session_lru, &v->lru);
	return v;
}

/*
 * Read raw's value (size bytes) into a new session value, pinned by
 * call-site entry e (so that an error frees it), and keep it for later
 * statements if its chunk 0 holds still around the read; NULL if it does
 * not fit the cap.
 */
static PgbfSessionValue *
session_load(PgbfCacheEntry *e, Datum d, Size size)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	PgbfSessionValue *v;
	Relation	rel;
	PgbfToastIdentity before,
				after;
	bool		keep = false;

	if (!session_make_room(size))
		return NULL;
	if (session_cxt == NULL)
	{
		HASHCTL		ctl;

		session_cxt = AllocSetContextCreate(TopMemoryContext, "bloomfilter session cache",
											ALLOCSET_DEFAULT_SIZES);
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(struct varatt_external);
		ctl.entrysize = sizeof(PgbfSessionHashEntry);
		ctl.hcxt = session_cxt;
		session_hash = hash_create("bloomfilter session cache", 64, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}

	v = MemoryContextAllocZero(session_cxt, sizeof(PgbfSessionValue));
	v->raw = MemoryContextAllocHuge(session_cxt, size + PGBF_VALUE_ALIGN);
	v->value = (const void *) TYPEALIGN(PGBF_VALUE_ALIGN, v->raw);
	v->size = size;
	v->pins = 1;
	session_bytes += size;
	e->session = v;
	VARATT_EXTERNAL_GET_POINTER(v->key, raw);

	rel = toast_open_checkable(&v->key);
	if (rel != NULL && toast_identity(rel, v->key.va_valueid, &before))
	{
		v->valid_below = generation_bound(&before);
		detoast_into(d, (char *) v->value, size);
		keep = before.committed && toast_identity(rel, v->key.va_valueid, &after) &&
			toast_identity_equal(&before, &after) && next_xid_below(v->valid_below);
		v->id = before;
	}
	else
		detoast_into(d, (char *) v->value, size);

	if (keep)
	{
		PgbfSessionHashEntry *he;
		bool		found;

		he = hash_search(session_hash, &v->key, HASH_ENTER, &found);
		if (found)
			session_drop(he->v);	/* another call site's, gone stale */
		he = hash_search(session_hash, &v->key, HASH_ENTER, &found);
		he->v = v;
		v->in_hash = true;
		dlist_push_head(&session_lru, &v->lru);
		session_loads++;
		session_sweep(rel, v);
	}
	if (rel != NULL)
		relation_close(rel, AccessShareLock);
	return v;
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
	PgbfSessionValue *sv = NULL;
	Size		size;
	Size		own;
	int			victim;

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
		cache->release.func = cache_release;
		cache->release.arg = cache;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &cache->release);
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

	/*
	 * Not met at this call site yet: a stored value may be in the session
	 * cache (checked, then pinned by the entry).  Else a stored value is
	 * read into the session cache if it fits its cap, the rest as before
	 * into the call site's memory.
	 */
	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external tp;

		VARATT_EXTERNAL_GET_POINTER(tp, raw);
		size = (Size) tp.va_rawsize;
		sv = session_lookup(raw);
	}
	else
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
	e = &cache->entries[victim];
	if (e->session)
	{
		/* left by a load an error cut short, if the call site lived on */
		session_unpin(e->session);
		e->session = NULL;
	}
	if (sv != NULL)
		e->session = sv;		/* from here on released with the call site */
	else if (detoasted == NULL)
		sv = session_load(e, d, size);
	own = sv ? 0 : size;
	while (cache->bytes + own > PGBF_CACHE_BYTES && cache->bytes > 0)
	{
		int			lru = -1;

		for (int i = 0; i < PGBF_CACHE_ENTRIES; i++)
			if (cache->entries[i].keylen &&
				(lru < 0 || cache->entries[i].last_used < cache->entries[lru].last_used))
				lru = i;
		cache_evict(cache, &cache->entries[lru]);
	}

	if (sv != NULL)
	{
		e->raw = NULL;
		e->value = sv->value;
	}
	else
	{
		e->raw = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, size + PGBF_VALUE_ALIGN);
		e->value = (const void *) TYPEALIGN(PGBF_VALUE_ALIGN, e->raw);
		if (detoasted == NULL)
			detoast_into(d, (char *) e->value, size);
		else
		{
			bf_copy((void *) e->value, detoasted, size);
			if ((Pointer) detoasted != (Pointer) raw)
				pfree(detoasted);
		}
	}
	e->key = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, keylen);
	memcpy(e->key, raw, keylen);
	e->keylen = keylen;
	e->vsize = size;
	e->size = own;
	e->last_used = ++cache->clock;
	cache->bytes += own;
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
		if (bytes > 0 && !eager && ++e->uses < e->vsize / PGBF_DERIVE_BYTES_PER_USE)
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
