/*
 * url.c
 *		Syntax-based URL normalization (RFC 3986 6.2.2 - 6.2.3), plain C.
 *
 * One left-to-right pass over the input: scheme, authority (userinfo,
 * host, port), path, query; the fragment is cut off before parsing the
 * rest.  Output goes straight into the caller's buffer; dot segments are
 * removed in place in that buffer, segment by segment, after each segment's
 * percent-encodings have been normalized.  See url.h for the rules.
 */
#include "url.h"

#include <stdint.h>
#include <string.h>

#include "bfcore.h"

/* the caller's buffer and how much of it is used */
typedef struct UrlOut
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		overflow;
} UrlOut;

/*
 * The input is a text of up to 1 GB and every step is linear in it: a
 * long scan goes a stretch of BF_INTERRUPT_BYTES at a time and checks for
 * interrupts between stretches (bfcore.h).  A URL of the usual few hundred
 * bytes is one stretch, and never checks.
 */
static inline size_t
stretch_end(size_t i, size_t end)
{
	return end - i > BF_INTERRUPT_BYTES ? i + BF_INTERRUPT_BYTES : end;
}

/* every write goes through here or put_bytes: nothing past cap */
static inline void
put(UrlOut *o, char c)
{
	if (o->len < o->cap)
		o->buf[o->len++] = c;
	else
		o->overflow = true;
}

/* the same for a run of bytes: as much as fits, then overflow */
static void
put_bytes(UrlOut *o, const char *p, size_t n)
{
	if (n > o->cap - o->len)
	{
		o->overflow = true;
		n = o->cap - o->len;
	}
	if (n > 0)
		memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* ASCII only, whatever the C locale says: URLs are ASCII syntax */
static inline bool
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ASCII digits: ports and schemes */
static inline bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII case folding: a non-ASCII byte is never changed */
static inline char
to_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (char) (c + ('a' - 'A')) : (char) c;
}

/* upper-case hex digits of an escape (6.2.2.1) */
static inline char
to_upper(unsigned char c)
{
	return (c >= 'a' && c <= 'z') ? (char) (c - ('a' - 'A')) : (char) c;
}

/* value of a hex digit, or -1: decides whether "%xy" is an escape at all */
static inline int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* RFC 3986 2.3: the characters whose encoded and plain forms are equivalent */
static inline bool
is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/*
 * Would writing the hex digit c complete a "%xy" in the output, out of an
 * invalid escape kept as it was ("%%34" would become "%4" and then "%41")?
 * Such an escape stays encoded, so a second normalization changes nothing.
 */
static inline bool
completes_escape(const UrlOut *o, unsigned char c)
{
	if (hex_value(c) < 0)
		return false;
	if (o->len >= 1 && o->buf[o->len - 1] == '%')
		return true;
	return o->len >= 2 && o->buf[o->len - 2] == '%' &&
		hex_value((unsigned char) o->buf[o->len - 1]) >= 0;
}

/*
 * Copy s[0 .. n) with percent-encodings normalized (6.2.2.1, 6.2.2.2):
 * encoded unreserved characters decoded, other escapes upper-cased,
 * invalid ones untouched.  lower: also lower-case the plain ASCII letters
 * (the host, 6.2.2.1), but never the hex digits of a kept escape.
 */
static void
put_normalized(UrlOut *o, const char *s, size_t n, bool lower)
{
	for (size_t i = 0; i < n;)
	{
		size_t		lim = stretch_end(i, n);

		if (i > 0)
			bf_check_interrupts();
		for (; i < lim; i++)
		{
			unsigned char c = (unsigned char) s[i];

			if (c == '%' && n - i >= 3)
			{
				int			hi = hex_value((unsigned char) s[i + 1]);
				int			lo = hex_value((unsigned char) s[i + 2]);

				if (hi >= 0 && lo >= 0)
				{
					unsigned char d = (unsigned char) (hi * 16 + lo);

					if (is_unreserved(d) && !completes_escape(o, d))
						put(o, lower ? to_lower(d) : (char) d);
					else
					{
						put(o, '%');
						put(o, to_upper((unsigned char) s[i + 1]));
						put(o, to_upper((unsigned char) s[i + 2]));
					}
					i += 2;
					continue;
				}
			}
			put(o, lower ? to_lower(c) : (char) c);
		}
	}
}

/*
 * Length of the scheme when s starts with "scheme:", else 0.  A
 * one-letter scheme counts as none: "C:\dir" is a path, not a URL.
 */
