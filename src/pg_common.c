/*
 * pg_common.c
 *		SQL glue shared by every filter type.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/uuid.h"

#include "bloomindex.h"
#include "pg_common.h"
#include "scan.h"

PGBF_MODULE_MAGIC;

void		_PG_init(void);

/*
 * The core's long loops call this between chunks of work (bfcore.h), so
 * that a cancel, a statement timeout or a terminate ends them there.
 */
static void
pgbf_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	bf_interrupt_hook = pgbf_check_interrupts;
	pgbf_scan_init();
	pgbf_index_init();
}

/*
 * The version of the loaded module (the extension version it was built
 * as).  The install and update scripts compare it with their own, so a
 * catalog is never installed over an older module (a backend that loaded
 * the module before a newer one was installed keeps the old one).
 */
PG_FUNCTION_INFO_V1(bloomfilter_module_version);
Datum
bloomfilter_module_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(PGBF_VERSION));
}

void
pgbf_report(BfStatus st, const char *msg)
{
	int			code;

	switch (st)
	{
		case BF_ERR_PARAM:
		case BF_ERR_INCOMPATIBLE:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case BF_ERR_TOO_LARGE:
		case BF_ERR_FULL:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case BF_ERR_CORRUPT:
			code = ERRCODE_DATA_CORRUPTED;
			break;
		default:
			code = ERRCODE_INTERNAL_ERROR;
			break;
	}
	ereport(ERROR, (errcode(code), errmsg_internal("%s", msg)));
	pg_unreachable();
}

void
pgbf_check_status(BfStatus st, const char *msg)
{
	if (st != BF_OK)
		pgbf_report(st, msg);
}

void
pgbf_report_corrupt(PgbfSource src, const char *type_name, const char *msg)
{
	if (src == PGBF_FROM_TEXT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", type_name),
				 errdetail_internal("%s", msg)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid %s value", type_name),
			 errdetail_internal("%s", msg)));
	pg_unreachable();
}

/*
 * Ask for transparent huge pages under a big allocation, before it is
 * first touched.  The aggregates' states (a keyset of tens of megabytes,
 * a filter being built) are allocated, filled at random and outgrown in
 * one query: with 2 MB pages that is one page fault where 4 kB pages take
 * 512 (measured: a keyset of 2M hashes built 25% faster), and fewer TLB
 * misses.  A hint (Linux with THP in "madvise" or "always" mode), harmless
 * where not honoured, given to an allocation with a 2 MB-aligned 2 MB
 * inside it (only those can be huge pages), over the whole allocation
 * rounded out to pages: a big block's mapping then keeps one set of
 * flags, so glibc's realloc can still grow it with mremap (advice over
 * the interior alone split the mapping in three, and mremap failed with
 * EFAULT and realloc copied, seen in strace).  (The probe's detoasted
 * copy gained nothing from it: not used there.)
 */
#define PGBF_HUGE_PAGE ((uintptr_t) 2 * 1024 * 1024)

/* a cache line: what a filter's blocks are aligned to within a value */
#define PGBF_VALUE_ALIGN 64
/* pgbf_alloc_value_aligned aligns values at least this big */
#define PGBF_ALIGN_MIN_BYTES 8192

static void
pgbf_advise_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	static uintptr_t page = 0;
	uintptr_t	start = (uintptr_t) p,
				end = (uintptr_t) p + size;

	if (((start + PGBF_HUGE_PAGE - 1) & ~(PGBF_HUGE_PAGE - 1)) + PGBF_HUGE_PAGE > end)
		return;
	if (page == 0)
		page = (uintptr_t) sysconf(_SC_PAGESIZE);
	start &= ~(page - 1);
	end = (end + page - 1) & ~(page - 1);
	(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

static void
check_value_size(size_t size)
{
	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("filter of %zu bytes would exceed the 1 GB value limit", size)));
}

void *
pgbf_alloc_value_uninit(MemoryContext cxt, size_t size)
{
	void	   *p;

	check_value_size(size);
	p = MemoryContextAlloc(cxt, size);
	pgbf_advise_huge(p, size);
	SET_VARSIZE(p, size);
	return p;
}

void *
pgbf_alloc_value_aligned(MemoryContext cxt, size_t size, void **alloc)
{
	char	   *raw;
	void	   *p;

	/* small: in L1 or L2 anyway, and one per group of a GROUP BY */
	if (size < PGBF_ALIGN_MIN_BYTES)
		return *alloc = pgbf_alloc_value_uninit(cxt, size);
	check_value_size(size);
	raw = MemoryContextAllocHuge(cxt, size + PGBF_VALUE_ALIGN);
	p = (void *) TYPEALIGN(PGBF_VALUE_ALIGN, raw);
	pgbf_advise_huge(p, size);
	SET_VARSIZE(p, size);
	*alloc = raw;
	return p;
}

