--
-- counting_bloom_agg: distinct inputs once, self-sizing, sized, zero rows,
-- NULLs, every element type, and a forced parallel plan against serial
--
SET extra_float_digits = 0;

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

-- each distinct input in once: 1000 values seen 3 times each, plus NULLs
SELECT counting_bloom_info(f)->'count' AS count, counting_bloom_info(f)->'capacity' AS capacity,
       counting_bloom_info(f)->'fpr_target' AS fpr, counting_bloom_count(f, 1) AS n_1,
       counting_bloom_count(f, 1001) AS n_1001
  FROM (SELECT counting_bloom_agg(x) AS f
          FROM generate_series(1, 1000) x, generate_series(1, 3), (VALUES (1), (NULL)) n(y)
         WHERE y IS NOT NULL OR x % 2 = 0) s;
SELECT counting_bloom_agg(CASE WHEN x % 2 = 0 THEN x END) IS NOT NULL AS nulls_skipped,
       counting_bloom_info(counting_bloom_agg(CASE WHEN x % 2 = 0 THEN x END))->'count' AS count
  FROM generate_series(1, 100) x;
-- same filter as building it by hand with each distinct element once
SELECT bytea(counting_bloom_agg(x)) = bytea(counting_bloom_add(counting_bloom_create(100), ARRAY(SELECT generate_series(1, 100)::bigint))) AS same_as_adds
  FROM generate_series(1, 100) x, generate_series(1, 2);
SELECT bytea(counting_bloom_agg(x, 0.001)) = bytea(counting_bloom_add(counting_bloom_create(100, 0.001), ARRAY(SELECT generate_series(100, 1, -1)::bigint))) AS same_as_adds_fpr
  FROM generate_series(1, 100) x;
SELECT bytea(counting_bloom_agg(x, 500, 0.02)) = bytea(counting_bloom_add(counting_bloom_create(500, 0.02), ARRAY(SELECT generate_series(1, 100)::bigint))) AS same_as_adds_sized
  FROM generate_series(1, 100) x, generate_series(1, 5);
-- thousands of blocks, built straight into the packed form block by block
SELECT bytea(counting_bloom_agg(x, 40000, 0.01)) = bytea(counting_bloom_add(counting_bloom_create(40000, 0.01), ARRAY(SELECT generate_series(30000, 1, -1)::bigint))) AS same_as_adds_blocks
  FROM generate_series(1, 30000) x, generate_series(1, 2);
-- a sized state that has taken a quarter of its capacity grows straight to
-- the table the capacity needs: same filter, and one past capacity still fails
SELECT bytea(counting_bloom_agg(x, 20000, 0.01)) = bytea(counting_bloom_add(counting_bloom_create(20000, 0.01), ARRAY(SELECT generate_series(1, 20000)::bigint))) AS same_as_adds_after_jump
  FROM generate_series(1, 20000) x, generate_series(1, 2);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, 20000, 0.01) FROM generate_series(1, 20001) x$$);
-- every element type
SELECT counting_bloom_agg(x::text) @> '7'::text AS t, counting_bloom_agg(x::text::bytea) @> '7'::bytea AS b,
       counting_bloom_agg(x) @> 7::bigint AS i,
       counting_bloom_agg(md5(x::text)::uuid) @> md5('7')::uuid AS u,
       counting_bloom_agg(x::text, 0.001) @> '7'::text AS t2, counting_bloom_agg(x::text, 10, 0.01) @> '7'::text AS t3,
       counting_bloom_agg(x::text::bytea, 0.001) @> '7'::bytea AS b2, counting_bloom_agg(x::text::bytea, 10, 0.01) @> '7'::bytea AS b3,
       counting_bloom_agg(x, 0.001) @> 7 AS i2, counting_bloom_agg(x, 10, 0.01) @> 7 AS i3,
       counting_bloom_agg(md5(x::text)::uuid, 0.001) @> md5('7')::uuid AS u2,
       counting_bloom_agg(md5(x::text)::uuid, 10, 0.01) @> md5('7')::uuid AS u3
  FROM generate_series(1, 10) x;

-- zero rows: an empty filter with the asked geometry, never NULL
SELECT counting_bloom_info(counting_bloom_agg(x))->'capacity' AS cap_auto,
       counting_bloom_info(counting_bloom_agg(x, 0.001))->'fpr_target' AS fpr_auto,
       counting_bloom_info(counting_bloom_agg(x, 77, 0.02))->'capacity' AS cap_sized,
       counting_bloom_info(counting_bloom_agg(x, 77, 0.02))->'fpr_target' AS fpr_sized,
       bytea(counting_bloom_agg(x, 77, 0.02)) = bytea(counting_bloom_create(77, 0.02)) AS same_as_create
  FROM generate_series(1, 0) x;
SELECT NOT counting_bloom_contains(counting_bloom_agg(x), 5::bigint) AS empty_excludes
  FROM generate_series(1, 0) x;

-- errors: more distinct inputs than capacity; bad parameters
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, 99, 0.01) FROM generate_series(1, 100) x$$);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x % 99, 99, 0.01) FROM generate_series(1, 1000) x$$);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, 0, 0.01) FROM generate_series(1, 10) x$$);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, 0, 0.01) FROM generate_series(1, 0) x$$);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, 1.5) FROM generate_series(1, 10) x$$);
SELECT pg_temp.err($$SELECT counting_bloom_agg(x, NULL::float8) FROM generate_series(1, 10) x$$);

