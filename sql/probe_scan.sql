--
-- the probe scan (bloomfilter.enable_probe_scan): a sequential scan that
-- answers a bloom_contains, counting_bloom_contains or cuckoo_contains qual
-- a heap page at a time.  Where the planner may use it, and that it returns
-- exactly the rows the row-at-a-time qual returns.
--
SET max_parallel_workers_per_gather = 0;

-- 20,000 rows over many pages; NULLs; values stored compressed and out of
-- line; a dropped column before the probed ones
CREATE TABLE ps_urls (id int, dropped text, url text, v varchar, b bytea, n bigint, u uuid);
ALTER TABLE ps_urls DROP COLUMN dropped;
INSERT INTO ps_urls
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 1000 = 1 THEN repeat('https://example.com/long/', 400) || i
            WHEN i % 1000 = 2 THEN (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 300) j)
            ELSE 'https://example.com/page/' || i END,
       'https://example.com/page/' || i,
       convert_to('https://example.com/page/' || i, 'UTF8'),
       i,
       md5(i::text)::uuid
FROM generate_series(1, 20000) i;
ALTER TABLE ps_urls ALTER COLUMN url SET STORAGE EXTERNAL;
UPDATE ps_urls SET url = url || '' WHERE id % 1000 = 2;
SELECT count(*) FILTER (WHERE pg_column_compression(url) IS NOT NULL) AS compressed,
       count(*) FILTER (WHERE pg_column_size(url) < octet_length(url)) AS smaller_than_value,
       count(*) FILTER (WHERE octet_length(url) > 8000) AS long_values
FROM ps_urls;

-- filters of half the rows (id 1), a third (id 2), and NULL (id 3)
CREATE TABLE ps_f (id int PRIMARY KEY, b bloomfilter, bs bloomfilter, c countingbloom, k cuckoofilter,
                   bb bloomfilter, bn bloomfilter, bu bloomfilter, bstd bloomfilter, kg cuckoofilter);
INSERT INTO ps_f
SELECT m, bloom_agg(url, 20000, 0.01), bloom_agg(url), counting_bloom_agg(url), cuckoo_agg(url),
       bloom_agg(b), bloom_agg(n), bloom_agg(u),
       bloom_add(bloom_create(20000, 0.01, 'standard'), array_agg(url)),
       cuckoo_add(cuckoo_create(100, 0.01), array_agg(url ORDER BY id))
FROM ps_urls, (VALUES (1, 2), (2, 3)) AS mm(m, d)
WHERE id % d = 0 GROUP BY m;
INSERT INTO ps_f (id) VALUES (3);
ANALYZE ps_urls, ps_f;

-- same(q): the ids q returns with the probe scan and without it, sorted;
-- says how many, whether the probe scan was in the plan, whether the two
-- agree
CREATE FUNCTION ps_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	wrapped text := 'SELECT array_agg(id ORDER BY id) FROM (' || q || ') s';
	line text;
	used bool := false;
	used_off bool := false;
	a bigint[];
	b bigint[];
BEGIN
	PERFORM set_config('bloomfilter.enable_probe_scan', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
		used := used OR line LIKE '%BloomProbeScan%';
	END LOOP;
	EXECUTE wrapped INTO a;
	PERFORM set_config('bloomfilter.enable_probe_scan', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
		used_off := used_off OR line LIKE '%BloomProbeScan%';
	END LOOP;
	EXECUTE wrapped INTO b;
	PERFORM set_config('bloomfilter.enable_probe_scan', 'on', true);
	RETURN format('%s rows, probe scan %s, same %s', coalesce(cardinality(a), 0),
				  CASE WHEN used_off THEN 'used with it off!' WHEN used THEN 'used' ELSE 'not used' END,
				  a IS NOT DISTINCT FROM b);
END $$;

-- the plan
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) AND id % 3 = 0$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT u.id FROM ps_f f JOIN ps_urls u ON bloom_contains(f.b, u.url) WHERE f.id = 1$$);
-- EXPLAIN ANALYZE counts the rows the probe removed, then those the other
-- quals removed: of the 20,000 rows, the probe removed the 9,897 the
-- filter holds (the count the ps_same lines below give) and 206 NULL urls
SELECT * FROM explain_plan('ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF', $$SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) AND id % 3 = 0$$);
SET bloomfilter.enable_probe_scan = off;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
RESET bloomfilter.enable_probe_scan;

