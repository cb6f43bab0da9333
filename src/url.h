/*
 * url.h
 *		Syntax-based URL normalization (RFC 3986 sections 6.2.2 and 6.2.3),
 *		plain C, no PostgreSQL headers: the key a URL-seen filter is asked
 *		about must be the same for every spelling of one URL.
 *
 * What url_normalize does to an absolute URL ("scheme:..."):
 *	- scheme and host to lower case (ASCII only);
 *	- percent-encodings: an encoded unreserved character (ALPHA / DIGIT /
 *	  "-" / "." / "_" / "~") is decoded, every other valid escape gets
 *	  upper-case hex digits; an invalid escape ("%G1", a "%" near the end)
 *	  is left exactly as it was; applied to userinfo, host, path and query;
 *	- dot segments removed from a path that starts with "/" (RFC 3986
 *	  5.2.4), after decoding, so "%2E%2E" counts as "..";
 *	- the port: dropped when empty or the scheme's default (http 80,
 *	  https 443), leading zeros removed otherwise;
 *	- the fragment ("#..." ) dropped: it never reaches a server;
 *	- http and https with an authority and an empty path get path "/".
 * The query keeps its text (only its percent-encodings are normalized) and
 * nothing is ever percent-encoded that was not.
 *
 * Text that is not an absolute URL (no "scheme:" with a scheme of at least
 * two characters: a one-letter "scheme" is a Windows drive letter in
 * practice) is copied unchanged.
 *
 * The input is (pointer, length): no NUL terminator is needed and a NUL
 * byte is an ordinary byte.  Every input byte is read at most a small
 * constant number of times (dot-segment removal is amortized linear), and
 * every byte written is checked against the output capacity.  Only ASCII
 * bytes are ever changed or removed as single bytes, and a run of bytes
 * is only ever cut at an ASCII delimiter, so a string in an ASCII-safe
 * encoding (UTF-8 and every PostgreSQL server encoding) stays valid.
 */
#ifndef URL_H
#define URL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Normalization never makes a URL longer except by the "/" of an empty
 * http(s) path: an output buffer of this many bytes is always enough.
 */
#define URL_NORMALIZED_MAXLEN(len)	((len) + 1)

/*
 * Normalize src[0 .. len) into dst (capacity dstcap bytes, not
 * NUL-terminated).  Returns the output length, or (size_t) -1 when dstcap
 * was too small (never when dstcap >= URL_NORMALIZED_MAXLEN(len)); nothing
 * is written past dstcap either way.
 */
extern size_t url_normalize(const char *src, size_t len, char *dst, size_t dstcap);

/* true when src[0 .. len) has the form "scheme:..." url_normalize acts on */
extern bool url_is_absolute(const char *src, size_t len);

/*
 * True when url_normalize would give src[0 .. len) back unchanged and can
 * tell in one pass (a URL already in normal form, or text that is not a
 * URL); false when it cannot tell.  Never true for a URL that changes.
 */
extern bool url_is_normal(const char *src, size_t len);

/* url_normalize without the url_is_normal shortcut: what the tests hold it to */
extern size_t url_normalize_full(const char *src, size_t len, char *dst, size_t dstcap);

/*
 * The host of a URL in normal form (url_normalize's output): an IP literal
 * keeps its brackets; no userinfo, no port.  false when the URL has no
 * authority or an empty host.  For url_host(url), the natural key to
 * distribute or partition a crawl's tables by.
 */
extern bool url_host_span(const char *norm, size_t len, size_t *start, size_t *hlen);

/*
 * Reference resolution (RFC 3986 section 5.2.2, non-strict: a reference
 * with the base's scheme is still absolute): the target of ref read on
 * the page at base, written into dst, which must have room for
 * url_resolve_length(rlen, blen) bytes; returns its length.  Dot segments
 * are left for url_normalize to remove (it does, for every path that
 * starts with "/", which a merged path of a base with an authority does).
 * An absolute ref, or a base that is not absolute, gives ref unchanged.
 * For http(s), an authority ends at a backslash too, as url_normalize's
 * does.
 */
extern size_t url_resolve_length(size_t rlen, size_t blen);
extern size_t url_resolve(const char *ref, size_t rlen, const char *base, size_t blen,
						  char *dst);

#endif							/* URL_H */