void *
pgbf_grow_value(void *v, size_t size)
{
	check_value_size(size);
	v = repalloc_huge(v, size);
	pgbf_advise_huge(v, size);
	return v;
}

/*
 * The one door for bytes from outside: copy them into a fresh value and
 * run the type's checker over the whole thing before anyone looks at it.
 * "bytes" excludes the varlena header.
 */
struct varlena *
pgbf_validate_bytes(const char *bytes, size_t len, PgbfChecker check,
					const char *type_name, PgbfSource src)
{
	char		errbuf[BF_ERRLEN];
	struct varlena *v;

	if (len > MaxAllocSize - VARHDRSZ)
		pgbf_report_corrupt(src, type_name, "value is larger than 1 GB");
	v = (struct varlena *) palloc(len + VARHDRSZ);
	SET_VARSIZE(v, len + VARHDRSZ);
	bf_copy(VARDATA(v), bytes, len);
	if (check(v, len + VARHDRSZ, errbuf) != BF_OK)
		pgbf_report_corrupt(src, type_name, errbuf);
	return v;
}

/* text form: base64 of the bytes after the varlena header */
Datum
pgbf_in(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	char	   *buf;
	size_t		n;

	if (len == 0)
		pgbf_report_corrupt(PGBF_FROM_TEXT, type_name, "empty input");
	buf = palloc(bf_base64_decoded_maxlen(len) + 1);
	n = bf_base64_decode(str, len, (uint8_t *) buf);
	if (n == (size_t) -1)
		pgbf_report_corrupt(PGBF_FROM_TEXT, type_name,
							"input is not a valid base64 encoding");
	PG_RETURN_POINTER(pgbf_validate_bytes(buf, n, check, type_name, PGBF_FROM_TEXT));
}

Datum
pgbf_out(FunctionCallInfo fcinfo)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	size_t		len = VARSIZE(v) - VARHDRSZ;
	size_t		outlen = bf_base64_encoded_len(len);
	char	   *out;

	if (outlen + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("filter of %zu bytes is too large for its text form", len),
				 errhint("Use binary COPY or a bytea cast for values over 768 MB.")));
	out = palloc(outlen + 1);
	bf_base64_encode((const uint8_t *) VARDATA(v), len, out);
	out[outlen] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
pgbf_recv(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	size_t		len = buf->len - buf->cursor;
	struct varlena *v;

	v = pgbf_validate_bytes(buf->data + buf->cursor, len, check, type_name,
							PGBF_FROM_BINARY);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(v);
}

Datum
pgbf_send(FunctionCallInfo fcinfo)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(v), VARSIZE(v) - VARHDRSZ);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
pgbf_from_bytea(FunctionCallInfo fcinfo, PgbfChecker check, const char *type_name)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_POINTER(pgbf_validate_bytes(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
										  check, type_name, PGBF_FROM_BYTEA));
}

/* same bytes, relabelled: a filter's bytes are already a valid bytea */
Datum
pgbf_to_bytea(FunctionCallInfo fcinfo)
{
	PG_RETURN_BYTEA_P(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}

/* ---- elements ---- */

uint64
pgbf_hash_datum_slow(Datum d, PgbfElem kind, uint64 seed)
{
	switch (kind)
	{
		case PGBF_ELEM_BYTES:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
				uint64		h = bf_hash_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), seed);

				if ((Pointer) v != DatumGetPointer(d))
					pfree(v);
				return h;
			}
		case PGBF_ELEM_INT8:
			return bf_hash_int64(DatumGetInt64(d), seed);
		case PGBF_ELEM_UUID:
			return bf_hash_uuid(DatumGetUUIDP(d)->data, seed);
	}
	pg_unreachable();
}

static PgbfElem
elem_kind_of(Oid typid)
{
	switch (typid)
	{
		case TEXTOID:
		case BYTEAOID:
		case VARCHAROID:
		case BPCHAROID:
			return PGBF_ELEM_BYTES;
		case INT8OID:
			return PGBF_ELEM_INT8;
		case UUIDOID:
			return PGBF_ELEM_UUID;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("array elements of type %s cannot be filter elements",
					format_type_be(typid)),
			 errhint("Elements must be text, bytea, bigint or uuid.")));
	pg_unreachable();
}