-- every form of the qual, every element type, every filter type
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)') AS func;
SELECT ps_same('SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)') AS negated;
SELECT ps_same('SELECT id FROM ps_urls WHERE (SELECT b FROM ps_f WHERE id = 1) @> url') AS operator,
       ps_same('SELECT id FROM ps_urls WHERE url <@ (SELECT b FROM ps_f WHERE id = 1)') AS commutator,
       ps_same('SELECT id FROM ps_urls WHERE NOT (url <@ (SELECT b FROM ps_f WHERE id = 2))') AS negated_commutator;
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT bs FROM ps_f WHERE id = 1), url)') AS scalable,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), v)') AS varchar_column,
       ps_same('SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT bstd FROM ps_f WHERE id = 2), url)') AS standard_layout;
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT bb FROM ps_f WHERE id = 1), b)') AS bytea,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT bn FROM ps_f WHERE id = 1), n)') AS bigint,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT bu FROM ps_f WHERE id = 1), u)') AS uuid;
-- integer and smallint columns (and a domain over integer) probe a bigint
-- filter through the cast to bigint, as the function does: the same 10045
-- rows as the bigint column n (id = n); an expression over the column is
-- not a column, so no probe scan for it
CREATE DOMAIN ps_posint AS int CHECK (VALUE > 0);
CREATE TABLE ps_ints AS SELECT id, id::smallint AS s, id::ps_posint AS d FROM ps_urls WHERE id < 30000;
ANALYZE ps_ints;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_ints WHERE bloom_contains((SELECT bn FROM ps_f WHERE id = 1), s)$$);
SELECT ps_same('SELECT id FROM ps_ints WHERE bloom_contains((SELECT bn FROM ps_f WHERE id = 1), id)') AS integer,
       ps_same('SELECT id FROM ps_ints WHERE NOT bloom_contains((SELECT bn FROM ps_f WHERE id = 1), s)') AS smallint_negated,
       ps_same('SELECT id FROM ps_ints WHERE bloom_contains((SELECT bn FROM ps_f WHERE id = 1), d)') AS domain;
SELECT ps_same('SELECT id FROM ps_ints WHERE counting_bloom_contains((SELECT counting_bloom_agg(n) FROM ps_urls WHERE n % 3 = 0), id)') AS counting_integer,
       ps_same('SELECT id FROM ps_ints WHERE cuckoo_contains((SELECT cuckoo_agg(n) FROM ps_urls WHERE n % 5 = 0), s)') AS cuckoo_smallint,
       ps_same('SELECT id FROM ps_ints WHERE bloom_contains((SELECT bn FROM ps_f WHERE id = 1), id + 0)') AS expression;
-- url_normalize(column): the page pass normalizes as the function does
-- (a URL already normal hashed as it is, one that is not normalized
-- first; NULLs, text that is not a URL, long values stored compressed)
CREATE TABLE ps_norm (id int, u text, v varchar);
INSERT INTO ps_norm
SELECT i, CASE i % 5 WHEN 0 THEN 'HTTP://Example.COM:80/page/' || i || '/./x#frag'
                     WHEN 1 THEN 'https://example.com/page/' || i || '/x'
                     WHEN 2 THEN NULL
                     WHEN 3 THEN 'not a url ' || i
                     ELSE 'http://example.com/%7Epage/' || i || '/../x' END
FROM generate_series(1, 5000) i;
INSERT INTO ps_norm SELECT 5000 + i, 'HTTP://EXAMPLE.COM/' || repeat('Seg/', 3000) || i FROM generate_series(1, 20) i;
UPDATE ps_norm SET v = u;
ANALYZE ps_norm;
CREATE TABLE ps_norm_f AS SELECT bloom_agg(url_normalize(u)) AS f FROM ps_norm WHERE id % 2 = 0;
SELECT count(*) FILTER (WHERE pg_column_compression(u) IS NOT NULL) AS compressed FROM ps_norm;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_norm WHERE bloom_contains((SELECT f FROM ps_norm_f), url_normalize(u))$$);
SELECT ps_same('SELECT id FROM ps_norm WHERE bloom_contains((SELECT f FROM ps_norm_f), url_normalize(u))') AS url_normalize,
       ps_same('SELECT id FROM ps_norm WHERE NOT bloom_contains((SELECT f FROM ps_norm_f), url_normalize(v))') AS varchar_negated;
