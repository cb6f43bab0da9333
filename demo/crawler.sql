--
-- demo/crawler.sql: the URL-seen test of a crawler, written the way you
-- would write it in your own system (doc/getting-started.md walks through
-- the same SQL).
--
-- Bloom's 1970 design, two tiers:
--   1. a Bloom filter in front: "no" is certain (never seen: new, no lookup
--      needed); "yes" only means "probably";
--   2. the exact `seen` table behind it: asked only about the "probably
--      seen" links, it catches the filter's false positives, so no new link
--      is ever lost.
-- Every link is normalized first (url_normalize): two spellings of one URL
-- must be one key, or the test is wrong before any filter is asked.
--

-- the exact tier: every URL ever seen, normalized, and when
CREATE TABLE seen (
	url			text PRIMARY KEY,
	first_batch int NOT NULL
);

-- what the fetchers work through
CREATE TABLE frontier (
	id			bigserial PRIMARY KEY,
	url			text NOT NULL
);

-- the filter: one row, read once per batch, written back once per batch.
-- It starts small; scalable (the default) means it grows a new, larger and
-- tighter stage whenever it reaches capacity, so the false-positive rate
-- stays under 1% however many URLs arrive.
CREATE TABLE url_filter (
	id			int PRIMARY KEY,
	f			bloomfilter NOT NULL
);
INSERT INTO url_filter VALUES (1, bloom_create(10000, 0.01));

--
-- One batch of extracted links through the URL-seen test.  Returns what
-- happened, for the progress line; the work is the three statements.
--
CREATE FUNCTION url_seen_batch(batch_no int, links text[],
							   OUT distinct_links bigint,	-- after normalizing, within the batch
							   OUT filter_new bigint,		-- filter said "never seen": no lookup
							   OUT exact_lookups bigint,	-- filter said "probably seen": ask `seen`
							   OUT false_positives bigint,	-- ... and `seen` said it was new after all
							   OUT new_links bigint)		-- enqueued
LANGUAGE plpgsql AS $$
DECLARE
	fresh		text[];
BEGIN
	-- one batch at a time updates the filter: lock its row
	PERFORM 1 FROM url_filter WHERE id = 1 FOR UPDATE;

	WITH batch AS (
		-- normalize first, and each URL once per batch
		SELECT DISTINCT url_normalize(l) AS url FROM unnest(links) AS l
	), probed AS MATERIALIZED (
		SELECT l.url, bloom_contains(u.f, l.url) AS maybe
		FROM batch l, url_filter u WHERE u.id = 1
	), fresh_links AS MATERIALIZED (
		-- tier 1: the filter's "no" is final
		SELECT url, false AS was_fp FROM probed WHERE NOT maybe
		UNION ALL
		-- tier 2: its "probably" is checked against the exact table
		SELECT url, true FROM probed p
		WHERE maybe AND NOT EXISTS (SELECT 1 FROM seen s WHERE s.url = p.url)
	), to_seen AS (
		-- no ON CONFLICT: a URL the filter wrongly called new would fail
		-- here, so the primary key also proves the filter never says "no"
		-- to a URL it holds
		INSERT INTO seen (url, first_batch) SELECT url, batch_no FROM fresh_links
	), to_frontier AS (
		INSERT INTO frontier (url) SELECT url FROM fresh_links
	)
	SELECT count(*),
		   count(*) FILTER (WHERE NOT maybe),
		   count(*) FILTER (WHERE maybe),
		   (SELECT count(*) FROM fresh_links WHERE was_fp),
		   (SELECT count(*) FROM fresh_links),
		   (SELECT array_agg(url) FROM fresh_links)
	INTO distinct_links, filter_new, exact_lookups, false_positives, new_links, fresh
	FROM probed;

	-- the new URLs go into the filter, one copy of it for the whole batch
	-- (coalesce: bloom_add is STRICT, and a NULL array would give a NULL
	-- filter)
	UPDATE url_filter SET f = bloom_add(f, coalesce(fresh, '{}')) WHERE id = 1;
END
$$;

--
-- For comparison only: the same crawler with the filter alone, no exact
-- tier.  Whatever the filter calls "probably seen" is dropped, and some of
-- those links were new: a false positive here is a page never crawled.
--
CREATE TABLE alone_filter (
	id			int PRIMARY KEY,
	f			bloomfilter NOT NULL
);
INSERT INTO alone_filter VALUES (1, bloom_create(10000, 0.01));

CREATE FUNCTION url_seen_batch_filter_only(links text[],
										   OUT distinct_links bigint,
										   OUT enqueued bigint,		-- filter said "never seen"
										   OUT dropped bigint)		-- filter said "probably seen"
LANGUAGE plpgsql AS $$
DECLARE
	fresh		text[];
BEGIN
	PERFORM 1 FROM alone_filter WHERE id = 1 FOR UPDATE;
	WITH probed AS MATERIALIZED (
		SELECT l.url, bloom_contains(a.f, l.url) AS maybe
		FROM (SELECT DISTINCT url_normalize(x) AS url FROM unnest(links) AS x) l,
			 alone_filter a WHERE a.id = 1
	)
	SELECT count(*), count(*) FILTER (WHERE NOT maybe), count(*) FILTER (WHERE maybe),
		   array_agg(url) FILTER (WHERE NOT maybe)
	INTO distinct_links, enqueued, dropped, fresh
	FROM probed;
	UPDATE alone_filter SET f = bloom_add(f, coalesce(fresh, '{}')) WHERE id = 1;
END
$$;