static Size toast_plain_size(struct varlena *raw);
static int	hash_array_elements(ArrayType *arr, uint64 seed, uint64 **hashes);

/*
 * A stored array at least this big (uncompressed, out of line: the usual
 * form of a big array of URLs, which compresses poorly, and the only one
 * for STORAGE EXTERNAL) is read from its TOAST chunks a window at a time
 * instead of detoasted whole: hashing needs each element once, in order.
 */
#define PGBF_ARRAY_STREAM_MIN	((Size) 1024 * 1024)
#define PGBF_ARRAY_WINDOW		((Size) 1024 * 1024)

typedef struct ArrayStream
{
	Relation	toastrel;
	Oid			valueid;
	Size		size;			/* of the whole array, header included */
	struct varlena *buf;		/* VARDATA(buf) holds bytes [wbeg, wend) */
	Size		room;			/* VARDATA(buf)'s size */
	Size		wbeg,
				wend;
} ArrayStream;

/*
 * Make bytes [pos, pos + len) of the array (offsets from the start of its
 * varlena header) readable, and return where they are.  A window starts
 * at an offset of 4 mod 8 so that, VARDATA(buf) being 4 mod 8 too, every
 * byte keeps the alignment it has in a detoasted copy.
 */
static const char *
array_stream_at(ArrayStream *st, Size pos, Size len)
{
	Size		beg,
				want;

	if (pos < VARHDRSZ || len > st->size || pos > st->size - len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored array data ends early")));
	if (pos >= st->wbeg && pos + len <= st->wend)
		return VARDATA(st->buf) + (pos - st->wbeg);
	beg = ((pos - VARHDRSZ) & ~(Size) 7) + VARHDRSZ;
	want = Max(PGBF_ARRAY_WINDOW, pos + len - beg);
	want = Min(want, st->size - beg);
	if (want > st->room)
	{
		if (st->buf)
			pfree(st->buf);
		st->buf = palloc(want + VARHDRSZ);
		st->room = want;
	}
	SET_VARSIZE(st->buf, want + VARHDRSZ);
	table_relation_fetch_toast_slice(st->toastrel, st->valueid,
									 (int32) (st->size - VARHDRSZ),
									 (int32) (beg - VARHDRSZ), (int32) want, st->buf);
	st->wbeg = beg;
	st->wend = beg + want;
	return VARDATA(st->buf) + (pos - beg);
}

/*
 * hash_array_elements for a stored array, read through an ArrayStream: the
 * same hashes, never the whole array in memory.  *header gets a copy of
 * the array's header (dimensions, bounds, NULL bitmap; no data).
 */
static int
hash_array_stream(struct varlena *raw, Size size, uint64 seed, uint64 **hashes,
				  ArrayType **header)
{
	struct varatt_external tp;
	ArrayStream st = {0};
	int32		fixed[3];		/* ndim, dataoffset, elemtype */
	int			ndim,
				n;
	Size		hdrlen,
				pos;
	ArrayType  *hdr;
	uint8	   *bitmap;
	PgbfElem	kind;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			count = 0;
	uint64	   *out;

	VARATT_EXTERNAL_GET_POINTER(tp, raw);
	st.toastrel = table_open(tp.va_toastrelid, AccessShareLock);
	st.valueid = tp.va_valueid;
	st.size = size;

	/* the header: its fixed part says how long the rest is */
	memcpy(fixed, array_stream_at(&st, VARHDRSZ, sizeof(fixed)), sizeof(fixed));
	ndim = fixed[0];
	if (ndim < 0 || ndim > MAXDIM)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored array has %d dimensions", ndim)));
	hdrlen = fixed[1] != 0 ? (Size) fixed[1] : ARR_OVERHEAD_NONULLS(ndim);
	if (hdrlen < ARR_OVERHEAD_NONULLS(ndim) || hdrlen > size)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored array has a data offset of %d", fixed[1])));
	hdr = palloc(hdrlen);
	memcpy((char *) hdr + VARHDRSZ, array_stream_at(&st, VARHDRSZ, hdrlen - VARHDRSZ),
		   hdrlen - VARHDRSZ);
	SET_VARSIZE(hdr, hdrlen);
	n = ArrayGetNItems(ndim, ARR_DIMS(hdr));
	if (fixed[1] != 0 && hdrlen < ARR_OVERHEAD_WITHNULLS(ndim, n))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored array's NULL bitmap is cut short")));
	bitmap = ARR_NULLBITMAP(hdr);
	kind = elem_kind_of(ARR_ELEMTYPE(hdr));
	get_typlenbyvalalign(ARR_ELEMTYPE(hdr), &typlen, &typbyval, &typalign);

	out = palloc(sizeof(uint64) * (n > 0 ? n : 1));
	pos = hdrlen;
	for (int i = 0; i < n; i++)
	{
		const char *p;
		Size		len;

		if ((i & (BF_INTERRUPT_CHUNK - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
		if (bitmap && !(bitmap[i / 8] & (1 << (i % 8))))
			continue;
		if (typlen > 0)
		{
			len = (Size) typlen;
			p = array_stream_at(&st, pos, len);
			out[count++] = pgbf_hash_datum(fetch_att(p, typbyval, typlen), kind, seed);
		}
		else
		{
			/* a short header is one byte, a long one four */
			p = array_stream_at(&st, pos, 1);
			if (VARATT_IS_1B(p) && !VARATT_IS_1B_E(p))
				len = VARSIZE_1B(p);
			else
			{
				p = array_stream_at(&st, pos, VARHDRSZ);
				if (!VARATT_IS_4B_U(p))
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("stored array element %d is not a plain value", i + 1)));
				len = VARSIZE_4B(p);
				if (len < VARHDRSZ)
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("stored array element %d has a length of %zu", i + 1, len)));
			}
			p = array_stream_at(&st, pos, len);
			out[count++] = pgbf_hash_datum(PointerGetDatum(p), kind, seed);
		}
		pos = att_align_nominal(pos + len, typalign);
	}
	table_close(st.toastrel, AccessShareLock);
	if (st.buf)
		pfree(st.buf);
	*hashes = out;
	*header = hdr;
	return count;
}