-- every member is found, whichever spelling it was stored in
SELECT count(*) AS members_found,
       count(*) = (SELECT count(*) FROM ps_norm WHERE id % 2 = 0 AND u IS NOT NULL) AS all_members
FROM ps_norm WHERE id % 2 = 0 AND bloom_contains((SELECT f FROM ps_norm_f), url_normalize(u));
SELECT ps_same('SELECT id FROM ps_urls WHERE counting_bloom_contains((SELECT c FROM ps_f WHERE id = 1), url)') AS counting,
       ps_same('SELECT id FROM ps_urls WHERE NOT (url <@ (SELECT c FROM ps_f WHERE id = 2))') AS counting_negated;
SELECT ps_same('SELECT id FROM ps_urls WHERE cuckoo_contains((SELECT k FROM ps_f WHERE id = 1), url)') AS cuckoo,
       ps_same('SELECT id FROM ps_urls WHERE NOT ((SELECT k FROM ps_f WHERE id = 2) @> url)') AS cuckoo_negated,
       ps_same('SELECT id FROM ps_urls WHERE cuckoo_contains((SELECT kg FROM ps_f WHERE id = 1), url)') AS cuckoo_grown;
SELECT (cuckoo_info(kg)->>'tables')::int > 1 AS grown FROM ps_f WHERE id = 1;
-- the members are all there: half the rows that have a url, and the
-- false positives among the rest (no false negatives either way)
SELECT count(*) FILTER (WHERE id % 2 = 0) AS members_found,
       count(*) FILTER (WHERE id % 2 = 0) = (SELECT count(*) FROM ps_urls WHERE id % 2 = 0 AND url IS NOT NULL) AS all_members
FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url);

-- with other quals, projections, a LIMIT
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) AND id % 3 = 0') AS other_qual,
       ps_same('SELECT id * 2 + length(url) AS id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 2), url)') AS projection,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) ORDER BY id LIMIT 7') AS limited;

-- a NULL filter, no filter row: a NULL filter contains nothing, as the
-- function says, so no rows for the qual and every row with a url for its
-- negation (more in sql/null_filter.sql)
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 3), url)') AS null_filter,
       ps_same('SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 3), url)') AS null_negated,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 99), url)') AS no_row,
       ps_same('SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 99), url)') AS no_row_negated;

-- a filter from a parameter: a constant, a prepared statement's argument
SELECT ps_same(format('SELECT id FROM ps_urls WHERE bloom_contains(%L::bloomfilter, url)',
                      bloom_add(bloom_create(100, 0.01), ARRAY['https://example.com/page/5', 'https://example.com/page/6']))) AS constant;
DO $$
DECLARE
	f bloomfilter := (SELECT b FROM ps_f WHERE id = 2);
	on_count bigint;
	off_count bigint;
BEGIN
	PERFORM set_config('bloomfilter.enable_probe_scan', 'on', true);
	EXECUTE 'SELECT count(*) FROM ps_urls WHERE bloom_contains($1, url)' INTO on_count USING f;
	PERFORM set_config('bloomfilter.enable_probe_scan', 'off', true);
	EXECUTE 'SELECT count(*) FROM ps_urls WHERE bloom_contains($1, url)' INTO off_count USING f;
	RAISE NOTICE 'parameter: % rows, same %', on_count, on_count = off_count;
END $$;

-- joins: a filter per outer row (the scan rescanned with each), the nullable
-- side of an outer join (the qual may be answered by the scan), its
-- preserved side (it may not: every row stays).  Without Material nodes,
-- so the planner rescans the inner side instead of keeping the 3 filters
SET enable_material = off;
SELECT ps_same('SELECT f.id * 100000 + u.id AS id FROM ps_f f JOIN ps_urls u ON bloom_contains(f.b, u.url)') AS join_every_filter,
       ps_same('SELECT f.id * 100000 + u.id AS id FROM ps_f f JOIN ps_urls u ON NOT cuckoo_contains(f.k, u.url)') AS join_negated;