-- per group
SELECT g, counting_bloom_info(counting_bloom_agg(x))->'count' AS count,
       counting_bloom_agg(x) @> min(x) AS has_min, counting_bloom_agg(x) @> 31 AS has_31
  FROM generate_series(1, 30) x, LATERAL (SELECT x % 3 AS g) s
 GROUP BY g ORDER BY g;

-- Parallel vs serial: the same bytes.  Counters add commutatively and the
-- final function inserts the distinct hashes in a fixed order, so how a
-- parallel plan splits the rows cannot show in the result.
CREATE TABLE cb_par (id bigint, url text);
\copy cb_par(url) FROM PROGRAM 'gzip -dc ../shared/data/debian-homepages.txt.gz'
INSERT INTO cb_par(url) SELECT url FROM cb_par;	-- every URL twice
UPDATE cb_par SET id = length(url) * 1000 + ascii(url);
ANALYZE cb_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS
	SELECT bytea(counting_bloom_agg(url)) AS a, bytea(counting_bloom_agg(url, 0.001)) AS b,
	       bytea(counting_bloom_agg(url, 40000, 0.01)) AS c, bytea(counting_bloom_agg(id)) AS d
	  FROM cb_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
	SELECT counting_bloom_agg(url), counting_bloom_agg(url, 0.001), counting_bloom_agg(url, 40000, 0.01),
	       counting_bloom_agg(id) FROM cb_par;
CREATE TEMP TABLE par AS
	SELECT bytea(counting_bloom_agg(url)) AS a, bytea(counting_bloom_agg(url, 0.001)) AS b,
	       bytea(counting_bloom_agg(url, 40000, 0.01)) AS c, bytea(counting_bloom_agg(id)) AS d
	  FROM cb_par;
SELECT s.a = p.a AS auto_same, s.b = p.b AS fpr_same, s.c = p.c AS sized_same, s.d = p.d AS bigint_same,
       md5(p.a) AS golden_urls
  FROM serial s, par p;
SELECT counting_bloom_info(a::countingbloom)->'count' AS distinct_urls FROM par;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE cb_par;

-- a stored filter probed through a scan: stored packed (smaller than its
-- blocked layout, nothing left for TOAST to compress), probed through the
-- occupancy bits where they lie, and counted through the counters
-- unpacked once per query (cached with the detoasted value); every answer
-- must be what a fresh in-memory copy (never cached) gives
CREATE TABLE cb_occ AS SELECT counting_bloom_agg(i::bigint, 20000, 0.01) AS f FROM generate_series(1, 20000) i;
SELECT pg_column_size(f) = octet_length(f::bytea) AS not_compressed,
       octet_length(f::bytea) < 64 + 64 * (counting_bloom_info(f)->>'blocks')::int / 2 AS packed_under_half
  FROM cb_occ;
SELECT count(*) FILTER (WHERE counting_bloom_count((SELECT f FROM cb_occ), x::bigint) =
                              counting_bloom_count((SELECT f::bytea::countingbloom FROM cb_occ), x::bigint)) AS counts_agree,
       count(*) FILTER (WHERE x <= 20000 AND counting_bloom_count((SELECT f FROM cb_occ), x::bigint) < 1) AS counted_absent
  FROM generate_series(1, 30000) x;
SELECT count(*) FILTER (WHERE counting_bloom_contains((SELECT f FROM cb_occ), x::bigint)) AS via_cache,
       count(*) FILTER (WHERE counting_bloom_contains((SELECT f::bytea::countingbloom FROM cb_occ), x::bigint)) AS direct,
       count(*) FILTER (WHERE x <= 20000 AND NOT counting_bloom_contains((SELECT f FROM cb_occ), x::bigint)) AS false_negatives
  FROM generate_series(1, 200000) x;
SELECT count(*) FILTER (WHERE x::bigint <@ (SELECT f FROM cb_occ)) AS contained_via_cache
  FROM generate_series(1, 200000) x;
DROP TABLE cb_occ;
-- multiplicities from the packed counters (the stored value unpacked once
-- for the query, an in-memory copy read in place through a rank directory
-- on every call): never below the truth, exact for nearly every element,
-- the two ways the same; 1 .. 20000 once, 1 .. 5000 once more, 1 .. 1000
-- twice more
CREATE TABLE cb_mult AS
	SELECT counting_bloom_add(counting_bloom_create(40000, 0.01),
		ARRAY(SELECT generate_series(1, 20000)::bigint UNION ALL SELECT generate_series(1, 5000)
			  UNION ALL SELECT generate_series(1, 1000) UNION ALL SELECT generate_series(1, 1000))) AS f;
SELECT count(*) FILTER (WHERE c < m) AS undercounted,
       count(*) FILTER (WHERE c = m) * 100 / count(*) >= 97 AS exact_97pct,
       count(*) FILTER (WHERE c <> counting_bloom_count((SELECT f::bytea::countingbloom FROM cb_mult), x)) AS cache_differs,
       min(c) FILTER (WHERE m = 4) AS min_of_4s
  FROM (SELECT x::bigint AS x, CASE WHEN x <= 1000 THEN 4 WHEN x <= 5000 THEN 2 ELSE 1 END AS m,
               counting_bloom_count((SELECT f FROM cb_mult), x::bigint) AS c
          FROM generate_series(1, 20000) x) s;
DROP TABLE cb_mult;
