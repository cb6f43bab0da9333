-- The bloomfilter index at the sizes of issue 33, on any cluster with the
-- extension (shared_buffers >= 2GB for the 1.4 GB index to stay in it):
--   psql -f bench/index_scale.sql
-- 1. INSERT of 1M URLs into a table with a btree, with and without the
--    filter index beside it: time and WAL bytes.
-- 2. CREATE INDEX over 1M rows against bloom_agg over the same rows.
-- 3. A probe of 1,000 links (one array call) against an index of capacity
--    1 billion (1.4 GB), in shared buffers, timed inside the server, and
--    the same call against a stored value of the same 1M elements.
\set ON_ERROR_STOP on
\timing on
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS ix_src, ix_a, ix_b, ix_big, ix_value;
CREATE TABLE ix_src AS
SELECT i, 'https://host' || (i % 50000) || '.example.org/path/' || md5(i::text) AS url
FROM generate_series(1, 1000000) i;
VACUUM ANALYZE ix_src;

\echo '== 1. INSERT of 1M URLs: btree alone, then btree + bloomfilter index'
CREATE TABLE ix_a (url text); CREATE INDEX ON ix_a (url);
CREATE TABLE ix_b (url text); CREATE INDEX ON ix_b (url);
CREATE INDEX ix_b_f ON ix_b USING bloomfilter (url) WITH (capacity = 1000000);
CHECKPOINT;
SELECT pg_current_wal_insert_lsn() AS l0 \gset
INSERT INTO ix_a SELECT url FROM ix_src;
SELECT pg_current_wal_insert_lsn() AS l1 \gset
CHECKPOINT;
SELECT pg_current_wal_insert_lsn() AS l2 \gset
INSERT INTO ix_b SELECT url FROM ix_src;
SELECT pg_current_wal_insert_lsn() AS l3 \gset
SELECT round(pg_wal_lsn_diff(:'l1', :'l0') / 1e6, 1) AS wal_mb_btree,
       round(pg_wal_lsn_diff(:'l3', :'l2') / 1e6, 1) AS wal_mb_btree_and_filter,
       round((pg_wal_lsn_diff(:'l3', :'l2') - pg_wal_lsn_diff(:'l1', :'l0')) / 1e6, 2) AS filter_wal_bytes_per_url;

\echo '== 2. CREATE INDEX over 1M rows, then bloom_agg over the same rows (twice each)'
DROP INDEX ix_b_f;
CREATE INDEX ix_b_f ON ix_b USING bloomfilter (url) WITH (capacity = 1000000);
DROP INDEX ix_b_f;
CREATE INDEX ix_b_f ON ix_b USING bloomfilter (url) WITH (capacity = 1000000);
SELECT length(bytea(bloom_agg(url, 1000000, 0.01))) FROM ix_b;
SELECT length(bytea(bloom_agg(url, 1000000, 0.01))) FROM ix_b;

\echo '== 3. probe of 1,000 links, index of capacity 1 billion'
CREATE TABLE ix_big (url text);
CREATE INDEX ix_big_f ON ix_big USING bloomfilter (url) WITH (capacity = 1000000000, fpr = 0.01);
INSERT INTO ix_big SELECT url FROM ix_src;
-- bloom_index_info reads every page: the whole index into shared buffers
SELECT pg_size_pretty(pg_relation_size('ix_big_f')) AS index_size,
       bloom_index_info('ix_big_f')->'pages' AS pages_read;
CREATE TABLE ix_value AS SELECT bloom_agg(url, 1000000, 0.01) AS f FROM ix_src;
SELECT array_agg(url) AS links FROM (SELECT url FROM ix_src ORDER BY md5(url) LIMIT 1000) s \gset
CREATE OR REPLACE FUNCTION pg_temp.ms_per_call(links text[], n int, value boolean) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); r boolean[];
BEGIN
	FOR i IN 1 .. n LOOP
		IF value THEN r := bloom_contains((SELECT f FROM ix_value), links);
		ELSE r := bloom_index_contains('ix_big_f', links); END IF;
	END LOOP;
	RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000 / n)::numeric, 3);
END $$;
SELECT pg_temp.ms_per_call(:'links', 50, false) AS warmup;
SELECT pg_temp.ms_per_call(:'links', 200, false) AS index_1e9_ms_per_1000_links,
       pg_temp.ms_per_call(:'links', 200, true) AS value_1m_ms_per_1000_links;
DROP TABLE ix_src, ix_a, ix_b, ix_big, ix_value;