-- the inner side returns the table's whole tuple (a table without dropped
-- or added columns): columns still land where the join reads them (n = id
-- in every row)
CREATE TABLE ps_wide AS SELECT v, n, id, url FROM ps_urls;
ANALYZE ps_wide;
SELECT ps_same('SELECT f.id * 100000 + u.id + (u.n - u.id) * 1000000 + length(u.v) * 0 AS id FROM ps_f f JOIN ps_wide u ON bloom_contains(f.b, u.url)') AS join_columns;
SELECT * FROM explain_plan('COSTS OFF, VERBOSE', $$SELECT f.id, u.n FROM ps_f f JOIN ps_wide u ON bloom_contains(f.b, u.url)$$);
SELECT ps_same('SELECT f.id * 100000 + coalesce(u.id, 0) AS id FROM ps_f f LEFT JOIN ps_urls u ON bloom_contains(f.b, u.url)') AS nullable_side,
       ps_same('SELECT u.id * 10 + coalesce(f.id, 0) AS id FROM ps_urls u LEFT JOIN ps_f f ON bloom_contains(f.b, u.url) AND f.id = 1') AS preserved_side;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT u.id * 10 + coalesce(f.id, 0) AS id FROM ps_urls u LEFT JOIN ps_f f ON bloom_contains(f.b, u.url) AND f.id = 1$$);
RESET enable_material;

-- a column added with a default after the rows were written (its value is
-- not in the tuples), a partitioned table, a materialized view
ALTER TABLE ps_urls ADD COLUMN w text DEFAULT 'https://example.com/page/6';
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), w)') AS missing_column;
CREATE TABLE ps_parts (id int, url text) PARTITION BY RANGE (id);
CREATE TABLE ps_parts_1 PARTITION OF ps_parts FOR VALUES FROM (MINVALUE) TO (10000);
CREATE TABLE ps_parts_2 PARTITION OF ps_parts FOR VALUES FROM (10000) TO (MAXVALUE);
INSERT INTO ps_parts SELECT id, url FROM ps_urls;
CREATE MATERIALIZED VIEW ps_mv AS SELECT id, url FROM ps_urls;
ANALYZE ps_parts, ps_mv;
SELECT ps_same('SELECT id FROM ps_parts WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)') AS partitions,
       ps_same('SELECT id FROM ps_mv WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)') AS matview;

-- not offered: an element that is an expression, a filter that reads the
-- row, a volatile filter, a qual below a security barrier
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), lower(url))') AS expression,
       ps_same('SELECT id FROM ps_urls WHERE bloom_contains(bloom_add(bloom_create(10), id::bigint), n)') AS row_filter;
CREATE FUNCTION ps_volatile_filter() RETURNS bloomfilter VOLATILE LANGUAGE sql AS $$ SELECT b FROM ps_f WHERE id = 1 $$;
SELECT ps_same('SELECT id FROM ps_urls WHERE bloom_contains(ps_volatile_filter(), url)') AS volatile_filter;
CREATE VIEW ps_barrier WITH (security_barrier) AS SELECT id, url FROM ps_urls WHERE id % 5 = 0;
SELECT ps_same('SELECT id FROM ps_barrier WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)') AS security_barrier;

-- reads only: INSERT ... SELECT may use it; UPDATE, DELETE, row locks do not
CREATE TABLE ps_seen (id int);
SELECT * FROM explain_plan('COSTS OFF', $$INSERT INTO ps_seen SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
INSERT INTO ps_seen SELECT id FROM ps_urls WHERE NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url);
SELECT count(*) AS inserted,
       count(*) = (SELECT count(*) FROM ps_urls WHERE url IS NOT NULL AND NOT bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)) AS same
FROM ps_seen;
-- an INSERT reads its SELECT's columns by position: they are its own, in
-- its order, whatever the scan could have returned
CREATE TABLE ps_cols (n bigint, id int, url text);
INSERT INTO ps_cols SELECT n, id, url FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url);
INSERT INTO ps_cols (id, url) SELECT id, url FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 2), url);
SELECT count(*) AS rows, count(*) FILTER (WHERE c.n = c.id) AS n_is_id, count(*) FILTER (WHERE c.n IS NULL) AS no_n,
       count(*) FILTER (WHERE c.url IS DISTINCT FROM u.url) AS wrong_url
FROM ps_cols c JOIN ps_urls u ON u.id = c.id;
SELECT * FROM explain_plan('COSTS OFF', $$DELETE FROM ps_seen s USING ps_urls u WHERE s.id = u.id AND bloom_contains((SELECT b FROM ps_f WHERE id = 1), u.url)$$);
SELECT * FROM explain_plan('COSTS OFF', $$UPDATE ps_urls SET n = n WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) FOR UPDATE$$);

-- a scrollable cursor reads it backwards through a Material node
BEGIN;
DECLARE ps_cur SCROLL CURSOR FOR
	SELECT id FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) AND id < 20;
