/*
 * test_url.c
 *		Unit tests of url_normalize (src/url.c): the RFC 3986 section 6
 *		examples, each rule on its own, text that is not a URL, and hostile
 *		input (huge, truncated escapes, every byte value, random strings)
 *		with exact-size buffers so AddressSanitizer sees any over-read or
 *		over-write.
 *
 *	cc -Isrc test/unit/test_url.c src/bfcore.c src/url.c -lm && ./a.out
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bfcore.h"
#include "url.h"

static int	failures = 0;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			failures++; \
			fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)

/*
 * Normalize exactly len bytes held in a buffer of exactly len bytes (no
 * NUL after them) into a buffer of exactly the documented bound, so any
 * read or write past either end is caught under ASan.  Returns a
 * NUL-terminated malloc'd copy of the result for comparisons.
 */
static char *
normalize_bytes(const char *in, size_t len, size_t *outlen)
{
	char	   *src = malloc(len ? len : 1);
	size_t		cap = URL_NORMALIZED_MAXLEN(len);
	char	   *dst = malloc(cap);
	char	   *res;
	size_t		n;

	char	   *full = malloc(cap);
	size_t		nf;

	memcpy(src, in, len);
	n = url_normalize(src, len, dst, cap);
	CHECK(n != (size_t) -1 && n <= cap, "output did not fit the bound (len %zu)", len);
	if (n == (size_t) -1)
		n = 0;
	/* the shortcut for normal input changes nothing: every step gives the same */
	nf = url_normalize_full(src, len, full, cap);
	CHECK(nf == n && memcmp(full, dst, n) == 0,
		  "url_normalize and url_normalize_full differ on \"%.*s\"", (int) len, in);
	CHECK(!url_is_normal(src, len) || (nf == len && memcmp(full, src, len) == 0),
		  "url_is_normal(\"%.*s\") but it normalizes to \"%.*s\"", (int) len, in,
		  (int) (nf == (size_t) -1 ? 0 : nf), full);
	free(full);
	res = malloc(n + 1);
	memcpy(res, dst, n);
	res[n] = '\0';
	*outlen = n;
	free(src);
	free(dst);
	return res;
}

/* normalize a C string and compare with the expected result */
static void
expect(const char *in, const char *want)
{
	size_t		n,
				n2;
	char	   *got = normalize_bytes(in, strlen(in), &n);
	char	   *again;

	CHECK(n == strlen(want) && memcmp(got, want, n) == 0,
		  "url_normalize(\"%s\") = \"%s\", want \"%s\"", in, got, want);
	/* a normalized URL is its own normal form */
	again = normalize_bytes(got, n, &n2);
	CHECK(n2 == n && memcmp(again, got, n) == 0,
		  "not idempotent: \"%s\" -> \"%s\" -> \"%s\"", in, got, again);
	free(got);
	free(again);
}

/* two spellings of one URL must give one key */
static void
expect_same(const char *a, const char *b)
{
	size_t		na,
				nb;
	char	   *ga = normalize_bytes(a, strlen(a), &na);
	char	   *gb = normalize_bytes(b, strlen(b), &nb);

	CHECK(na == nb && memcmp(ga, gb, na) == 0,
		  "\"%s\" -> \"%s\" but \"%s\" -> \"%s\"", a, ga, b, gb);
	free(ga);
	free(gb);
}

static void
test_rfc3986_examples(void)
{
	/* 6.2.2: the equivalent pair the section opens with */
	expect("example://a/b/c/%7Bfoo%7D", "example://a/b/c/%7Bfoo%7D");
	expect("eXAMPLE://a/./b/../b/%63/%7bfoo%7d", "example://a/b/c/%7Bfoo%7D");
	expect_same("example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d");

	/* 6.2.2.1 case */
	expect("HTTP://www.EXAMPLE.com/", "http://www.example.com/");
	expect("http://example.com/%3a%2f", "http://example.com/%3A%2F");

	/* 6.2.2.2 percent-encoding of unreserved characters */
	expect("http://example.com/%7Euser/%41%2D%2e%5F%30", "http://example.com/~user/A-._0");

	/* 6.2.3: four spellings of one URL */
	expect("http://example.com", "http://example.com/");
	expect("http://example.com/", "http://example.com/");
	expect("http://example.com:/", "http://example.com/");
	expect("http://example.com:80/", "http://example.com/");

	/* 5.2.4 remove_dot_segments examples (on an absolute path) */
	expect("http://a/a/b/c/./../../g", "http://a/a/g");
	expect("http://a/b/c/./../../g", "http://a/g");

	/* 5.4.1 normal examples, written as already-merged absolute URLs */
	expect("http://a/b/c/./g", "http://a/b/c/g");
	expect("http://a/b/c/g/", "http://a/b/c/g/");
	expect("http://a/b/c/.", "http://a/b/c/");
	expect("http://a/b/c/./", "http://a/b/c/");
	expect("http://a/b/c/..", "http://a/b/");
	expect("http://a/b/c/../", "http://a/b/");
	expect("http://a/b/c/../g", "http://a/b/g");
	expect("http://a/b/c/../..", "http://a/");
	expect("http://a/b/c/../../", "http://a/");
	expect("http://a/b/c/../../g", "http://a/g");
	/* 5.4.2 abnormal examples: ".." above the root stays at the root */
	expect("http://a/../g", "http://a/g");
	expect("http://a/../../g", "http://a/g");
	expect("http://a/./g", "http://a/g");
	expect("http://a/b/c/g.", "http://a/b/c/g.");
	expect("http://a/b/c/.g", "http://a/b/c/.g");
	expect("http://a/b/c/g..", "http://a/b/c/g..");
	expect("http://a/b/c/..g", "http://a/b/c/..g");
	expect("http://a/b/g;x=1/../y", "http://a/b/y");
	expect("http://a/b/c/g?y/./x", "http://a/b/c/g?y/./x");
	expect("http://a/b/c/g#s/../x", "http://a/b/c/g");
}

