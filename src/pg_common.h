/*
 * pg_common.h
 *		SQL glue shared by every filter type: error reporting, validated
 *		text/binary/bytea I/O, element hashing from function arguments, the
 *		per-query detoast cache and aggregate helpers.
 */
#ifndef PG_COMMON_H
#define PG_COMMON_H

#include "pg_compat.h"

#include "access/detoast.h"
#include "access/htup.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "storage/bufpage.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"
#include "utils/relcache.h"

#include "bfcore.h"

/* Validates the bytes of one value of a type (len = VARSIZE). */
typedef BfStatus (*PgbfChecker) (const void *data, size_t len, char *errbuf);

/* Where a value came from decides the SQLSTATE of a malformed one. */
typedef enum PgbfSource
{
	PGBF_FROM_TEXT,				/* 22P02 */
	PGBF_FROM_BINARY,			/* 22P03 */
	PGBF_FROM_BYTEA				/* 22P03 */
} PgbfSource;

/* Raise the ERROR a core status stands for. */
extern pg_noreturn void pgbf_report(BfStatus st, const char *msg);
extern pg_noreturn void pgbf_report_corrupt(PgbfSource src, const char *type_name,
											const char *msg);

/* Validated I/O: every outside path goes through one checker. */
extern struct varlena *pgbf_validate_bytes(const char *bytes, size_t len,
										   PgbfChecker check, const char *type_name,
										   PgbfSource src);
extern Datum pgbf_in(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name);
extern Datum pgbf_out(FunctionCallInfo fcinfo);
extern Datum pgbf_recv(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name);
extern Datum pgbf_send(FunctionCallInfo fcinfo);
extern Datum pgbf_from_bytea(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name);
extern Datum pgbf_to_bytea(FunctionCallInfo fcinfo);

/*
 * Allocate a value of size bytes in cxt, only its varlena header set: every
 * caller fills every byte (the cores' init and grow functions zero the
 * value themselves, so zeroing it here as well wrote a new filter twice).
 */
extern void *pgbf_alloc_value_uninit(MemoryContext cxt, size_t size);

/*
 * A palloc'd value grown (repalloc) to size bytes, its bytes kept, the
 * rest uninitialized, the varlena header not changed.  A big value is a
 * block of its own, which glibc's realloc grows with mremap, without a
 * copy or a second block at once (its huge-page advice covers the whole
 * block, so the mapping stays whole: pg_common.c).
 */
extern void *pgbf_grow_value(void *v, size_t size);

/*
 * The same, only the varlena header set, starting on a 64-byte boundary
 * if it is 8 kB or more: a filter's blocks are 64-byte aligned within the
 * value, so only then is each block one cache line instead of two (palloc
 * aligns to 8 or 16).
 * Not a palloc chunk: free it with pfree(*alloc), never pfree() the value,
 * so it is for memory the caller owns to the end, never a returned Datum.
 */
#define PGBF_VALUE_ALIGN 64		/* a cache line */
extern void *pgbf_alloc_value_aligned(MemoryContext cxt, size_t size, void **alloc);

/* ---- elements ---- */
typedef enum PgbfElem
{
	PGBF_ELEM_BYTES,			/* text, bytea: their bytes */
	PGBF_ELEM_INT8,				/* bigint: 8 little-endian bytes */
	PGBF_ELEM_UUID				/* uuid: its 16 bytes */
} PgbfElem;

extern uint64 pgbf_hash_datum_slow(Datum d, PgbfElem kind, uint64 seed);

/*
 * The hash of one element.  Text in a scan row is almost always a short
 * in-line varlena: hash its bytes where they are, without the detoast call;
 * compressed or out-of-line values take the slow path (detoasted first:
 * never hash compressed bytes).
 */
static inline uint64
pgbf_hash_datum(Datum d, PgbfElem kind, uint64 seed)
{
	if (kind == PGBF_ELEM_BYTES)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(d);

		/* VARATT_IS_SHORT is true of a toast pointer too: rule that out */
		if (VARATT_IS_SHORT(v) && !VARATT_IS_EXTERNAL(v))
			return bf_hash_bytes(VARDATA_SHORT(v), VARSIZE_SHORT(v) - VARHDRSZ_SHORT, seed);
		if (VARATT_IS_4B_U(v))
			return bf_hash_bytes(VARDATA(v), VARSIZE(v) - VARHDRSZ, seed);
	}
	return pgbf_hash_datum_slow(d, kind, seed);
}