/*
 * The hashes of argument argno's array (see hash_array_elements), reading a
 * big stored array a window at a time; *header, if not NULL, gets the
 * array or (streamed) a copy of its header, for its shape.
 */
int
pgbf_hash_array_arg(FunctionCallInfo fcinfo, int argno, uint64 seed, uint64 **hashes,
					ArrayType **header)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	Size		size = toast_plain_size(raw);
	ArrayType  *arr;
	int			count;

	if (size >= PGBF_ARRAY_STREAM_MIN)
	{
		count = hash_array_stream(raw, size, seed, hashes, &arr);
		if (header)
			*header = arr;
		else
			pfree(arr);
		return count;
	}
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	count = hash_array_elements(arr, seed, hashes);
	if (header)
		*header = arr;
	return count;
}

/*
 * The hashes of the array's non-NULL elements in order (*hashes,
 * palloc'd); returns how many.  The elements are read in place, never
 * deconstructed into a Datum array: for an array of a million URLs that
 * is 8 MB less to allocate and fill.
 */
static int
hash_array_elements(ArrayType *arr, uint64 seed, uint64 **hashes)
{
	Oid			elemtype = ARR_ELEMTYPE(arr);
	PgbfElem	kind = elem_kind_of(elemtype);
	int			n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	int16		typlen;
	bool		typbyval;
	char		typalign;
	array_iter	it;
	int			count = 0;
	uint64	   *out;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	out = palloc(sizeof(uint64) * (n > 0 ? n : 1));
	pgbf_array_iter_setup(&it, (AnyArrayType *) arr, typlen, typbyval, typalign);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		d;

		if ((i & (BF_INTERRUPT_CHUNK - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
		d = pgbf_array_iter_next(&it, &isnull, i, typlen, typbyval, typalign);
		if (!isnull)
			out[count++] = pgbf_hash_datum(d, kind, seed);
	}
	*hashes = out;
	return count;
}

/*
 * The answers as a boolean array of the input's shape, NULL where the
 * input is.  Built directly: the data area is the probe's answers, one
 * byte per non-NULL element in order (a bool is one byte), and the NULL
 * bitmap is the input's own.
 */
Datum
pgbf_contains_array(FunctionCallInfo fcinfo, int argno, const void *f, uint64 seed,
					PgbfProbeMany probe)
{
	ArrayType  *arr;
	int			ndim;
	int			n;
	uint8	   *bitmap;
	uint64	   *hashes;
	int			count;
	Size		overhead;
	ArrayType  *result;

	StaticAssertStmt(sizeof(bool) == 1, "a bool array element is one byte");
	count = pgbf_hash_array_arg(fcinfo, argno, seed, &hashes, &arr);
	ndim = ARR_NDIM(arr);
	n = ArrayGetNItems(ndim, ARR_DIMS(arr));
	bitmap = ARR_NULLBITMAP(arr);
	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(BOOLOID));
	overhead = bitmap ? ARR_OVERHEAD_WITHNULLS(ndim, n) : ARR_OVERHEAD_NONULLS(ndim);
	result = palloc0(overhead + count);
	SET_VARSIZE(result, overhead + count);
	result->ndim = ndim;
	result->dataoffset = bitmap ? (int32) overhead : 0;
	result->elemtype = BOOLOID;
	memcpy(ARR_DIMS(result), ARR_DIMS(arr), ndim * sizeof(int));
	memcpy(ARR_LBOUND(result), ARR_LBOUND(arr), ndim * sizeof(int));
	if (bitmap)
		array_bitmap_copy(ARR_NULLBITMAP(result), 0, bitmap, 0, n);
	/* palloc0: a NULL filter's answers are already there, all false */
	if (f != NULL)
		probe(f, hashes, (size_t) count, (bool *) ARR_DATA_PTR(result));
	pfree(hashes);
	PG_RETURN_ARRAYTYPE_P(result);
}

Datum
pgbf_filter_and_flags(FunctionCallInfo fcinfo, void *filter, Datum flags)
{
	TupleDesc	desc;
	Datum		values[2] = {PointerGetDatum(filter), flags};
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "a test-and-add function's result is not a row type");
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

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
static Size
toast_plain_size(struct varlena *raw)
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

	size = toast_plain_size(raw);
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

/* ---- aggregates ---- */

static Size
pending_get_flat_size(ExpandedObjectHeader *eohptr)
{
	PgbfPending *p = (PgbfPending *) eohptr;

	if (p->npending > 0)
		p->flush(p);
	return VARSIZE(p->flat);
}

static void
pending_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	PgbfPending *p = (PgbfPending *) eohptr;

	Assert(p->npending == 0 && allocated_size == VARSIZE(p->flat));
	bf_copy(result, p->flat, allocated_size);
}