static size_t
scheme_length(const char *s, size_t len)
{
	if (len == 0 || !is_alpha((unsigned char) s[0]))
		return 0;
	for (size_t i = 1; i < len;)
	{
		size_t		lim = stretch_end(i, len);

		for (; i < lim; i++)
		{
			unsigned char c = (unsigned char) s[i];

			if (c == ':')
				return i >= 2 ? i : 0;
			if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
				return 0;
		}
		if (i < len)
			bf_check_interrupts();
	}
	return 0;
}

/* case-insensitive comparison of a scheme with a lower-case name */
static bool
scheme_is(const char *s, size_t n, const char *name)
{
	if (strlen(name) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (to_lower((unsigned char) s[i]) != name[i])
			return false;
	return true;
}

/*
 * The authority s[0 .. n) (between "//" and the path): userinfo kept but
 * percent-normalized, host lower-cased, port dropped when empty or equal to
 * default_port (may be NULL), leading zeros removed otherwise (6.2.3).
 * Anything that does not parse (a port with non-digits, bytes after an IP
 * literal) is copied as it was.
 */
static void
put_authority(UrlOut *o, const char *s, size_t n, const char *default_port)
{
	size_t		host = 0;
	size_t		host_end;
	const char *port;
	size_t		port_len;

	/* userinfo: up to the last '@', as browsers read it */
	for (size_t i = n; i > 0 && host == 0;)
	{
		size_t		lim = n - stretch_end(n - i, n);

		for (; i > lim; i--)
		{
			if (s[i - 1] == '@')
			{
				put_normalized(o, s, i - 1, false);
				put(o, '@');
				host = i;
				break;
			}
		}
		if (i > 0 && host == 0)
			bf_check_interrupts();
	}

	/* host: an IP literal in brackets, or up to the first ':' */
	host_end = host;
	if (host < n && s[host] == '[')
	{
		const char *close = memchr(s + host, ']', n - host);

		host_end = close ? (size_t) (close - s) + 1 : n;
	}
	else
	{
		const char *colon = memchr(s + host, ':', n - host);

		host_end = colon ? (size_t) (colon - s) : n;
	}
	put_normalized(o, s + host, host_end - host, true);
	if (host_end == n)
		return;
	if (s[host_end] != ':')
	{
		put_bytes(o, s + host_end, n - host_end);
		return;
	}

	port = s + host_end + 1;
	port_len = n - host_end - 1;
	for (size_t i = 0; i < port_len;)
	{
		size_t		lim = stretch_end(i, port_len);

		for (; i < lim; i++)
		{
			if (!is_digit((unsigned char) port[i]))
			{
				put_bytes(o, s + host_end, n - host_end);
				return;
			}
		}
		if (i < port_len)
			bf_check_interrupts();
	}
	for (size_t z = 0; port_len > 1 && port[0] == '0'; z++)
	{
		bf_check_interrupts_every(z, BF_INTERRUPT_BYTES);
		port++;
		port_len--;
	}
	if (port_len == 0)
		return;
	if (default_port && port_len == strlen(default_port) &&
		memcmp(port, default_port, port_len) == 0)
		return;
	put(o, ':');
	put_bytes(o, port, port_len);
}

/*
 * An absolute path s[0 .. n) (s[0] == '/'), percent-normalized segment by
 * segment, with dot segments removed as RFC 3986 5.2.4 does: "." is
 * dropped, ".." drops itself and the segment before it (never going above
 * the root), and a path ending in either keeps its trailing "/".  Each
 * segment is written, then inspected in the output, so "%2E" counts as ".";
 * popping a segment only re-reads bytes once written, so the whole is
 * linear in n.
 */
static void
put_path(UrlOut *o, const char *s, size_t n)
{
	size_t		base = o->len;
	size_t		i = 0,
				check_at = BF_INTERRUPT_BYTES;

	while (i < n && !o->overflow)
	{
		const char *slash = memchr(s + i + 1, '/', n - i - 1);
		size_t		j = slash ? (size_t) (slash - s) : n;
		size_t		seg = o->len;
		size_t		seg_len;
		const char *w;
		bool		last;

		/* by the input read: segments can be a byte each, or a stretch */
		if (i >= check_at)
		{
			bf_check_interrupts();
			check_at = i + BF_INTERRUPT_BYTES;
		}
		last = (j == n);
		put(o, '/');
		put_normalized(o, s + i + 1, j - i - 1, false);
		if (o->overflow)
			return;
		seg_len = o->len - seg - 1;
		w = o->buf + seg + 1;
		if (seg_len == 1 && w[0] == '.')
		{
			o->len = seg;
			if (last)
				put(o, '/');
		}
		else if (seg_len == 2 && w[0] == '.' && w[1] == '.')
		{
			o->len = seg;
			while (o->len > base && o->buf[o->len - 1] != '/')
				o->len--;
			if (o->len > base)
				o->len--;
			if (last)
				put(o, '/');
		}
		i = j;
	}
}

/* see url.h */
bool
url_is_absolute(const char *src, size_t len)
{
	return src != NULL && scheme_length(src, len) > 0;
}

/* what a byte of an authority means to url_is_normal */
#define HOST_PLAIN		0
#define HOST_END		1		/* '/' or '?': the authority ends */
#define HOST_CHANGES	2		/* an upper-case letter, '%', '@', ':', '[', '#' */

static const uint8_t host_class[256] = {
	['/'] = HOST_END, ['?'] = HOST_END,
	['%'] = HOST_CHANGES, ['@'] = HOST_CHANGES, [':'] = HOST_CHANGES,
	['['] = HOST_CHANGES, ['#'] = HOST_CHANGES,
	['A'] = HOST_CHANGES, ['B'] = HOST_CHANGES, ['C'] = HOST_CHANGES, ['D'] = HOST_CHANGES,
	['E'] = HOST_CHANGES, ['F'] = HOST_CHANGES, ['G'] = HOST_CHANGES, ['H'] = HOST_CHANGES,
	['I'] = HOST_CHANGES, ['J'] = HOST_CHANGES, ['K'] = HOST_CHANGES, ['L'] = HOST_CHANGES,
	['M'] = HOST_CHANGES, ['N'] = HOST_CHANGES, ['O'] = HOST_CHANGES, ['P'] = HOST_CHANGES,
	['Q'] = HOST_CHANGES, ['R'] = HOST_CHANGES, ['S'] = HOST_CHANGES, ['T'] = HOST_CHANGES,
	['U'] = HOST_CHANGES, ['V'] = HOST_CHANGES, ['W'] = HOST_CHANGES, ['X'] = HOST_CHANGES,
	['Y'] = HOST_CHANGES, ['Z'] = HOST_CHANGES,
};

/*
 * See url.h.  Most URLs a crawler meets are already in normal form (93%
 * of the 155k in ../shared/data): one pass over the bytes that looks for
 * anything the steps below could change.  Conservative: a false only
 * means the full normalization runs.
 */
bool
url_is_normal(const char *src, size_t len)
{
	size_t		slen = src ? scheme_length(src, len) : 0;
	size_t		i;

	if (slen == 0)
		return true;			/* not a URL: copied as it is */
	for (i = 0; i < slen; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES);
		if (src[i] >= 'A' && src[i] <= 'Z')
			return false;
	}
	i = slen + 1;
	if (len - i >= 2 && src[i] == '/' && src[i + 1] == '/')
	{
		/* a lower-case host alone: no userinfo, port, IP literal or escape */
		for (i += 2; i < len;)
		{
			size_t		lim = stretch_end(i, len);

			for (; i < lim; i++)
			{
				uint8_t		k = host_class[(unsigned char) src[i]];

				if (k == HOST_END)
					break;
				if (k == HOST_CHANGES)
					return false;
			}
			if (i < lim)
				break;
			if (i < len)
				bf_check_interrupts();
		}
		/* http(s) with an empty path gets "/" */
		if ((i == len || src[i] == '?') &&
			(scheme_is(src, slen, "http") || scheme_is(src, slen, "https")))
			return false;
	}
	/*
	 * No escape, no fragment, no segment that starts with a dot: memchr
	 * runs (vectorized), the dots a path has being few.
	 */
	if (i == len)
		return true;
	if (memchr(src + i, '%', len - i) != NULL || memchr(src + i, '#', len - i) != NULL)
		return false;
	for (size_t check_at = i + BF_INTERRUPT_BYTES;;)
	{
		const char *dot = memchr(src + i, '.', len - i);

		if (i >= check_at)
		{
			bf_check_interrupts();
			check_at = i + BF_INTERRUPT_BYTES;
		}
		if (dot == NULL)
			return true;
		if (dot > src && dot[-1] == '/')
			return false;
		i = (size_t) (dot - src) + 1;
		if (i == len)
			return true;
	}
}

