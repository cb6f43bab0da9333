--
-- stablebloom: stable_bloom_seen as a window aggregate, stable_bloom_agg
-- over ordered streams, empty input, and why neither runs in parallel parts
--
SET max_parallel_workers_per_gather = 0;

-- err(sql): run sql, show its SQLSTATE and message instead of failing
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- the lines of a plan
CREATE FUNCTION pg_temp.plan(sql text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
		RETURN NEXT line;
	END LOOP;
END $$;

-- a small stream with repeats 20, 120 and 400 rows apart and fresh URLs,
-- into a filter small enough (3000 cells: memory half-life 202 inserts)
-- that it also forgets
CREATE TABLE sb_clicks AS
SELECT i AS ts,
       CASE i % 4 WHEN 0 THEN 'n' || (i % 20) WHEN 1 THEN 'm' || (i % 120)
                  WHEN 2 THEN 'f' || (i % 400) ELSE 'x' || i END AS url
FROM generate_series(1, 800) i;
SELECT stable_bloom_info(stable_bloom_create(3000))->>'memory_half_life' AS half_life;

-- stable_bloom_seen(x) OVER (ORDER BY ts) answers, row by row, exactly
-- what a filter built from the rows before it says about x
SELECT count(*) AS rows,
       count(*) FILTER (WHERE w.seen) AS seen,
       count(*) FILTER (WHERE w.seen IS DISTINCT FROM
           stable_bloom_contains((SELECT stable_bloom_agg(c2.url, 3000, 0.01 ORDER BY c2.ts)
                                  FROM sb_clicks c2 WHERE c2.ts < w.ts), w.url)) AS mismatches
FROM (SELECT ts, url, stable_bloom_seen(url, 3000, 0.01) OVER (ORDER BY ts) AS seen FROM sb_clicks) w;
-- it forgets: repeats far apart are mostly not seen, close ones are
SELECT gap_bucket, count(*) AS repeats, count(*) FILTER (WHERE seen) AS seen
FROM (SELECT ts - lag(ts) OVER (PARTITION BY url ORDER BY ts) AS gap,
             stable_bloom_seen(url, 3000, 0.01) OVER (ORDER BY ts) AS seen
      FROM sb_clicks) w,
     LATERAL (SELECT gap::text AS gap_bucket) b
WHERE gap IS NOT NULL
GROUP BY gap_bucket ORDER BY gap_bucket::int;

-- the first rows of the README example, with the default filter
SELECT ts, url, stable_bloom_seen(url) OVER (ORDER BY ts) AS seen
FROM (VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'c'), (5, 'b'), (6, 'a')) v(ts, url)
ORDER BY ts;

-- NULL elements answer NULL and insert nothing
SELECT ts, x, stable_bloom_seen(x) OVER (ORDER BY ts) AS seen
FROM (VALUES (1, 'a'), (2, NULL), (3, 'a'), (4, NULL), (5, 'b')) v(ts, x)
ORDER BY ts;
-- every element type
SELECT bool_and(s1 IS NOT DISTINCT FROM s2) AND bool_and(s1 IS NOT DISTINCT FROM s3)
       AND bool_and(s1 IS NOT DISTINCT FROM s4) AS types_agree,
       count(*) FILTER (WHERE s1) AS seen
FROM (SELECT stable_bloom_seen(g % 10) OVER w AS s1,
             stable_bloom_seen((g % 10)::bigint) OVER w AS s2,
             stable_bloom_seen(md5((g % 10)::text)::uuid) OVER w AS s3,
             stable_bloom_seen(int8send(g % 10)) OVER w AS s4
      FROM generate_series(1, 30) g WINDOW w AS (ORDER BY g)) s;

-- peers: in the default RANGE frame, rows with the same ts are peers and
-- all get the answer of the last of them processed; ROWS gives each row
-- its own answer (so does a unique ORDER BY)
SELECT ts, x,
       stable_bloom_seen(x) OVER (ORDER BY ts) AS range_frame,
       stable_bloom_seen(x) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rows_frame
FROM (VALUES (1, 1, 'a'), (2, 2, 'a'), (3, 2, 'b'), (4, 3, 'c')) v(id, ts, x)
ORDER BY id;

-- PARTITION BY: one independent stream (and filter) per partition
SELECT site, ts, url, stable_bloom_seen(url) OVER (PARTITION BY site ORDER BY ts) AS seen
FROM (VALUES ('s1', 1, 'a'), ('s2', 2, 'a'), ('s1', 3, 'a'), ('s2', 4, 'b')) v(site, ts, url)
ORDER BY ts;

-- the same stream gives the same answers with the explicit parameters
SELECT bool_and(a IS NOT DISTINCT FROM b) AS defaults_match_explicit
FROM (SELECT stable_bloom_seen(url) OVER w AS a,
             stable_bloom_seen(url, 1000000, 0.01, 3) OVER w AS b
      FROM sb_clicks WINDOW w AS (ORDER BY ts)) s;

