-- bench/crawler_forms_1b.sql: the filter alone sized for 1 billion URLs
-- (1.2 GB at fpr 0.01), its pages first read into shared buffers, then
-- the stream's first `links` links pushed through it: at this capacity
-- every probe and every add falls on a page of its own, as it would with a
-- billion URLs held (only the fill, which costs nothing, differs).
-- psql variables links, rep, batch; see bench/crawler_forms.sh
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE TABLE IF NOT EXISTS forms_1b (rep int PRIMARY KEY, links bigint, distinct_links bigint,
	new_links bigint, secs float8, wal_bytes numeric, blocks bigint, index_bytes bigint);
CREATE OR REPLACE PROCEDURE forms_filter_only(size bigint, batch int, INOUT secs float8 DEFAULT 0,
	INOUT new_links bigint DEFAULT 0, INOUT distinct_links bigint DEFAULT 0)
LANGUAGE plpgsql AS $$
DECLARE arr text[]; t0 timestamptz;
BEGIN
	FOR bi IN 0 .. size / batch - 1 LOOP
		SELECT s.urls INTO arr FROM stream s WHERE s.b = bi;
		t0 := clock_timestamp();
		new_links := new_links + form_filter_batch(arr);
		COMMIT;
		secs := secs + extract(epoch FROM clock_timestamp() - t0);
		distinct_links := distinct_links + cardinality(arr);
	END LOOP;
END
$$;
SELECT forms_reset(1000000000);
SELECT bloom_index_info('form_filter.seen_log_filter') IS NOT NULL;	-- reads every page
CHECKPOINT;
SELECT pg_stat_force_next_flush();
SELECT pg_sleep(0.1);
CREATE TEMP TABLE blocks0 AS SELECT * FROM forms_blocks() WHERE form = 'filter';
SELECT pg_current_wal_insert_lsn() AS l0 \gset
CALL forms_filter_only(:links, :batch) \gset r_
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'l0') AS wal \gset
SELECT pg_stat_force_next_flush();
SELECT pg_sleep(0.1);
INSERT INTO forms_1b
SELECT :rep, :links, :r_distinct_links, :r_new_links, :r_secs, :wal,
	   (SELECT blocks FROM forms_blocks() WHERE form = 'filter') - coalesce((SELECT blocks FROM blocks0), 0),
	   pg_relation_size('form_filter.seen_log_filter');
-- leave the big filters behind no longer than needed
SELECT forms_reset(10000);
