--
-- the per-query filter cache: several stored (TOASTed) filters probed
-- through one call site, the filter changing from row to row; each probe
-- must see its own row's filter, also when there are more filters (70)
-- than the cache keeps (64) and entries are evicted
--
CREATE TABLE hostf AS
SELECT h, bloom_agg(k, 3000, 0.01) AS f
FROM (SELECT i % 70 AS h, md5(i::text) AS k FROM generate_series(1, 210000) i) s
GROUP BY h;
SELECT count(*) AS filters,
       bool_and(pg_column_size(f) > 2000 AND (bloom_info(f)->>'stages')::int = 1) AS stored_out_of_line
FROM hostf;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET max_parallel_workers_per_gather = 0;
-- the filter changes on every row: 0, 1, ..., 69, 0, 1, ...
SELECT count(*) FILTER (WHERE f @> k) AS own_filter_hits,
       count(*) FILTER (WHERE NOT f @> k) AS own_filter_misses
FROM (SELECT i % 70 AS h, md5(i::text) AS k FROM generate_series(1, 210000) i) p
JOIN hostf USING (h);
SELECT count(*) FILTER (WHERE f @> k) < 1000 AS other_filter_mostly_absent
FROM (SELECT (i + 1) % 70 AS h, md5(i::text) AS k FROM generate_series(1, 70000) i) p
JOIN hostf USING (h);
-- cuckoo filters of 40 different sizes (all kept in the cache), probed in
-- runs of three rows: each has its own alternate-bucket table, built once
-- it has been probed often enough and kept with its cached copy, and the
-- second and third row of a run take it from the inline path; a probe
-- through another filter's table would miss its own keys
CREATE TABLE hostc AS
SELECT h, cuckoo_agg(k, 3000 + 70 * h, 0.01) AS f
FROM (SELECT (i / 3) % 40 AS h, md5(i::text) AS k FROM generate_series(1, 210000) i) s
GROUP BY h;
SELECT count(*) AS filters,
       count(DISTINCT (cuckoo_info(f)->>'buckets')) AS bucket_counts,
       bool_and(pg_column_size(f) > 2000) AS stored_out_of_line
FROM hostc;
SELECT count(*) FILTER (WHERE cuckoo_contains(f, k)) AS own_filter_hits,
       count(*) FILTER (WHERE NOT cuckoo_contains(f, k)) AS own_filter_misses
FROM (SELECT (i / 3) % 40 AS h, md5(i::text) AS k FROM generate_series(1, 210000) i) p
JOIN hostc USING (h);
SELECT count(*) FILTER (WHERE k <@ f) < 1000 AS other_filter_mostly_absent
FROM (SELECT (i / 3 + 1) % 40 AS h, md5(i::text) AS k FROM generate_series(1, 70000) i) p
JOIN hostc USING (h);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET max_parallel_workers_per_gather;