/* see url.h: the input as it is when it is already normal, else every step */
size_t
url_normalize(const char *src, size_t len, char *dst, size_t dstcap)
{
	if (url_is_normal(src, len))
	{
		if (len > dstcap)
			return (size_t) -1;
		if (len > 0)
			memcpy(dst, src, len);
		return len;
	}
	return url_normalize_full(src, len, dst, dstcap);
}

/*
 * See url.h.  The fragment is cut off first, so no later step can see a
 * '?' or '/' that belongs to it.
 */
size_t
url_normalize_full(const char *src, size_t len, char *dst, size_t dstcap)
{
	UrlOut		o = {dst, 0, dstcap, false};
	size_t		slen = src ? scheme_length(src, len) : 0;
	const char *hash;
	const char *default_port = NULL;
	bool		web;
	bool		has_authority = false;
	size_t		p,
				end,
				path_end;

	if (slen == 0)
	{
		if (len > 0)
			put_bytes(&o, src, len);
		return o.overflow ? (size_t) -1 : o.len;
	}

	for (size_t i = 0; i < slen; i++)
	{
		bf_check_interrupts_every(i, BF_INTERRUPT_BYTES);
		put(&o, to_lower((unsigned char) src[i]));
	}
	put(&o, ':');
	if (scheme_is(src, slen, "http"))
		default_port = "80";
	else if (scheme_is(src, slen, "https"))
		default_port = "443";
	web = default_port != NULL;

	p = slen + 1;
	hash = memchr(src + p, '#', len - p);
	end = hash ? (size_t) (hash - src) : len;

	if (end - p >= 2 && src[p] == '/' && src[p + 1] == '/')
	{
		size_t		a = p + 2;
		size_t		a_end = a;

		while (a_end < end)
		{
			size_t		lim = stretch_end(a_end, end);

			/*
			 * For http(s) a backslash ends the authority too, as browsers
			 * read it (WHATWG URL): "http://example.com\Docs" has host
			 * example.com and keeps the path's case.  It stays a backslash.
			 */
			while (a_end < lim && src[a_end] != '/' && src[a_end] != '?' &&
				   !(web && src[a_end] == '\\'))
				a_end++;
			if (a_end < lim)
				break;
			if (a_end < end)
				bf_check_interrupts();
		}
		has_authority = true;
		put(&o, '/');
		put(&o, '/');
		put_authority(&o, src + a, a_end - a, default_port);
		p = a_end;
	}

	{
		const char *q = memchr(src + p, '?', end - p);

		path_end = q ? (size_t) (q - src) : end;
	}
	if (path_end == p)
	{
		if (has_authority && web)
			put(&o, '/');
	}
	else if (src[p] == '/')
	{
		size_t		path_start = o.len;

		put_path(&o, src + p, path_end - p);

		/*
		 * Without an authority a path must not start with "//" (RFC 3986
		 * 3.3): "x:/..//h/p" would turn into "x://h/p", whose "h" reads as
		 * a host.  Such a path keeps its dot segments.
		 */
		if (!has_authority && !o.overflow && o.len - path_start >= 2 &&
			o.buf[path_start] == '/' && o.buf[path_start + 1] == '/')
		{
			o.len = path_start;
			put_normalized(&o, src + p, path_end - p, false);
		}
	}
	else
		put_normalized(&o, src + p, path_end - p, false);

	/* the query, '?' included: only its percent-encodings change */
	if (path_end < end)
		put_normalized(&o, src + path_end, end - path_end, false);

	return o.overflow ? (size_t) -1 : o.len;
}