const ExpandedObjectMethods pgbf_pending_methods = {
	pending_get_flat_size,
	pending_flatten_into
};

static bool
is_pending_state(Datum d)
{
	return VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) &&
		DatumGetEOHP(d)->eoh_methods == &pgbf_pending_methods;
}

/*
 * The memory context of pending states: one per aggregate context, shared
 * by every group's state, not one per state.
 *
 * The executor keeps a read-write expanded transition value without
 * copying only if its context is a child of the aggregate context.  But a
 * hash aggregate sums the memory of the aggregate context, children
 * included, every time it starts a new group (hash_agg_check_limits): with
 * a context per group that is quadratic, measured at 100 s for 100,000
 * groups of 20 rows (hll: 2 s), and every context costs an 8 kB block.
 *
 * Sharing is safe because a pending state is never replaced by another
 * value while it lives (transition functions update it in place and
 * return it; see pgbf_state_result for the combine functions), so the
 * executor never deletes one state's object, which would delete them all;
 * they all go when the aggregate context is reset.  A callback forgets the
 * context when that happens.
 */
#define STATE_CXT_SLOTS 8

typedef struct StateCxt
{
	MemoryContext aggcxt;
	MemoryContext cxt;
} StateCxt;

typedef struct StateCxtGone
{
	MemoryContextCallback cb;
	int			slot;
	MemoryContext cxt;
} StateCxtGone;

static StateCxt state_cxts[STATE_CXT_SLOTS];
static int	state_cxt_next;

static void
state_cxt_gone(void *arg)
{
	StateCxtGone *g = (StateCxtGone *) arg;

	if (state_cxts[g->slot].cxt == g->cxt)
		state_cxts[g->slot].aggcxt = state_cxts[g->slot].cxt = NULL;
}

static MemoryContext
state_context(MemoryContext aggcxt)
{
	int			slot = -1;
	StateCxtGone *g;
	MemoryContext cxt;

	for (int i = 0; i < STATE_CXT_SLOTS; i++)
	{
		if (state_cxts[i].aggcxt == aggcxt)
			return state_cxts[i].cxt;
		if (slot < 0 && state_cxts[i].aggcxt == NULL)
			slot = i;
	}
	/* all in use (eight aggregate contexts at once): forget one */
	if (slot < 0)
	{
		slot = state_cxt_next;
		state_cxt_next = (state_cxt_next + 1) % STATE_CXT_SLOTS;
	}
	cxt = AllocSetContextCreate(aggcxt, "bloomfilter aggregate states",
								ALLOCSET_DEFAULT_SIZES);
	g = MemoryContextAlloc(cxt, sizeof(StateCxtGone));
	g->cb.func = state_cxt_gone;
	g->cb.arg = g;
	g->slot = slot;
	g->cxt = cxt;
	MemoryContextRegisterResetCallback(cxt, &g->cb);
	state_cxts[slot].aggcxt = aggcxt;
	state_cxts[slot].cxt = cxt;
	return cxt;
}

