/*
 * fuzz_value.c
 *		One libFuzzer harness for every path that turns outside bytes into a
 *		value of one type, compiled once per (type, path) by test/fuzz/build.sh:
 *
 *		-DFUZZ_TYPE=bloom	the type: calls bloom_check()
 *		-DFUZZ_HEADER=...	its core header, "bloom.h"
 *		-DFUZZ_OPS=...		its operations file, "ops_bloom.h"
 *		-DFUZZ_TEXT=1		the text input path (the type's _in function):
 *							a C string, strict base64, then the checker;
 *							otherwise the bytes path shared by binary recv,
 *							the bytea cast and the aggregate states' input
 *
 * Both mirror pg_common.c: the bytes are copied behind a 4-byte varlena
 * header into an allocation of exactly that size (so ASan sees any read
 * past the value), then the checker runs.  A value the checker accepts is
 * handed to the type's fuzz_exercise(), which runs the operations a user
 * can apply to a stored value (probe, add with growth, union, estimates,
 * aggregate final) and re-checks what they produce: a checker gap becomes
 * an ASan/UBSan report or an abort here.
 *
 * With -DFUZZ_MAKE_SEEDS it is instead a program that writes the type's
 * seed values (fuzz_seeds()) into a directory, as bytes or as base64.
 */
#include "bfcore.h"

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CAT2(a, b) a##b
#define FUZZ_CAT(a, b) FUZZ_CAT2(a, b)

#include FUZZ_HEADER

#define FUZZ_CHECK FUZZ_CAT(FUZZ_TYPE, _check)

/* a broken invariant: crash loudly so libFuzzer keeps the input */
#define FUZZ_ASSERT(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz invariant failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

static void *
fuzz_malloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

static inline void
fuzz_set_varsize(void *p, size_t len)
{
	uint32_t	w = (uint32_t) len << 2;

	memcpy(p, &w, 4);
}

/* splitmix64 stream, seeded from the input, for element hashes */
static inline uint64_t
fuzz_rand(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * The type's operations, fuzz_exercise() and fuzz_seeds(): ops_<type>.h,
 * or ops_checkonly.h for a type that has none yet (build.sh decides).
 */
#include FUZZ_OPS

/* pgbf_validate_bytes: copy behind a varlena header, check everything */
static void
fuzz_bytes(const uint8_t *data, size_t size)
{
	size_t		len = size + 4;
	uint8_t    *v = fuzz_malloc(len);
	char		errbuf[BF_ERRLEN];
	BfStatus	st;

	fuzz_set_varsize(v, len);
	memcpy(v + 4, data, size);
	errbuf[0] = '\0';
	st = FUZZ_CHECK(v, len, errbuf);
	FUZZ_ASSERT(st == BF_OK || errbuf[0] != '\0', "rejection without a message");
	FUZZ_ASSERT(memchr(errbuf, '\0', BF_ERRLEN) != NULL, "unterminated message");
	if (st == BF_OK)
		fuzz_exercise(v, len, data, size);
	free(v);
}

#ifndef FUZZ_MAKE_SEEDS

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if FUZZ_TEXT
	/* pgbf_in: a C string (stops at a NUL), strict base64, then bytes */
	size_t		slen = strnlen((const char *) data, size);
	char	   *str = fuzz_malloc(slen + 1);
	uint8_t    *buf;
	size_t		n;

	memcpy(str, data, slen);
	str[slen] = '\0';
	if (slen > 0)
	{
		buf = fuzz_malloc(bf_base64_decoded_maxlen(slen) + 1);
		n = bf_base64_decode(str, slen, buf);
		if (n != (size_t) -1)
		{
			FUZZ_ASSERT(n <= bf_base64_decoded_maxlen(slen), "decoded too much");
			fuzz_bytes(buf, n);
		}
		free(buf);
	}
	free(str);
#else
	fuzz_bytes(data, size);
#endif
	return 0;
}

#else							/* FUZZ_MAKE_SEEDS */

static const char *seed_dir;
static int	seed_count;

static void
emit_seed(const void *value, size_t len)
{
	char		path[4096];
	FILE	   *fp;
	const uint8_t *bytes = (const uint8_t *) value + 4;
	size_t		n = len - 4;
	char		errbuf[BF_ERRLEN];

	if (FUZZ_CHECK(value, len, errbuf) != BF_OK)
	{
		fprintf(stderr, "seed %d is not valid: %s\n", seed_count, errbuf);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/seed-%03d", seed_dir, seed_count++);
	fp = fopen(path, "wb");
	if (fp == NULL)
	{
		perror(path);
		exit(1);
	}
#if FUZZ_TEXT
	{
		char	   *enc = fuzz_malloc(bf_base64_encoded_len(n) + 1);

		bf_base64_encode(bytes, n, enc);
		fwrite(enc, 1, bf_base64_encoded_len(n), fp);
		free(enc);
	}
#else
	fwrite(bytes, 1, n, fp);
#endif
	fclose(fp);
}

int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	seed_dir = argv[1];
	fuzz_seeds(emit_seed);
	printf("%d seeds written to %s\n", seed_count, seed_dir);
	return 0;
}

#endif							/* FUZZ_MAKE_SEEDS */
