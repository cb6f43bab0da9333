-- bench/groupby.sql: one filter per group.  100,000 groups of 20 URLs
-- (scaled with the data) through a hash aggregate, against hll_add_agg:
-- time, and the hash aggregate's peak memory (EXPLAIN ANALYZE's "Memory
-- Usage", which counts the states).  Run after setup.sql:
--   psql -v groups=100000 -f bench/groupby.sql
-- Found a quadratic slowdown once (a memory context per group state):
-- this keeps it from coming back unnoticed.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '4GB';			-- one pass: no spilling to compare
\if :{?groups}
\else
\set groups 100000
\endif
SELECT set_config('groupby.groups', :'groups', false) IS NOT NULL AS groups_set \gset

-- ours through a hash aggregate (where per-group state costs showed);
-- hll as the planner runs it (sorted: hashed, it took 39 s and 8 GB here)
CREATE TEMP TABLE groupby_aggs (ord int, agg text, hashed bool);
INSERT INTO groupby_aggs VALUES
	(1, 'bloom_agg(url, 100, 0.01)', true),
	(2, 'bloom_agg(url)', true),
	(3, 'counting_bloom_agg(url)', true),
	(4, 'cuckoo_agg(url)', true);
INSERT INTO groupby_aggs SELECT 5, 'hll_add_agg(hll_hash_text(url))', false
	WHERE EXISTS (SELECT FROM pg_extension WHERE extname = 'hll');

CREATE TEMP TABLE groupby_results (ord int, agg text, ms float8, memory text, groups bigint);

DO $$
DECLARE
	r record;
	line text;
	mem text;
	ms float8;
	n bigint;
	q text;
BEGIN
	FOR r IN SELECT * FROM groupby_aggs ORDER BY ord LOOP
		q := format('SELECT count(f) FROM (SELECT id %% %s AS g, %s AS f FROM urls GROUP BY 1) s',
					current_setting('groupby.groups'), r.agg);
		mem := NULL;
		ms := NULL;
		PERFORM set_config('enable_sort', CASE WHEN r.hashed THEN 'off' ELSE 'on' END, true);
		FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' || q LOOP
			IF line ~ 'Sort Method' THEN
				mem := 'sorted: ' || substring(line FROM 'Memory: ([0-9]+kB)');
			ELSIF line ~ 'Memory Usage' AND mem IS NULL THEN
				mem := substring(line FROM 'Memory Usage: ([0-9]+kB)');
			ELSIF line ~ 'Execution Time' THEN
				ms := substring(line FROM 'Execution Time: ([0-9.]+)')::float8;
			END IF;
		END LOOP;
		EXECUTE q INTO n;
		INSERT INTO groupby_results VALUES (r.ord, r.agg, ms, mem, n);
	END LOOP;
END
$$;

SELECT agg AS "aggregate, one per group", groups, round(ms::numeric) AS ms,
	   memory AS "peak memory (hash table, or sort)"
  FROM groupby_results ORDER BY ord;
