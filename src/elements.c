/*
 * elements.c
 *		Elements from function arguments: the hash of a text, bytea,
 *		bigint or uuid argument, of every element of an array argument
 *		(a big stored array read a window at a time), and the array probes'
 *		and test-and-add functions' result shapes.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/uuid.h"

#include "pg_common.h"


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
	Size		size = pgbf_toast_plain_size(raw);
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

int
pgbf_hash_array(ArrayType *arr, uint64 seed, uint64 **hashes)
{
	return hash_array_elements(arr, seed, hashes);
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
