/*
 * url_type.c
 *		SQL glue for url_normalize(text); the normalization itself is the
 *		plain-C core in url.c.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "pg_common.h"
#include "url.h"

/*
 * Does url_normalize(text) change src[0 .. len)?  Not when it is already
 * normal (most URLs) or not a URL, nor when its result could not be a
 * text value (only a URL of nearly 1 GB that gains a "/"): that comes
 * back as the input, like any text that is not a URL.
 */
bool
pgbf_url_changes(const char *src, size_t len)
{
	return !url_is_normal(src, len) &&
		VARHDRSZ + URL_NORMALIZED_MAXLEN(len) <= MaxAllocSize;
}

/*
 * Its normal form, where pgbf_url_changes: written into dst (room for
 * URL_NORMALIZED_MAXLEN(len)), its length returned.
 */
size_t
pgbf_url_normalize_into(const char *src, size_t len, char *dst)
{
	size_t		n = url_normalize_full(src, len, dst, URL_NORMALIZED_MAXLEN(len));

	if (n == (size_t) -1)
		elog(ERROR, "url_normalize: output exceeded its bound");
	return n;
}

/*
 * url_normalize(text) -> text.  Never an error for any input (see
 * pgbf_url_changes).  The probe and build scans (scan.c, buildscan.c)
 * make the same bytes of a column's value through the two functions above.
 */
PG_FUNCTION_INFO_V1(url_normalize_text);
Datum
url_normalize_text(PG_FUNCTION_ARGS)
{
	text	   *in = PG_GETARG_TEXT_PP(0);
	const char *src = VARDATA_ANY(in);
	size_t		len = VARSIZE_ANY_EXHDR(in);
	text	   *out;

	if (!pgbf_url_changes(src, len))
		PG_RETURN_TEXT_P(in);
	out = (text *) palloc(VARHDRSZ + URL_NORMALIZED_MAXLEN(len));
	SET_VARSIZE(out, VARHDRSZ + pgbf_url_normalize_into(src, len, VARDATA(out)));
	PG_RETURN_TEXT_P(out);
}

/* url_host(text) -> text: the normalized URL's host, NULL if it has none */
PG_FUNCTION_INFO_V1(url_host_text);
Datum
url_host_text(PG_FUNCTION_ARGS)
{
	text	   *in = PG_GETARG_TEXT_PP(0);
	const char *src = VARDATA_ANY(in);
	size_t		len = VARSIZE_ANY_EXHDR(in);
	const char *norm = src;
	size_t		nlen = len,
				start,
				hlen;

	if (pgbf_url_changes(src, len))
	{
		char	   *buf = palloc(URL_NORMALIZED_MAXLEN(len));

		nlen = pgbf_url_normalize_into(src, len, buf);
		norm = buf;
	}
	if (!url_host_span(norm, nlen, &start, &hlen))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(norm + start, (int) hlen));
}

/*
 * url_normalize(ref, base) -> text: ref, a link as found on the page at
 * base, resolved against base (RFC 3986 section 5.2) and normalized.
 * Never an error: an absolute ref, or a base that is not absolute, is
 * normalized as it is.
 */
PG_FUNCTION_INFO_V1(url_normalize_ref);
Datum
url_normalize_ref(PG_FUNCTION_ARGS)
{
	text	   *ref = PG_GETARG_TEXT_PP(0);
	text	   *base = PG_GETARG_TEXT_PP(1);
	size_t		rlen = VARSIZE_ANY_EXHDR(ref),
				blen = VARSIZE_ANY_EXHDR(base),
				n;
	char	   *buf;
	text	   *out;

	if ((Size) url_resolve_length(rlen, blen) + VARHDRSZ + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a reference and its base of %zu bytes together are too long", rlen + blen)));
	buf = palloc(url_resolve_length(rlen, blen));
	n = url_resolve(VARDATA_ANY(ref), rlen, VARDATA_ANY(base), blen, buf);
	if (!pgbf_url_changes(buf, n))
	{
		out = (text *) palloc(VARHDRSZ + n);
		memcpy(VARDATA(out), buf, n);
		SET_VARSIZE(out, VARHDRSZ + n);
	}
	else
	{
		out = (text *) palloc(VARHDRSZ + URL_NORMALIZED_MAXLEN(n));
		SET_VARSIZE(out, VARHDRSZ + pgbf_url_normalize_into(buf, n, VARDATA(out)));
	}
	pfree(buf);
	PG_RETURN_TEXT_P(out);
}
