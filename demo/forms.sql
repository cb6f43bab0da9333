--
-- demo/forms.sql: three forms of a crawler's URL-seen test, side by side
-- (issue 36).  Used by demo/demo.sql (`make demo`) and by
-- bench/crawler_forms.sh; each form lives in its own schema and takes one
-- batch of links already normalized and distinct (SELECT DISTINCT
-- url_normalize(l) ..., the same work for every form, done once), and
-- returns how many it found new.
--
--   form_filter    the filter alone: a bloomfilter index over an
--                  append-only log.  Constant memory per URL (about 1.2
--                  bytes at fpr 0.01), no exact tier: a link the filter
--                  calls "probably seen" is dropped, so a few new links
--                  (its false positives) are lost silently.
--   form_exact     the exact table alone: seen(url PRIMARY KEY) and
--                  INSERT ... ON CONFLICT DO NOTHING RETURNING.  Nothing
--                  lost; table and btree (about 100 bytes a URL) must stay
--                  in memory to be fast.
--   form_two_tier  both: the filter (a bloomfilter index on seen) first;
--                  a "no" is final and inserted without a check, a
--                  "probably" is checked by the btree (ON CONFLICT).
--                  Nothing lost; memory of both.
--
-- Every url column is COLLATE "C": the exact forms' btree compares bytes,
-- the fastest it can be.
--

CREATE SCHEMA IF NOT EXISTS form_filter;
CREATE SCHEMA IF NOT EXISTS form_exact;
CREATE SCHEMA IF NOT EXISTS form_two_tier;

-- (re)create the three forms' tables, empty; capacity: the filters' size
-- up front (an upper bound of the URLs to hold)
CREATE OR REPLACE FUNCTION forms_reset(capacity bigint, fpr float8 DEFAULT 0.01) RETURNS void
LANGUAGE plpgsql SET client_min_messages = warning AS $$
BEGIN
	DROP TABLE IF EXISTS form_filter.seen_log, form_exact.seen, form_two_tier.seen;
	-- (a) append-only log, the filter in pages beside it
	CREATE TABLE form_filter.seen_log (url text COLLATE "C" NOT NULL);
	EXECUTE format('CREATE INDEX seen_log_filter ON form_filter.seen_log USING bloomfilter (url) '
				   'WITH (capacity = %s, fpr = %s)', capacity, fpr);
	-- (b) the exact table
	CREATE TABLE form_exact.seen (url text COLLATE "C" PRIMARY KEY);
	-- (c) the exact table with the filter in pages in front
	CREATE TABLE form_two_tier.seen (url text COLLATE "C" PRIMARY KEY);
	EXECUTE format('CREATE INDEX seen_filter ON form_two_tier.seen USING bloomfilter (url) '
				   'WITH (capacity = %s, fpr = %s)', capacity, fpr);
END
$$;
-- the functions below name the tables: make them
SELECT forms_reset(10000) \gset

-- (a) the filter alone: one probe of the batch (sorted by index page), the
-- "never seen" ones appended to the log; the index adds their bits when
-- the transaction commits
CREATE OR REPLACE FUNCTION form_filter_batch(urls text[]) RETURNS bigint
LANGUAGE sql AS $$
	WITH fresh AS (
		INSERT INTO form_filter.seen_log
		SELECT u FROM unnest(urls, bloom_index_contains('form_filter.seen_log_filter', urls)) AS p(u, maybe)
		WHERE NOT maybe
		RETURNING 1
	)
	SELECT count(*) FROM fresh
$$;

-- (b) the exact table alone
CREATE OR REPLACE FUNCTION form_exact_batch(urls text[]) RETURNS bigint
LANGUAGE sql AS $$
	WITH fresh AS (
		INSERT INTO form_exact.seen SELECT u FROM unnest(urls) AS u
		ON CONFLICT DO NOTHING
		RETURNING 1
	)
	SELECT count(*) FROM fresh
$$;

-- (c) the two-tier gate.  The filter's "no" is final: those rows are
-- inserted without ON CONFLICT (the primary key would fail the batch if
-- the filter ever said "no" to a URL it holds); its "probably" goes
-- through the btree with ON CONFLICT.
CREATE OR REPLACE FUNCTION form_two_tier_batch(urls text[]) RETURNS bigint
LANGUAGE sql AS $$
	WITH probed AS MATERIALIZED (
		SELECT u, maybe
		FROM unnest(urls, bloom_index_contains('form_two_tier.seen_filter', urls)) AS p(u, maybe)
	), surely_new AS (
		INSERT INTO form_two_tier.seen SELECT u FROM probed WHERE NOT maybe
		RETURNING 1
	), checked AS (
		INSERT INTO form_two_tier.seen SELECT u FROM probed WHERE maybe
		ON CONFLICT DO NOTHING
		RETURNING 1
	)
	SELECT (SELECT count(*) FROM surely_new) + (SELECT count(*) FROM checked)
$$;

-- the memory each form needs hot, and what it may leave cold
CREATE OR REPLACE FUNCTION forms_sizes(OUT form text, OUT hot_bytes bigint, OUT cold_bytes bigint,
									   OUT hot_what text)
RETURNS SETOF record LANGUAGE sql AS $$
	VALUES
	('filter', pg_relation_size('form_filter.seen_log_filter'),
	 pg_table_size('form_filter.seen_log'), 'filter index (the log is append-only, never read)'),
	('exact', pg_table_size('form_exact.seen') + pg_indexes_size('form_exact.seen'), 0::bigint,
	 'btree + heap (ON CONFLICT reads the heap tuple of every duplicate)'),
	('two-tier', pg_table_size('form_two_tier.seen') + pg_indexes_size('form_two_tier.seen'), 0::bigint,
	 'filter index + btree + heap')
$$;

-- shared buffers hit + read of each form's relations (pg_statio, all
-- indexes and TOAST included), as counted so far
CREATE OR REPLACE FUNCTION forms_blocks(OUT form text, OUT blocks bigint)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT CASE schemaname WHEN 'form_filter' THEN 'filter' WHEN 'form_exact' THEN 'exact'
		   ELSE 'two-tier' END,
		   sum(coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0)
			   + coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0)
			   + coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0)
			   + coalesce(tidx_blks_hit, 0) + coalesce(tidx_blks_read, 0))::bigint
	FROM pg_statio_user_tables
	WHERE schemaname IN ('form_filter', 'form_exact', 'form_two_tier')
	GROUP BY 1
$$;