PgbfPending *
pgbf_pending_new(MemoryContext aggcxt, PgbfFlushFn flush)
{
	MemoryContext cxt = state_context(aggcxt);
	PgbfPending *p = MemoryContextAllocZero(cxt, sizeof(PgbfPending));

	EOH_init_header(&p->hdr, &pgbf_pending_methods, cxt);
	p->flush = flush;
	p->pending = p->small;
	p->maxpending = PGBF_PENDING_SMALL;
	return p;
}

/*
 * A short queue while the state fits in cache (one per group of a GROUP BY:
 * the memory adds up), the long one once it does not and prefetching far
 * ahead pays.
 */
void
pgbf_pending_full(PgbfPending *p)
{
	if (p->queue_target != NULL)
	{
		size_t		want = p->queue_target(p);

		if (want > (size_t) p->maxpending && want <= (size_t) PG_INT32_MAX / sizeof(uint64))
		{
			/*
			 * repalloc: a queue in a block of its own is realloc'd, which
			 * moves its pages instead of copying them into new ones
			 */
			if (p->pending == p->small)
			{
				p->pending = MemoryContextAlloc(p->hdr.eoh_context, want * sizeof(uint64));
				memcpy(p->pending, p->small, p->npending * sizeof(uint64));
			}
			else
				p->pending = repalloc(p->pending, want * sizeof(uint64));
			p->maxpending = (int) want;
		}
		else
			p->flush(p);
		return;
	}
	p->flush(p);
	if (p->maxpending < PGBF_PENDING_MAX && VARSIZE(p->flat) >= PGBF_PENDING_BIG_STATE)
	{
		p->pending = MemoryContextAlloc(p->hdr.eoh_context, PGBF_PENDING_MAX * sizeof(uint64));
		p->maxpending = PGBF_PENDING_MAX;
	}
}

void
pgbf_pending_release_queue(PgbfPending *p)
{
	Assert(p->npending == 0);
	if (p->pending != p->small)
	{
		pfree(p->pending);
		p->pending = p->small;
		p->maxpending = PGBF_PENDING_SMALL;
	}
}

PgbfPending *
pgbf_pending_arg(FunctionCallInfo fcinfo, MemoryContext aggcxt, PgbfFlushFn flush)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);
	struct varlena *v;

	if (p != NULL || PG_ARGISNULL(0))
		return p;

	/* a flat state (or a read-only one): continue from a private copy */
	v = pgbf_state_flat(PG_GETARG_DATUM(0));
	p = pgbf_pending_new(aggcxt, flush);
	pgbf_pending_copy_flat(p, v);
	return p;
}

void
pgbf_pending_set_flat(PgbfPending *p, struct varlena *v, void *alloc)
{
	if (p->flat_alloc)
		pfree(p->flat_alloc);
	p->flat = v;
	p->flat_alloc = alloc;
}

void
pgbf_pending_copy_flat(PgbfPending *p, const struct varlena *v)
{
	void	   *alloc;
	struct varlena *copy = pgbf_alloc_value_aligned(p->hdr.eoh_context, VARSIZE(v), &alloc);

	bf_copy(copy, v, VARSIZE(v));
	pgbf_pending_set_flat(p, copy, alloc);
}

PgbfPending *
pgbf_state_pending(Datum d)
{
	return is_pending_state(d) ? (PgbfPending *) DatumGetEOHP(d) : NULL;
}

struct varlena *
pgbf_state_flat(Datum d)
{
	if (is_pending_state(d))
	{
		PgbfPending *p = (PgbfPending *) DatumGetEOHP(d);

		if (p->npending > 0)
			p->flush(p);
		return p->flat;
	}
	return PG_DETOAST_DATUM(d);
}

Datum
pgbf_state_result(FunctionCallInfo fcinfo, struct varlena *v)
{
	PgbfPending *p = pgbf_pending_self(fcinfo);

	if (p == NULL)
		return PointerGetDatum(v);
	if (v != p->flat)
		pgbf_pending_copy_flat(p, v);
	return pgbf_pending_datum(p);
}

MemoryContext
pgbf_agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (AggCheckCallContext(fcinfo, &cxt))
		return cxt;
	return NULL;
}

bool
pgbf_combine_nulls(FunctionCallInfo fcinfo, Datum *result)
{
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
		{
			fcinfo->isnull = true;
			*result = (Datum) 0;
		}
		else
			*result = PG_GETARG_DATUM(0);
		return true;
	}
	if (PG_ARGISNULL(0))
	{
		*result = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(1)));
		return true;
	}
	return false;
}

