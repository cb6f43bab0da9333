/*
 * index_bench.c
 *		Test-and-add and probe throughput of the bloomfilter index access
 *		method (libpq) against RedisBloom's BF.MADD / BF.MEXISTS (hiredis),
 *		with the same keys in the same batches of 1,000 URLs.
 *
 *	bench/index_bench.sh builds this, starts both servers and prefills
 *	them; run alone:
 *
 *	index_bench redis-prefill SOCKET N [KEY]
 *		BF.RESERVE KEY 0.01 N, then key(0) .. key(N-1) by BF.MADD of
 *		1,000, pipelined.  KEY is "bf" unless given.  Prints
 *		redis_prefill_s, redis_bytes and redis_stages (BF.INFO SIZE and
 *		FILTERS), their names prefixed with KEY_ for another key.
 *	index_bench run SOCKET CONNINFO N BATCHES ROUNDS URLFILE
 *		Expects both sides prefilled twice with key(0) .. key(N-1): Redis
 *		keys "bf" and "bfh"; in PostgreSQL the log of URLs (index
 *		seen_log_urls on seen_log (urls)) and the log of hashes (index
 *		seen_hashes_f on seen_hashes (hs), bloomfilter_hash_array_ops).
 *		Prints "name value" lines (see the end of main).
 *	index_bench stored SOCKET CONNINFO N BATCHES ROUNDS URLFILE
 *		Expects Redis key "bf" prefilled as above and, in PostgreSQL, a
 *		stored filter url_filter (id 1) holding key(0) .. key(N-1) and the
 *		function tna_before(text[]) (index_bench.sh makes both).  Prints
 *		"name value" lines (see stored_main).
 *
 *	index_bench billion-redis SOCKET N STEP STEP_PROBES BATCHES FP_PROBES
 *		RedisBloom's side of bench/index_billion.sh: BF.RESERVE bfb 0.01
 *		N, then the integer keys 0 .. N-1 (decimal strings) by BF.MADD of
 *		10,000, pipelined, timed every STEP keys, with STEP_PROBES
 *		never-added keys probed after each step (the false-positive rate
 *		across the fill); then, at full fill, BATCHES probes of 1,000
 *		(BF.MEXISTS: 500 added, 500 never added) and BATCHES adds of
 *		1,000 (BF.MADD: 500 added, 500 new), every batch a different one,
 *		one request at a time; then FP_PROBES never-added keys.  Prints
 *		"name value" lines (see billion_redis).
 *
 * The keys (the PostgreSQL side makes the same strings in SQL, see
 * index_bench.sh):
 *	key(i) = https://host<i % 100003>.example/page/<i>.html
 *
 * A batch of set s (A = 0, B = 1, warm-up = 2, C = 3, D = 4, ...) has
 * 1,000 URLs: the odd positions are prefilled keys key(random % N)
 * ("old"), the even ones the next lines of URLFILE (distinct real URLs:
 * the "new" half), suffixed "#<s>" in every set but A and the warm-up so
 * that they do not repeat set A's; past the end of the file,
 * https://fresh<s>.example/page/<j>.html.  So about half of each batch is
 * new.  Every batch is a function of (s, batch number) alone: both
 * servers get the same bytes.  A batch's hashes are bloom_hash(url),
 * XXH3-64 with seed 0, made here as a client of the log of hashes makes
 * them (doc/index.md, "A log of hashes").
 *
 * Timed, one synchronous request per batch, the two sides taking turns
 * batch by batch:
 *	probe	set A (nothing of it added yet) by BF.MEXISTS and by
 *			bloom_index_contains(idx, text[]); ROUNDS passes
 *	tna1	set A by BF.MADD and by the per-item test-and-add statement
 *	tna1x	set I by BF.MADD and by that statement with a LIKE in place of
 *			the probe (its SQL alone, without the index's work)
 *	tna2	set B by BF.MADD and by the array-probe test-and-add statement
 *	tna3	set C by BF.MADD and by the bloom_index_absent statement
 *	tna4	set D by BF.MADD (key "bfh") and by the bloom_index_absent
 *			statement of the log of hashes, the client sending the batch's
 *			hashes as bigint[] in text form
 *	tna4b	set H the same, bigint[] in binary form
 *	tna5	set E the same, the client sending the URLs and the server
 *			hashing them (bloom_hash)
 *	ins		set F by BF.MADD and by a plain INSERT of the batch as one row
 *			of the log of URLs (no test: what logging a batch costs alone)
 *	insh	set G by BF.MADD (key "bfh") and by a plain INSERT of the
 *			batch's hashes as one row of the log of hashes, bigint[] in
 *			binary form
 *			(all but probe in ROUNDS slices each, taking turns)
 * and, for each test-and-add and insert measure, the WAL its batches
 * wrote (pg_current_wal_insert_lsn, outside the timed requests).
 * A round's URLs/s = its URLs / the sum of that side's request times, at
 * the client (round trip included); printed: the medians over the rounds,
 * and the median, least and greatest of the rounds' PG/Redis ratios.
 *
 * Mode "stored": test-and-add into a filter stored in a column, the same
 * way, each statement against BF.MADD batch by batch:
 *	tnab	set A by the 1.0-era recipe (tna_before: FOR UPDATE, a per-row
 *			bloom_contains probe, an unconditional bloom_add write)
 *	tnaa	set B by one statement around bloom_test_and_add (tna_after_sql)
 *			(in ROUNDS slices each, taking turns, as tna1 and tna2)
 *	noopb, noopa	set A again, all of it now present, by each
 * and the WAL each statement's batches wrote (pg_current_wal_insert_lsn).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>
#include <libpq-fe.h>
#include <xxhash.h>

#define BATCH 1000
#define HOSTS 100003
#define REDIS_KEY "bf"
#define REDIS_KEY_HASHES "bfh"	/* the filter the log of hashes is measured against */
#define PIPELINE 16