bool
url_host_span(const char *norm, size_t len, size_t *start, size_t *hlen)
{
	size_t		slen = norm ? scheme_length(norm, len) : 0;
	size_t		a,
				a_end,
				h,
				h_end;
	bool		web;

	if (slen == 0 || len - slen - 1 < 2 || norm[slen + 1] != '/' || norm[slen + 2] != '/')
		return false;
	a = slen + 3;
	a_end = a;
	web = scheme_is(norm, slen, "http") || scheme_is(norm, slen, "https");
	while (a_end < len && norm[a_end] != '/' && norm[a_end] != '?' && norm[a_end] != '#' &&
		   !(web && norm[a_end] == '\\'))
	{
		bf_check_interrupts_every(a_end - a + 1, BF_INTERRUPT_BYTES);
		a_end++;
	}
	/* userinfo: up to the last '@' */
	h = a;
	for (size_t i = a_end; i > a; i--)
	{
		bf_check_interrupts_every(a_end - i + 1, BF_INTERRUPT_BYTES);
		if (norm[i - 1] == '@')
		{
			h = i;
			break;
		}
	}
	if (h < a_end && norm[h] == '[')
	{
		const char *close = memchr(norm + h, ']', a_end - h);

		h_end = close ? (size_t) (close - norm) + 1 : a_end;
	}
	else
	{
		const char *colon = memchr(norm + h, ':', a_end - h);

		h_end = colon ? (size_t) (colon - norm) : a_end;
	}
	if (h_end == h)
		return false;
	*start = h;
	*hlen = h_end - h;
	return true;
}