static void
test_rules(void)
{
	/* scheme and host lower case, nothing else */
	expect("HtTpS://WWW.Example.ORG/Path/File.HTML?Q=Value",
		   "https://www.example.org/Path/File.HTML?Q=Value");
	/* default ports, other ports, leading zeros */
	expect("https://example.com:443/x", "https://example.com/x");
	expect("https://example.com:80/x", "https://example.com:80/x");
	expect("http://example.com:443/x", "http://example.com:443/x");
	expect("http://example.com:8080/x", "http://example.com:8080/x");
	expect("http://example.com:0080/x", "http://example.com/x");
	expect("http://example.com:08080", "http://example.com:8080/");
	expect("http://example.com:0/", "http://example.com:0/");
	expect("ftp://example.com:21/", "ftp://example.com:21/");
	/* fragment dropped, query kept with normalized escapes */
	expect("http://example.com/a#frag", "http://example.com/a");
	expect("http://example.com/a?#", "http://example.com/a?");
	expect("http://example.com#x", "http://example.com/");
	expect("http://example.com?q=%7e%2f+x", "http://example.com/?q=~%2F+x");
	expect("http://example.com/?a=1&b=/../c", "http://example.com/?a=1&b=/../c");
	/* "%2E" segments are dot segments once decoded */
	expect("http://example.com/a/%2E%2e/b/%2E/c", "http://example.com/b/c");
	/* reserved characters stay encoded; "%2F" is not a separator */
	expect("http://example.com/a%2F..%2Fb", "http://example.com/a%2F..%2Fb");
	/* empty segments are kept */
	expect("http://example.com//a//b/", "http://example.com//a//b/");
	expect("http://example.com/a//../b", "http://example.com/a/b");
	/* userinfo: case kept, escapes normalized, last '@' ends it */
	expect("http://User:P%61ss@Example.COM:80/", "http://User:Pass@example.com/");
	expect("http://a@b@Host/", "http://a@b@host/");
	expect("http://@host/", "http://@host/");
	/* IPv6 literals: lower case, port after the bracket */
	expect("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x");
	expect("http://[2001:DB8::1]:8080", "http://[2001:db8::1]:8080/");
	expect("http://[::1", "http://[::1/");
	expect("http://[::1]junk:80/", "http://[::1]junk:80/");
	/* host escapes: unreserved decoded and lower-cased, others upper-cased */
	expect("http://%41%62c.com/", "http://abc.com/");
	expect("http://a%2eb%c3%a9.com/", "http://a.b%C3%A9.com/");
	/* ports that are not ports are left alone */
	expect("http://host:8o/", "http://host:8o/");
	expect("http://host:80:80/", "http://host:80:80/");
	/* no authority: no "/" added; dot segments only in absolute paths */
	expect("http:", "http:");
	expect("http:?q", "http:?q");
	expect("http:/a/./b/../c", "http:/a/c");
	expect("mailto:Someone@Example.COM", "mailto:Someone@Example.COM");
	expect("urn:isbn:a/../b", "urn:isbn:a/../b");
	expect("file:///etc/./passwd", "file:///etc/passwd");
	/* a path with no authority must not turn into one */
	expect("x:/..//evil/p", "x:/..//evil/p");
	expect("HTTP:/.//evil/p", "http:/.//evil/p");
	/* empty authority */
	expect("http:///a", "http:///a");
	expect("http://", "http:///");
	/* schemes: letters, digits, + - . after the first letter */
	expect("Svn+SSH://Host/x", "svn+ssh://host/x");
	expect("coap.tcp-1://H/", "coap.tcp-1://h/");
	/* non-ASCII bytes copied, never touched */
	expect("http://ex.com/\xc3\xa9t\xc3\xa9", "http://ex.com/\xc3\xa9t\xc3\xa9");
	expect("http://EX\xc3\x89.com/", "http://ex\xc3\x89.com/");

	/* spellings a crawler meets that must fold into one key */
	expect_same("http://www.debian.org/doc/", "HTTP://WWW.DEBIAN.ORG:80/doc/./#top");
	expect_same("https://gitlab.com/~user/repo", "https://gitlab.com:443/%7Euser/x/../repo");
	expect_same("https://example.org", "https://example.org/#");
}