/* the per-item statement, keeping the batch's distinct URLs that pass new */
#define PER_ITEM_SQL(new) \
"WITH b AS (SELECT DISTINCT u FROM unnest($1::text[]) u), " \
"n AS (SELECT array_agg(u) AS urls FROM b WHERE " new ") " \
"INSERT INTO seen_log (urls) SELECT urls FROM n WHERE urls IS NOT NULL " \
"RETURNING cardinality(urls)"

/* the plain statement: one bloom_index_contains(idx, x) call per item */
static const char *tna1_sql = PER_ITEM_SQL("NOT bloom_index_contains('seen_log_urls', u)");

/*
 * tna1's statement with a LIKE for the probe, picking the same half (the
 * batch's URLs that are not prefilled keys): what the recipe's SQL costs
 * PostgreSQL around the probe, the floor the probe is added to
 */
static const char *tna1x_sql = PER_ITEM_SQL("u NOT LIKE 'https://host%.example/page/%.html'");

/*
 * One array probe of the whole batch, then the distinct ones among the
 * unseen: the distinct step sorts about half the batch, not all of it.
 */
static const char *tna2_sql =
"WITH n AS (SELECT array_agg(DISTINCT x) AS urls "
"FROM unnest($1::text[], bloom_index_contains('seen_log_urls', $1::text[])) "
"AS p(x, seen) WHERE NOT seen) "
"INSERT INTO seen_log (urls) SELECT urls FROM n WHERE urls IS NOT NULL "
"RETURNING cardinality(urls)";

/*
 * The stored filter, after: probe first, without a lock (the InitPlan);
 * only if some element is not in the filter, lock the row (READ COMMITTED
 * re-reads the newest version if another caller wrote it meanwhile, and
 * LockRows computes bloom_test_and_add again on it), and write the filter
 * back if something was new.  A batch of duplicates takes no lock and
 * writes nothing; the answer is one row either way.  OFFSET 0 keeps the
 * planner from pushing the "added" test into the subquery, which would
 * call bloom_test_and_add twice; no CTE or LATERAL function scan holds
 * the (filter, added) result, whose tuplestore would spill a filter
 * larger than work_mem to disk (a 4.8 MB filter: 140 ms a batch against
 * 40 ms this way).
 */
/*
 * The batch's new items in one call (bloom_index_absent: distinct, in
 * order), logged as one row: the recipe of doc/index.md.
 */
static const char *tna3_sql =
"INSERT INTO seen_log (urls) SELECT n FROM bloom_index_absent('seen_log_urls', $1::text[]) n "
"WHERE cardinality(n) > 0 RETURNING cardinality(urls)";

/*
 * The log of hashes: the client sends bloom_hash of each URL (tna4), or
 * the URLs and the server hashes them (tna5)
 */
static const char *tna4_sql =
"INSERT INTO seen_hashes (hs) SELECT n FROM bloom_index_absent('seen_hashes_f', $1::bigint[]) n "
"WHERE cardinality(n) > 0 RETURNING cardinality(hs)";

static const char *tna5_sql =
"INSERT INTO seen_hashes (hs) SELECT n FROM bloom_index_absent('seen_hashes_f', "
"ARRAY(SELECT bloom_hash(u) FROM unnest($1::text[]) u)) n "
"WHERE cardinality(n) > 0 RETURNING cardinality(hs)";

/* a batch logged without a test: what writing the row costs alone */
static const char *ins_sql =
"INSERT INTO seen_log (urls) VALUES ($1::text[]) RETURNING cardinality(urls)";

static const char *insh_sql =
"INSERT INTO seen_hashes (hs) VALUES ($1::bigint[]) RETURNING cardinality(hs)";

static const char *tna_after_sql =
"WITH w AS (UPDATE url_filter u SET f = (r.t).filter "
"FROM (SELECT bloom_test_and_add(f, $1::text[]) AS t FROM url_filter "
"WHERE id = 1 AND (SELECT false = ANY (bloom_contains(f, $1::text[])) "
"FROM url_filter WHERE id = 1) "
"FOR UPDATE OFFSET 0) r "
"WHERE u.id = 1 AND true = ANY ((r.t).added) "
"RETURNING cardinality(array_positions((r.t).added, true)) AS n) "
"SELECT coalesce((SELECT n FROM w), 0)";

/* the stored filter, before: the 1.0-era recipe, a plpgsql function */
static const char *tna_before_sql =
"SELECT tna_before($1::text[])";

static const char *probe_sql =
"SELECT bloom_index_contains('seen_log_urls', $1::text[])";

typedef struct Batch
{
	char	   *url[BATCH];
	size_t		len[BATCH];
	char	   *pgarray;		/* the batch as a text[] literal */
	char	   *pghashes;		/* its bloom_hash values as a bigint[] literal */
	char	   *pgbin;			/* and in bigint[]'s binary form */
	int			pgbinlen;
} Batch;

static char **real_urls;
static size_t nreal;

