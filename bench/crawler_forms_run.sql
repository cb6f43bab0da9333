-- bench/crawler_forms_run.sql: one run of the three forms at one size
-- (psql variables size, rep, batch, capacity); see bench/crawler_forms.sh
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT forms_reset(:capacity);
CHECKPOINT;
SELECT pg_stat_force_next_flush();
SELECT pg_sleep(0.1);
CREATE TEMP TABLE blocks0 AS SELECT * FROM forms_blocks();
CALL forms_run(:size, :rep, :batch);
SELECT pg_stat_force_next_flush();
SELECT pg_sleep(0.1);
CREATE TEMP TABLE blocks1 AS SELECT * FROM forms_blocks();
VACUUM ANALYZE form_filter.seen_log, form_exact.seen, form_two_tier.seen;
INSERT INTO forms_runs (size, rep, form, hot_bytes, cold_bytes, rows, statio_blocks)
SELECT :size, :rep, z.form, z.hot_bytes, z.cold_bytes,
	   CASE z.form WHEN 'filter' THEN (SELECT count(*) FROM form_filter.seen_log)
		   WHEN 'exact' THEN (SELECT count(*) FROM form_exact.seen)
		   ELSE (SELECT count(*) FROM form_two_tier.seen) END,
	   b1.blocks - coalesce(b0.blocks, 0)
FROM forms_sizes() z JOIN blocks1 b1 USING (form) LEFT JOIN blocks0 b0 USING (form);
UPDATE forms_runs r SET explain_blocks = e.blocks, explain_ms = e.ms, explain_distinct = e.ndistinct
FROM (SELECT f, (forms_explain(:size, :batch, f)).* FROM unnest(ARRAY['filter', 'exact', 'two-tier']) f) e
WHERE r.size = :size AND r.rep = :rep AND r.form = e.f;
SELECT form, count(*) AS batches, round(sum(secs)::numeric, 2) AS secs, sum(new_links) AS new_links
FROM forms_batches WHERE size = :size AND rep = :rep GROUP BY form ORDER BY form;