static void
test_not_urls(void)
{
	expect("", "");
	expect("not a url", "not a url");
	expect("www.example.com/a/../b", "www.example.com/a/../b");
	expect("/a/../b", "/a/../b");
	expect("//Host/a", "//Host/a");
	expect("C:\\Windows\\..\\x", "C:\\Windows\\..\\x");
	expect("c:/a/../b", "c:/a/../b");
	expect("1http://X/", "1http://X/");
	expect(" http://X/", " http://X/");
	expect("ht tp://X/", "ht tp://X/");
	expect(":", ":");
	expect("://", "://");
	expect("http", "http");
	expect("%41", "%41");
	expect("?#", "?#");
}

/* escapes that are not escapes: left exactly as they were */
static void
test_invalid_escapes(void)
{
	expect("http://h/%", "http://h/%");
	expect("http://h/%4", "http://h/%4");
	expect("http://h/%G1", "http://h/%G1");
	expect("http://h/%4g", "http://h/%4g");
	expect("http://h/a%", "http://h/a%");
	expect("http://h/?%", "http://h/?%");
	expect("http://h/?q=%zz", "http://h/?q=%zz");
	expect("http://H%/", "http://h%/");
	expect("http://h%4/", "http://h%4/");
	expect("http://h/%%", "http://h/%%");
	expect("http://h/%%41", "http://h/%%41");
	/* decoding must not assemble a new escape out of an invalid one */
	expect("http://h/%%34%31", "http://h/%%341");
	expect("http://h/%4%31", "http://h/%4%31");
	expect("http://h/%%3%31", "http://h/%%3%31");
	expect("http://h/%25%34%31", "http://h/%2541");
	expect("http://h/%00", "http://h/%00");
}

/* NUL bytes are ordinary bytes: nothing stops at them */
static void
test_embedded_nul(void)
{
	static const char in[] = "HTTP://A\0B:80/x\0/../y#\0z";
	static const char want[] = "http://a\0b/x\0/../y";
	size_t		n;
	char	   *got = normalize_bytes(in, sizeof(in) - 1, &n);

	/* "x\0" is a segment, "/.." removes it */
	CHECK(n == sizeof("http://a\0b/y") - 1 && memcmp(got, "http://a\0b/y", n) == 0,
		  "embedded NUL: got %zu bytes", n);
	(void) want;
	free(got);
}

/* a too-small buffer is reported, never overrun */
static void
test_small_buffer(void)
{
	const char *in = "http://example.com";
	size_t		len = strlen(in);
	char		buf[64];

	for (size_t cap = 0; cap <= len + 1; cap++)
	{
		size_t		n;

		memset(buf, 'Z', sizeof(buf));
		n = url_normalize(in, len, buf, cap);
		CHECK(cap == len + 1 ? n == len + 1 : n == (size_t) -1,
			  "cap %zu: returned %zu", cap, n);
		for (size_t i = cap; i < sizeof(buf); i++)
			CHECK(buf[i] == 'Z', "cap %zu: wrote byte %zu", cap, i);
	}
	CHECK(url_normalize(NULL, 0, NULL, 0) == 0, "NULL, 0");
	CHECK(url_is_absolute("http://x", 8) && !url_is_absolute("x", 1) &&
		  !url_is_absolute(NULL, 0), "url_is_absolute");
}

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Random strings over URL syntax and every byte value: the bound holds,
 * nothing is read or written outside the buffers, and a normalized URL is
 * its own normal form.
 */
