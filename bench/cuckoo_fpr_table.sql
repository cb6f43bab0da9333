-- Bits per element, load and measured false-positive rate of cuckoofilter
-- next to bloomfilter: 1M distinct keys added, 1M never-added keys probed.
-- cuckoo_agg(x) sizes one table for 95% load; cuckoo_agg(x, capacity, fpr)
-- with a small capacity shows what growth costs.
-- Run: tools/dev.sh start && tools/dev.sh psql -f bench/cuckoo_fpr_table.sql
\set ON_ERROR_STOP on
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE keys AS SELECT md5(i::text) AS k FROM generate_series(1, 1000000) i;
CREATE TEMP TABLE probes AS SELECT md5((-i)::text) AS k FROM generate_series(1, 1000000) i;
CREATE TEMP TABLE filters (kind text, fpr float8, capacity bigint, f cuckoofilter, b bloomfilter);
INSERT INTO filters SELECT 'cuckoo_agg(x, fpr)', fpr, NULL, (SELECT cuckoo_agg(k, fpr) FROM keys), NULL
FROM (VALUES (0.01::float8), (0.001)) r(fpr);
INSERT INTO filters SELECT 'cuckoo_agg(x, 1000, fpr)', fpr, 1000, (SELECT cuckoo_agg(k, 1000, fpr) FROM keys), NULL
FROM (VALUES (0.01::float8), (0.001)) r(fpr);
INSERT INTO filters SELECT 'bloom_agg(x, fpr)', fpr, NULL, NULL, (SELECT bloom_agg(k, fpr) FROM keys)
FROM (VALUES (0.01::float8), (0.001)) r(fpr);
SELECT kind, fpr AS target,
       coalesce((cuckoo_info(f)->>'tables')::int, (bloom_info(b)->>'stages')::int) AS tables,
       round(8.0 * coalesce((cuckoo_info(f)->>'bytes')::int, (bloom_info(b)->>'bytes')::int) / 1000000, 2)
         AS bits_per_element,
       (cuckoo_info(f)->>'load')::numeric AS load,
       (SELECT count(*) FROM keys WHERE NOT coalesce(f @> k, b @> k)) AS false_negatives,
       (SELECT count(*) FILTER (WHERE coalesce(f @> k, b @> k))::numeric / count(*) FROM probes) AS measured_rate
FROM filters ORDER BY kind, fpr DESC;
