-- countingbloom vs bloomfilter: bytes per element at the same target, and
-- measured false-positive rates of countingbloom at capacity and after
-- deleting half the keys.  Run: tools/dev.sh psql -f bench/countingbloom_rates.sql
-- (about 10 s).  Keys 1..100000 are added; 1,000,000 keys from 10^7 on
-- were never added.
\timing off
SELECT fpr,
       round((bloom_info(bloom_create(1000000, fpr))->>'bytes')::numeric / 1e6, 3) AS bloom_bytes_per_elem,
       round((bloom_info(bloom_create(1000000, fpr, 'blocked', false))->>'bytes')::numeric / 1e6, 3) AS bloom_fixed_bytes_per_elem,
       round((counting_bloom_info(counting_bloom_create(1000000, fpr))->>'bytes')::numeric / 1e6, 3) AS counting_bytes_per_elem,
       counting_bloom_info(counting_bloom_create(1000000, fpr))->'hashes' AS counting_k
  FROM unnest(ARRAY[0.01, 0.001]::float8[]) fpr;

CREATE TEMP TABLE r AS
	SELECT fpr, counting_bloom_agg(x, 100000, fpr) AS f
	  FROM unnest(ARRAY[0.01, 0.001]::float8[]) fpr, generate_series(1, 100000) x GROUP BY fpr;
-- stored (TOASTed, so compressed by pglz) at capacity: bytes per element
SELECT fpr, round(pg_column_size(f)::numeric / 100000, 3) AS counting_stored_bytes_per_elem,
       round(pg_column_size(f)::numeric / (counting_bloom_info(f)->>'bytes')::numeric, 3) AS of_memory
  FROM r ORDER BY fpr DESC;
-- one filter per subquery: probing two filters row by row in turn would
-- detoast a 5 MB value on every call
CREATE TEMP TABLE m AS
	SELECT fpr, 'at capacity (100k in)' AS state,
	       (SELECT count(*) FILTER (WHERE f @> x)::float8 / count(*)
	          FROM generate_series(10000001, 11000000) x) AS measured
	  FROM r;
UPDATE r SET f = counting_bloom_remove(f, ARRAY(SELECT generate_series(2, 100000, 2)::bigint));
INSERT INTO m
	SELECT fpr, 'after deleting half (50k in)',
	       (SELECT count(*) FILTER (WHERE f @> x)::float8 / count(*)
	          FROM generate_series(10000001, 11000000) x)
	  FROM r;
SELECT fpr, state, round(measured::numeric, 6) AS measured, round((measured / fpr)::numeric, 3) AS of_target
  FROM m ORDER BY fpr DESC, state DESC;
SELECT fpr, (SELECT count(*) FILTER (WHERE NOT f @> x) FROM generate_series(1, 100000, 2) x)
       AS false_negatives_among_50k_still_in
  FROM r ORDER BY fpr DESC;
