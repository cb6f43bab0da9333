-- Bits per element and measured false-positive rate of bloomfilter, by
-- layout and target: 1M distinct keys added, 1M never-added keys probed.
-- Run: tools/dev.sh start && tools/dev.sh psql -f bench/bloom_fpr_table.sql
\set ON_ERROR_STOP on
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE keys AS SELECT md5(i::text) AS k FROM generate_series(1, 1000000) i;
CREATE TEMP TABLE probes AS SELECT md5((-i)::text) AS k FROM generate_series(1, 1000000) i;
CREATE TEMP TABLE filters AS
SELECT layout, fpr, scalable, capacity, bloom_add(bloom_create(capacity, fpr), array_agg(k)) AS f
FROM keys, (VALUES ('blocked'), ('standard')) l(layout), (VALUES (0.01::float8), (0.001)) r(fpr),
     (VALUES (false, 1000000), (true, 1000000), (true, 33334)) s(scalable, capacity)
GROUP BY 1, 2, 3, 4;
-- built blocked and scalable above: rebuild the others
UPDATE filters SET f = bloom_add(bloom_create(capacity, fpr, layout, scalable), (SELECT array_agg(k) FROM keys))
WHERE layout <> 'blocked' OR NOT scalable;
SELECT layout, fpr AS target, scalable, capacity,
       round(1000000.0 / capacity, 1) AS fed_x,
       (bloom_info(f)->>'stages')::int AS stages,
       round((bloom_info(f)->>'bits')::numeric / 1000000, 2) AS bits_per_element,
       (SELECT count(*) FROM keys WHERE NOT f @> k) AS false_negatives,
       round(bloom_fpr(f)::numeric, 6) AS expected_rate,
       (SELECT count(*) FILTER (WHERE f @> k)::numeric / count(*) FROM probes) AS measured_rate
FROM filters ORDER BY layout, fpr DESC, scalable, capacity DESC;