-- batches: stable_bloom_seen(x, start) continues the stream of a stored
-- filter, and stable_bloom_add(f, array_agg(x ORDER BY ts)) moves the
-- stored filter on; batch by batch gives exactly the answers and bytes of
-- one pass over the whole stream
CREATE TABLE sb_batches AS SELECT g AS ts, (g % 700)::text AS url FROM generate_series(1, 3000) g;
CREATE TABLE sb_store AS
SELECT stable_bloom_agg(url, 20000, 0.01 ORDER BY ts) AS f FROM sb_batches WHERE ts <= 1800;
SELECT count(*) AS batch_rows,
       count(*) FILTER (WHERE b.seen) AS seen,
       count(*) FILTER (WHERE b.seen IS DISTINCT FROM w.seen) AS differ_from_one_pass
FROM (SELECT ts, stable_bloom_seen(url, (SELECT f FROM sb_store)) OVER (ORDER BY ts) AS seen
      FROM sb_batches WHERE ts > 1800) b
JOIN (SELECT ts, stable_bloom_seen(url, 20000, 0.01) OVER (ORDER BY ts) AS seen FROM sb_batches) w USING (ts);
UPDATE sb_store SET f = stable_bloom_add(f, (SELECT array_agg(url ORDER BY ts) FROM sb_batches WHERE ts > 1800));
SELECT bytea(f) = (SELECT bytea(stable_bloom_agg(url, 20000, 0.01 ORDER BY ts)) FROM sb_batches) AS stored_equals_one_pass
FROM sb_store;
SELECT pg_temp.err($$SELECT stable_bloom_seen(x, NULL::stablebloom) OVER () FROM (VALUES ('a')) v(x)$$) AS null_start;
DROP TABLE sb_batches, sb_store;

-- stable_bloom_agg as a window function: the running filter; its last
-- value is the aggregate over the whole ordered stream
SELECT bytea(f) = (SELECT bytea(stable_bloom_agg(url, 3000, 0.01 ORDER BY ts)) FROM sb_clicks) AS running_ends_at_agg,
       (stable_bloom_info(f)->>'inserted')::int AS inserted
FROM (SELECT ts, stable_bloom_agg(url, 3000, 0.01) OVER (ORDER BY ts) AS f FROM sb_clicks) s
ORDER BY ts DESC LIMIT 1;

-- zero rows: an empty filter with the parameters asked for, never NULL
SELECT stable_bloom_agg(x) IS NULL AS is_null,
       stable_bloom_info(stable_bloom_agg(x))->>'cells' AS cells,
       stable_bloom_info(stable_bloom_agg(x))->>'inserted' AS inserted
FROM (SELECT 'a'::text AS x WHERE false) s;
SELECT stable_bloom_info(stable_bloom_agg(x, 5000, 0.02, 4)) - 'fnr_after' - 'fpr_bound' - 'stable_fill' - 'memory_half_life' AS empty_sized
FROM (SELECT 'a'::text AS x WHERE false) s;
-- NOT stable_bloom_contains over an empty aggregate keeps every row
SELECT count(*) AS kept
FROM generate_series(1, 100) g
WHERE NOT stable_bloom_contains((SELECT stable_bloom_agg(x::text) FROM generate_series(1, 0) x), g::text);
-- all-NULL input is an empty filter; as a plain aggregate, seen over zero
-- rows is NULL
SELECT stable_bloom_info(stable_bloom_agg(x))->>'inserted' AS inserted
FROM (VALUES (NULL::text), (NULL)) v(x);
SELECT stable_bloom_seen(x) IS NULL AS seen_null FROM (SELECT 'a'::text AS x WHERE false) s;

-- no partial aggregation: a stable filter depends on the order of its
-- stream, so halves cannot be merged and the planner gets no combine
-- function.  Even with parallelism forced the aggregate runs whole, and
-- its bytes are the serial ones.
CREATE TABLE sb_stream AS SELECT g AS ts, (g % 5000)::text AS x FROM generate_series(1, 100000) g;
ANALYZE sb_stream;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- (the control: count(*) over the same table does get a partial plan)
SELECT (SELECT count(*) FROM pg_temp.plan($$SELECT count(*) FROM sb_stream$$) l
        WHERE l ~ 'Partial Aggregate') AS control_partial,
       (SELECT count(*) FROM pg_temp.plan($$SELECT stable_bloom_agg(x ORDER BY ts) FROM sb_stream$$) l
        WHERE l ~ 'Partial Aggregate') AS stable_agg_partial,
       (SELECT count(*) FROM pg_temp.plan($$SELECT stable_bloom_agg(x) FROM sb_stream$$) l
        WHERE l ~ 'Partial Aggregate') AS unordered_partial;
SELECT md5(bytea(stable_bloom_agg(x, 20000, 0.01 ORDER BY ts))) AS parallel_settings
FROM sb_stream;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
SELECT md5(bytea(stable_bloom_agg(x, 20000, 0.01 ORDER BY ts))) AS serial
FROM sb_stream;

DROP TABLE sb_clicks, sb_stream;