static inline uint64
pgbf_hash_arg(FunctionCallInfo fcinfo, int argno, PgbfElem kind, uint64 seed)
{
	return pgbf_hash_datum(PG_GETARG_DATUM(argno), kind, seed);
}

/*
 * The NULL arguments of a row probe (contains, contained, count: CALLED ON
 * NULL INPUT), the filter in argument fargno, the element in xargno.  A
 * NULL element's answer is NULL.  A NULL filter contains nothing, so its
 * answer is empty's (false, or a count of 0): a filter that is missing,
 * say a scalar subquery that found no row, must not make
 * WHERE NOT contains(f, x) silently drop every row.  Returns true, with
 * *result set (or the NULL result flagged), when the NULLs decide it.
 * The array probes follow the same rule (PGBF_CONTAINS_ARRAY).
 */
static inline bool
pgbf_probe_nulls(FunctionCallInfo fcinfo, int fargno, int xargno, Datum empty, Datum *result)
{
	if (PG_ARGISNULL(xargno))
	{
		fcinfo->isnull = true;
		*result = (Datum) 0;
		return true;
	}
	if (PG_ARGISNULL(fargno))
	{
		*result = empty;
		return true;
	}
	return false;
}

/*
 * Argument n of a function with SQL DEFAULTs, or its default when the
 * call passed fewer arguments.  The planner fills DEFAULTs in, but
 * PostgreSQL 14beta2 leaves them out of a call in a subquery it pulls up
 * into a LATERAL function's arguments, and reading past PG_NARGS() reads
 * garbage.
 */
#define PGBF_GETARG_OR(n, getter, dflt) (PG_NARGS() > (n) ? getter(n) : (dflt))

/*
 * The (filter, added boolean[]) row the test-and-add functions return
 * (their OUT parameters), of the filter value and the array of flags.
 */
extern Datum pgbf_filter_and_flags(FunctionCallInfo fcinfo, void *filter, Datum flags);

/*
 * The array forms of add and remove (f in argument 0, the array in 1,
 * CALLED ON NULL INPUT): a NULL array adds or removes nothing, so the
 * answer is f as it is, where STRICT made it NULL and a stored filter
 * updated with a batch that had no new element became NULL; a NULL f
 * stays NULL.
 */
#define PGBF_ARRAY_NULLS_KEEP_FILTER() \
	do { \
		if (PG_ARGISNULL(0)) \
			PG_RETURN_NULL(); \
		if (PG_ARGISNULL(1)) \
			PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	} while (0)

/*
 * Hashes of every non-NULL element of argument argno, an array of text,
 * bytea, bigint or uuid; returns the count and sets *hashes (palloc'd).
 * A big stored array is not detoasted whole (it is read a window at a
 * time).  *header, unless header is NULL,
 * gets something with the array's shape (ARR_NDIM, ARR_DIMS, ARR_LBOUND,
 * ARR_NULLBITMAP; not its data).
 */
extern int	pgbf_hash_array_arg(FunctionCallInfo fcinfo, int argno, uint64 seed,
								uint64 **hashes, ArrayType **header);

/* the same for an array value at hand (an index key): *hashes, the count */
extern int	pgbf_hash_array(ArrayType *arr, uint64 seed, uint64 **hashes);

/*
 * The array probes, f_contains(f, xs[]): f's answer for each element of
 * the array in argument argno, NULL for a NULL element, as a boolean array
 * of the same shape.  probe answers n hashes at once, loading ahead so that
 * the cache misses of a big filter overlap.  f NULL stands for a NULL
 * filter, which contains nothing: every answer is false (probe is then
 * not called).
 */
typedef void (*PgbfProbeMany) (const void *f, const uint64 *h, size_t n, bool *out);
extern Datum pgbf_contains_array(FunctionCallInfo fcinfo, int argno, const void *f,
								 uint64 seed, PgbfProbeMany probe);

/*
 * Define the C entry point name(f, xs[]) of a filter type whose values are
 * Type (a BfHeader first) and whose core answers many hashes with
 * contains_hashes(const Type *, h, n, out): NULLs as pgbf_probe_nulls
 * says (a NULL array's answer is NULL, a NULL filter's all false), the
 * filter cached per query, the rest pgbf_contains_array.
 */
