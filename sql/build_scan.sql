--
-- the build scan (bloomfilter.enable_build_scan): bloom_agg(x),
-- counting_bloom_agg and cuckoo_agg of a table's column (every row, or the
-- rows a WHERE clause keeps; a partitioned table's partitions one after
-- another), built a heap page at a time in place of the Agg node and its
-- Seq Scan (or Append of them).  Where the planner uses it, and
-- that it builds exactly the bytes the Agg node builds.
--
SET max_parallel_workers_per_gather = 0;
-- the planner offers the scan once the module is loaded in the session: a
-- call of any of its functions does that, or session_preload_libraries
LOAD 'bloomfilter';

-- 20,000 rows over many pages: repeats, NULLs, values stored compressed
-- and out of line, a dropped column before the aggregated ones, and dead
-- tuples the scan must not see
CREATE TABLE bs_t (id int, dropped text, url text, v varchar, b bytea, n bigint,
                   i4 int, i2 smallint, u uuid, raw text);
ALTER TABLE bs_t DROP COLUMN dropped;
INSERT INTO bs_t
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 1000 = 1 THEN repeat('https://example.com/long/', 400) || i
            WHEN i % 1000 = 2 THEN (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 300) j)
            ELSE 'https://example.com/page/' || (i % 15000) END,
       'https://example.com/page/' || i,
       convert_to('https://example.com/page/' || (i % 12000), 'UTF8'),
       i % 12000,
       i,
       (i % 30000)::smallint,
       md5(i::text)::uuid,
       CASE WHEN i % 3 = 0 THEN 'HTTP://Example.COM:80/a/./b/../c?x=' || i || '#frag'
            ELSE 'https://example.com/' || i END
FROM generate_series(1, 20000) i;
ALTER TABLE bs_t ALTER COLUMN url SET STORAGE EXTERNAL;
UPDATE bs_t SET url = url || '' WHERE id % 1000 = 2;
DELETE FROM bs_t WHERE id % 50 = 7;
SELECT count(*) AS live_rows,
       count(*) FILTER (WHERE pg_column_compression(url) IS NOT NULL) AS compressed,
       count(*) FILTER (WHERE octet_length(url) > 8000) AS long_values
FROM bs_t;
CREATE TABLE bs_empty (url text, n bigint);
CREATE TABLE bs_nulls (url text, n bigint);
INSERT INTO bs_nulls SELECT NULL, NULL FROM generate_series(1, 100);
CREATE TABLE bs_gone (url text);
INSERT INTO bs_gone SELECT 'x' || i FROM generate_series(1, 100) i;
DELETE FROM bs_gone;
CREATE MATERIALIZED VIEW bs_mv AS SELECT url FROM bs_t;
ANALYZE bs_t, bs_empty, bs_nulls, bs_gone;

-- same(q): q's one value with the build scan and without it; says how
-- big it is, whether the build scan was in the plan, whether the two agree
CREATE FUNCTION bs_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used bool := false;
	used_off bool := false;
	a text;
	b text;
BEGIN
	PERFORM set_config('bloomfilter.enable_build_scan', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%BloomBuildScan%';
	END LOOP;
	EXECUTE q INTO a;
	PERFORM set_config('bloomfilter.enable_build_scan', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used_off := used_off OR line LIKE '%BloomBuildScan%';
	END LOOP;
	EXECUTE q INTO b;
	PERFORM set_config('bloomfilter.enable_build_scan', 'on', true);
	RETURN format('%s chars, build scan %s, same %s', coalesce(length(a)::text, 'NULL'),
				  CASE WHEN used_off THEN 'used with it off!' WHEN used THEN 'used' ELSE 'not used' END,
				  a IS NOT DISTINCT FROM b);
END $$;

-- the plan
SELECT * FROM explain_plan('COSTS OFF', $$SELECT cuckoo_agg(url, 30000, 0.01) FROM bs_t$$);
SELECT * FROM explain_plan('VERBOSE, COSTS OFF', $$SELECT cuckoo_agg(url) IS NOT NULL AS built FROM bs_t$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(url_normalize(raw)) FROM bs_t$$);
-- with it off, the Agg node
SET bloomfilter.enable_build_scan = off;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT cuckoo_agg(url, 30000, 0.01) FROM bs_t$$);
RESET bloomfilter.enable_build_scan;

-- every aggregate it builds, every form, every element type and column
-- form: the same bytes as the Agg node
SELECT agg, col, args, bs_same(format('SELECT %s(%s%s) FROM bs_t', agg, col, args))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES ('url'), ('v'), ('b'), ('n'), ('i4'), ('i2'), ('u'), ('url_normalize(raw)')) c(col),
     (VALUES (''), (', 0.001'), (', 30000, 0.01')) f(args)