FETCH 3 FROM ps_cur;
FETCH BACKWARD 2 FROM ps_cur;
COMMIT;

-- a session's first query can use it: the planner support function loads
-- the module before the planner looks for paths
-- (with the default parallel settings: the probe scan is parallel safe,
-- as the Seq Scan it is weighed against is, or add_path would keep that)
\c
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);

-- parallel plans: a Parallel Custom Scan under a Gather, whose
-- participants share the table's pages
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
-- each type, negated or not, in a parallel plan and then without the
-- probe scan (a CREATE TABLE AS may run in parallel): the same rows
\set ps_par_q 'SELECT 1 AS n, count(*) AS rows, sum(id) AS ids FROM ps_urls WHERE bloom_contains((SELECT b FROM ps_f WHERE id = 1), url) UNION ALL SELECT 2, count(*), sum(id) FROM ps_urls WHERE NOT bloom_contains((SELECT bstd FROM ps_f WHERE id = 1), url) UNION ALL SELECT 3, count(*), sum(id) FROM ps_urls WHERE counting_bloom_contains((SELECT c FROM ps_f WHERE id = 2), url) UNION ALL SELECT 4, count(*), sum(id) FROM ps_urls WHERE NOT cuckoo_contains((SELECT k FROM ps_f WHERE id = 1), url)'
SELECT * FROM explain_plan('COSTS OFF', 'CREATE TABLE ps_par_on AS ' || :'ps_par_q');
CREATE TABLE ps_par_on AS :ps_par_q;
SET bloomfilter.enable_probe_scan = off;
CREATE TABLE ps_par_off AS :ps_par_q;
RESET bloomfilter.enable_probe_scan;
SELECT n, a.rows, a.rows = b.rows AND a.ids = b.ids AS same FROM ps_par_on a JOIN ps_par_off b USING (n) ORDER BY n;

-- the whole plan in one worker (force_parallel_mode, debug_parallel_query
-- from PostgreSQL 16; a plan without initplans, which keep it in the
-- leader before PostgreSQL 17): a join's parameterized probe scans run in
-- the worker
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS forced;
\set ps_one_q 'SELECT 1 AS n, count(*) AS rows, sum(u.id) AS ids FROM ps_f f JOIN ps_urls u ON bloom_contains(f.b, u.url) WHERE f.id = 1 UNION ALL SELECT 2, count(*), sum(u.id) FROM ps_f f JOIN ps_urls u ON NOT cuckoo_contains(f.k, u.url) WHERE f.id < 3'
SET enable_material = off;
SELECT * FROM explain_plan('COSTS OFF', 'CREATE TABLE ps_one_on AS ' || :'ps_one_q');
CREATE TABLE ps_one_on AS :ps_one_q;
SET bloomfilter.enable_probe_scan = off;
CREATE TABLE ps_one_off AS :ps_one_q;
RESET bloomfilter.enable_probe_scan;
RESET enable_material;
SELECT n, a.rows, a.rows = b.rows AND a.ids = b.ids AS same FROM ps_one_on a JOIN ps_one_off b USING (n) ORDER BY n;
RESET ALL;

-- the scans know the extension's functions by catalog OID, not by name or
-- C symbol: a function of the same name and C entry point that is not the
-- extension's gets the plain plan; the extension's, schema-qualified, the
-- probe scan
CREATE SCHEMA ps_other;
CREATE FUNCTION ps_other.bloom_contains(f bloomfilter, x text) RETURNS boolean
	AS 'bloomfilter', 'bloom_contains_text' LANGUAGE C IMMUTABLE;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE ps_other.bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM ps_urls WHERE public.bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)$$);
SELECT (SELECT count(*) FROM ps_urls WHERE ps_other.bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)) =
       (SELECT count(*) FROM ps_urls WHERE public.bloom_contains((SELECT b FROM ps_f WHERE id = 1), url)) AS same_answer;
DROP SCHEMA ps_other CASCADE;

DROP VIEW ps_barrier;
DROP FUNCTION ps_volatile_filter();
DROP MATERIALIZED VIEW ps_mv;
DROP TABLE ps_urls, ps_f, ps_parts, ps_seen, ps_cols, ps_wide, ps_par_on, ps_par_off, ps_one_on, ps_one_off, ps_ints, ps_norm, ps_norm_f;
DROP DOMAIN ps_posint;
DROP FUNCTION ps_same(text);
