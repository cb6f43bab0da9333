/*
 * fuzz_url.c
 *		libFuzzer harness for url_normalize: any bytes, exact-size buffers
 *		(so ASan sees an over-read or over-write), the documented length
 *		bound, the url_is_normal shortcut giving what every step gives, and
 *		a normalized URL being its own normal form.
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *		test/fuzz/fuzz_url.c src/url.c -o fuzz_url && ./fuzz_url
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

/* one input: normalize, check the bound, normalize again */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		cap = URL_NORMALIZED_MAXLEN(size);
	char	   *out = malloc(cap);
	char	   *again;
	size_t		n,
				n2;

	n = url_normalize((const char *) data, size, out, cap);
	if (n == (size_t) -1 || n > cap)
		abort();
	/* the shortcut for normal input: what every step gives, and only then */
	again = malloc(cap);
	if (url_normalize_full((const char *) data, size, again, cap) != n ||
		memcmp(out, again, n) != 0)
		abort();
	if (url_is_normal((const char *) data, size) &&
		(n != size || memcmp(out, data, size) != 0))
		abort();
	free(again);
	again = malloc(URL_NORMALIZED_MAXLEN(n));
	n2 = url_normalize(out, n, again, URL_NORMALIZED_MAXLEN(n));
	if (n2 != n || memcmp(out, again, n) != 0)
		abort();
	/* the host of the normal form lies inside it, without '/', '?', '#', '@' */
	{
		size_t		hs,
					hl;

		if (url_host_span(out, n, &hs, &hl) &&
			(hl == 0 || hs + hl > n || memchr(out + hs, '/', hl) || memchr(out + hs, '?', hl) ||
			 memchr(out + hs, '#', hl) || memchr(out + hs, '@', hl)))
			abort();
	}
	/* resolution of the first half against the second fits its bound */
	{
		size_t		half = size / 2;
		size_t		bound = url_resolve_length(half, size - half);
		char	   *r = malloc(bound);
		size_t		rn = url_resolve((const char *) data, half, (const char *) data + half,
									 size - half, r);

		if (rn > bound)
			abort();
		free(r);
	}
	/* a buffer one byte short must be refused, not overrun */
	if (n > 0 && url_normalize((const char *) data, size, again, n - 1) != (size_t) -1)
		abort();
	free(out);
	free(again);
	return 0;
}