ORDER BY 1, 2, 3;
-- any other expression of the row: evaluated on each row, as the Agg node
-- evaluates the call's argument
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(lower(url)) FROM bs_t WHERE id > 10$$);
SELECT agg, col, bs_same(format('SELECT %s(%s) FROM bs_t', agg, col))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES ('lower(url)'), ('url || v'), ('length(url)'), ('n * 7 + i2'), ('md5(raw)::uuid'),
             ('decode(md5(url), ''hex'')'), ('nullif(url, ''https://example.com/page/7'')'),
             ('bs_t::text'), ('url || (SELECT ''x'')')) c(col)
ORDER BY 1, 2;
SELECT bs_same('SELECT bloom_agg(lower(url), 30000, 0.01) FROM bs_t WHERE id % 3 = 0');
-- an expression that raises an error raises it in the build scan too
SELECT bloom_agg((1 / (id - 5000))::text) FROM bs_t;

-- no rows, only NULLs, only dead rows: as the Agg node (the final
-- function on no state at all, or on an empty one)
SELECT t, agg, args, bs_same(format('SELECT %s(url%s) FROM %s', agg, args, t))
FROM (VALUES ('bs_empty'), ('bs_nulls'), ('bs_gone')) t(t),
     (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES (''), (', 0.05'), (', 1000, 0.01')) f(args)
ORDER BY 1, 2, 3;

-- around the aggregate: an expression of it, the same call twice, a
-- materialized view, a scalar subquery (an InitPlan), INSERT ... SELECT
SELECT bs_same('SELECT cuckoo_agg(url) IS NOT NULL AND length(cuckoo_agg(url)::text) > 100 FROM bs_t');
SELECT bs_same('SELECT bloom_agg(url) FROM bs_mv');
SELECT bs_same('SELECT count(*) FROM bs_t WHERE NOT bloom_contains((SELECT bloom_agg(b) FROM bs_t), convert_to(url, ''UTF8''))');
SELECT bs_same('SELECT g, md5(x::bytea) FROM generate_series(1, 3) g, (SELECT counting_bloom_agg(n) x FROM bs_t) s ORDER BY g LIMIT 1');
CREATE TABLE bs_out (k text, f cuckoofilter);
INSERT INTO bs_out SELECT 'on', cuckoo_agg(u) FROM bs_t;
SET bloomfilter.enable_build_scan = off;
INSERT INTO bs_out SELECT 'off', cuckoo_agg(u) FROM bs_t;
RESET bloomfilter.enable_build_scan;
SELECT count(DISTINCT f::bytea) AS distinct_values, count(*) FROM bs_out;

-- what the transaction sees: its own deletes, not another snapshot's rows
BEGIN;
DELETE FROM bs_t WHERE id < 5000;
SELECT bs_same('SELECT cuckoo_agg(url) FROM bs_t');
SELECT cuckoo_info(cuckoo_agg(url))->'count' AS count_after_delete FROM bs_t;
ROLLBACK;
SELECT cuckoo_info(cuckoo_agg(url))->'count' AS count FROM bs_t;

-- a prepared statement sees the rows of each execution
PREPARE bs_p AS SELECT cuckoo_info(cuckoo_agg(n))->'count' AS count FROM bs_t;
EXECUTE bs_p;
INSERT INTO bs_t (id, n) SELECT i, 100000 + i FROM generate_series(1, 10) i;
EXECUTE bs_p;
DEALLOCATE bs_p;

