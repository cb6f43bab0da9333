-- The bloomfilter index at the sizes of issue 33, on any cluster with the
-- extension (shared_buffers >= 2GB for the 1.4 GB index to stay in it):
--   psql -f bench/index_scale.sql
-- 1. INSERT of 1M URLs into a table with a btree, with and without the
--    filter index beside it: time and WAL bytes.
-- 2. CREATE INDEX over 1M rows against bloom_agg over the same rows.
-- 3. Probes of 1,000 links (one array call each, 500 of the 1M added and
--    500 never added) against an index of capacity 1 billion (1.4 GB), in
--    shared buffers, and the same calls against a stored value of the
--    same 1M elements: 200 batches, every call a different one, as a
--    crawl's are, each call timed alone inside the server.
\set ON_ERROR_STOP on
\timing on
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS ix_src, ix_a, ix_b, ix_big, ix_value, ix_batches;
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
-- 250 batches of 1,000 links: 500 of the added ones at random, 500 never
-- added; each call below probes another one
CREATE TABLE ix_batches AS
SELECT p.b, array_agg(CASE WHEN p.j % 2 = 1 THEN s.url
		ELSE 'https://never' || p.b || '.example.org/' || p.j END ORDER BY p.j) AS links
FROM (SELECT b, j, 1 + (hashint8extended(b * 1000 + j, 48) & 9223372036854775807) % 1000000 AS i
      FROM generate_series(1, 250) b, generate_series(0, 999) j) p
LEFT JOIN ix_src s ON s.i = p.i
GROUP BY p.b;
CREATE OR REPLACE FUNCTION pg_temp.ms_per_call(first int, n int, value boolean) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; total interval := '0'; links text[]; r boolean[];
BEGIN
	FOR k IN first .. first + n - 1 LOOP
		-- the batch's own read is not timed
		SELECT x.links INTO links FROM ix_batches x WHERE b = k;
		t0 := clock_timestamp();
		IF value THEN r := bloom_contains((SELECT f FROM ix_value), links);
		ELSE r := bloom_index_contains('ix_big_f', links); END IF;
		total := total + (clock_timestamp() - t0);
	END LOOP;
	RETURN round((extract(epoch FROM total) * 1000 / n)::numeric, 3);
END $$;
-- warm-up on batches of their own (201-250), then 1-200
SELECT pg_temp.ms_per_call(201, 50, false) AS warmup, pg_temp.ms_per_call(201, 50, true) AS warmup_value;
SELECT pg_temp.ms_per_call(1, 200, false) AS index_1e9_ms_per_1000_links,
       pg_temp.ms_per_call(1, 200, true) AS value_1m_ms_per_1000_links;
DROP TABLE ix_src, ix_a, ix_b, ix_big, ix_value, ix_batches;