static void
test_random(void)
{
	static const char *pieces[] = {
		"http:", "HTTPS:", "x:", "//", "/", "/.", "/..", ".", "..", "%", "%2", "%2E",
		"%2e", "%41", "%7e", "%zz", "%%", "?", "#", "@", ":", ":80", ":443", ":0",
		"[", "]", "[::1]", "A", "b", "~", "\0", "\xff", "\xc3\xa9", "%3", "1", "F",
	};
	size_t		npieces = sizeof(pieces) / sizeof(pieces[0]);
	char		buf[256];

	for (int iter = 0; iter < 200000; iter++)
	{
		size_t		len = 0;
		int			nparts = (int) (rng() % 24);
		size_t		n,
					n2;
		char	   *a,
				   *b;

		for (int i = 0; i < nparts && len < sizeof(buf) - 8; i++)
		{
			uint64_t	r = rng();

			if (r % 5 == 0)
				buf[len++] = (char) (r >> 8);
			else
			{
				const char *p = pieces[(r >> 8) % npieces];
				size_t		pl = (p[0] == '\0') ? 1 : strlen(p);

				memcpy(buf + len, p, pl);
				len += pl;
			}
		}
		a = normalize_bytes(buf, len, &n);
		b = normalize_bytes(a, n, &n2);
		if (n2 != n || memcmp(a, b, n) != 0)
		{
			CHECK(0, "random input %d not idempotent: \"%.*s\" -> \"%s\" -> \"%s\"",
				  iter, (int) len, buf, a, b);
			free(a);
			free(b);
			break;
		}
		free(a);
		free(b);
	}
}

/* huge inputs: linear time, exact bound, no stack use that grows */
static void
test_huge(void)
{
	size_t		len = 8 * 1024 * 1024;
	char	   *in = malloc(len);
	size_t		n;
	char	   *got;
	clock_t		t0 = clock();

	/* "/a/a/a.../a" then as many "/.." : everything pops back to "/" */
	memcpy(in, "http://h", 8);
	{
		size_t		half = (len - 8) / 2;
		size_t		i = 8;

		while (i + 2 <= 8 + half / 2 * 2 - 2)
		{
			in[i++] = '/';
			in[i++] = 'a';
		}
		while (i + 3 <= len)
		{
			in[i++] = '/';
			in[i++] = '.';
			in[i++] = '.';
		}
		while (i < len)
			in[i++] = '/';
	}
	got = normalize_bytes(in, len, &n);
	CHECK(n >= 9 && memcmp(got, "http://h/", 9) == 0, "huge dot path");
	free(got);

	/* one huge host, one huge query, all escapes */
	memset(in, 'A', len);
	memcpy(in, "HTTP://", 7);
	got = normalize_bytes(in, len, &n);
	CHECK(n == len + 1 && got[7] == 'a' && got[len - 1] == 'a' && got[len] == '/',
		  "huge host");
	free(got);
	for (size_t i = 7; i + 3 <= len; i += 3)
		memcpy(in + i, "%7e", 3);
	got = normalize_bytes(in, len, &n);
	CHECK(n > len / 3 && got[n - 1] == '/', "huge escaped host");
	free(got);
	in[7] = '/';
	in[8] = '?';
	got = normalize_bytes(in, len, &n);
	CHECK(n < len, "huge query");
	free(got);

	/* no "//", no ':' at all: one long unchanged string */
	memset(in, '.', len);
	got = normalize_bytes(in, len, &n);
	CHECK(n == len && memcmp(got, in, len) == 0, "huge non-URL");
	free(got);
	free(in);
	CHECK((double) (clock() - t0) / CLOCKS_PER_SEC < 20.0, "huge inputs took too long");
}

/*
 * url_is_normal: true only for input url_normalize leaves as it is
 * (normalize_bytes checks that of every input of every test), and true
 * for the usual already-normal URL, so the shortcut is taken.
 */
static void
test_is_normal(void)
{
	static const struct
	{
		const char *in;
		bool		normal;
	}			cases[] = {
		{"http://example.com/a/b?x=1&y=%", false},
		{"http://example.com/a/b?x=1&y=2", true},
		{"https://h/", true},
		{"ftp://h", true},
		{"mailto:a@b.example", true},
		{"not a URL", true},
		{"", true},
		{"HTTP://h/", false},
		{"http://H/", false},
		{"http://h", false},
		{"https://h?q", false},
		{"http://h:80/", false},
		{"http://h:8080/", false},
		{"http://u@h/", false},
		{"http://[::1]/", false},
		{"http://h/%7e", false},
		{"http://h/a#f", false},
		{"http://h/./a", false},
		{"http://h/a/..", false},
		{"http://h/.well-known/x", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		size_t		len = strlen(cases[i].in);
		size_t		n;
		char	   *got;

		CHECK(url_is_normal(cases[i].in, len) == cases[i].normal,
			  "url_is_normal(\"%s\") should be %s", cases[i].in,
			  cases[i].normal ? "true" : "false");
		got = normalize_bytes(cases[i].in, len, &n);
		free(got);
	}
}

int
main(void)
{
	test_is_normal();
	test_rfc3986_examples();
	test_rules();
	test_not_urls();
	test_invalid_escapes();
	test_embedded_nul();
	test_small_buffer();
	test_random();
	test_huge();
	if (failures)
	{
		fprintf(stderr, "test_url: %d failures\n", failures);
		return 1;
	}
	printf("test_url: ok\n");
	return 0;
}
