--
-- stablebloom: measured false-positive and false-negative rates over long
-- streams, against the stable-point bound and the false-negative model
-- (see src/stable.h).  Every check is a boolean that fails when the rate
-- leaves its tolerance; the measured numbers themselves are not printed,
-- so the expected output does not depend on luck.
--
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64MB';

-- The filter of every test here: 20000 cells of 3 bits at fpr 0.01.
-- K = 5, P = 67, stable-point bound 0.00972, memory half-life 1339 inserts.
SELECT (i->>'hashes')::int AS hashes, (i->>'decrement')::int AS decrement,
       round((i->>'fpr_bound')::numeric, 5) AS fpr_bound,
       (i->>'memory_half_life')::int AS half_life
FROM (SELECT stable_bloom_info(stable_bloom_create(20000, 0.01, 3)) AS i) s;

-- 1. Stable point after 2,000,000 distinct inserts (about 1500 half-lives:
-- long past stability), probed with 200,000 keys never inserted.  One
-- snapshot: the rate is (fraction of non-zero cells)^K for this fill.
-- Tolerance 15% of the bound: the binomial sd of 200,000 probes at 0.0097
-- is 2.3% of it, and the fill's fluctuation between snapshots (sd of the
-- non-zero fraction 0.0035 on 20000 cells, 0.6% of the fill of 0.6, times
-- K = 5) another 2.9%: 15% is 4 combined sd.  A wrong K, P or decrement
-- loop moves the rate by far more.
CREATE TEMP TABLE snap AS
SELECT stable_bloom_agg(g, 20000, 0.01 ORDER BY g) AS f FROM generate_series(1, 2000000) g;
SELECT (stable_bloom_info(f)->>'inserted')::bigint AS inserted,
       abs(fp::float8 / 200000 - (stable_bloom_info(f)->>'fpr_bound')::float8)
           <= 0.15 * (stable_bloom_info(f)->>'fpr_bound')::float8 AS fp_within_15pct_of_bound,
       fp::float8 / 200000 <= 0.01 * 1.15 AS fp_near_or_under_target,
       abs((stable_bloom_info(f)->>'fill')::float8 - (stable_bloom_info(f)->>'stable_fill')::float8)
           <= 0.02 AS fill_at_stable_point
FROM snap, LATERAL (SELECT count(*) FILTER (WHERE stable_bloom_contains(f, -g)) AS fp
                    FROM generate_series(1, 200000) g) p;

-- 2. The same through the window aggregate, averaged over time: 1,000,000
-- distinct keys, each asking "seen before?" then inserted; the rows after
-- a burn-in of 30000 inserts (22 half-lives) are all false-positive probes.
-- Tolerance: 5 binomial sd (sqrt(0.0097 / 970000) = 1e-4, 1% of the
-- bound each) plus 3% of the bound for the model (its per-insert
-- probabilities are exact only as the cell count grows): 8%.
SELECT abs(avg(s::int) - 0.00971995) <= 0.08 * 0.00971995 AS seen_fp_within_8pct_of_bound
FROM (SELECT g, stable_bloom_seen(g, 20000, 0.01, 3) OVER (ORDER BY g) AS s
      FROM generate_series(1, 1000000) g) w
WHERE g > 30000;

-- 3. False negatives against the model at ages N = 601, 1001, 1401, 2001
-- (0.45 to 1.5 half-lives, where the rate climbs from 2% to 88%).  Stream
-- positions t = 0 mod 4 insert a probe key, t = 2 mod 4 insert the key of
-- position t - N - 1 again (N = 1 mod 4 puts the repeats there), odd
-- positions insert fresh keys.  So each repeat comes exactly N inserts
-- after its first insert, all N of them distinct other keys: the
-- situation the model describes.  200,000 rows per N, 50,000 probes.
-- Tolerance: 5 binomial sd (at most 0.011) plus 0.01 absolute for the
-- model's approximations (at most one decrement per cell per insert, an
-- element's cells independent).
CREATE TEMP TABLE fn AS
SELECT n, count(*) AS probes, avg((NOT s)::int) AS measured,
       stable_bloom_fnr(stable_bloom_create(20000, 0.01, 3), n) AS predicted
FROM (SELECT n, t, stable_bloom_seen(CASE WHEN t % 4 = 2 AND t > n THEN t - n - 1 ELSE t END, 20000, 0.01, 3)
                   OVER (PARTITION BY n ORDER BY t) AS s
      FROM unnest(ARRAY[601, 1001, 1401, 2001]) n, generate_series(0, 199999) t) w
WHERE t % 4 = 2 AND t > n
GROUP BY n;
SELECT n, probes, round(predicted::numeric, 3) AS predicted,
       abs(measured - predicted) <= 5 * sqrt(predicted * (1 - predicted) / probes) + 0.01 AS fn_within_tolerance
FROM fn ORDER BY n;
-- and the model is not vacuous: young elements are remembered, old ones are not
SELECT stable_bloom_fnr(f, 0) AS age_0, stable_bloom_fnr(f, 6) AS age_6,
       stable_bloom_fnr(f, 100) < 1e-5 AS age_100_remembered,
       stable_bloom_fnr(f, 100000) > 0.99 AS age_100000_forgotten,
       abs(stable_bloom_fnr(f, 1000000000) - (1 - (stable_bloom_info(f)->>'fpr_bound')::float8)) < 1e-9 AS limit_is_1_minus_bound
FROM (SELECT stable_bloom_create(20000, 0.01, 3) AS f) s;