/* ---- reference resolution (RFC 3986 section 5.2) ---- */

/* the five components of a URI reference; a NULL start means undefined */
typedef struct UrlParts
{
	const char *scheme;
	size_t		scheme_len;
	const char *auth;
	size_t		auth_len;
	const char *path;
	size_t		path_len;
	const char *query;			/* after the '?' */
	size_t		query_len;
	const char *frag;			/* after the '#' */
	size_t		frag_len;
} UrlParts;

/* the first of the bytes in stop in s[i .. n), or n */
static size_t
span_until(const char *s, size_t i, size_t n, const char *stop)
{
	while (i < n)
	{
		size_t		lim = stretch_end(i, n);

		for (; i < lim; i++)
			if (strchr(stop, s[i]) != NULL && s[i] != '\0')
				return i;
		if (i < n)
			bf_check_interrupts();
	}
	return n;
}

static void
parse_reference(const char *s, size_t n, UrlParts *p)
{
	size_t		i = 0,
				e;
	bool		web = false;

	memset(p, 0, sizeof(*p));
	p->scheme_len = scheme_length(s, n);
	if (p->scheme_len > 0)
	{
		p->scheme = s;
		web = scheme_is(s, p->scheme_len, "http") || scheme_is(s, p->scheme_len, "https");
		i = p->scheme_len + 1;
	}
	if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/')
	{
		e = span_until(s, i + 2, n, web ? "/?#\\" : "/?#");
		p->auth = s + i + 2;
		p->auth_len = e - i - 2;
		i = e;
	}
	e = span_until(s, i, n, "?#");
	p->path = s + i;
	p->path_len = e - i;
	i = e;
	if (i < n && s[i] == '?')
	{
		e = span_until(s, i + 1, n, "#");
		p->query = s + i + 1;
		p->query_len = e - i - 1;
		i = e;
	}
	if (i < n && s[i] == '#')
	{
		p->frag = s + i + 1;
		p->frag_len = n - i - 1;
	}
}

static void
append(char *dst, size_t *len, const char *s, size_t n)
{
	memcpy(dst + *len, s, n);
	*len += n;
}

size_t
url_resolve_length(size_t rlen, size_t blen)
{
	return rlen + blen + 8;
}

size_t
url_resolve(const char *ref, size_t rlen, const char *base, size_t blen, char *dst)
{
	UrlParts	r,
				b;
	size_t		n = 0;

	parse_reference(ref, rlen, &r);
	parse_reference(base, blen, &b);

	/* an absolute reference, or nothing to resolve against: as it is */
	if (r.scheme != NULL || b.scheme == NULL)
	{
		append(dst, &n, ref, rlen);
		return n;
	}

	append(dst, &n, b.scheme, b.scheme_len);
	dst[n++] = ':';
	if (r.auth != NULL)
	{
		append(dst, &n, "//", 2);
		append(dst, &n, r.auth, r.auth_len);
		append(dst, &n, r.path, r.path_len);
		if (r.query != NULL)
		{
			dst[n++] = '?';
			append(dst, &n, r.query, r.query_len);
		}
	}
	else
	{
		if (b.auth != NULL)
		{
			append(dst, &n, "//", 2);
			append(dst, &n, b.auth, b.auth_len);
		}
		if (r.path_len == 0)
		{
			append(dst, &n, b.path, b.path_len);
			if (r.query != NULL || b.query != NULL)
			{
				dst[n++] = '?';
				if (r.query != NULL)
					append(dst, &n, r.query, r.query_len);
				else
					append(dst, &n, b.query, b.query_len);
			}
		}
		else
		{
			if (r.path[0] == '/')
				append(dst, &n, r.path, r.path_len);
			else
			{
				/* merge (5.2.3): the base path up to its last '/', then r's */
				size_t		keep = b.path_len;

				while (keep > 0 && b.path[keep - 1] != '/')
					keep--;
				if (b.auth != NULL && b.path_len == 0)
					dst[n++] = '/';
				else
					append(dst, &n, b.path, keep);
				append(dst, &n, r.path, r.path_len);
			}
			if (r.query != NULL)
			{
				dst[n++] = '?';
				append(dst, &n, r.query, r.query_len);
			}
		}
	}
	if (r.frag != NULL)
	{
		dst[n++] = '#';
		append(dst, &n, r.frag, r.frag_len);
	}
	return n;
}