#define PGBF_CONTAINS_ARRAY(name, Type, contains_hashes) \
	static void \
	name##_probe_many(const void *f, const uint64 *h, size_t n, bool *out) \
	{ \
		contains_hashes((const Type *) f, h, n, out); \
	} \
	PG_FUNCTION_INFO_V1(name); \
	Datum \
	name(PG_FUNCTION_ARGS) \
	{ \
		const Type *f; \
		\
		if (PG_ARGISNULL(1)) \
			PG_RETURN_NULL(); \
		if (PG_ARGISNULL(0)) \
			return pgbf_contains_array(fcinfo, 1, NULL, 0, NULL); \
		f = pgbf_cached_arg(fcinfo, 0); \
		return pgbf_contains_array(fcinfo, 1, f, f->hdr.seed, name##_probe_many); \
	}

/*
 * Define name_text, name_int8 and name_uuid, the three C entry points
 * of a function whose element argument may be text/bytea, bigint or uuid,
 * all calling impl(fcinfo, kind).
 */
#define PGBF_ELEM_ENTRY_POINTS(name, impl) \
	PG_FUNCTION_INFO_V1(name##_text); \
	Datum name##_text(PG_FUNCTION_ARGS) { return impl(fcinfo, PGBF_ELEM_BYTES); } \
	PG_FUNCTION_INFO_V1(name##_int8); \
	Datum name##_int8(PG_FUNCTION_ARGS) { return impl(fcinfo, PGBF_ELEM_INT8); } \
	PG_FUNCTION_INFO_V1(name##_uuid); \
	Datum name##_uuid(PG_FUNCTION_ARGS) { return impl(fcinfo, PGBF_ELEM_UUID); }

/*
 * The size of a datum's value if it is stored out of line and not
 * compressed (a stored array or filter read in pieces), else 0 (argcache.c)
 */
extern Size pgbf_toast_plain_size(struct varlena *raw);

extern const void *pgbf_cached_arg_slow(FunctionCallInfo fcinfo, int argno);

/* define the session cache's GUCs (argcache.c; _PG_init calls it) */
extern void pgbf_argcache_init(void);

typedef void *(*PgbfDeriveFn) (const void *value, MemoryContext cxt);

/*
 * The start of a call site's cache (fn_extra, pg_common.c): the toast
 * pointer that answered last and its value, so that the usual row (the
 * same TOASTed value as the row before) is answered inline, without a
 * call; and, once pgbf_cached_arg_derived has settled it, what it derives
 * from that value.
 */
typedef struct PgbfCacheLast
{
	const void *value;			/* NULL: none */
	PgbfDeriveFn derive;		/* NULL: aux not settled */
	const void *aux;			/* derive's structure, or NULL: none is worth it */
	char		key[TOAST_POINTER_SIZE];
} PgbfCacheLast;

/* argument argno is the toast pointer that answered last: its value is last->value */
static inline const PgbfCacheLast *
pgbf_cache_last_for(FunctionCallInfo fcinfo, int argno)
{
	const PgbfCacheLast *last = (const PgbfCacheLast *) fcinfo->flinfo->fn_extra;
	const char *raw = DatumGetPointer(PG_GETARG_DATUM(argno));

	if (last != NULL && last->value != NULL && VARATT_IS_EXTERNAL_ONDISK(raw) &&
		memcmp(last->key, raw, TOAST_POINTER_SIZE) == 0)
		return last;
	return NULL;
}

/*
 * A filter argument, detoasted at most once per query while it stays the
 * same value (a subquery result or a join's outer row), copied 64-byte
 * aligned so a blocked probe touches one cache line; a stored one is read
 * once per session, and checked once per statement (argcache.c).  Read
 * only.
 */
static inline const void *
pgbf_cached_arg(FunctionCallInfo fcinfo, int argno)
{
	const PgbfCacheLast *last = pgbf_cache_last_for(fcinfo, argno);

	if (last != NULL)
		return last->value;
	return pgbf_cached_arg_slow(fcinfo, argno);
}

/*
 * As pgbf_cached_arg, and *aux a structure derive builds from the value
 * (aux_size bytes, allocated in cxt), kept and freed with the cached value
 * and counted in the cache's cap.  *aux is NULL for values not cached,
 * for values whose aux_size is 0 (derive is then never called), and,
 * unless eager, until the value has been probed often enough to repay
 * building it.  Once that is settled, the usual row is answered inline.
 */
/* derive once the value has been probed about once per this many bytes of it */
#define PGBF_DERIVE_BYTES_PER_USE 256

extern const void *pgbf_cached_arg_derived_slow(FunctionCallInfo fcinfo, int argno,
												PgbfDeriveFn derive,
												Size (*aux_size) (const void *value),
												const void **aux, bool eager);

static inline const void *
pgbf_cached_arg_derived(FunctionCallInfo fcinfo, int argno, PgbfDeriveFn derive,
						Size (*aux_size) (const void *value), const void **aux,
						bool eager)
{
	const PgbfCacheLast *last = pgbf_cache_last_for(fcinfo, argno);

	if (last != NULL && last->derive == derive)
	{
		*aux = last->aux;
		return last->value;
	}
	return pgbf_cached_arg_derived_slow(fcinfo, argno, derive, aux_size, aux, eager);
}

/* ---- aggregates ---- */

/*
 * An aggregate state that buffers element hashes before applying them.
 *
 * Adding a hash to a big filter or keyset is one random memory access, and
 * one row at a time nothing can overlap it with anything: every row waits
 * for a cache miss.  So transition functions keep the state as an expanded
 * object (utils/expandeddatum.h) holding the flat value plus a short queue
 * of pending hashes; when the queue is full, flush applies them in arrival
 * order, prefetching a few ahead, so the misses overlap.  Applying the same
 * hashes in the same order gives the same bytes as one at a time.
 *
 * The executor passes the same read-write object back on every row and
 * never copies it; whoever reads the state (final, combine, out, send, a
 * parallel worker's tuple queue) gets the flat value with the queue
 * applied first, through pgbf_state_flat or the expanded-object flattening.
 */
#define PGBF_PENDING_SMALL 16		/* queue of a state that fits in cache */
#define PGBF_PENDING_MAX 256	/* queue of one that does not */
#define PGBF_PENDING_BIG_STATE (256 * 1024)	/* bytes: where that starts */

typedef struct PgbfPending PgbfPending;
typedef void (*PgbfFlushFn) (PgbfPending *p);

struct PgbfPending
{
	ExpandedObjectHeader hdr;
	struct varlena *flat;		/* the value, aligned (see below) */
	void	   *flat_alloc;		/* its allocation in hdr.eoh_context */
	PgbfFlushFn flush;			/* applies pending[] to flat, empties it */
	/* NULL, or the queue length the state wants now (see pgbf_pending_full) */
	size_t		(*queue_target) (PgbfPending *p);
	int			npending;
	int			maxpending;		/* PGBF_PENDING_SMALL or _MAX, or queue_target's */
	uint64	   *pending;		/* small[], or maxpending in the context */
	uint64		small[PGBF_PENDING_SMALL];
};

/*
 * Free an empty queue's memory (a final function's, once it has flushed:
 * most often no row follows).  A queue that fills again grows again.
 */
extern void pgbf_pending_release_queue(PgbfPending *p);

/*
 * The pending state in argument 0 of a transition function: the object
 * itself on every row but the first (NULL: returns NULL), or a new one
 * holding a copy of a flat state (e.g. read back from a hash-agg spill).
 */
extern PgbfPending *pgbf_pending_arg(FunctionCallInfo fcinfo, MemoryContext aggcxt,
									 PgbfFlushFn flush);
/*
 * The fast path of every row but the first: argument 0 is already this
 * aggregate's read-write pending state (which only a transition function
 * running as an aggregate can have made), else NULL: then go through
 * pgbf_pending_arg, which checks the context.
 */
extern PGDLLIMPORT const ExpandedObjectMethods pgbf_pending_methods;

static inline PgbfPending *
pgbf_pending_self(FunctionCallInfo fcinfo)
{
	Datum		d = PG_GETARG_DATUM(0);

	if (!PG_ARGISNULL(0) && VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		/* DatumGetEOHP, inline: this runs once per row */
		varatt_expanded ptr;

		memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(d)), sizeof(ptr));
		if (ptr.eohptr->eoh_methods == &pgbf_pending_methods)
			return (PgbfPending *) ptr.eohptr;
	}
	return NULL;
}

/*
 * A new pending state; the caller gives it its value with
 * pgbf_pending_set_flat.
 */
extern PgbfPending *pgbf_pending_new(MemoryContext aggcxt, PgbfFlushFn flush);

/*
 * p->flat is 64-byte aligned once it is 8 kB or more (see
 * pgbf_alloc_value_aligned), so the random adds of a flush touch
 * one cache line per block, not two.  set_flat makes v, from
 * pgbf_alloc_value_aligned(p->hdr.eoh_context, size, &alloc), the value,
 * freeing the old one; copy_flat makes an aligned copy of v the value (v
 * stays the caller's, and may be the old value).
 */
extern void pgbf_pending_set_flat(PgbfPending *p, struct varlena *v, void *alloc);
extern void pgbf_pending_copy_flat(PgbfPending *p, const struct varlena *v);

/*
 * Flush a full queue; a state grown big gets the long queue.  With a
 * queue_target, the queue grows to the length it asks for instead of
 * flushing while it is shorter (a keyset merges once per about as many
 * new hashes as it holds).
 */
extern void pgbf_pending_full(PgbfPending *p);

static inline void
pgbf_pending_push(PgbfPending *p, uint64 h)
{
	p->pending[p->npending++] = h;
	if (p->npending == p->maxpending)
		pgbf_pending_full(p);
}

static inline Datum
pgbf_pending_datum(PgbfPending *p)
{
	return EOHPGetRWDatum(&p->hdr);
}

/*
 * The flat bytes of a state datum: a pending state's value with its queue
 * applied (the pointer stays owned by the state), or the datum detoasted.
 */
extern struct varlena *pgbf_state_flat(Datum d);

/* d's pending state if it is one (its queue not applied), else NULL */
extern PgbfPending *pgbf_state_pending(Datum d);

/*
 * What a combine function returns after updating its argument 0 into v
 * (v may be pgbf_state_flat of it, or a new value): a pending state stays
 * the same object, with v as its value, since pending states must never be
 * replaced (see pgbf_pending_new); anything else is returned as v.
 */
extern Datum pgbf_state_result(FunctionCallInfo fcinfo, struct varlena *v);

/* The aggregate's memory context, or NULL when not called as aggregate. */
extern MemoryContext pgbf_agg_context(FunctionCallInfo fcinfo);

/*
 * For a final function called with a NULL state (zero rows): the value of
 * aggregate argument argno (0-based, the element is 0) if it is a constant.
 */
extern bool pgbf_agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value);

/*
 * NULL handling shared by every (state, value) combining transition and
 * combine function: a NULL value leaves the state as it is; a NULL state
 * takes the value (the executor copies it into the aggregate context).
 * Returns true, with *result set (or the NULL result flagged), when that
 * decides it.
 */
extern bool pgbf_combine_nulls(FunctionCallInfo fcinfo, Datum *result);

/*
 * Define prefix_in, prefix_recv and prefix_from_bytea: the three doors by
 * which outside bytes become a value of a type, all through one checker.
 */
#define PGBF_INPUT_FUNCS(prefix, checker, type_name) \
	PG_FUNCTION_INFO_V1(prefix##_in); \
	Datum prefix##_in(PG_FUNCTION_ARGS) { return pgbf_in(fcinfo, checker, type_name); } \
	PG_FUNCTION_INFO_V1(prefix##_recv); \
	Datum prefix##_recv(PG_FUNCTION_ARGS) { return pgbf_recv(fcinfo, checker, type_name); } \
	PG_FUNCTION_INFO_V1(prefix##_from_bytea); \
	Datum prefix##_from_bytea(PG_FUNCTION_ARGS) { return pgbf_from_bytea(fcinfo, checker, type_name); }

/* text[] of jsonb keys and values -> jsonb, for the *_info functions */
extern Datum pgbf_jsonb_from_cstring(const char *json);

/* checked float/int parameter helpers */
extern void pgbf_check_status(BfStatus st, const char *msg);

/*
 * url_normalize(text)'s result, for the probe and build scans to make the
 * same bytes (url_type.c): whether it changes src, and its normal form
 * when it does.
 */
extern bool pgbf_url_changes(const char *src, size_t len);
extern size_t pgbf_url_normalize_into(const char *src, size_t len, char *dst);

/*
 * The tuple at offset off of heap page page (block block of rel), pointing
 * into the page, which the caller keeps pinned (or a copy of); false if
 * its line pointer is not a normal one.  For the scans that read a heap
 * page at a time and the index build, which does too.
 */
extern bool pgbf_page_tuple(Relation rel, Page page, BlockNumber block, OffsetNumber off,
							HeapTuple tup);

#endif							/* PG_COMMON_H */
