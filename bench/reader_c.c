/*
 * reader_c.c
 *		Probe rate of the C reader (clients/c) on one core, hashing included:
 *		text URLs probed one by one (bfr_contains_bytes) and in batches
 *		(bfr_contains_many_bytes, which loads ahead), on a filter of 1M
 *		elements at 1% (bloom_create(1000000) as the server makes it) and on
 *		a blocked filter of 1B capacity at 1% in memory (bfr_new_large: the
 *		geometry of an index's first stage, 1.2 GB, too big for a value).
 *
 *	reader_c MEMBERS PROBES [RUNS [LARGE_CAPACITY [LARGE_FILL]]]
 *		MEMBERS, PROBES: one URL a line.  The 1B filter holds MEMBERS and
 *		then LARGE_FILL - |MEMBERS| more random hashes (default: filled to
 *		its capacity), so that its blocks are as full as in use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bloomfilter_reader.h"

typedef struct Lines
{
	char	   *buf;
	const void **ptr;
	size_t	   *len;
	size_t		n;
	size_t		bytes;
} Lines;

static void
read_lines(const char *path, Lines *l)
{
	FILE	   *fp = fopen(path, "rb");
	size_t		cap = 1 << 20,
				n = 0,
				r;

	if (fp == NULL)
	{
		perror(path);
		exit(2);
	}
	l->buf = malloc(cap);
	while ((r = fread(l->buf + n, 1, cap - n, fp)) > 0)
		if ((n += r) == cap)
			l->buf = realloc(l->buf, cap *= 2);
	fclose(fp);
	l->n = 0;
	for (size_t i = 0; i < n; i++)
		l->n += l->buf[i] == '\n';
	l->ptr = malloc(sizeof(void *) * l->n);
	l->len = malloc(sizeof(size_t) * l->n);
	l->bytes = 0;
	for (size_t i = 0, start = 0, k = 0; i < n; i++)
		if (l->buf[i] == '\n')
		{
			l->ptr[k] = l->buf + start;
			l->len[k] = i - start;
			l->bytes += i - start;
			k++;
			start = i + 1;
		}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static volatile size_t sink;

/* median probes a second over runs, one by one and batched */
static void
measure(const char *label, const bfr_filter *f, const Lines *p, int runs)
{
	double		one[64],
				many[64];
	bool	   *out = malloc(p->n);
	size_t		hits = 0;

	for (int r = 0; r < runs; r++)
	{
		double		t0 = now();
		size_t		c = 0;

		for (size_t i = 0; i < p->n; i++)
			c += bfr_contains_bytes(f, p->ptr[i], p->len[i]);
		one[r] = p->n / (now() - t0);
		sink += c;
		hits = c;

		t0 = now();
		bfr_contains_many_bytes(f, p->ptr, p->len, p->n, out);
		many[r] = p->n / (now() - t0);
		c = 0;
		for (size_t i = 0; i < p->n; i++)
			c += out[i];
		if (c != hits)
		{
			fprintf(stderr, "batched and one-by-one answers differ\n");
			exit(1);
		}
	}
	qsort(one, runs, sizeof(double), cmp_double);
	qsort(many, runs, sizeof(double), cmp_double);
	printf("%-34s one by one %6.2f M/s   contains_many %6.2f M/s   (%zu probes, %zu true; medians of %d, range %.2f-%.2f / %.2f-%.2f)\n",
		   label, one[runs / 2] / 1e6, many[runs / 2] / 1e6, p->n, hits, runs,
		   one[0] / 1e6, one[runs - 1] / 1e6, many[0] / 1e6, many[runs - 1] / 1e6);
	free(out);
}

/* splitmix64: random hashes to fill the big filter as elements would */
static uint64_t
splitmix(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

int
main(int argc, char **argv)
{
	Lines		m,
				p;
	int			runs = argc > 3 ? atoi(argv[3]) : 5;
	uint64_t	large_cap = argc > 4 ? strtoull(argv[4], NULL, 10) : UINT64_C(1000000000);
	uint64_t	large_fill = argc > 5 ? strtoull(argv[5], NULL, 10) : large_cap;
	char		err[BFR_ERRLEN];
	bfr_filter *f;
	size_t		len;
	double		t0;

	if (argc < 3)
	{
		fprintf(stderr, "usage: reader_c MEMBERS PROBES [RUNS [LARGE_CAPACITY [LARGE_FILL]]]\n");
		return 2;
	}
	if (runs < 1 || runs > 64)
		runs = 5;
	read_lines(argv[1], &m);
	read_lines(argv[2], &p);
	printf("members %zu (mean %.1f bytes), probes %zu (mean %.1f bytes)\n",
		   m.n, (double) m.bytes / m.n, p.n, (double) p.bytes / p.n);

	/* bloom_create(1000000) (blocked, scalable, 1%), the members added */
	if ((f = bfr_new(1000000, 0.01, BFR_LAYOUT_BLOCKED, true, 0, err)) == NULL)
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (size_t i = 0; i < m.n; i++)
		if (bfr_add_bytes(f, m.ptr[i], m.len[i], err) < 0)
		{
			fprintf(stderr, "%s\n", err);
			return 1;
		}
	bfr_bytes(f, &len);
	printf("filter 1M at 1%%: %zu bytes, %d stage(s)\n", len, bfr_nstages(f));
	measure("1M elements, 1%, blocked", f, &p, runs);
	bfr_free(f);

	if ((f = bfr_new(1000000, 0.01, BFR_LAYOUT_STANDARD, true, 0, err)) == NULL)
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (size_t i = 0; i < m.n; i++)
		bfr_add_bytes(f, m.ptr[i], m.len[i], err);
	bfr_bytes(f, &len);
	printf("filter 1M at 1%% standard: %zu bytes, %d stage(s)\n", len, bfr_nstages(f));
	measure("1M elements, 1%, standard", f, &p, runs);
	bfr_free(f);

	if (large_cap == 0)
		return 0;
	if ((f = bfr_new_large(large_cap, 0.01, 0, err)) == NULL)
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t0 = now();
	for (size_t i = 0; i < m.n; i++)
		bfr_add_bytes(f, m.ptr[i], m.len[i], err);
	{
		uint64_t	s = 42;
		uint64_t   *h = malloc(sizeof(uint64_t) * 65536);
		uint64_t	left = large_fill > m.n ? large_fill - m.n : 0;

		while (left > 0)
		{
			size_t		c = left < 65536 ? left : 65536;

			for (size_t i = 0; i < c; i++)
				h[i] = splitmix(&s);
			if (bfr_add_many_hashes(f, h, c, err) < 0)
			{
				fprintf(stderr, "fill: %s\n", err);
				return 1;
			}
			left -= c;
		}
		free(h);
	}
	bfr_bytes(f, &len);
	printf("filter %llu capacity at 1%% (bfr_new_large): %zu bytes, filled with %llu elements in %.1f s\n",
		   (unsigned long long) large_cap, len, (unsigned long long) large_fill, now() - t0);
	measure("1B capacity, 1%, blocked, full", f, &p, runs);
	bfr_free(f);
	return 0;
}