-- a WHERE clause: the Seq Scan's filter, tested on each visible tuple of
-- the page before its element is read
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(url) FROM bs_t WHERE id % 3 = 0 AND url LIKE '%page/1%'$$);
SELECT * FROM explain_plan('ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF', $$SELECT cuckoo_agg(url, 30000, 0.01) FROM bs_t WHERE id % 3 = 0$$);
SELECT count(*) FILTER (WHERE id % 3 <> 0) AS removed_by_filter FROM bs_t;
-- each aggregate and form, under clauses of every sort: on other columns
-- and on the element's, on long and compressed values, on system columns
-- and the whole row, with an InitPlan's value; none passing (the final
-- function on no state) and only NULL elements passing (on an empty one)
SELECT w, agg, args, bs_same(format('SELECT %s(%s%s) FROM bs_t WHERE %s', agg, col, args, w))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES (''), (', 30000, 0.01')) f(args),
     (VALUES ('id > 10', 'url'),
             ('id % 3 = 0 AND url LIKE ''%page/1%''', 'url'),
             ('url IS NULL', 'url'),
             ('id < 0', 'url'),
             ('length(url) > 8000 OR pg_column_compression(url) IS NOT NULL', 'url'),
             ('n = ANY (''{1, 2, 3, 4000}'') AND v IS NOT NULL', 'v'),
             ('(ctid::text::point)[0] >= 50 AND tableoid = ''bs_t''::regclass', 'n'),
             ('bs_t::text LIKE ''%7%''', 'u'),
             ('id > (SELECT 15000)', 'i2'),
             ('raw LIKE ''HTTP%''', 'url_normalize(raw)')) c(w, col)
ORDER BY 1, 2, 3;
-- a FILTER clause on the call: one more clause, tested after the WHERE
-- clause (no row passing it: the final function on no state)
SELECT * FROM explain_plan('ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF', $$SELECT cuckoo_agg(url) FILTER (WHERE n % 2 = 0) FROM bs_t WHERE id % 3 = 0$$);
SELECT count(*) FILTER (WHERE id % 3 <> 0 OR n % 2 <> 0 OR n IS NULL) AS removed_by_filter FROM bs_t;
SELECT f, agg, args, bs_same(format('SELECT %s(url%s) FILTER (WHERE %s) FROM bs_t %s', agg, args, f, w))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES (''), (', 30000, 0.01')) g(args),
     (VALUES ('id > 10', ''), ('n % 2 = 0', 'WHERE id % 3 = 0'), ('id < 0', ''),
             ('url LIKE ''%page/1%''', 'WHERE n > 100')) c(f, w)
ORDER BY 1, 2, 3;
-- a clause that raises an error raises it in the build scan too
SELECT bloom_agg(url) FROM bs_t WHERE 1 / (id - 5000) > 0;
-- run again for each outer row, with that row's value in its clause
SELECT bs_same('SELECT string_agg(x, '','' ORDER BY g) FROM (SELECT g, (SELECT md5(bloom_agg(url)::bytea) FROM bs_t WHERE id % 4 = g) x FROM generate_series(0, 2) g) s');
SELECT count(DISTINCT (SELECT md5(bloom_agg(url)::bytea) FROM bs_t WHERE id % 4 = g)) AS distinct_filters
FROM generate_series(0, 2) g;
-- and for each row of a LATERAL join: the inner side of a nested loop
SELECT * FROM explain_plan('COSTS OFF', $$SELECT g, f FROM generate_series(0, 2) g, LATERAL (SELECT cuckoo_agg(url) f FROM bs_t WHERE id % 4 = g) s$$);
SELECT bs_same('SELECT string_agg(md5(f::bytea), '','' ORDER BY g) FROM generate_series(0, 2) g, LATERAL (SELECT cuckoo_agg(url) f FROM bs_t WHERE id % 4 = g) s');
SELECT bs_same('SELECT string_agg(md5(f::bytea), '','' ORDER BY g) FROM generate_series(0, 2) g, LATERAL (SELECT cuckoo_agg(url || g) f FROM bs_t) s');
-- a generic plan's parameter, and a PL/pgSQL variable
SET plan_cache_mode = force_generic_plan;
PREPARE bs_w(int) AS SELECT cuckoo_info(cuckoo_agg(n))->'count' AS count FROM bs_t WHERE id > $1;
SELECT * FROM explain_plan('COSTS OFF', $$EXECUTE bs_w(19000)$$);
EXECUTE bs_w(19000);
EXECUTE bs_w(19990);
DEALLOCATE bs_w;
PREPARE bs_e(text) AS SELECT md5(bloom_agg(url || $1)::bytea) FROM bs_t;
SELECT * FROM explain_plan('COSTS OFF', $$EXECUTE bs_e('a')$$);
SELECT (SELECT md5(bloom_agg(url || 'a')::bytea) FROM bs_t) AS a,
       (SELECT md5(bloom_agg(url || 'b')::bytea) FROM bs_t) AS b \gset
SET bloomfilter.enable_build_scan = off;
EXECUTE bs_e('a') \gset off_a_
RESET bloomfilter.enable_build_scan;
EXECUTE bs_e('a') \gset on_a_
EXECUTE bs_e('b') \gset on_b_
SELECT :'on_a_md5' = :'a' AS param_a, :'on_b_md5' = :'b' AS param_b, :'a' <> :'b' AS differ,
       :'off_a_md5' = :'a' AS off_a;
