-- bench/crawler_forms_1b_report.sql: the filter sized for 1B, as measured
\set ON_ERROR_STOP 1
\pset tuples_only on
\pset format unaligned
SELECT '';
SELECT '## The filter alone sized for 1 billion URLs (measured)';
SELECT '';
SELECT '| links | filter index | time (median of runs; min-max) | links/s | us/link | buffer pages/link (pg_statio) | WAL bytes/link | new links |';
SELECT '|---:|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s s (%s; %s-%s) | %s | %s | %s | %s | %s |',
			  to_char(min(links), 'FM999,999,999'), pg_size_pretty(min(index_bytes)),
			  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY secs)::numeric, 1), count(*),
			  round(min(secs)::numeric, 1), round(max(secs)::numeric, 1),
			  to_char(min(links) / percentile_cont(0.5) WITHIN GROUP (ORDER BY secs), 'FM999,999,999'),
			  round((1e6 * percentile_cont(0.5) WITHIN GROUP (ORDER BY secs) / min(links))::numeric, 2),
			  round((percentile_cont(0.5) WITHIN GROUP (ORDER BY blocks) / min(links))::numeric, 2),
			  round((percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_bytes) / min(links))::numeric, 1),
			  to_char(min(new_links), 'FM999,999,999'))
FROM forms_1b;
SELECT '';
SELECT 'This, not the model above (which takes the filter''s time at the largest run), is the filter''s time per link at 1B URLs.';
