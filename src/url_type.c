/*
 * url_type.c
 *		SQL glue for url_normalize(text); the normalization itself is the
 *		plain-C core in url.c.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/memutils.h"

#include "url.h"

/*
 * url_normalize(text) -> text.  Never an error for any input: a result
 * that could not be a text value (only a URL of nearly 1 GB that gains a
 * "/") is returned as the input, like any text that is not a URL.
 */
PG_FUNCTION_INFO_V1(url_normalize_text);
Datum
url_normalize_text(PG_FUNCTION_ARGS)
{
	text	   *in = PG_GETARG_TEXT_PP(0);
	const char *src = VARDATA_ANY(in);
	size_t		len = VARSIZE_ANY_EXHDR(in);
	size_t		cap = URL_NORMALIZED_MAXLEN(len);
	text	   *out;
	size_t		n;

	/* already normal (most URLs), or not a URL: the input as it is */
	if (url_is_normal(src, len) || VARHDRSZ + cap > MaxAllocSize)
		PG_RETURN_TEXT_P(in);
	out = (text *) palloc(VARHDRSZ + cap);
	n = url_normalize_full(src, len, VARDATA(out), cap);
	if (n == (size_t) -1)
		elog(ERROR, "url_normalize: output exceeded its bound");
	SET_VARSIZE(out, VARHDRSZ + n);
	PG_RETURN_TEXT_P(out);
}