/*
 * The value of an aggregate's parameter argument (capacity, fpr, ...) for
 * a final function over zero rows, which has no row to read it from: a
 * constant, or an expression of no column (a prepared statement's
 * parameter) evaluated in the aggregate's context.  Where the call cannot
 * be seen (a final function called by Citus's coordinator, whose workers
 * all had zero rows) or the argument reads a column, this raises an error
 * rather than build an empty filter of other parameters than asked for,
 * and so does a NULL, as the transition functions do.  false: the call
 * is to a form of the aggregate without this parameter.
 */
/*
 * The partial Aggref a combining (Finalize) Aggref stands for: its one
 * argument is a Var of the partial aggregate's output, passed up through
 * the plans below (a Gather, a Sort) as Vars of their outer plan's
 * targetlist.  NULL if the chain is not of that form.
 */
static Aggref *
partial_aggref(Plan *plan, Expr *e)
{
	for (int depth = 0; depth < 32 && plan != NULL; depth++)
	{
		Var		   *v;

		if (IsA(e, Aggref))
			return (Aggref *) e;
		if (!IsA(e, Var))
			return NULL;
		v = (Var *) e;
		if (v->varno != OUTER_VAR || plan->lefttree == NULL ||
			v->varattno < 1 || v->varattno > list_length(plan->lefttree->targetlist))
			return NULL;
		plan = plan->lefttree;
		e = ((TargetEntry *) list_nth(plan->targetlist, v->varattno - 1))->expr;
	}
	return NULL;
}

/*
 * The Aggref whose final function fcinfo is, with the arguments the call
 * was written with, or NULL when they cannot be seen: the final function
 * called outside an Agg, or by another aggregate's (Citus's coordinator
 * calls it from its own wrapper aggregate, whose Aggref AggGetAggref then
 * gives), or a Finalize Aggref whose partial one cannot be found.
 */
static Aggref *
own_aggref(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	HeapTuple	tup;
	Oid			finalfn;

	/* a final function the build scan calls (buildscan.c) */
	if (aggref == NULL)
		return pgbf_build_scan_aggref(fcinfo->context);

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	finalfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
	ReleaseSysCache(tup);
	if (fcinfo->flinfo == NULL || finalfn != fcinfo->flinfo->fn_oid)
		return NULL;

	/* a parallel plan's Finalize Aggregate: its args are the partial state */
	if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
	{
		if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState) ||
			list_length(aggref->args) != 1)
			return NULL;
		aggref = partial_aggref(((AggState *) fcinfo->context)->ss.ps.plan,
								((TargetEntry *) linitial(aggref->args))->expr);
		if (aggref == NULL || DO_AGGSPLIT_COMBINE(aggref->aggsplit))
			return NULL;
	}
	return aggref;
}

static pg_noreturn void
agg_param_null(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("an aggregate's parameters (capacity, fpr, ...) must not be NULL")));
}

bool
pgbf_agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Aggref	   *aggref = own_aggref(fcinfo);
	TargetEntry *tle;
	Expr	   *e;

	/*
	 * A form of the aggregate without this parameter: the default (args
	 * also holds an ORDER BY's expressions, after the arguments).
	 */
	if (aggref != NULL && argno >= list_length(aggref->aggargtypes))
		return false;
	if (aggref == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an aggregate over zero rows cannot find the parameters it was given here"),
				 errdetail("Its final function was called outside an aggregate (on a distributed plan's coordinator, say)."),
				 errhint("Make an empty filter with the type's create function when the input may be empty.")));
	if (argno >= list_length(aggref->args))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an aggregate over zero rows cannot find the parameters it was given here")));
	tle = (TargetEntry *) list_nth(aggref->args, argno);
	e = tle->expr;
	if (IsA(e, Const))
	{
		if (((Const *) e)->constisnull)
			agg_param_null();
		*value = ((Const *) e)->constvalue;
		return true;
	}
	if (!contain_var_clause((Node *) e) && fcinfo->context != NULL &&
		IsA(fcinfo->context, AggState))
	{
		AggState   *agg = (AggState *) fcinfo->context;
		ExprState  *st = ExecInitExpr(e, &agg->ss.ps);
		bool		isnull;

		*value = ExecEvalExprSwitchContext(st, agg->ss.ps.ps_ExprContext, &isnull);
		if (isnull)
			agg_param_null();
		return true;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("an aggregate over zero rows cannot evaluate its parameter argument %d", argno + 1),
			 errhint("Give the aggregate's parameters as constants or query parameters, not columns.")));
	pg_unreachable();
}

