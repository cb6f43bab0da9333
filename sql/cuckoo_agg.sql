-- cuckoo_agg: zero rows, NULLs, distinct inputs, every element type, the
-- sized form, errors, and a forced parallel plan giving the same bytes as
-- a serial one.

-- zero rows: an empty filter, never NULL (with the parameters asked for)
SELECT f IS NOT NULL AS not_null, cuckoo_info(f)->'count' AS count, f @> 'x'::text AS has_x
FROM (SELECT cuckoo_agg(t) AS f FROM (SELECT 'a'::text AS t) s WHERE false) z;
SELECT cuckoo_info(cuckoo_agg(g, 0.001))->'fingerprint_bits' AS fp_bits
FROM generate_series(1, 0) g;
SELECT cuckoo_info(f)->'capacity_requested' AS capacity, cuckoo_info(f)->'fpr_target' AS fpr
FROM (SELECT cuckoo_agg(g, 5000, 0.02) AS f FROM generate_series(1, 0) g) z;
-- NULL rows are skipped; repeated inputs go in once
SELECT cuckoo_info(f)->'count' AS count, cuckoo_count(f, 'a'::text) AS a, cuckoo_count(f, 'b'::text) AS b
FROM (SELECT cuckoo_agg(x) AS f FROM unnest(ARRAY['a', NULL, 'b', 'a', 'a', NULL]::text[]) x) s;
SELECT cuckoo_info(cuckoo_agg(x::text))->'count' FROM (VALUES (NULL), (NULL)) v(x);
-- every element type
SELECT cuckoo_agg(x) @> '\x01'::bytea AS bytea_in, cuckoo_agg(x) @> '\x03'::bytea AS bytea_out
FROM unnest(ARRAY['\x01', '\x02']::bytea[]) x;
SELECT cuckoo_agg(x) @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid_in
FROM unnest(ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']::uuid[]) x;
SELECT cuckoo_agg(g) @> 77::bigint AS bigint_in, cuckoo_agg(g::bigint, 100, 0.01) @> 77::bigint AS sized_in
FROM generate_series(1, 100) g;
-- tiny inputs still get one table with no victim
SELECT n, (cuckoo_info(f)->>'tables')::int AS tables, (cuckoo_info(f)->>'victims')::int AS victims,
       (SELECT bool_and(f @> g::bigint) FROM generate_series(1, n) g) AS all_in
FROM (SELECT n, (SELECT cuckoo_agg(g::bigint) FROM generate_series(1, n) g) AS f
      FROM unnest(ARRAY[1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 64, 100]) n) s
ORDER BY n;
-- the sized form starts as cuckoo_create(capacity, fpr) and grows past it
SELECT (cuckoo_info(f)->>'capacity_requested')::int AS capacity, (cuckoo_info(f)->>'tables')::int > 1 AS grew,
       (cuckoo_info(f)->>'count')::int AS count,
       (SELECT count(*) FROM generate_series(1, 5000) g WHERE NOT f @> g::bigint) AS false_negatives
FROM (SELECT cuckoo_agg(g::bigint, 100, 0.01) AS f FROM generate_series(1, 5000) g, generate_series(1, 2)) s;
-- the sized form inserts in an order unrelated to buckets, so every table
-- it fills before growing is nearly full (ascending hash order would fill
-- a small first table's low buckets only)
SELECT count(*) > 3 AS several_sealed, bool_and((t->>'load')::float8 > 0.9) AS sealed_nearly_full
FROM (SELECT cuckoo_agg(md5(g::text), 100, 0.01) AS f FROM generate_series(1, 20000) g) s,
     jsonb_array_elements(cuckoo_info(f)->'table_info') t
WHERE (t->>'victim')::boolean;
-- the order rows arrive in does not matter
SELECT (SELECT cuckoo_agg(g::text) FROM generate_series(1, 3000) g)::bytea =
       (SELECT cuckoo_agg(g::text) FROM (SELECT g FROM generate_series(1, 3000) g ORDER BY md5(g::text)) s)::bytea
       AS order_independent;
-- GROUP BY
SELECT g % 3 AS k, (cuckoo_info(cuckoo_agg(g))->>'count')::int AS count
FROM generate_series(1, 300) g GROUP BY 1 ORDER BY 1;

-- errors
\set VERBOSITY sqlstate
SELECT cuckoo_agg(g, 0, 0.01) FROM generate_series(1, 10) g;
SELECT cuckoo_agg(g, 10, 1.0) FROM generate_series(1, 10) g;
SELECT cuckoo_agg(g, 0.0) FROM generate_series(1, 10) g;
SELECT cuckoo_agg(g, NULL::float8) FROM generate_series(1, 10) g;
\set VERBOSITY default
SELECT cuckoo_agg(g, -1, 0.01) FROM generate_series(1, 10) g;

-- parallel: partial states built by workers, merged, finalized; the
-- filter is byte for byte the serial one
CREATE TABLE cuckoo_par AS
SELECT g AS id, 'https://example.org/page/' || g AS url
FROM generate_series(1, 200000) g;
ANALYZE cuckoo_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS
SELECT cuckoo_agg(url)::bytea AS auto, cuckoo_agg(id, 0.001)::bytea AS auto_rate,
       cuckoo_agg(url, 50000, 0.01)::bytea AS sized
FROM cuckoo_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT cuckoo_agg(url), cuckoo_agg(id, 0.001), cuckoo_agg(url, 50000, 0.01) FROM cuckoo_par;
SELECT p.auto = s.auto AS auto_same, p.auto_rate = s.auto_rate AS auto_rate_same,
       p.sized = s.sized AS sized_same
FROM (SELECT cuckoo_agg(url)::bytea AS auto, cuckoo_agg(id, 0.001)::bytea AS auto_rate,
             cuckoo_agg(url, 50000, 0.01)::bytea AS sized
      FROM cuckoo_par) p, serial s;
SELECT (cuckoo_info(auto::cuckoofilter)->>'count')::int AS count,
       (cuckoo_info(auto::cuckoofilter)->>'load')::float8 BETWEEN 0.94 AND 0.96 AS load_near_95,
       (cuckoo_info(sized::cuckoofilter)->>'tables')::int AS sized_tables
FROM serial;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE cuckoo_par;
-- a running aggregate: the final function runs on the same state many
-- times, reading hashes still queued in it; each result is the prefix's
SELECT count(*) FILTER (WHERE w::bytea = (SELECT cuckoo_agg(y::text)::bytea FROM generate_series(1, g) y)) AS auto_prefixes_identical,
       count(*) FILTER (WHERE ws::bytea = (SELECT cuckoo_agg(y::text, 1000, 0.01)::bytea FROM generate_series(1, g) y)) AS sized_prefixes_identical,
       count(*) AS windows
FROM (SELECT g, cuckoo_agg(g::text) OVER (ORDER BY g) AS w, cuckoo_agg(g::text, 1000, 0.01) OVER (ORDER BY g) AS ws
      FROM generate_series(1, 300) g) s;
