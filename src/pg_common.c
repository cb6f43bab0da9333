/*
 * pg_common.c
 *		SQL glue shared by every filter type: errors, value allocation,
 *		validated text/binary/bytea I/O, and the functions every type's
 *		values share (output, send, bytea, hashing and comparison).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "pg_common.h"


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
 * 512, and fewer TLB misses.  A hint (Linux with THP in "madvise" or "always" mode), harmless
 * where not honoured, given to an allocation with a 2 MB-aligned 2 MB
 * inside it (only those can be huge pages), over the whole allocation
 * rounded out to pages: a big block's mapping then keeps one set of
 * flags, so glibc's realloc can still grow it with mremap (advice over
 * the interior alone split the mapping in three, and mremap failed with
 * EFAULT and realloc copied, seen in strace).  (The probe's detoasted
 * copy gained nothing from it: not used there.)
 */
#define PGBF_HUGE_PAGE ((uintptr_t) 2 * 1024 * 1024)

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

bool
pgbf_page_tuple(Relation rel, Page page, BlockNumber block, OffsetNumber off, HeapTuple tup)
{
	ItemId		lp = PageGetItemId(page, off);

	if (!ItemIdIsNormal(lp))
		return false;
	tup->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup->t_len = ItemIdGetLength(lp);
	tup->t_tableOid = RelationGetRelid(rel);
	ItemPointerSet(&tup->t_self, block, off);
	return true;
}
