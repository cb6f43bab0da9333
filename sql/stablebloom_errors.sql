--
-- stablebloom: argument errors, with SQLSTATE and message
--
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '');
END $$;

-- 22023, naming the argument and its range
SELECT pg_temp.err($$SELECT stable_bloom_create(0)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(1)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(-5)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 0)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 1)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, -0.1)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 'NaN')$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 1e-20)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 0.01, 0)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(100, 0.01, 9)$$);
-- a rate that the cells cannot reach
SELECT pg_temp.err($$SELECT stable_bloom_create(2, 1e-6)$$);
-- the smallest filter works
SELECT pg_temp.err($$SELECT stable_bloom_add(stable_bloom_create(2, 0.5, 1), 'a')$$);
-- too large for one value: 54000, with the largest cell count
SELECT pg_temp.err($$SELECT stable_bloom_create(10000000000)$$);
SELECT pg_temp.err($$SELECT stable_bloom_create(10000000000, 0.01, 8)$$);
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, 10000000000, 0.01) FROM (VALUES ('a')) v(x)$$);
-- aggregate parameters are checked too
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, 0, 0.01) FROM (VALUES ('a')) v(x)$$);
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, 100, 2.0) FROM (VALUES ('a')) v(x)$$);
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, 100, 0.01, 12) FROM (VALUES ('a')) v(x)$$);
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, NULL, 0.01) FROM (VALUES ('a')) v(x)$$);
SELECT pg_temp.err($$SELECT stable_bloom_seen(x, 100, NULL) OVER () FROM (VALUES ('a')) v(x)$$);
SELECT pg_temp.err($$SELECT stable_bloom_seen(x, 1, 0.01) OVER (ORDER BY x) FROM (VALUES ('a')) v(x)$$);
-- zero rows with bad constant parameters: still an error, not a filter
SELECT pg_temp.err($$SELECT stable_bloom_agg(x, 0, 0.01) FROM (VALUES ('a')) v(x) WHERE false$$);
-- the false-negative model wants an age
SELECT pg_temp.err($$SELECT stable_bloom_fnr(stable_bloom_create(100), -1)$$);
-- support functions outside an aggregate
SELECT pg_temp.err($$SELECT stable_bloom_agg_trans(NULL::stablebloom, 'a'::text)$$);
SELECT pg_temp.err($$SELECT stable_bloom_seen_trans(stable_bloom_create(10), 'a'::text)$$);
