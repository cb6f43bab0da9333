--
-- demo/demo.sql: run by tools/run-demo.sh (`make demo`) in a throwaway
-- database; psql variables:
--   links   how many extracted links to push through the URL-seen test
--   batch   links per batch (one call of url_seen_batch)
-- and reads data/urls-sample.txt.gz relative to the current directory (the
-- project's root).
--
\set ON_ERROR_STOP 1
\set QUIET 1
\pset footer off
SET client_min_messages = notice;

CREATE EXTENSION bloomfilter;

-- the real URLs, then the stream generator and the crawler's tables
CREATE TABLE demo_real_raw (n int GENERATED ALWAYS AS IDENTITY, url text NOT NULL);
\copy demo_real_raw (url) FROM PROGRAM 'gzip -dc data/urls-sample.txt.gz'
\ir generator.sql
SELECT demo_prepare() \gset
\ir crawler.sql
-- the three forms compared at the end (filter alone, exact table alone,
-- two tiers): filters sized for half the links being new
\ir forms.sql
SELECT forms_reset(greatest(:links / 2, 10000)) \gset

-- the demo's bookkeeping: one row per batch
CREATE TABLE demo_stats (
	batch			int PRIMARY KEY,
	links			bigint,
	respelled		bigint,		-- links url_normalize changed
	distinct_links	bigint,
	filter_new		bigint,
	exact_lookups	bigint,
	false_positives bigint,
	new_links		bigint,
	alone_enqueued	bigint,
	alone_dropped	bigint,
	gen_s			float8,
	seen_s			float8,
	alone_s			float8,
	-- the three forms of demo/forms.sql on the same normalized batch
	form_filter_new	bigint,
	form_exact_new	bigint,
	form_two_tier_new bigint,
	form_filter_s	float8,
	form_exact_s	float8,
	form_two_tier_s float8
);

-- the loop a crawler runs, one batch of extracted links at a time, with a
-- progress line per batch and a commit after each
CREATE PROCEDURE demo_crawl(total bigint, batch_size int)
LANGUAGE plpgsql AS $$
DECLARE
	nbatches	int := ceil(total::numeric / batch_size);
	links		text[];
	r			record;
	a			record;
	c			record;
	t0			timestamptz;
	t1			timestamptz;
	t2			timestamptz;
	t3			timestamptz;
	t4			timestamptz;
	started		timestamptz := clock_timestamp();
	urls		text[];
	forms		text[] := ARRAY['filter', 'exact', 'two-tier'];
	fnew		bigint[];
	fsecs		float8[];
	fname		text;
	k			int;
BEGIN
	RAISE NOTICE '%', format('%-9s %11s %9s %6s %9s %8s %12s %8s %11s %7s',
							 'batch', 'links', 'new', 'new%', 'avoided', 'fp', 'filter',
							 'stages', 'seen idx', 'lost*');
	FOR b IN 1 .. nbatches LOOP
		t0 := clock_timestamp();
		links := ARRAY(SELECT demo_links((b - 1)::bigint * batch_size,
										 least(batch_size, total - (b - 1)::bigint * batch_size)::int));
		t1 := clock_timestamp();
		SELECT * INTO r FROM url_seen_batch(b, links);
		t2 := clock_timestamp();
		SELECT * INTO a FROM url_seen_batch_filter_only(links);
		COMMIT;
		t3 := clock_timestamp();

		-- the three forms, on the batch normalized and distinct (untimed,
		-- the same for all), their order rotated every batch, each batch
		-- one transaction timed with its commit (the filter index adds
		-- its bits at commit)
		urls := ARRAY(SELECT DISTINCT url_normalize(l) FROM unnest(links) AS l);
		fnew := '{0,0,0}';
		fsecs := '{0,0,0}';
		FOR j IN 0 .. 2 LOOP
			k := 1 + (b + j) % 3;
			fname := forms[k];
			t4 := clock_timestamp();
			CASE fname
				WHEN 'filter' THEN fnew[k] := form_filter_batch(urls);
				WHEN 'exact' THEN fnew[k] := form_exact_batch(urls);
				ELSE fnew[k] := form_two_tier_batch(urls);
			END CASE;
			COMMIT;
			fsecs[k] := extract(epoch FROM clock_timestamp() - t4);
		END LOOP;

		INSERT INTO demo_stats VALUES (
			b, cardinality(links),
			(SELECT count(*) FROM unnest(links) l WHERE url_normalize(l) <> l),
			r.distinct_links, r.filter_new, r.exact_lookups, r.false_positives, r.new_links,
			a.enqueued, a.dropped,
			extract(epoch FROM t1 - t0), extract(epoch FROM t2 - t1), extract(epoch FROM t3 - t2),
			fnew[1], fnew[2], fnew[3], fsecs[1], fsecs[2], fsecs[3]);

		SELECT sum(s.links) AS links, sum(s.new_links) AS new_links,
			   sum(s.distinct_links) AS distinct_links, sum(s.filter_new) AS filter_new,
			   sum(s.false_positives) AS fps, sum(s.alone_enqueued) AS alone
		INTO c FROM demo_stats s;
		RAISE NOTICE '%', format('%-9s %11s %9s %5s%% %8s%% %8s %12s %8s %11s %7s',
			b || '/' || nbatches,
			to_char(c.links, 'FM999,999,999'),
			to_char(c.new_links, 'FM999,999,999'),
			round(100.0 * c.new_links / c.links, 1),
			round(100.0 * c.filter_new / c.distinct_links, 1),
			c.fps,
			pg_size_pretty((SELECT (bloom_info(f) ->> 'bytes')::bigint FROM url_filter WHERE id = 1)),
			(SELECT bloom_info(f) ->> 'stages' FROM url_filter WHERE id = 1),
			pg_size_pretty(pg_relation_size('seen_pkey')),
			c.new_links - c.alone);
		COMMIT;
	END LOOP;
	RAISE NOTICE '%', 'new%: share of the links that were new; avoided: share of the exact lookups the filter made unnecessary;';
	RAISE NOTICE '%', 'fp: new links the filter called "probably seen", caught by the exact tier; lost*: new links the same';
	RAISE NOTICE '%', 'crawler with the filter alone dropped (the same filter makes the same mistakes: caught there, lost here)';
	RAISE NOTICE '%', format('loop done in %s s', round(extract(epoch FROM clock_timestamp() - started)::numeric, 1));
END
$$;

\echo
\echo 'URL-seen test on' :links 'extracted links, batches of' :batch '(url_normalize -> bloom_contains -> exact check of "probably seen" -> insert new, bloom_add):'
\echo
CALL demo_crawl(:links, :batch);

-- the summary
VACUUM ANALYZE seen;
\echo
\echo 'Two tiers: Bloom filter in front, exact `seen` table (btree) behind'
SELECT metric, value FROM (
	SELECT s.*, f.f,
		   (bloom_info(f.f) ->> 'bytes')::bigint AS filter_bytes,
		   pg_relation_size('seen_pkey') AS index_bytes,
		   (SELECT count(*) FROM seen) AS seen_count
	FROM (SELECT sum(links) AS links, sum(respelled) AS respelled,
				 sum(distinct_links) AS distinct_links, sum(filter_new) AS filter_new,
				 sum(exact_lookups) AS exact_lookups, sum(false_positives) AS fps,
				 sum(new_links) AS new_links, sum(gen_s) AS gen_s, sum(seen_s) AS seen_s,
				 sum(alone_s) AS alone_s, count(*) AS batches
		  FROM demo_stats) s,
		 url_filter f WHERE f.id = 1
) t,
LATERAL (VALUES
	(1, 'links processed', to_char(links, 'FM999,999,999') || ' in ' || batches || ' batches'),
	(2, 'links respelled, folded by url_normalize', to_char(respelled, 'FM999,999,999')),
	(3, 'new links (into frontier and seen)', to_char(new_links, 'FM999,999,999')
		|| ' (' || round(100.0 * new_links / links, 1) || '%)'),
	(4, 'duplicates dropped', to_char(links - new_links, 'FM999,999,999')
		|| ' (' || round(100.0 * (links - new_links) / links, 1) || '%)'),
	(5, 'exact lookups without a filter', to_char(distinct_links, 'FM999,999,999')
		|| ' (one per distinct link per batch)'),
	(6, 'exact lookups made', to_char(exact_lookups, 'FM999,999,999')),
	(7, 'exact lookups avoided', to_char(filter_new, 'FM999,999,999')
		|| ' (' || round(100.0 * filter_new / distinct_links, 1) || '%)'),
	(8, 'false positives caught by the exact tier', to_char(fps, 'FM999,999,999')),
	(9, 'false-positive rate: measured / target', round(fps::numeric / greatest(new_links, 1), 5)
		|| ' / ' || (bloom_info(f) ->> 'fpr_target')
		|| '  (filter''s own estimate now ' || round(bloom_fpr(f)::numeric, 5) || ')'),
	(10, 'new links lost', '0 (the exact tier catches every false positive)'),
	(11, 'filter size', pg_size_pretty(filter_bytes) || ', ' || (bloom_info(f) ->> 'stages')
		|| ' stages, ' || round(8.0 * filter_bytes / seen_count, 1) || ' bits/URL (started at '
		|| pg_size_pretty(pg_column_size(bloom_create(10000, 0.01))::bigint) || '; one sized up front for '
		|| to_char(seen_count, 'FM999,999,999') || ' URLs: '
		|| pg_size_pretty(pg_column_size(bloom_create(seen_count, 0.01))::bigint) || ')'),
	(12, 'seen btree index size', pg_size_pretty(index_bytes) || ' ('
		|| round(index_bytes::numeric / filter_bytes, 1) || 'x the filter; table '
		|| pg_size_pretty(pg_table_size('seen')) || ')'),
	(13, 'time', round((gen_s + seen_s + alone_s)::numeric, 1) || ' s: generating links '
		|| round(gen_s::numeric, 1) || ' s, URL-seen test ' || round(seen_s::numeric, 1)
		|| ' s (' || to_char(round(links / greatest(seen_s, 0.001)), 'FM999,999,999')
		|| ' links/s), filter-only run ' || round(alone_s::numeric, 1) || ' s')
) AS m(ord, metric, value)
ORDER BY ord;

\echo 'The same run with the filter alone (no exact tier), against the exact truth'
SELECT metric, value FROM (
	SELECT sum(alone_enqueued) AS enqueued, sum(alone_dropped) AS dropped,
		   (SELECT count(*) FROM seen) AS truly_new,
		   sum(links) AS links
	FROM demo_stats
) t,
LATERAL (VALUES
	(1, 'links processed', to_char(links, 'FM999,999,999')),
	(2, 'truly new links (exact truth: rows of seen)', to_char(truly_new, 'FM999,999,999')),
	(3, 'new links the filter let through', to_char(enqueued, 'FM999,999,999')),
	(4, 'new links silently dropped', to_char(truly_new - enqueued, 'FM999,999,999')
		|| ' (' || round(100.0 * (truly_new - enqueued) / truly_new, 3) || '% of the new links)'),
	(5, 'exact lookups made', '0')
) AS m(ord, metric, value)
ORDER BY ord;

-- the three forms: pg_statio counts reach the views when this session goes
-- idle after a forced flush
VACUUM ANALYZE form_filter.seen_log, form_exact.seen, form_two_tier.seen;
SELECT pg_stat_force_next_flush() \gset
\echo 'Three forms of the URL-seen test on the same batches, interleaved (demo/forms.sql; links normalized and'
\echo 'made distinct first, untimed; bench/README.md runs them at 1M-30M links and models 1 billion URLs)'
SELECT m.form, round(m.secs::numeric, 1) || ' s' AS "time",
	   to_char(t.links / greatest(m.secs, 0.001), 'FM999,999,999') AS "links/s",
	   pg_size_pretty(z.hot_bytes) AS "hot memory",
	   round(bl.blocks::numeric / t.links, 2) AS "buffer pages/link",
	   to_char(m.new_links, 'FM999,999,999') AS "new links",
	   to_char(t.en - m.new_links, 'FM999,999,999') AS "dropped",
	   z.hot_what AS "what must stay hot"
FROM (SELECT sum(links) AS links, sum(form_filter_s) AS fs, sum(form_exact_s) AS es,
			 sum(form_two_tier_s) AS ts, sum(form_filter_new) AS fn, sum(form_exact_new) AS en,
			 sum(form_two_tier_new) AS tn
	  FROM demo_stats) t,
	 LATERAL (VALUES (1, 'filter', t.fs, t.fn), (2, 'exact', t.es, t.en), (3, 'two-tier', t.ts, t.tn))
		AS m(ord, form, secs, new_links)
	 JOIN forms_sizes() z USING (form)
	 JOIN forms_blocks() bl USING (form)
ORDER BY m.ord;
SELECT format('Recommendation: the filter alone where losing %s%% of the new links is acceptable '
			  '(%sx the exact table''s speed in %sx less memory); where every link counts, %s',
			  round(100.0 * (t.en - t.fn) / t.en, 3), round((t.es / t.fs)::numeric, 1),
			  round(ze.hot_bytes::numeric / zf.hot_bytes),
			  CASE WHEN t.ts < t.es
				THEN format('the two tiers (%sx the exact table''s speed, its memory and the filter''s)',
							round((t.es / t.ts)::numeric, 1))
				ELSE format('the exact table (the two tiers: %sx its speed)', round((t.es / t.ts)::numeric, 1)) END)
		   || '; at a billion URLs, bench/README.md' AS recommendation
FROM (SELECT sum(form_filter_s) AS fs, sum(form_exact_s) AS es, sum(form_two_tier_s) AS ts,
			 sum(form_filter_new) AS fn, sum(form_exact_new) AS en FROM demo_stats) t,
	 (SELECT hot_bytes FROM forms_sizes() WHERE form = 'filter') zf,
	 (SELECT hot_bytes FROM forms_sizes() WHERE form = 'exact') ze \gset
\echo :recommendation
