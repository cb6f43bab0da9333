/*
 * bfprobe FILTER_FILE PROBES_FILE
 *		Probe a bloomfilter value outside PostgreSQL: FILTER_FILE holds the
 *		raw bytes of f::bytea, PROBES_FILE one text element a line (its
 *		bytes up to the newline, a CR before it kept; no other decoding).
 *		Prints 1 or 0 a line, one for each probe, in order: the answers
 *		bloom_contains(f, line) gives in the server.
 *
 * A batch of lines is probed at once (bfr_contains_many_bytes), so a big
 * filter's misses overlap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomfilter_reader.h"

#define BATCH 4096

static void *
read_file(const char *path, size_t *len)
{
	FILE	   *fp = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		cap = 0,
				n = 0;

	if (fp == NULL)
		return NULL;
	for (;;)
	{
		if (n == cap)
		{
			cap = cap ? cap * 2 : 1 << 16;
			if ((buf = realloc(buf, cap)) == NULL)
				return NULL;
		}
		size_t		r = fread(buf + n, 1, cap - n, fp);

		n += r;
		if (r == 0)
			break;
	}
	if (ferror(fp))
	{
		free(buf);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	*len = n;
	return buf;
}

int
main(int argc, char **argv)
{
	char		err[BFR_ERRLEN];
	size_t		flen;
	void	   *fbytes;
	bfr_filter *f;
	FILE	   *in;
	char	   *lines[BATCH];
	size_t		lens[BATCH];
	bool		out[BATCH];
	size_t		caps[BATCH] = {0};
	size_t		n = 0;

	if (argc != 3)
	{
		fprintf(stderr, "usage: bfprobe FILTER_FILE PROBES_FILE\n"
				"  FILTER_FILE: the raw bytes of f::bytea; PROBES_FILE: one text element a line\n");
		return 2;
	}
	if ((fbytes = read_file(argv[1], &flen)) == NULL)
	{
		perror(argv[1]);
		return 2;
	}
	if ((f = bfr_open(fbytes, flen, err)) == NULL)
	{
		fprintf(stderr, "bfprobe: %s: %s\n", argv[1], err);
		return 2;
	}
	free(fbytes);
	if ((in = strcmp(argv[2], "-") == 0 ? stdin : fopen(argv[2], "rb")) == NULL)
	{
		perror(argv[2]);
		return 2;
	}
	memset(lines, 0, sizeof(lines));
	for (;;)
	{
		ssize_t		r = getline(&lines[n], &caps[n], in);

		if (r >= 0)
		{
			if (r > 0 && lines[n][r - 1] == '\n')
				r--;
			lens[n++] = (size_t) r;
		}
		if (n == BATCH || (r < 0 && n > 0))
		{
			bfr_contains_many_bytes(f, (const void *const *) lines, lens, n, out);
			for (size_t i = 0; i < n; i++)
				fputs(out[i] ? "1\n" : "0\n", stdout);
			n = 0;
		}
		if (r < 0)
			break;
	}
	if (ferror(in) || fflush(stdout) != 0)
	{
		perror("bfprobe");
		return 2;
	}
	for (int i = 0; i < BATCH; i++)
		free(lines[i]);
	if (in != stdin)
		fclose(in);
	bfr_free(f);
	return 0;
}
