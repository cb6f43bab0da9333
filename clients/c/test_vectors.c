/*
 * test_vectors LINES_FILE
 *		Check libbloomfilter_reader against the shared test vectors
 *		(../test-vectors.json, rewritten as lines by vectors_to_lines.py):
 *		every hash; every filter opened from its bytes and probed with each
 *		of its probes, one by one and as a batch, against the server's
 *		answer; and, where bfr_new can make the filter's empty start (all
 *		but format 1, which only old builds made), the filter made again
 *		by adding its elements in order, one by one and as a batch
 *		(bfr_add_many_hashes), compared byte for byte.
 *		Also: a value cut short or altered is refused.  Exit 0 if all pass.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomfilter_reader.h"

static int	failures = 0;
static int	checks = 0;

#define CHECK(cond, ...) \
	do { \
		checks++; \
		if (!(cond)) \
		{ \
			failures++; \
			if (failures <= 30) \
			{ \
				fprintf(stderr, "FAIL line %d: ", lineno); \
				fprintf(stderr, __VA_ARGS__); \
				fputc('\n', stderr); \
			} \
		} \
	} while (0)

static int	lineno = 0;

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* hex into out (malloc'd); length in *len, -1 if not hex */
static int
unhex(const char *s, uint8_t **out, size_t *len)
{
	size_t		n = strlen(s);

	if (n % 2)
		return -1;
	*out = malloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++)
	{
		int			hi = hexval(s[2 * i]),
					lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		(*out)[i] = (uint8_t) (hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

static uint64_t
parse_u64(const char *s)
{
	errno = 0;
	return strtoull(s, NULL, 10);
}

static int
parse_uuid(const char *s, uint8_t u[16])
{
	int			n = 0;

	for (const char *p = s; *p; p++)
	{
		if (*p == '-')
			continue;
		if (n >= 32 || hexval(p[0]) < 0)
			return -1;
		if (n % 2 == 0)
			u[n / 2] = (uint8_t) (hexval(*p) << 4);
		else
			u[n / 2] |= (uint8_t) hexval(*p);
		n++;
	}
	return n == 32 ? 0 : -1;
}

/*
 * An element of the vectors: its bytes for text and bytea, else the
 * bigint or uuid.  Field is "t" + hex of the text's UTF-8, "v" + the
 * JSON's value otherwise.
 */
typedef struct Elem
{
	int			type;			/* 0 bytes, 1 bigint, 2 uuid */
	uint8_t    *bytes;
	size_t		len;
	int64_t		i;
	uint8_t		uuid[16];
} Elem;

static int
parse_elem(const char *type, const char *field, Elem *e)
{
	memset(e, 0, sizeof(*e));
	if (strcmp(type, "text") == 0)
		return field[0] == 't' ? unhex(field + 1, &e->bytes, &e->len) : -1;
	if (strcmp(type, "bytea") == 0)
		return field[0] == 'v' ? unhex(field + 1, &e->bytes, &e->len) : -1;
	if (strcmp(type, "bigint") == 0)
	{
		char	   *end;

		e->type = 1;
		errno = 0;
		e->i = strtoll(field + 1, &end, 10);
		return errno || *end ? -1 : 0;
	}
	if (strcmp(type, "uuid") == 0)
	{
		e->type = 2;
		return parse_uuid(field + 1, e->uuid);
	}
	return -1;
}

static uint64_t
elem_hash(const Elem *e, uint64_t seed)
{
	switch (e->type)
	{
		case 1:
			return bfr_hash_int64(e->i, seed);
		case 2:
			return bfr_hash_uuid(e->uuid, seed);
	}
	return bfr_hash_bytes(e->bytes ? e->bytes : (const uint8_t *) "", e->len, seed);
}

static bool
elem_contains(const bfr_filter *f, const Elem *e)
{
	switch (e->type)
	{
		case 1:
			return bfr_contains_int64(f, e->i);
		case 2:
			return bfr_contains_uuid(f, e->uuid);
	}
	return bfr_contains_bytes(f, e->bytes ? e->bytes : (const uint8_t *) "", e->len);
}

static int
elem_add(bfr_filter *f, const Elem *e, char *err)
{
	switch (e->type)
	{
		case 1:
			return bfr_add_int64(f, e->i, err);
		case 2:
			return bfr_add_uuid(f, e->uuid, err);
	}
	return bfr_add_bytes(f, e->bytes ? e->bytes : (const uint8_t *) "", e->len, err);
}

/* the filter being read: its probes are collected for the batch check */
typedef struct Current
{
	char		name[128];
	char		type[16];
	bfr_filter *f;				/* opened from its bytes */
	bfr_filter *remade;			/* bfr_new + its adds, or NULL */
	bfr_filter *remade_many;	/* the same by bfr_add_many_hashes */
	uint64_t   *added;			/* hashes of its adds, in order */
	size_t		nadded,
				addcap;
	uint8_t    *bytes;
	size_t		len;
	uint64_t   *hashes;			/* of the probes, for the batch */
	bool	   *expected;
	size_t		nprobes,
				cap;
	int			nfilters;
} Current;

static void
finish_filter(Current *c)
{
	if (c->f == NULL)
		return;
	/* the probes as one batch give the answers they gave one by one */
	{
		bool	   *out = malloc(c->nprobes + 1);

		bfr_contains_many_hashes(c->f, c->hashes, c->nprobes, out);
		for (size_t i = 0; i < c->nprobes; i++)
			CHECK(out[i] == c->expected[i], "filter %s: batch probe %zu gives %d, server %d",
				  c->name, i, out[i], c->expected[i]);
		free(out);
	}
	if (c->remade)
	{
		size_t		len;
		const uint8_t *b = bfr_bytes(c->remade, &len);

		CHECK(len == c->len && memcmp(b, c->bytes, len) == 0,
			  "filter %s: made again by bfr_new and adds, %zu bytes differ from the server's %zu",
			  c->name, len, c->len);
		bfr_free(c->remade);
		CHECK(bfr_add_many_hashes(c->remade_many, c->added, c->nadded, NULL) == 0,
			  "filter %s: bfr_add_many_hashes fails", c->name);
		b = bfr_bytes(c->remade_many, &len);
		CHECK(len == c->len && memcmp(b, c->bytes, len) == 0,
			  "filter %s: made again by bfr_add_many_hashes, bytes differ", c->name);
		bfr_free(c->remade_many);
	}
	c->nadded = 0;
	bfr_free(c->f);
	free(c->bytes);
	c->f = c->remade = c->remade_many = NULL;
	c->nprobes = 0;
	c->nfilters++;
}

/* values that must not open: cut short, a bit flipped in the header */
static void
check_refusals(const uint8_t *bytes, size_t len)
{
	char		err[BFR_ERRLEN];
	uint8_t    *copy = malloc(len);
	bfr_filter *f;

	CHECK(bfr_open(bytes, len - 1, err) == NULL, "a value one byte short opens");
	CHECK(bfr_open(bytes, 10, err) == NULL, "a value of 10 bytes opens");
	memcpy(copy, bytes, len);
	copy[0] = 2;				/* kind: countingbloom */
	CHECK(bfr_open(copy, len, err) == NULL, "a value of another kind opens");
	memcpy(copy, bytes, len);
	copy[1] = 3;				/* version */
	CHECK((f = bfr_open(copy, len, err)) == NULL && strstr(err, "newer") != NULL,
		  "a value of format 3 opens or says '%s'", err);
	memcpy(copy, bytes, len);
	copy[len - 1] ^= 1;			/* a bit the counters do not account for */
	CHECK(bfr_open(copy, len, err) == NULL, "a value whose bits do not match its count opens");
	free(copy);
}

int
main(int argc, char **argv)
{
	FILE	   *in;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		r;
	Current		c = {0};
	int			nhashes = 0;
	bool		refusals_done = false;

	if (argc != 2 || (in = fopen(argv[1], "r")) == NULL)
	{
		fprintf(stderr, "usage: test_vectors LINES_FILE (made by vectors_to_lines.py)\n");
		return 2;
	}
	while ((r = getline(&line, &cap, in)) > 0)
	{
		char	   *tok[12];
		int			nt = 0;
		char	   *save = NULL;

		lineno++;
		if (line[r - 1] == '\n')
			line[r - 1] = '\0';
		for (char *t = strtok_r(line, " ", &save); t && nt < 12; t = strtok_r(NULL, " ", &save))
			tok[nt++] = t;
		if (nt == 5 && strcmp(tok[0], "H") == 0)
		{
			Elem		e;

			CHECK(parse_elem(tok[1], tok[2], &e) == 0, "bad element %s %s", tok[1], tok[2]);
			uint64_t	h = elem_hash(&e, parse_u64(tok[3]));

			CHECK(h == parse_u64(tok[4]), "hash of %s %.40s seed %s: %" PRIu64 ", expected %s",
				  tok[1], tok[2], tok[3], h, tok[4]);
			free(e.bytes);
			nhashes++;
		}
		else if (nt == 11 && strcmp(tok[0], "F") == 0)
		{
			char		err[BFR_ERRLEN];
			int			layout = strcmp(tok[4], "blocked") == 0 ? BFR_LAYOUT_BLOCKED : BFR_LAYOUT_STANDARD;

			finish_filter(&c);
			snprintf(c.name, sizeof(c.name), "%s", tok[1]);
			snprintf(c.type, sizeof(c.type), "%s", tok[2]);
			CHECK(unhex(tok[10], &c.bytes, &c.len) == 0, "bad bytes");
			c.f = bfr_open(c.bytes, c.len, err);
			CHECK(c.f != NULL, "filter %s does not open: %s", c.name, err);
			if (c.f == NULL)
				return 1;
			CHECK(bfr_seed(c.f) == parse_u64(tok[3]) && bfr_layout(c.f) == layout &&
				  bfr_format_version(c.f) == atoi(tok[5]) && bfr_nstages(c.f) == atoi(tok[6]),
				  "filter %s: seed, layout, format or stages differ from the file's", c.name);
			if (!refusals_done)
			{
				check_refusals(c.bytes, c.len);
				refusals_done = true;
			}
			/* format 1 filters are no longer made; the rest can be made again */
			if (atoi(tok[5]) == 2 || layout == BFR_LAYOUT_BLOCKED)
			{
				c.remade = bfr_new(parse_u64(tok[7]), strtod(tok[8], NULL), layout,
								   atoi(tok[9]) != 0, parse_u64(tok[3]), err);
				CHECK(c.remade != NULL, "filter %s: bfr_new fails: %s", c.name, err);
				c.remade_many = bfr_new(parse_u64(tok[7]), strtod(tok[8], NULL), layout,
										atoi(tok[9]) != 0, parse_u64(tok[3]), err);
			}
		}
		else if (nt == 2 && strcmp(tok[0], "A") == 0 && c.f)
		{
			Elem		e;
			char		err[BFR_ERRLEN];

			CHECK(parse_elem(c.type, tok[1], &e) == 0, "bad element");
			CHECK(elem_contains(c.f, &e), "filter %s: false negative %.40s", c.name, tok[1]);
			if (c.remade)
				CHECK(elem_add(c.remade, &e, err) >= 0, "filter %s: add fails: %s", c.name, err);
			if (c.nadded == c.addcap)
			{
				c.addcap = c.addcap ? c.addcap * 2 : 1024;
				c.added = realloc(c.added, c.addcap * sizeof(uint64_t));
			}
			c.added[c.nadded++] = elem_hash(&e, bfr_seed(c.f));
			free(e.bytes);
		}
		else if (nt == 3 && strcmp(tok[0], "P") == 0 && c.f)
		{
			Elem		e;
			bool		expected = strcmp(tok[2], "1") == 0;
			bool		got;

			CHECK(parse_elem(c.type, tok[1], &e) == 0, "bad element");
			got = elem_contains(c.f, &e);
			CHECK(got == expected, "filter %s: probe %.40s gives %d, server %d",
				  c.name, tok[1], got, expected);
			if (c.nprobes == c.cap)
			{
				c.cap = c.cap ? c.cap * 2 : 1024;
				c.hashes = realloc(c.hashes, c.cap * sizeof(uint64_t));
				c.expected = realloc(c.expected, c.cap);
			}
			c.hashes[c.nprobes] = elem_hash(&e, bfr_seed(c.f));
			c.expected[c.nprobes++] = expected;
			free(e.bytes);
		}
		else
			CHECK(false, "cannot read line");
	}
	finish_filter(&c);
	free(c.hashes);
	free(c.expected);
	free(c.added);
	free(line);
	fclose(in);
	CHECK(nhashes > 0 && c.nfilters > 0, "no vectors read");
	printf("test_vectors: %d hashes, %d filters, %d checks, %d failed\n",
		   nhashes, c.nfilters, checks, failures);
	return failures ? 1 : 0;
}
