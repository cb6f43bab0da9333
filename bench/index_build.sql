-- CREATE INDEX ... USING bloomfilter against bloom_agg over the same rows
-- (issue 47's target: the build no slower than the aggregate with the
-- build scan on), side by side in one run:
--   psql -v rows=10000000 -v rounds=3 [-v workers=2] -f bench/index_build.sql
-- The table holds `rows` synthetic URLs of crawl shape (host, path, hash);
-- each round times, in alternation, CREATE INDEX (capacity = rows, 1%)
-- and SELECT bloom_agg(url, rows, 0.01), each inside the server
-- (clock_timestamp around the statement), then prints every round and
-- the medians.  maintenance_work_mem and the preload are whatever the
-- cluster has: the script prints them.  `workers` (default 0: serial) is
-- max_parallel_maintenance_workers for CREATE INDEX (parallel from
-- PostgreSQL 17; the planner may take fewer, maintenance_work_mem / 32 MB
-- participants at most); bloom_agg stays serial (its build scan is).
\set ON_ERROR_STOP on
\if :{?rows}
\else
\set rows 10000000
\endif
\if :{?rounds}
\else
\set rounds 3
\endif
\if :{?workers}
\else
\set workers 0
\endif
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = :workers;
SELECT set_config('ib.rows', :'rows', false), set_config('ib.rounds', :'rounds', false);
SET bloomfilter.enable_build_scan = on;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
SELECT current_setting('maintenance_work_mem') AS maintenance_work_mem,
       current_setting('max_parallel_maintenance_workers') AS maintenance_workers,
       current_setting('shared_preload_libraries') AS preload,
       version();
DROP TABLE IF EXISTS ib_urls;
CREATE TABLE ib_urls AS
SELECT 'https://host' || (i % 100000) || '.example.org/path/' || md5(i::text) AS url
FROM generate_series(1, :rows) i;
VACUUM ANALYZE ib_urls;
SELECT pg_size_pretty(pg_relation_size('ib_urls')) AS table_size;

CREATE TEMP TABLE ib_times (round int, what text, ms numeric);
CREATE OR REPLACE FUNCTION pg_temp.ib_time(sql text) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql;
	RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
END $$;
-- a warm-up of each: the table in the page cache, the backend's caches filled
DROP INDEX IF EXISTS ib_f;
SELECT pg_temp.ib_time(format('CREATE INDEX ib_f ON ib_urls USING bloomfilter (url) WITH (capacity = %s)', :rows)) AS warmup_create_ms;
SELECT pg_temp.ib_time(format('SELECT bloom_agg(url, %s, 0.01) FROM ib_urls', :rows)) AS warmup_agg_ms;
DO $$
BEGIN
	FOR r IN 1 .. current_setting('ib.rounds')::int LOOP
		DROP INDEX IF EXISTS ib_f;
		INSERT INTO ib_times VALUES (r, 'CREATE INDEX', pg_temp.ib_time(format(
			'CREATE INDEX ib_f ON ib_urls USING bloomfilter (url) WITH (capacity = %s)',
			current_setting('ib.rows'))));
		INSERT INTO ib_times VALUES (r, 'bloom_agg', pg_temp.ib_time(format(
			'SELECT bloom_agg(url, %s, 0.01) FROM ib_urls', current_setting('ib.rows'))));
	END LOOP;
END $$;
SELECT what, array_agg(ms ORDER BY round) AS rounds_ms,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median_ms
FROM ib_times GROUP BY what ORDER BY what;
SELECT round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM ib_times WHERE what = 'CREATE INDEX')::numeric /
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM ib_times WHERE what = 'bloom_agg')::numeric, 2)
       AS create_index_over_bloom_agg;
SELECT bloom_index_info('ib_f')->>'stages' AS stages,
       (SELECT count(*) FROM ib_urls WHERE NOT bloom_index_contains('ib_f', url)) AS false_negatives;
DROP TABLE ib_urls;