static void
die(const char *msg, const char *detail)
{
	fprintf(stderr, "index_bench: %s%s%s\n", msg, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static char *
xstrdup_printf_key(uint64_t i)
{
	char		buf[96];

	snprintf(buf, sizeof(buf), "https://host%llu.example/page/%llu.html",
			 (unsigned long long) (i % HOSTS), (unsigned long long) i);
	return strdup(buf);
}

static void
load_real_urls(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				alloc = 0;
	ssize_t		n;

	if (!f)
		die("cannot open URL file", path);
	while ((n = getline(&line, &cap, f)) > 0)
	{
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (nreal == alloc)
		{
			alloc = alloc ? 2 * alloc : 65536;
			real_urls = realloc(real_urls, alloc * sizeof(char *));
			if (!real_urls)
				die("out of memory", NULL);
		}
		real_urls[nreal++] = strdup(line);
	}
	free(line);
	fclose(f);
}

/*
 * The text[] literal of a batch: every element double-quoted, with " and
 * \ escaped, as a client library would send it.
 */
static char *
pg_array_literal(Batch *b)
{
	size_t		cap = 3,
				o = 0;
	char	   *s;

	for (int j = 0; j < BATCH; j++)
		cap += 2 * b->len[j] + 3;
	s = malloc(cap);
	if (!s)
		die("out of memory", NULL);
	s[o++] = '{';
	for (int j = 0; j < BATCH; j++)
	{
		if (j > 0)
			s[o++] = ',';
		s[o++] = '"';
		for (size_t k = 0; k < b->len[j]; k++)
		{
			char		c = b->url[j][k];

			if (c == '"' || c == '\\')
				s[o++] = '\\';
			s[o++] = c;
		}
		s[o++] = '"';
	}
	s[o++] = '}';
	s[o] = '\0';
	return s;
}

/* the bigint[] literal of a batch's hashes, bloom_hash(url) each */
static char *
pg_hash_literal(Batch *b)
{
	char	   *s = malloc((size_t) BATCH * 22 + 3);
	size_t		o = 0;

	if (!s)
		die("out of memory", NULL);
	s[o++] = '{';
	for (int j = 0; j < BATCH; j++)
		o += sprintf(s + o, "%s%lld", j > 0 ? "," : "",
					 (long long) XXH3_64bits_withSeed(b->url[j], b->len[j], 0));
	s[o++] = '}';
	s[o] = '\0';
	return s;
}

/* put a big-endian 32-bit integer at p */
static char *
put32(char *p, uint32_t v)
{
	p[0] = (char) (v >> 24);
	p[1] = (char) (v >> 16);
	p[2] = (char) (v >> 8);
	p[3] = (char) v;
	return p + 4;
}

/*
 * The batch's hashes in bigint[]'s binary form (array_send's): one
 * dimension, no NULLs, element type int8 (OID 20), then each element's
 * length and value, big-endian
 */
static char *
pg_hash_binary(Batch *b, int *len)
{
	char	   *s = malloc(20 + (size_t) BATCH * 12),
			   *p = s;

	if (!s)
		die("out of memory", NULL);
	p = put32(p, 1);
	p = put32(p, 0);
	p = put32(p, 20);
	p = put32(p, BATCH);
	p = put32(p, 1);
	for (int j = 0; j < BATCH; j++)
	{
		uint64_t	h = XXH3_64bits_withSeed(b->url[j], b->len[j], 0);

		p = put32(p, 8);
		p = put32(p, (uint32_t) (h >> 32));
		p = put32(p, (uint32_t) h);
	}
	*len = (int) (p - s);
	return s;
}

static Batch *
make_batches(int set, int nbatches, uint64_t n)
{
	Batch	   *bs = calloc(nbatches, sizeof(Batch));

	if (!bs)
		die("out of memory", NULL);
	for (int b = 0; b < nbatches; b++)
	{
		uint64_t	seed = ((uint64_t) set << 32) ^ (uint64_t) b;

		for (int j = 0; j < BATCH; j++)
		{
			char	   *u;

			if (j % 2 == 1)
				u = xstrdup_printf_key(splitmix64(&seed) % n);
			else
			{
				/* set A and set B read the file from its start */
				size_t		idx = (size_t) b * (BATCH / 2) + j / 2;
				char		buf[4096];

				if (set == 0 && idx < nreal)
					snprintf(buf, sizeof(buf), "%s", real_urls[idx]);
				else if (set != 2 && idx < nreal)
					snprintf(buf, sizeof(buf), "%s#%d", real_urls[idx], set == 1 ? 2 : set);
				else
					snprintf(buf, sizeof(buf), "https://fresh%d.example/page/%zu.html", set, idx);
				u = strdup(buf);
			}
			if (!u)
				die("out of memory", NULL);
			bs[b].url[j] = u;
			bs[b].len[j] = strlen(u);
		}
		bs[b].pgarray = pg_array_literal(&bs[b]);
		bs[b].pghashes = pg_hash_literal(&bs[b]);
		bs[b].pgbin = pg_hash_binary(&bs[b], &bs[b].pgbinlen);
	}
	return bs;
}

static redisContext *
redis_connect(const char *socket)
{
	redisContext *c = redisConnectUnix(socket);

	if (!c || c->err)
		die("cannot connect to redis", c ? c->errstr : socket);
	return c;
}

static redisReply *
redis_checked(redisContext *c, redisReply *r)
{
	if (!r)
		die("redis", c->errstr);
	if (r->type == REDIS_REPLY_ERROR)
		die("redis error", r->str);
	return r;
}

/* BF.MADD or BF.MEXISTS of one batch into key; returns how many answered 1 */
static long
redis_batch(redisContext *c, const char *cmd, const char *key, Batch *b)
{
	const char *argv[BATCH + 2];
	size_t		argl[BATCH + 2];
	redisReply *r;
	long		ones = 0;

	argv[0] = cmd;
	argl[0] = strlen(cmd);
	argv[1] = key;
	argl[1] = strlen(key);
	for (int j = 0; j < BATCH; j++)
	{
		argv[j + 2] = b->url[j];
		argl[j + 2] = b->len[j];
	}
	r = redis_checked(c, redisCommandArgv(c, BATCH + 2, argv, argl));
	if (r->type != REDIS_REPLY_ARRAY || r->elements != BATCH)
		die("unexpected redis reply", cmd);
	for (size_t k = 0; k < r->elements; k++)
		ones += r->element[k]->integer == 1;
	freeReplyObject(r);
	return ones;
}

/* one field of BF.INFO: SIZE (bytes) or FILTERS (stages) */
static long
redis_info(redisContext *c, const char *key, const char *field)
{
	redisReply *r = redis_checked(c, redisCommand(c, "BF.INFO %s %s", key, field));
	long		v;

	if (r->type == REDIS_REPLY_ARRAY && r->elements == 1)
		v = r->element[0]->integer;
	else
		v = r->integer;
	freeReplyObject(r);
	return v;
}

/*
 * key(0) .. key(n-1) into a filter reserved at capacity n: BF.MADD of
 * 1,000 keys, PIPELINE commands in flight.
 */
static void
redis_prefill(const char *socket, uint64_t n, const char *key)
{
	redisContext *c = redis_connect(socket);
	double		t0;
	uint64_t	sent = 0,
				inflight = 0;
	const char *argv[BATCH + 2];
	size_t		argl[BATCH + 2];
	char	   *keys[BATCH];
	redisReply *r;

	const char *prefix = strcmp(key, REDIS_KEY) == 0 ? "" : key;
	const char *sep = *prefix ? "_" : "";

	freeReplyObject(redis_checked(c, redisCommand(c, "DEL %s", key)));
	t0 = now();
	freeReplyObject(redis_checked(c, redisCommand(c, "BF.RESERVE %s 0.01 %llu",
												  key, (unsigned long long) n)));
	argv[0] = "BF.MADD";
	argl[0] = 7;
	argv[1] = key;
	argl[1] = strlen(key);
	while (sent < n)
	{
		int			m = (n - sent) < BATCH ? (int) (n - sent) : BATCH;

		for (int j = 0; j < m; j++)
		{
			keys[j] = xstrdup_printf_key(sent + j);
			argv[j + 2] = keys[j];
			argl[j + 2] = strlen(keys[j]);
		}
		if (redisAppendCommandArgv(c, m + 2, argv, argl) != REDIS_OK)
			die("redis", c->errstr);
		for (int j = 0; j < m; j++)
			free(keys[j]);
		sent += m;
		if (++inflight == PIPELINE)
		{
			if (redisGetReply(c, (void **) &r) != REDIS_OK)
				die("redis", c->errstr);
			freeReplyObject(redis_checked(c, r));
			inflight--;
		}
	}
	while (inflight-- > 0)
	{
		if (redisGetReply(c, (void **) &r) != REDIS_OK)
			die("redis", c->errstr);
		freeReplyObject(redis_checked(c, r));
	}
	printf("%s%sredis_prefill_s %.3f\n", prefix, sep, now() - t0);
	printf("%s%sredis_bytes %ld\n", prefix, sep, redis_info(c, key, "SIZE"));
	printf("%s%sredis_stages %ld\n", prefix, sep, redis_info(c, key, "FILTERS"));
	redisFree(c);
}

static PGconn *
pg_connect(const char *conninfo)
{
	PGconn	   *c = PQconnectdb(conninfo);

	if (PQstatus(c) != CONNECTION_OK)
		die("cannot connect to postgres", PQerrorMessage(c));
	return c;
}

static void
pg_prepare(PGconn *c, const char *name, const char *sql)
{
	PGresult   *r = PQprepare(c, name, sql, 1, NULL);

	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		die("prepare failed", PQerrorMessage(c));
	PQclear(r);
}

/*
 * One batch through a prepared statement.  probe: count the t's of the
 * boolean[] answer; test-and-add: the RETURNING cardinality, 0 if no row.
 */
static long
pg_batch(PGconn *c, const char *stmt, Batch *b, int probe, int hashes)
{
	const char *params[1] = {hashes == 2 ? b->pgbin : hashes ? b->pghashes : b->pgarray};
	int			lengths[1] = {b->pgbinlen},
				formats[1] = {hashes == 2};
	PGresult   *r = PQexecPrepared(c, stmt, 1, params, lengths, formats, 0);
	long		v = 0;
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_TUPLES_OK)
		die("statement failed", PQerrorMessage(c));
	if (probe)
	{
		const char *s = PQgetvalue(r, 0, 0);
		long		items = 1;

		for (; *s; s++)
		{
			v += *s == 't';
			items += *s == ',';
		}
		if (items != BATCH)
			die("probe answered the wrong number of items", stmt);
	}
	else if (PQntuples(r) == 1)
		v = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	return v;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct Pass
{
	double		ups;			/* URLs per second */
	double		batch_ms;		/* median batch latency */
	long		ones;			/* 1s answered (Redis) / ts or new (PG) */
} Pass;

/*
 * What a measure sends: the Redis command and key; the prepared
 * statement, and whether it takes the batch's hashes (bigint[]: 1 in
 * text form, 2 in binary) rather than its URLs (text[]), and answers a
 * probe's boolean[]
 */
typedef struct Measure
{
	const char *cmd;
	const char *key;
	const char *stmt;
	int			hashes;
	int			probe;
} Measure;

/*
 * One pass over the batches on both sides, a batch to Redis and then the
 * same batch to PostgreSQL: a noisy spell on the shared machine lands on
 * both alike, so their ratio holds still even when the figures move.
 * URLs/s is over the summed request times of each side.
 */
static void
run_pass(redisContext *rc, PGconn *pc, const Measure *m, Batch *bs, int nbatches,
		 Pass *rp, Pass *pp)
{
	double	   *rlat = malloc(nbatches * sizeof(double));
	double	   *plat = malloc(nbatches * sizeof(double));
	double		rsum = 0,
				psum = 0,
				t;

	if (!rlat || !plat)
		die("out of memory", NULL);
	memset(rp, 0, sizeof(Pass));
	memset(pp, 0, sizeof(Pass));
	for (int b = 0; b < nbatches; b++)
	{
		t = now();
		rp->ones += redis_batch(rc, m->cmd, m->key, &bs[b]);
		rlat[b] = now() - t;
		t = now();
		pp->ones += pg_batch(pc, m->stmt, &bs[b], m->probe, m->hashes);
		plat[b] = now() - t;
		rsum += rlat[b];
		psum += plat[b];
	}
	rp->ups = (double) BATCH * nbatches / rsum;
	pp->ups = (double) BATCH * nbatches / psum;
	rp->batch_ms = 1000 * median(rlat, nbatches);
	pp->batch_ms = 1000 * median(plat, nbatches);
	free(rlat);
	free(plat);
}

/* a measure's rounds: each side's figures, and their ratio round by round */
typedef struct Series
{
	int			n;
	double	   *rups,
			   *pups,
			   *rms,
			   *pms,
			   *ratio;
	long		rones,
				pones;
} Series;

static void
series_init(Series *s, int rounds)
{
	s->n = 0;
	s->rones = s->pones = 0;
	s->rups = malloc(rounds * sizeof(double));
	s->pups = malloc(rounds * sizeof(double));
	s->rms = malloc(rounds * sizeof(double));
	s->pms = malloc(rounds * sizeof(double));
	s->ratio = malloc(rounds * sizeof(double));
	if (!s->rups || !s->pups || !s->rms || !s->pms || !s->ratio)
		die("out of memory", NULL);
}

/* sum_ones: add up the 1s over rounds (distinct batches), or keep one's */
static void
series_add(Series *s, Pass r, Pass p, int sum_ones)
{
	s->rups[s->n] = r.ups;
	s->pups[s->n] = p.ups;
	s->rms[s->n] = r.batch_ms;
	s->pms[s->n] = p.batch_ms;
	s->ratio[s->n] = p.ups / r.ups;
	s->n++;
	s->rones = sum_ones ? s->rones + r.ones : r.ones;
	s->pones = sum_ones ? s->pones + p.ones : p.ones;
}

static void
series_print(const char *name, Series *s)
{
	printf("%s_redis_ups %.0f\n", name, median(s->rups, s->n));
	printf("%s_pg_ups %.0f\n", name, median(s->pups, s->n));
	printf("%s_redis_ms %.3f\n", name, median(s->rms, s->n));
	printf("%s_pg_ms %.3f\n", name, median(s->pms, s->n));
	printf("%s_redis_ones %ld\n", name, s->rones);
	printf("%s_pg_ones %ld\n", name, s->pones);
	/* median() sorted the ratios: the ends are the extremes */
	printf("%s_ratio %.3f\n", name, median(s->ratio, s->n));
	printf("%s_ratio_min %.3f\n", name, s->ratio[0]);
	printf("%s_ratio_max %.3f\n", name, s->ratio[s->n - 1]);
	/* and the rounds' extremes of each side (median() sorted them too) */
	printf("%s_redis_ups_min %.0f\n", name, s->rups[0]);
	printf("%s_redis_ups_max %.0f\n", name, s->rups[s->n - 1]);
	printf("%s_pg_ups_min %.0f\n", name, s->pups[0]);
	printf("%s_pg_ups_max %.0f\n", name, s->pups[s->n - 1]);
	printf("%s_redis_ms_min %.3f\n", name, s->rms[0]);
	printf("%s_redis_ms_max %.3f\n", name, s->rms[s->n - 1]);
	printf("%s_pg_ms_min %.3f\n", name, s->pms[0]);
	printf("%s_pg_ms_max %.3f\n", name, s->pms[s->n - 1]);
}

/* the server's WAL insert position, as text */
static char *
pg_lsn(PGconn *c)
{
	PGresult   *r = PQexec(c, "SELECT pg_current_wal_insert_lsn()");
	char	   *v;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("pg_current_wal_insert_lsn failed", PQerrorMessage(c));
	v = strdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return v;
}

/* WAL bytes written since lsn */
static double
pg_wal_since(PGconn *c, char *lsn)
{
	const char *params[1] = {lsn};
	PGresult   *r = PQexecParams(c, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)",
								 1, NULL, params, NULL, NULL, 0);
	double		v;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		die("pg_wal_lsn_diff failed", PQerrorMessage(c));
	v = atof(PQgetvalue(r, 0, 0));
	PQclear(r);
	free(lsn);
	return v;
}

/*
 * One run_pass, and the WAL the PostgreSQL side wrote in it (the lsn
 * queries fall outside the timed requests; Redis writes none)
 */
static double
run_pass_wal(redisContext *rc, PGconn *pc, const Measure *m, Batch *bs, int nbatches,
			 Pass *rp, Pass *pp)
{
	char	   *lsn = pg_lsn(pc);

	run_pass(rc, pc, m, bs, nbatches, rp, pp);
	return pg_wal_since(pc, lsn);
}

/*
 * Mode "stored": before and after on the stored filter, each against
 * BF.MADD batch by batch (see the header)
 */
static int
stored_main(char **argv)
{
	redisContext *rc;
	PGconn	   *pc;
	uint64_t	n = strtoull(argv[4], NULL, 10);
	int			nbatches = atoi(argv[5]),
				rounds = atoi(argv[6]);
	Batch	   *setA,
			   *setB,
			   *warm;
	Pass		pr,
				pp,
				pb;
	Series		tnab,
				tnaa,
				noopb,
				noopa;
	const Measure before = {"BF.MADD", REDIS_KEY, "before", 0, 0},
				after = {"BF.MADD", REDIS_KEY, "after", 0, 0};
	double		wal_tnab = 0,
				wal_tnaa = 0,
				wal_noopb = 0,
				wal_noopa = 0,
			   *ab,
			   *noop_ab;

	if (n == 0 || nbatches <= 0 || rounds <= 0 || rounds > nbatches)
		die("N, BATCHES and ROUNDS must be positive, ROUNDS at most BATCHES", NULL);
	load_real_urls(argv[7]);
	setA = make_batches(0, nbatches, n);
	setB = make_batches(1, nbatches, n);
	warm = make_batches(2, 20, n);

	rc = redis_connect(argv[2]);
	pc = pg_connect(argv[3]);
	pg_prepare(pc, "before", tna_before_sql);
	pg_prepare(pc, "after", tna_after_sql);

	/* warm-up, not timed: connections, plans, caches; 10 batches each */
	run_pass(rc, pc, &before, warm, 10, &pr, &pp);
	run_pass(rc, pc, &after, warm + 10, 10, &pr, &pp);

	/* sets A and B in ROUNDS slices, before and after taking turns */
	series_init(&tnab, rounds);
	series_init(&tnaa, rounds);
	series_init(&noopb, rounds);
	series_init(&noopa, rounds);
	ab = malloc(rounds * sizeof(double));
	noop_ab = malloc(rounds * sizeof(double));
	if (!ab || !noop_ab)
		die("out of memory", NULL);
	for (int r = 0; r < rounds; r++)
	{
		int			from = (int) ((long) nbatches * r / rounds),
					to = (int) ((long) nbatches * (r + 1) / rounds);

		wal_tnab += run_pass_wal(rc, pc, &before, setA + from, to - from, &pr, &pb);
		series_add(&tnab, pr, pb, 1);
		wal_tnaa += run_pass_wal(rc, pc, &after, setB + from, to - from, &pr, &pp);
		series_add(&tnaa, pr, pp, 1);
		ab[r] = pp.ups / pb.ups;
	}

	/*
	 * Batches with nothing new: set A again, every URL of it now in both
	 * filters; the same slices to both statements
	 */
	for (int r = 0; r < rounds; r++)
	{
		int			from = (int) ((long) nbatches * r / rounds),
					to = (int) ((long) nbatches * (r + 1) / rounds);

		wal_noopb += run_pass_wal(rc, pc, &before, setA + from, to - from, &pr, &pb);
		series_add(&noopb, pr, pb, 1);
		wal_noopa += run_pass_wal(rc, pc, &after, setA + from, to - from, &pr, &pp);
		series_add(&noopa, pr, pp, 1);
		noop_ab[r] = pp.ups / pb.ups;
	}
	series_print("tnab", &tnab);
	series_print("tnaa", &tnaa);
	series_print("noopb", &noopb);
	series_print("noopa", &noopa);
	printf("after_before_ratio %.3f\n", median(ab, rounds));
	printf("after_before_ratio_min %.3f\n", ab[0]);
	printf("after_before_ratio_max %.3f\n", ab[rounds - 1]);
	printf("noop_after_before_ratio %.3f\n", median(noop_ab, rounds));
	printf("noop_after_before_ratio_min %.3f\n", noop_ab[0]);
	printf("noop_after_before_ratio_max %.3f\n", noop_ab[rounds - 1]);
	printf("tnab_wal_batch %.0f\n", wal_tnab / nbatches);
	printf("tnaa_wal_batch %.0f\n", wal_tnaa / nbatches);
	printf("noopb_wal_batch %.0f\n", wal_noopb / nbatches);
	printf("noopa_wal_batch %.0f\n", wal_noopa / nbatches);
	printf("redis_bytes_after %ld\n", redis_info(rc, REDIS_KEY, "SIZE"));
	printf("redis_stages_after %ld\n", redis_info(rc, REDIS_KEY, "FILTERS"));

	redisFree(rc);
	PQfinish(pc);
	return 0;
}

/* the integer key i as Redis gets it in billion-redis: its decimal string */
static int
int_key(char *buf, uint64_t i)
{
	return sprintf(buf, "%llu", (unsigned long long) i);
}

/*
 * keys first .. first + n - 1 by BF.MADD (add) or BF.MEXISTS of `per`
 * keys a command, PIPELINE commands in flight; returns the replies' 1s
 */
static long
redis_int_range(redisContext *c, const char *cmd, const char *key, uint64_t first, uint64_t n,
				int per)
{
	const char **argv = malloc(sizeof(char *) * (per + 2));
	size_t	   *argl = malloc(sizeof(size_t) * (per + 2));
	char	   *keys = malloc((size_t) per * 24);
	uint64_t	sent = 0;
	int			inflight = 0;
	long		ones = 0;
	redisReply *r;

	if (!argv || !argl || !keys)
		die("out of memory", NULL);
	argv[0] = cmd;
	argl[0] = strlen(cmd);
	argv[1] = key;
	argl[1] = strlen(key);
	while (sent < n || inflight > 0)
	{
		if (sent < n && inflight < PIPELINE)
		{
			int			m = (n - sent) < (uint64_t) per ? (int) (n - sent) : per;

			for (int j = 0; j < m; j++)
			{
				argv[j + 2] = keys + (size_t) j * 24;
				argl[j + 2] = (size_t) int_key(keys + (size_t) j * 24, first + sent + j);
			}
			if (redisAppendCommandArgv(c, m + 2, argv, argl) != REDIS_OK)
				die("redis", c->errstr);
			sent += m;
			inflight++;
			continue;
		}
		if (redisGetReply(c, (void **) &r) != REDIS_OK)
			die("redis", c->errstr);
		redis_checked(c, r);
		for (size_t k = 0; k < r->elements; k++)
			ones += r->element[k]->integer == 1;
		freeReplyObject(r);
		inflight--;
	}
	free(argv);
	free(argl);
	free(keys);
	return ones;
}

/*
 * One batch of 1,000 integer keys, one request: 500 added ones (at
 * random below n), 500 from next_new on.  Returns the request's seconds.
 */
static double
redis_int_batch(redisContext *c, const char *cmd, const char *key, uint64_t n,
				uint64_t *seed, uint64_t next_new, long *ones)
{
	const char *argv[BATCH + 2];
	size_t		argl[BATCH + 2];
	static char keys[BATCH][24];
	redisReply *r;
	double		t;

	argv[0] = cmd;
	argl[0] = strlen(cmd);
	argv[1] = key;
	argl[1] = strlen(key);
	for (int j = 0; j < BATCH; j++)
	{
		argv[j + 2] = keys[j];
		argl[j + 2] = (size_t) int_key(keys[j], j % 2 ? splitmix64(seed) % n : next_new + j / 2);
	}
	t = now();
	r = redis_checked(c, redisCommandArgv(c, BATCH + 2, argv, argl));
	t = now() - t;
	for (size_t k = 0; k < r->elements; k++)
		*ones += r->element[k]->integer == 1;
	freeReplyObject(r);
	return t;
}

/* "NAME_ms_median/_p95/_mean" of a series of request seconds */
static void
print_latency(const char *name, double *lat, int n)
{
	double		sum = 0;

	for (int i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(double), cmp_double);
	printf("%s_ms_median %.3f\n", name, 1000 * lat[n / 2]);
	printf("%s_ms_p95 %.3f\n", name, 1000 * lat[(int) (n * 0.95)]);
	printf("%s_ms_mean %.3f\n", name, 1000 * sum / n);
}

/* mode billion-redis (see the header) */
static int
billion_redis(char **argv)
{
	const char *key = "bfb";
	redisContext *c = redis_connect(argv[2]);
	uint64_t	n = strtoull(argv[3], NULL, 10),
				step = strtoull(argv[4], NULL, 10),
				step_probes = strtoull(argv[5], NULL, 10),
				fp_probes = strtoull(argv[7], NULL, 10),
				seed = 48,
				/* never added: the probes across the fill, the adds, the final probes */
				never = 4 * n;
	int			batches = atoi(argv[6]);
	double	   *lat;

	if (n == 0 || step == 0 || batches <= 0)
		die("N, STEP and BATCHES must be positive", NULL);
	lat = malloc(sizeof(double) * batches);
	if (!lat)
		die("out of memory", NULL);
	freeReplyObject(redis_checked(c, redisCommand(c, "DEL %s", key)));
	freeReplyObject(redis_checked(c, redisCommand(c, "BF.RESERVE %s 0.01 %llu", key,
												  (unsigned long long) n)));
	for (uint64_t done = 0; done < n;)
	{
		uint64_t	m = n - done < step ? n - done : step;
		double		t = now();
		long		fp;

		redis_int_range(c, "BF.MADD", key, done, m, 10000);
		t = now() - t;
		done += m;
		fp = redis_int_range(c, "BF.MEXISTS", key, never, step_probes, 10000);
		never += step_probes;
		printf("step %llu %.3f %ld %llu %ld\n", (unsigned long long) done, t, fp,
			   (unsigned long long) step_probes, redis_info(c, key, "SIZE"));
	}
	for (int pass = 0; pass < 2; pass++)
	{
		long		ones = 0;

		for (int b = 0; b < batches; b++)
		{
			lat[b] = redis_int_batch(c, pass ? "BF.MADD" : "BF.MEXISTS", key, n, &seed, never, &ones);
			never += BATCH / 2;
		}
		print_latency(pass ? "redis_tna" : "redis_probe", lat, batches);
		printf("%s_ones %ld\n", pass ? "redis_tna" : "redis_probe", ones);
	}
	printf("redis_fp %ld\n", redis_int_range(c, "BF.MEXISTS", key, never, fp_probes, 10000));
	printf("redis_fp_probes %llu\n", (unsigned long long) fp_probes);
	printf("redis_bytes %ld\n", redis_info(c, key, "SIZE"));
	printf("redis_stages %ld\n", redis_info(c, key, "FILTERS"));
	free(lat);
	redisFree(c);
	return 0;
}

int
main(int argc, char **argv)
{
	/* the timed measures, in the order their slices take turns */
	static const struct
	{
		const char *name;
		int			set;
		Measure		m;
	}			tna[] = {
		{"tna1", 0, {"BF.MADD", REDIS_KEY, "tna1", 0, 0}},
		{"tna1x", 9, {"BF.MADD", REDIS_KEY, "tna1x", 0, 0}},
		{"tna2", 1, {"BF.MADD", REDIS_KEY, "tna2", 0, 0}},
		{"tna3", 3, {"BF.MADD", REDIS_KEY, "tna3", 0, 0}},
		{"tna4", 4, {"BF.MADD", REDIS_KEY_HASHES, "tna4", 1, 0}},
		{"tna4b", 8, {"BF.MADD", REDIS_KEY_HASHES, "tna4b", 2, 0}},
		{"tna5", 5, {"BF.MADD", REDIS_KEY_HASHES, "tna5", 0, 0}},
		{"ins", 6, {"BF.MADD", REDIS_KEY, "ins", 0, 0}},
		{"insh", 7, {"BF.MADD", REDIS_KEY_HASHES, "insh", 2, 0}},
	};
	/* their statements, in the same order */
	const char *tna_sql[] = {tna1_sql, tna1x_sql, tna2_sql, tna3_sql, tna4_sql, tna4_sql, tna5_sql, ins_sql, insh_sql};
#define NTNA ((int) (sizeof(tna) / sizeof(tna[0])))
	const Measure probe_m = {"BF.MEXISTS", REDIS_KEY, "probe", 0, 1};
	redisContext *rc;
	PGconn	   *pc;
	uint64_t	n;
	int			nbatches,
				rounds;
	Batch	   *sets[NTNA],
			   *warm;
	Pass		pr,
				pp;
	Series		probe,
				series[NTNA];
	double		wal[NTNA] = {0};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "redis-prefill") == 0)
	{
		redis_prefill(argv[2], strtoull(argv[3], NULL, 10), argc == 5 ? argv[4] : REDIS_KEY);
		return 0;
	}
	if (argc == 8 && strcmp(argv[1], "stored") == 0)
		return stored_main(argv);
	if (argc == 8 && strcmp(argv[1], "billion-redis") == 0)
		return billion_redis(argv);
	if (argc != 8 || strcmp(argv[1], "run") != 0)
	{
		fprintf(stderr, "usage: index_bench redis-prefill SOCKET N [KEY]\n"
				"       index_bench run SOCKET CONNINFO N BATCHES ROUNDS URLFILE\n"
				"       index_bench stored SOCKET CONNINFO N BATCHES ROUNDS URLFILE\n"
				"       index_bench billion-redis SOCKET N STEP STEP_PROBES BATCHES FP_PROBES\n");
		return 2;
	}
	n = strtoull(argv[4], NULL, 10);
	nbatches = atoi(argv[5]);
	rounds = atoi(argv[6]);
	if (n == 0 || nbatches <= 0 || rounds <= 0 || rounds > nbatches)
		die("N, BATCHES and ROUNDS must be positive, ROUNDS at most BATCHES", NULL);
	load_real_urls(argv[7]);
	for (int k = 0; k < NTNA; k++)
		sets[k] = make_batches(tna[k].set, nbatches, n);
	warm = make_batches(2, 20, n);

	rc = redis_connect(argv[2]);
	pc = pg_connect(argv[3]);
	pg_prepare(pc, "probe", probe_sql);
	for (int k = 0; k < NTNA; k++)
		pg_prepare(pc, tna[k].m.stmt, tna_sql[k]);

	/* warm-up, not timed: connections, plans, caches */
	run_pass(rc, pc, &probe_m, warm, 20, &pr, &pp);

	/* probe-only: ROUNDS passes over all of set A (probes change nothing) */
	series_init(&probe, rounds);
	for (int r = 0; r < rounds; r++)
	{
		run_pass(rc, pc, &probe_m, sets[0], nbatches, &pr, &pp);
		series_add(&probe, pr, pp, 0);
	}

	/*
	 * Test-and-add changes the filters, so each batch goes once: each
	 * measure's set in ROUNDS slices, the measures' slices taking turns,
	 * so that none always meets the fuller filter
	 */
	for (int k = 0; k < NTNA; k++)
		series_init(&series[k], rounds);
	for (int r = 0; r < rounds; r++)
	{
		int			from = (int) ((long) nbatches * r / rounds),
					to = (int) ((long) nbatches * (r + 1) / rounds);

		for (int k = 0; k < NTNA; k++)
		{
			wal[k] += run_pass_wal(rc, pc, &tna[k].m, sets[k] + from, to - from, &pr, &pp);
			series_add(&series[k], pr, pp, 1);
		}
	}
	series_print("probe", &probe);
	for (int k = 0; k < NTNA; k++)
	{
		series_print(tna[k].name, &series[k]);
		printf("%s_wal_batch %.0f\n", tna[k].name, wal[k] / nbatches);
	}
	printf("redis_bytes_after %ld\n", redis_info(rc, REDIS_KEY, "SIZE"));
	printf("redis_stages_after %ld\n", redis_info(rc, REDIS_KEY, "FILTERS"));
	printf("bfh_redis_bytes_after %ld\n", redis_info(rc, REDIS_KEY_HASHES, "SIZE"));
	printf("bfh_redis_stages_after %ld\n", redis_info(rc, REDIS_KEY_HASHES, "FILTERS"));

	redisFree(rc);
	PQfinish(pc);
	return 0;
}
