/*
 * unit.h
 *		A minimal test harness for the plain-C unit tests of the core: each
 *		test is a function; CHECK records a failure with its line and goes on.
 *		main() runs the tests, prints one "ok"/"FAIL" line per test and returns
 *		0 only when every test passed.
 */
#ifndef UNIT_H
#define UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	unit_failures_in_test;
static int	unit_failed_tests;
static int	unit_run_tests;

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			if (unit_failures_in_test++ < 10) \
				fprintf(stderr, "    %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

#define CHECK_MSG(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			if (unit_failures_in_test++ < 10) \
			{ \
				fprintf(stderr, "    %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
				fprintf(stderr, __VA_ARGS__); \
				fputc('\n', stderr); \
			} \
		} \
	} while (0)

#define RUN(test) \
	do { \
		unit_failures_in_test = 0; \
		unit_run_tests++; \
		test(); \
		if (unit_failures_in_test) \
		{ \
			unit_failed_tests++; \
			printf("FAIL %s (%d failed checks)\n", #test, unit_failures_in_test); \
		} \
		else \
			printf("ok   %s\n", #test); \
		fflush(stdout); \
	} while (0)

#define UNIT_DONE() \
	do { \
		printf("%d of %d tests passed\n", unit_run_tests - unit_failed_tests, unit_run_tests); \
		return unit_failed_tests ? 1 : 0; \
	} while (0)

/* splitmix64: a fixed, seedable stream of 64-bit keys */
static inline uint64_t
unit_rand(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* set the varlena length word the way PostgreSQL does (4-byte header) */
static inline void
unit_set_varsize(void *p, size_t len)
{
	uint32_t	w = (uint32_t) len << 2;

	memcpy(p, &w, 4);
}

static inline void *
unit_xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (!p)
	{
		perror("malloc");
		exit(2);
	}
	return p;
}

#endif							/* UNIT_H */