DEALLOCATE bs_e;
RESET plan_cache_mode;
SELECT count(*) FILTER (WHERE id > 19000) AS over_19000,
       count(*) FILTER (WHERE id > 19990) AS over_19990 FROM bs_t;
CREATE FUNCTION bs_count(lim int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT (cuckoo_info(cuckoo_agg(n))->>'count')::bigint FROM bs_t WHERE id > lim);
END $$;
SELECT bs_count(19000), bs_count(19990);
-- an index that answers the clause more cheaply: the planner takes it
CREATE INDEX bs_t_id ON bs_t (id);
SELECT bs_same('SELECT bloom_agg(url) FROM bs_t WHERE id = 100');
DROP INDEX bs_t_id;

-- not its job: the usual plan, the usual answer
SELECT q, bs_same(q) FROM (VALUES
	('SELECT cuckoo_agg(url) FROM bs_t WHERE url <> ALL (SELECT url FROM bs_mv LIMIT 3)'),
	('SELECT cuckoo_agg(url) FROM bs_t WHERE now() > ''2000-01-01'''),
	('SELECT md5(cuckoo_agg(url)::bytea) FROM bs_t GROUP BY id % 2 ORDER BY 1 LIMIT 1'),
	('SELECT cuckoo_agg(url) FILTER (WHERE url IN (SELECT url FROM bs_mv LIMIT 3)) FROM bs_t'),
	('SELECT cuckoo_agg(DISTINCT url) FROM bs_t'),
	('SELECT cuckoo_agg(url), count(*) FROM bs_t'),
	('SELECT cuckoo_agg(url), cuckoo_agg(v) FROM bs_t'),
	('SELECT bloom_agg((SELECT m.url FROM bs_mv m WHERE m.url = t.url LIMIT 1)) FROM bs_t t'),
	('SELECT bloom_agg(url, id / 1e6::float8) FROM bs_t'),
	('SELECT bloom_agg(t.url) FROM bs_t t JOIN bs_mv m ON m.url = t.url'),
	('SELECT bloom_agg(url) FROM bs_t TABLESAMPLE SYSTEM (100) REPEATABLE (1)')
) v(q) ORDER BY 1;

-- arguments the transition rejects: its error, at the first row
SELECT cuckoo_agg(url, 0, 0.01) FROM bs_t;
SELECT cuckoo_agg(url, 1000, 1.5) FROM bs_t;
SELECT cuckoo_agg(url, 0, 0.01) IS NULL AS no_rows_no_error FROM bs_empty;
-- and the final function's: more distinct inputs than the capacity
SELECT counting_bloom_agg(url, 100, 0.01) FROM bs_t;
-- a filter too big for one value: bloom_agg(x, capacity, fpr)'s error, at the first row
SELECT bloom_agg(url, 4000000000000, 0.0001) FROM bs_t;

-- an inheritance parent: its own rows and its children's, table by table
CREATE TABLE bs_parent (url text);
CREATE TABLE bs_child () INHERITS (bs_parent);
INSERT INTO bs_parent VALUES ('p');
INSERT INTO bs_child VALUES ('a'), ('b');
SELECT * FROM explain_plan('COSTS OFF', $$SELECT cuckoo_agg(url) FROM bs_parent$$);
SELECT bs_same('SELECT cuckoo_agg(url) FROM bs_parent');
SELECT cuckoo_info(cuckoo_agg(url))->'count' AS count FROM bs_parent;
SELECT bs_same('SELECT cuckoo_agg(url) FROM ONLY bs_parent');

-- a partitioned table: partitions whose columns sit at other positions
-- (one made with its own column order and a dropped column, then
-- attached), a partition partitioned again, a default partition, one
-- left empty; the partitions a WHERE clause prunes are not read
CREATE TABLE bs_part (k int, url text, n bigint) PARTITION BY RANGE (k);
CREATE TABLE bs_part_1 PARTITION OF bs_part FOR VALUES FROM (0) TO (5000);
CREATE TABLE bs_part_2 (gone int, n bigint, url text, k int);
ALTER TABLE bs_part_2 DROP COLUMN gone;
ALTER TABLE bs_part ATTACH PARTITION bs_part_2 FOR VALUES FROM (5000) TO (10000);
CREATE TABLE bs_part_3 PARTITION OF bs_part FOR VALUES FROM (10000) TO (20000)
	PARTITION BY LIST ((k % 2));
