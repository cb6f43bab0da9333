--
-- stablebloom on a real stream: the 124,776 URLs of
-- ../shared/data/doc-links-stream.txt.gz in the order a crawler found them
-- (79,283 distinct, so 45,493 repeats at ages from 1 to 124,535 rows).
-- stable_bloom_seen over the stream, against the exact answer: each
-- repeat's age is known, so its false-negative rate can be compared with
-- the model, and each first occurrence is a false-positive probe.
--
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE sb_links (ts bigserial, url text);
\copy sb_links(url) FROM PROGRAM 'gzip -dc ../shared/data/doc-links-stream.txt.gz'

-- 75,000 cells (3 bits, 1%): memory half-life 5018 inserts, so the
-- stream's repeats fall on both sides of it
SELECT (i->>'memory_half_life')::int AS half_life, round((i->>'fpr_bound')::numeric, 5) AS fpr_bound
FROM (SELECT stable_bloom_info(stable_bloom_create(75000)) AS i) s;
CREATE TEMP TABLE sb_links_seen AS
SELECT ts, url, ts - lag(ts) OVER (PARTITION BY url ORDER BY ts) AS age,
       stable_bloom_seen(url, 75000, 0.01) OVER (ORDER BY ts) AS seen
FROM sb_links;

-- False positives: a first occurrence reported seen.  The bound is for a
-- stream of distinct URLs; repeats re-set cells that are already set and
-- the early rows see a filter still filling, so the real rate must be at
-- or under the bound (over 79,283 probes at 0.0097 its sd is 0.00035, 4%
-- of the bound: a rate over the bound is a real failure).
-- False negatives: a repeat not reported seen, against the model at its
-- age (age - 1 other inserts in between).  Tolerance 0.02 for all
-- repeats together (the sd is 0.0022; the model assumes the inserts in
-- between are distinct, which a real stream only approximates).
SELECT count(*) FILTER (WHERE age IS NULL) AS first_occurrences,
       count(*) FILTER (WHERE age IS NOT NULL) AS repeats,
       avg(seen::int) FILTER (WHERE age IS NULL) <= 0.0097133 AS fp_within_bound,
       abs(avg((NOT seen)::int) FILTER (WHERE age IS NOT NULL)
           - avg(stable_bloom_fnr(stable_bloom_create(75000), age - 1)) FILTER (WHERE age IS NOT NULL))
           <= 0.02 AS fn_matches_model
FROM sb_links_seen;
-- and by age: remembered well inside the half-life, forgotten well past
-- it.  Per bucket: 5 binomial sd plus 0.02.
SELECT bucket, count(*) AS repeats,
       round(avg(stable_bloom_fnr(stable_bloom_create(75000), age - 1))::numeric, 3) AS predicted_fn,
       abs(avg((NOT seen)::int) - avg(stable_bloom_fnr(stable_bloom_create(75000), age - 1)))
           <= 5 * sqrt(greatest(avg((NOT seen)::int) * (1 - avg((NOT seen)::int)), 0.0001) / count(*)) + 0.02
           AS fn_within_tolerance
FROM sb_links_seen,
     LATERAL (SELECT CASE WHEN age < 1000 THEN '1: under 1000'
                          WHEN age < 2500 THEN '2: 1000-2499'
                          WHEN age < 5000 THEN '3: 2500-4999'
                          WHEN age < 10000 THEN '4: 5000-9999'
                          ELSE '5: 10000 and over' END AS bucket) b
WHERE age IS NOT NULL
GROUP BY bucket ORDER BY bucket;