Datum
pgbf_jsonb_from_cstring(const char *json)
{
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
}

/*
 * Output, send and the cast to bytea do not depend on the type: every
 * filter type's SQL declarations point at these three.
 */
PG_FUNCTION_INFO_V1(bf_value_out);
Datum
bf_value_out(PG_FUNCTION_ARGS)
{
	return pgbf_out(fcinfo);
}

PG_FUNCTION_INFO_V1(bf_value_send);
Datum
bf_value_send(PG_FUNCTION_ARGS)
{
	return pgbf_send(fcinfo);
}

PG_FUNCTION_INFO_V1(bf_value_to_bytea);
Datum
bf_value_to_bytea(PG_FUNCTION_ARGS)
{
	return pgbf_to_bytea(fcinfo);
}

/*
 * Equality of two values of one filter type: the same bytes (the same
 * parameters, format and bits), and its hash (hash opclass support 1 and
 * 2), so that DISTINCT, GROUP BY, UNION and hash joins work on filter
 * columns.  Long values are compared and hashed a stretch at a time, with
 * interrupt checks between.
 */
static uint64
value_hash(struct varlena *v, uint64 seed)
{
	const char *p = VARDATA_ANY(v);
	size_t		n = VARSIZE_ANY_EXHDR(v);
	uint64		h = seed;

	do
	{
		size_t		c = Min(n, BF_INTERRUPT_BYTES);

		h = DatumGetUInt64(hash_any_extended((const unsigned char *) p, (int) c, h));
		p += c;
		n -= c;
		if (n > 0)
			CHECK_FOR_INTERRUPTS();
	} while (n > 0);
	return h;
}


/* the low 32 bits of the extended hash with seed 0, as hash opclasses ask */
PG_FUNCTION_INFO_V1(bf_value_hash);
Datum
bf_value_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) value_hash(PG_GETARG_VARLENA_PP(0), 0));
}

PG_FUNCTION_INFO_V1(bf_value_hash_extended);
Datum
bf_value_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) value_hash(PG_GETARG_VARLENA_PP(0), (uint64) PG_GETARG_INT64(1)));
}

/*
 * A total order on one type's values (the bytes, compared as unsigned,
 * the shorter first when one is a prefix of the other): meaningless as an
 * order of filters, but what a btree operator class needs, and so
 * count(DISTINCT f), ORDER BY and merge joins.
 */
static int
value_cmp(FunctionCallInfo fcinfo)
{
	struct varlena *a = PG_GETARG_VARLENA_PP(0);
	struct varlena *b = PG_GETARG_VARLENA_PP(1);
	const char *pa = VARDATA_ANY(a),
			   *pb = VARDATA_ANY(b);
	size_t		na = VARSIZE_ANY_EXHDR(a),
				nb = VARSIZE_ANY_EXHDR(b),
				n = Min(na, nb);

	while (n > 0)
	{
		size_t		c = Min(n, BF_INTERRUPT_BYTES);
		int			r = memcmp(pa, pb, c);

		if (r != 0)
			return r < 0 ? -1 : 1;
		pa += c;
		pb += c;
		n -= c;
		if (n > 0)
			CHECK_FOR_INTERRUPTS();
	}
	return na < nb ? -1 : na > nb;
}

/* equal: the same length, then the same bytes */
static bool
value_eq(FunctionCallInfo fcinfo)
{
	if (toast_raw_datum_size(PG_GETARG_DATUM(0)) != toast_raw_datum_size(PG_GETARG_DATUM(1)))
		return false;
	return value_cmp(fcinfo) == 0;
}

PG_FUNCTION_INFO_V1(bf_value_eq);
Datum
bf_value_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_eq(fcinfo));
}

PG_FUNCTION_INFO_V1(bf_value_ne);
Datum
bf_value_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!value_eq(fcinfo));
}

PG_FUNCTION_INFO_V1(bf_value_cmp);
Datum
bf_value_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(value_cmp(fcinfo));
}

PG_FUNCTION_INFO_V1(bf_value_lt);
Datum
bf_value_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_cmp(fcinfo) < 0);
}

PG_FUNCTION_INFO_V1(bf_value_le);
Datum
bf_value_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_cmp(fcinfo) <= 0);
}

PG_FUNCTION_INFO_V1(bf_value_gt);
Datum
bf_value_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_cmp(fcinfo) > 0);
}

PG_FUNCTION_INFO_V1(bf_value_ge);
Datum
bf_value_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(value_cmp(fcinfo) >= 0);
}