CREATE TABLE bs_part_3e PARTITION OF bs_part_3 FOR VALUES IN (0);
CREATE TABLE bs_part_3o PARTITION OF bs_part_3 FOR VALUES IN (1);
CREATE TABLE bs_part_empty PARTITION OF bs_part FOR VALUES FROM (30000) TO (40000);
CREATE TABLE bs_part_def PARTITION OF bs_part DEFAULT;
INSERT INTO bs_part SELECT id, url, n FROM bs_t;
INSERT INTO bs_part VALUES (25000, 'https://example.com/default', 1), (-1, NULL, NULL);
ANALYZE bs_part;
SELECT tableoid::regclass AS partition, count(*) FROM bs_part GROUP BY 1 ORDER BY 1;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(url) FROM bs_part$$);
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(url) FROM bs_part WHERE k >= 5000 AND k < 12000 AND n > 10$$);
SELECT * FROM explain_plan('VERBOSE, COSTS OFF', $$SELECT bloom_agg(url) FROM bs_part WHERE k >= 5000 AND k < 12000$$);
SELECT w, col, agg, args, bs_same(format('SELECT %s(%s%s) FROM bs_part %s', agg, col, args, w))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg),
     (VALUES (''), (', 30000, 0.01')) f(args),
     (VALUES ('', 'url'), ('', 'n'), ('', 'url || k'), ('', 'bs_part::text'),
             ('WHERE bs_part::text LIKE ''%7%''', 'url'),
             ('WHERE k >= 5000 AND k < 12000 AND n > 10', 'url'),
             ('WHERE k % 3 = 0', 'n'),
             ('WHERE k > 100000', 'url')) c(w, col)
ORDER BY 1, 2, 3, 4;
-- a FILTER clause, in each partition's columns
SELECT agg, bs_same(format('SELECT %s(url) FILTER (WHERE n %% 2 = 0 AND url > %L) FROM bs_part WHERE k > 3000',
						   agg, 'https://example.com/page/3'))
FROM (VALUES ('bloom_agg'), ('counting_bloom_agg'), ('cuckoo_agg')) a(agg) ORDER BY 1;
-- the same filter as the rows gathered into one plain table
CREATE TABLE bs_part_copy AS SELECT * FROM bs_part;
SELECT (SELECT cuckoo_agg(url)::bytea FROM bs_part) = (SELECT cuckoo_agg(url)::bytea FROM bs_part_copy)
	AS same_as_one_table;

-- a foreign table among the partitions: the usual plan
CREATE EXTENSION file_fdw;
CREATE SERVER bs_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE bs_part_ft PARTITION OF bs_part FOR VALUES FROM (50000) TO (60000)
	SERVER bs_files OPTIONS (filename '/dev/null');
SELECT bs_same('SELECT bloom_agg(url) FROM bs_part');
SELECT bs_same('SELECT bloom_agg(url) FROM bs_part WHERE k < 50000');
DROP FOREIGN TABLE bs_part_ft;
DROP SERVER bs_files;
DROP EXTENSION file_fdw;

-- a user's aggregate made of the module's functions, with an initial
-- state (a keyset holding one element): not one of the extension's
-- aggregates, so the usual plan, which starts from that state
CREATE AGGREGATE bs_user_agg(text) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset, FINALFUNC = bloom_keyset_final,
	INITCOND = 'BQEBAAAAAAAAAAAAAAAAAAAAAAABAAEAAAAAAHsUrkfheoQ/AAAAAAAAAAABAAAAAAAAAGknVw+3yIL+');
SELECT bs_same('SELECT bs_user_agg(url) FROM bs_t');
SELECT bloom_contains(bs_user_agg(url), 'initial-element') AS initial_kept,
	   bloom_contains(bloom_agg(url), 'initial-element') AS not_in_table
FROM bs_t;
DROP AGGREGATE bs_user_agg(text);

-- a session's first statement gets the plan later ones get: planning the
-- aggregate's costs calls its final function's support, which loads the
-- module (a new session here: nothing has loaded it yet)
\c -
SELECT count(*) AS module_loaded FROM pg_settings WHERE name = 'bloomfilter.enable_build_scan';
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(url) FROM bs_t;
\c -
EXPLAIN (COSTS OFF) SELECT bloom_agg(url, 30000, 0.01) FROM bs_t;

DROP TABLE bs_t, bs_empty, bs_nulls, bs_gone, bs_out, bs_parent, bs_part, bs_part_copy CASCADE;
DROP FUNCTION bs_same(text), bs_count(int);
