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
-- one filter stored out of line two ways: uncompressed (STORAGE external;
-- a big filter's bits do not compress, so it is the usual form), read
-- straight into the cache's copy, and compressed (sparse bits do), which
-- is detoasted first; and a tiny one compressed inline.  Each form gives
-- the same answers.
CREATE TABLE stored_forms (how text, f bloomfilter);
ALTER TABLE stored_forms ALTER COLUMN f SET STORAGE external;
INSERT INTO stored_forms
SELECT 'external', bloom_agg(md5(i::text), 100000, 0.01) FROM generate_series(1, 3000) i;
ALTER TABLE stored_forms ALTER COLUMN f SET STORAGE extended;
INSERT INTO stored_forms SELECT 'extended', f FROM stored_forms;
INSERT INTO stored_forms
SELECT 'inline', bloom_agg(md5(i::text), 10000, 0.01) FROM generate_series(1, 20) i;
SELECT how, pg_column_size(f) < octet_length(bytea(f)) AS compressed,
       pg_column_size(f) > 2000 AS out_of_line
FROM stored_forms ORDER BY how;
SELECT how,
       count(*) FILTER (WHERE bloom_contains(f, k) AND i <= n) AS members_found,
       count(*) FILTER (WHERE bloom_contains(f, k) AND i > n) AS others_found
FROM (SELECT how, f, CASE how WHEN 'inline' THEN 20 ELSE 3000 END AS n FROM stored_forms) s,
     (SELECT i, md5(i::text) AS k FROM generate_series(1, 23000) i) p
GROUP BY how ORDER BY how;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET max_parallel_workers_per_gather;
