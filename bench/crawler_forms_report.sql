-- bench/crawler_forms_report.sql: the markdown tables of
-- bench/crawler_forms.sh from forms_batches and forms_runs
\set ON_ERROR_STOP 1
\pset tuples_only on
\pset format unaligned
\set latency_us 100

-- per size, form and run: totals
CREATE TEMP VIEW per_run AS
SELECT b.size, b.rep, b.form, sum(b.links) AS links, sum(b.distinct_links) AS distinct_links,
	   sum(b.new_links) AS new_links, sum(b.secs) AS secs, sum(b.wal_bytes) AS wal_bytes,
	   r.hot_bytes, r.cold_bytes, r.rows, r.statio_blocks, r.explain_blocks, r.explain_distinct, r.explain_ms
FROM forms_batches b JOIN forms_runs r USING (size, rep, form)
GROUP BY b.size, b.rep, b.form, r.hot_bytes, r.cold_bytes, r.rows, r.statio_blocks,
		 r.explain_blocks, r.explain_distinct, r.explain_ms;

-- medians over the runs
CREATE TEMP VIEW per_size AS
SELECT size, form, count(*) AS runs, min(links) AS links, min(distinct_links) AS distinct_links,
	   min(new_links) AS new_links,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY secs) AS secs,
	   min(secs) AS secs_min, max(secs) AS secs_max,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_bytes) AS wal_bytes,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY statio_blocks) AS statio_blocks,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY explain_blocks) AS explain_blocks,
	   min(explain_distinct) AS explain_distinct,
	   min(hot_bytes) AS hot_bytes, min(cold_bytes) AS cold_bytes, min(rows) AS rows
FROM per_run GROUP BY size, form;

CREATE TEMP VIEW with_truth AS
SELECT p.*, e.new_links AS truly_new, e.hot_bytes AS exact_hot, e.secs AS exact_secs
FROM per_size p JOIN per_size e ON e.size = p.size AND e.form = 'exact';

SELECT '## Measured';
SELECT '';
SELECT '| links | form | time (median of runs; min-max) | links/s | us/link | vs exact | hot memory | hot bytes/URL | less memory than exact | buffer pages/link (pg_statio, whole run) | pages/distinct link (EXPLAIN, 1 batch) | WAL bytes/link | new links | new links dropped |';
SELECT '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s s (%s; %s-%s) | %s | %s | %sx | %s | %s | %s | %s | %s | %s | %s | %s |',
			  to_char(size, 'FM999,999,999'), form, round(secs::numeric, 1), runs,
			  round(secs_min::numeric, 1), round(secs_max::numeric, 1),
			  to_char(links / secs, 'FM999,999,999'), round((1e6 * secs / links)::numeric, 2),
			  round((exact_secs / secs)::numeric, 2),
			  pg_size_pretty(hot_bytes) || CASE WHEN cold_bytes > 0 THEN ' (+ ' || pg_size_pretty(cold_bytes) || ' log, cold)' ELSE '' END,
			  round(hot_bytes::numeric / rows, 1),
			  CASE WHEN form = 'exact' THEN '1x' ELSE round(exact_hot::numeric / hot_bytes, 1) || 'x' END,
			  round((statio_blocks / links)::numeric, 2),
			  round((explain_blocks / explain_distinct)::numeric, 2),
			  round((wal_bytes / links)::numeric, 1),
			  to_char(new_links, 'FM999,999,999'),
			  to_char(truly_new - new_links, 'FM999,999,999')
			  || ' (' || round(100.0 * (truly_new - new_links) / truly_new, 3) || '%)')
FROM with_truth ORDER BY size, CASE form WHEN 'filter' THEN 1 WHEN 'exact' THEN 2 ELSE 3 END;

SELECT '';
SELECT '## Model at 1 billion URLs held';
SELECT '';
SELECT format('From the largest run (%s links, %s URLs held): memory scales with the URLs held '
			  '(hot bytes/URL x 1e9); time per link is the measured CPU time, plus, for a form whose '
			  'hot memory no longer fits in RAM, 1 random 8 kB read per exact lookup (each distinct link '
			  'of a batch: a duplicate''s btree leaf, or the leaf a new URL is inserted into; upper '
			  'btree levels stay cached; the heap page a duplicate''s visibility check reads is not '
			  'counted, in the exact forms'' favour) at an assumed %s us (an NVMe SSD at queue '
			  'depth 1; one crawler loop, reads not overlapped).',
			  to_char(max(size), 'FM999,999,999'), to_char(max(rows) FILTER (WHERE form = 'exact'), 'FM999,999,999'), :latency_us)
FROM per_size WHERE size = (SELECT max(size) FROM per_size);
SELECT '';
SELECT '| form | hot memory at 1B URLs | fits in RAM of | exact lookups (random reads) per link | us/link if it fits in RAM | us/link if not | links/s if not | new links dropped |';
SELECT '|---|---:|---|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s |', form,
			  pg_size_pretty((hot_bytes::numeric / rows * 1e9)::bigint),
			  CASE WHEN hot_bytes::numeric / rows * 1e9 < 16e9 THEN 'any server' ELSE 'a large server only' END,
			  CASE WHEN form = 'filter' THEN '0' ELSE round(distinct_links::numeric / links, 3)::text END,
			  round((1e6 * secs / links)::numeric, 2),
			  CASE WHEN form = 'filter' THEN round((1e6 * secs / links)::numeric, 2)
				   ELSE round((1e6 * secs / links + :latency_us * distinct_links::numeric / links)::numeric, 1) END,
			  to_char(1e6 / CASE WHEN form = 'filter' THEN 1e6 * secs / links
								 ELSE 1e6 * secs / links + :latency_us * distinct_links::numeric / links END, 'FM999,999,999'),
			  CASE WHEN form = 'filter' THEN round(100.0 * (truly_new - new_links) / truly_new, 3) || '% of the new (as measured)'
				   ELSE '0' END)
FROM with_truth WHERE size = (SELECT max(size) FROM per_size)
ORDER BY CASE form WHEN 'filter' THEN 1 WHEN 'exact' THEN 2 ELSE 3 END;
