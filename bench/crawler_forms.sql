-- bench/crawler_forms.sql: the driver of bench/crawler_forms.sh (issue 36).
-- Loads demo/generator.sql and demo/forms.sql, builds the link stream once
-- (psql variables: maxlinks, batch), and defines forms_run(), which pushes
-- the stream's first `size` links through the three forms of demo/forms.sql
-- batch by batch, interleaved.  Run from the project's root.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE TABLE demo_real_raw (n int GENERATED ALWAYS AS IDENTITY, url text NOT NULL);
\copy demo_real_raw (url) FROM PROGRAM 'gzip -dc data/urls-sample.txt.gz'
\ir ../demo/generator.sql
SELECT demo_prepare();
\ir ../demo/forms.sql

-- the stream, cut in batches of `batch` extracted links, each batch
-- normalized and made distinct once (the same step for every form, so it
-- is not timed), plus one batch more: the representative batch EXPLAINed
-- after a run
CREATE TABLE stream (b int PRIMARY KEY, links int NOT NULL, urls text[] NOT NULL);
\timing on
INSERT INTO stream
SELECT b, :batch, ARRAY(SELECT DISTINCT url_normalize(l) FROM demo_links(b::bigint * :batch, :batch) AS l)
FROM generate_series(0, :maxlinks / :batch) AS b;
\timing off
VACUUM ANALYZE stream;

-- one row per batch and form
CREATE TABLE forms_batches (
	size	bigint, rep int, b int, form text, pos int,	-- pos: 0, 1, 2 = ran first, second, third
	links	int, distinct_links int, new_links bigint, secs float8, wal_bytes numeric,
	PRIMARY KEY (size, rep, b, form));
-- one row per run and form
CREATE TABLE forms_runs (
	size	bigint, rep int, form text,
	hot_bytes bigint, cold_bytes bigint, rows bigint,
	statio_blocks bigint,			-- shared buffers hit + read over the run (pg_statio)
	explain_blocks bigint,			-- hit + read of the EXPLAINed representative batch
	explain_distinct int, explain_ms float8,
	PRIMARY KEY (size, rep, form));

-- size links through the three forms, the order rotated every batch so
-- that the machine's noise and the cache's state fall on all three alike;
-- each form's batch is one transaction, timed with its commit
CREATE PROCEDURE forms_run(size bigint, rep int, batch int)
LANGUAGE plpgsql AS $$
DECLARE
	nb		int := size / batch;
	forms	text[] := ARRAY['filter', 'exact', 'two-tier'];
	arr		text[];
	nlinks	int;
	f		text;
	n		bigint;
	t0		timestamptz;
	l0		pg_lsn;
	secs	float8[];
	wal		numeric[];
	news	bigint[];
BEGIN
	FOR bi IN 0 .. nb - 1 LOOP
		SELECT s.urls, s.links INTO arr, nlinks FROM stream s WHERE s.b = bi;
		secs := '{}'; wal := '{}'; news := '{}';
		FOR k IN 0 .. 2 LOOP
			f := forms[1 + (bi + k) % 3];
			l0 := pg_current_wal_insert_lsn();
			t0 := clock_timestamp();
			CASE f
				WHEN 'filter' THEN n := form_filter_batch(arr);
				WHEN 'exact' THEN n := form_exact_batch(arr);
				ELSE n := form_two_tier_batch(arr);
			END CASE;
			COMMIT;
			secs := secs || extract(epoch FROM clock_timestamp() - t0)::float8;
			wal := wal || pg_wal_lsn_diff(pg_current_wal_insert_lsn(), l0);
			news := news || n;
		END LOOP;
		INSERT INTO forms_batches
		SELECT size, rep, bi, forms[1 + (bi + k) % 3], k, nlinks, cardinality(arr), news[k + 1], secs[k + 1], wal[k + 1]
		FROM generate_series(0, 2) AS k;
		COMMIT;
	END LOOP;
END
$$;

-- EXPLAIN (ANALYZE, BUFFERS) of one more batch (the stream's next) through
-- each form: shared hit + read of the statement (the filters' bits are
-- added at commit, after the statement: those pages are in pg_statio's
-- count, not here)
CREATE FUNCTION forms_explain(size bigint, batch int, form text, OUT blocks bigint, OUT ms float8, OUT ndistinct int)
LANGUAGE plpgsql AS $$
DECLARE
	arr		text[];
	j		json;
	fn		text := CASE form WHEN 'filter' THEN 'form_filter_batch' WHEN 'exact' THEN 'form_exact_batch'
				   ELSE 'form_two_tier_batch' END;
BEGIN
	SELECT s.urls INTO arr FROM stream s WHERE s.b = size / batch;
	EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT %I($1)', fn) INTO j USING arr;
	blocks := (j -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (j -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
	ms := (j -> 0 ->> 'Execution Time')::float8;
	ndistinct := cardinality(arr);
END
$$;
