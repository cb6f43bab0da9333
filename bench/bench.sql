-- bench/bench.sql: every comparison of issue 5, on data from setup.sql.
--   psql -v runs=5 -f bench/bench.sql
-- Each query runs runs+1 times, interleaved with its peers (so a noisy
-- neighbour hurts all of them alike); the first round only warms caches
-- and is dropped.  Timing is clock_timestamp() around EXECUTE inside the
-- server: no client round trip, no result transfer.  Serial plans.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';			-- let the exact answer hash in memory if it wants

CREATE SCHEMA IF NOT EXISTS bench;

-- which filter types this installation has, and how to drive them
DROP TABLE IF EXISTS bench.types;
CREATE TABLE bench.types (
	t text PRIMARY KEY,			-- short name used in row labels
	ord int,
	typ text,					-- SQL type
	contains_fn text,
	build1m text,				-- expression over members.url: the probe filter
	frac float8 DEFAULT 1,		-- of the members it holds
	agg_fn text,				-- aggregate for the build benchmarks (NULL: skip)
	create_fn text				-- create function for the batch add (NULL: skip)
);
INSERT INTO bench.types
	SELECT 'bloom', 1, 'bloomfilter', 'bloom_contains', 'bloom_agg(url, %n, 0.01)', 1, 'bloom_agg', 'bloom_create'
	UNION ALL
	SELECT 'bloom_std', 2, 'bloomfilter', 'bloom_contains',
		'bloom_add(bloom_create(%n, 0.01, ''standard''), array_agg(url))', 1, NULL, NULL
	UNION ALL
	-- a tenth of the members: 140 kB, resident in L2, to show what the
	-- probe costs when it is not waiting for memory (probe rows only)
	SELECT 'bloom_l2', 5, 'bloomfilter', 'bloom_contains', 'bloom_agg(url, %n, 0.01)', 0.1, NULL, NULL
	UNION ALL
	-- the same members in a fixed-size filter (scalable => false): 1.26 MB
	-- against the default's 1.46, whose first stage is sized at half the
	-- rate to leave room for growth (probe rows only)
	SELECT 'bloom_fixed', 6, 'bloomfilter', 'bloom_contains',
		'bloom_add(bloom_create(%n, 0.01, ''blocked'', false), array_agg(url))', 1, NULL, NULL
	UNION ALL
	SELECT 'counting', 3, 'countingbloom', 'counting_bloom_contains', 'counting_bloom_agg(url, %n, 0.01)', 1,
		'counting_bloom_agg', 'counting_bloom_create'
	WHERE EXISTS (SELECT FROM pg_proc WHERE proname = 'counting_bloom_contains')
	  AND EXISTS (SELECT FROM pg_proc WHERE proname = 'counting_bloom_agg')
	UNION ALL
	SELECT 'cuckoo', 4, 'cuckoofilter', 'cuckoo_contains', 'cuckoo_agg(url, %n, 0.01)', 1,
		'cuckoo_agg', 'cuckoo_create'
	WHERE EXISTS (SELECT FROM pg_proc WHERE proname = 'cuckoo_contains')
	  AND EXISTS (SELECT FROM pg_proc WHERE proname = 'cuckoo_agg');
SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'hll') AS have_hll \gset

-- the probe filters: one row per type holding a filter of the members,
-- stored in a table like users would, so it is TOASTed
DO $$
DECLARE
	r record;
	n bigint := (SELECT count(*) FROM members);
BEGIN
	FOR r IN SELECT * FROM bench.types LOOP
		EXECUTE format('DROP TABLE IF EXISTS bench.f_%s', r.t);
		EXECUTE format('CREATE TABLE bench.f_%s (id int PRIMARY KEY, f %s)', r.t, r.typ);
		EXECUTE format('INSERT INTO bench.f_%s SELECT 1, %s FROM %s', r.t,
					   replace(r.build1m, '%n', round(n * r.frac)::text),
					   CASE WHEN r.frac = 1 THEN 'members'
					   ELSE format('(SELECT url FROM members ORDER BY url LIMIT %s) m', round(n * r.frac)) END);
		EXECUTE format('ANALYZE bench.f_%s', r.t);
	END LOOP;
END
$$;

-- sanity (the smoke test relies on it): no false negatives, and the
-- batch add builds the same bytes as the aggregate
DO $$
DECLARE
	r record;
	fn bigint;
	n bigint := (SELECT count(*) FROM members);
BEGIN
	FOR r IN SELECT * FROM bench.types LOOP
		EXECUTE format('SELECT count(*) FROM %s WHERE NOT %s((SELECT f FROM bench.f_%s WHERE id = 1), url)',
					   CASE WHEN r.frac = 1 THEN 'members'
					   ELSE format('(SELECT url FROM members ORDER BY url LIMIT %s) m', round(n * r.frac)) END,
					   r.contains_fn, r.t) INTO fn;
		IF fn <> 0 THEN
			RAISE EXCEPTION '% has % false negatives', r.t, fn;
		END IF;
		CONTINUE WHEN r.frac <> 1;
		EXECUTE format('SELECT count(*) FROM unnest(%s((SELECT f FROM bench.f_%s WHERE id = 1), (SELECT a FROM arr WHERE id = 1))) b WHERE NOT b',
					   r.contains_fn, r.t) INTO fn;
		IF fn <> 0 THEN
			RAISE EXCEPTION '% has % false negatives through the array probe', r.t, fn;
		END IF;
	END LOOP;
	IF (SELECT bloom_add(bloom_create(n, 0.01), a)::bytea FROM arr) <>
	   (SELECT bloom_agg(url, n, 0.01)::bytea FROM members) THEN
		RAISE EXCEPTION 'bloom_add(f, text[]) and bloom_agg differ';
	END IF;
END
$$;

-- the queries: name, group, SQL
DROP TABLE IF EXISTS bench.q;
-- probe_scan: bloomfilter.enable_probe_scan for the query (off: the
-- row-at-a-time plan, a plain Seq Scan or Nested Loop with the probe as
-- its qual, kept for comparison)
-- build_scan: bloomfilter.enable_build_scan likewise (off: the Agg node
-- over a Seq Scan, kept for comparison)
CREATE TABLE bench.q (name text PRIMARY KEY, sql text, probe_scan bool DEFAULT true,
					  build_scan bool DEFAULT true);
INSERT INTO bench.q VALUES
	('scan_baseline', 'SELECT count(*) FROM urls WHERE octet_length(url) > 0'),
	('dedup_not_exists', 'SELECT count(*) FROM batch b WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.url = b.url)'),
	-- the join form's own executor cost: the same join, a trivial qual
	-- that reads both sides, so the join node sees every row as it does
	-- for the row-at-a-time probe (a plain qual cannot be pushed into the
	-- scan; the probe scan takes the probe into the inner scan)
	('scan_join_baseline', 'SELECT count(*) FROM bench.f_bloom fl JOIN urls u ON octet_length(u.url) > fl.id - 1 WHERE fl.id = 1');
\if :have_hll
INSERT INTO bench.q VALUES
	('build_hll', 'SELECT hll_add_agg(hll_hash_text(url)) IS NOT NULL FROM urls'),
	-- nine rows in ten: the build scan tests the clause itself
	('build_hll_where', 'SELECT hll_add_agg(hll_hash_text(url)) IS NOT NULL FROM urls WHERE id % 10 <> 0');
\endif
INSERT INTO bench.q
	-- each twice: as planned, and (name ending _rows) with the probe scan
	-- off, a qual answered row by row
	SELECT t || '_probe_subquery' || v.suffix,
		format('SELECT count(*) FROM urls WHERE %s((SELECT f FROM bench.f_%s WHERE id = 1), url)', contains_fn, t)
	FROM bench.types, (VALUES (''), ('_rows')) v(suffix)
	UNION ALL
	SELECT t || '_probe_join' || v.suffix,
		format('SELECT count(*) FROM bench.f_%s fl JOIN urls u ON %s(fl.f, u.url) WHERE fl.id = 1', t, contains_fn)
	FROM bench.types, (VALUES (''), ('_rows')) v(suffix)
	UNION ALL
	-- the 1M members as one array: probed in one call, and row by row
	SELECT t || '_probe_array',
		format('SELECT count(*) FROM unnest(%s((SELECT f FROM bench.f_%s WHERE id = 1), (SELECT a FROM arr WHERE id = 1))) b WHERE b', contains_fn, t)
	FROM bench.types
	UNION ALL
	SELECT t || '_probe_unnest',
		format('SELECT count(*) FROM unnest((SELECT a FROM arr WHERE id = 1)) u WHERE %s((SELECT f FROM bench.f_%s WHERE id = 1), u)', contains_fn, t)
	FROM bench.types
	UNION ALL
	SELECT t || '_dedup_gate',
		format('SELECT count(*) FROM batch b WHERE NOT %s((SELECT f FROM bench.f_%s WHERE id = 1), b.url)', contains_fn, t)
	FROM bench.types WHERE frac = 1
	UNION ALL
	-- each twice: as planned, and (_rows) with the build scan off, the Agg node
	SELECT t || '_build_sized' || v.suffix,
		format('SELECT %s(url, %s, 0.01) IS NOT NULL FROM urls', agg_fn, (SELECT count(*) FROM urls))
	FROM bench.types, (VALUES (''), ('_rows')) v(suffix) WHERE agg_fn IS NOT NULL
	UNION ALL
	SELECT t || '_build_auto' || v.suffix, format('SELECT %s(url) IS NOT NULL FROM urls', agg_fn)
	FROM bench.types, (VALUES (''), ('_rows')) v(suffix) WHERE agg_fn IS NOT NULL
	UNION ALL
	SELECT t || '_build_where' || v.suffix,
		format('SELECT %s(url, %s, 0.01) IS NOT NULL FROM urls WHERE id %% 10 <> 0', agg_fn, (SELECT count(*) FROM urls))
	FROM bench.types, (VALUES (''), ('_rows')) v(suffix) WHERE agg_fn IS NOT NULL
	UNION ALL
	SELECT t || '_batch_add',
		format('SELECT %s(%s(%s, 0.01), a) IS NOT NULL FROM arr', replace(agg_fn, '_agg', '_add'),
			   create_fn, (SELECT count(*) FROM members))
	FROM bench.types WHERE create_fn IS NOT NULL
	UNION ALL
	SELECT t || '_batch_agg',
		format('SELECT %s(url, %s, 0.01) IS NOT NULL FROM members', agg_fn, (SELECT count(*) FROM members))
	FROM bench.types WHERE agg_fn IS NOT NULL;
UPDATE bench.q SET probe_scan = false WHERE name LIKE '%\_probe\_%\_rows';
UPDATE bench.q SET build_scan = false WHERE name LIKE '%\_build\_%\_rows';

-- run every query runs+1 times, round-robin; round 0 is the warm-up.
-- Each query runs twice in a row and the second run is timed: the first
-- of two queries that need the same big allocations pays for faulting
-- fresh memory in (thousands of page faults for a 2M build after other
-- queries), and which query that is depended on the
-- order of the names.  Timed second, a query runs with the memory it
-- used a moment before, as a repeated query does.
DROP TABLE IF EXISTS bench.timings;
CREATE TABLE bench.timings (name text, round int, ms float8);
CREATE OR REPLACE FUNCTION bench.run(rounds int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	t0 timestamptz;
BEGIN
	FOR i IN 0 .. rounds LOOP
		FOR r IN SELECT * FROM bench.q ORDER BY name LOOP
			PERFORM set_config('bloomfilter.enable_probe_scan', r.probe_scan::text, false);
			PERFORM set_config('bloomfilter.enable_build_scan', r.build_scan::text, false);
			EXECUTE r.sql;
			t0 := clock_timestamp();
			EXECUTE r.sql;
			INSERT INTO bench.timings
				VALUES (r.name, i, extract(epoch FROM clock_timestamp() - t0) * 1000);
		END LOOP;
	END LOOP;
END
$$;
\o /dev/null
SELECT bench.run(:runs);
\o

-- medians, the sizes the dedup target is about, and the report
-- (and minima: noise on a shared machine only ever adds time, so the
-- ratio of minima shows what the code costs when the medians scatter)
CREATE OR REPLACE VIEW bench.med AS
	SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms, min(ms) AS min_ms
	FROM bench.timings WHERE round > 0 GROUP BY name;

DROP TABLE IF EXISTS bench.sizes;
CREATE TABLE bench.sizes (name text, bytes bigint);
INSERT INTO bench.sizes VALUES ('members_pkey', pg_relation_size('members_pkey'));
DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT * FROM bench.types LOOP
		EXECUTE format('INSERT INTO bench.sizes SELECT %L, pg_column_size(f) FROM bench.f_%s WHERE id = 1',
					   r.t || '_filter', r.t);
	END LOOP;
END
$$;

-- one row per comparison: ratio = this / peer (times) or peer / this
-- (the dedup speed-up and the size ratio, where bigger is better)
CREATE OR REPLACE VIEW bench.report AS
WITH c(ord, t, test, this, peer, kind, target) AS (
	SELECT ty.ord * 10 + 1, ty.t, 'probe, scalar subquery', ty.t || '_probe_subquery', 'scan_baseline', '<=', 1.3 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 2, ty.t, 'probe, join', ty.t || '_probe_join', 'scan_baseline', '<=', 1.3 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 2, ty.t, 'probe, join vs the same join, trivial qual', ty.t || '_probe_join', 'scan_join_baseline', '<=', 1.3 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 2, ty.t, 'probe, scalar subquery, probe scan off', ty.t || '_probe_subquery_rows', 'scan_baseline', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 2, ty.t, 'probe, join, probe scan off', ty.t || '_probe_join_rows', 'scan_baseline', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 2, ty.t, 'probe, array of 1M vs unnest row by row', ty.t || '_probe_array', ty.t || '_probe_unnest', '<=', 1.0 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 3, ty.t, 'build, sized agg vs hll', ty.t || '_build_sized', 'build_hll', '<=', 1.0 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 3, ty.t, 'build, sized agg vs hll, build scan off', ty.t || '_build_sized_rows', 'build_hll', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 4, ty.t, 'build, auto-sized agg vs hll', ty.t || '_build_auto', 'build_hll', '<=', 1.5 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 4, ty.t, 'build, auto-sized agg vs hll, build scan off', ty.t || '_build_auto_rows', 'build_hll', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 4, ty.t, 'build, sized agg vs hll, WHERE on 9 rows in 10', ty.t || '_build_where', 'build_hll_where', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 4, ty.t, 'build, sized agg vs hll, WHERE, build scan off', ty.t || '_build_where_rows', 'build_hll_where', '<=', NULL FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 5, ty.t, 'dedup gate speed-up vs NOT EXISTS', ty.t || '_dedup_gate', 'dedup_not_exists', '>=', 5 FROM bench.types ty
	UNION ALL SELECT ty.ord * 10 + 6, ty.t, 'btree index / filter bytes', ty.t || '_filter', 'members_pkey', '>=', 50 FROM bench.types ty WHERE ty.frac = 1
	UNION ALL SELECT ty.ord * 10 + 7, ty.t, 'batch add(f, text[]) vs agg', ty.t || '_batch_add', ty.t || '_batch_agg', '<=', 1.5 FROM bench.types ty
)
SELECT c.t AS type, c.test,
	coalesce(round(a.ms::numeric, 1)::text, sa.bytes::text) AS this,
	c.peer,
	coalesce(round(b.ms::numeric, 1)::text, sb.bytes::text) AS peer_value,
	round((CASE WHEN c.kind = '<=' THEN coalesce(a.ms, sa.bytes) / coalesce(b.ms, sb.bytes)
		   ELSE coalesce(b.ms, sb.bytes) / coalesce(a.ms, sa.bytes) END)::numeric, 2) AS ratio,
	round((CASE WHEN c.kind = '<=' THEN coalesce(a.min_ms, sa.bytes) / coalesce(b.min_ms, sb.bytes)
		   ELSE coalesce(b.min_ms, sb.bytes) / coalesce(a.min_ms, sa.bytes) END)::numeric, 2) AS ratio_of_mins,
	coalesce(c.kind || ' ' || c.target, '-') AS target,
	CASE WHEN c.target IS NULL THEN 'info'
		 WHEN c.kind = '<=' AND coalesce(a.ms, sa.bytes) / coalesce(b.ms, sb.bytes) <= c.target THEN 'pass'
		 WHEN c.kind = '>=' AND coalesce(b.ms, sb.bytes) / coalesce(a.ms, sa.bytes) >= c.target THEN 'pass'
		 ELSE 'FAIL' END AS ok
FROM c
LEFT JOIN bench.med a ON a.name = c.this
LEFT JOIN bench.med b ON b.name = c.peer
LEFT JOIN bench.sizes sa ON sa.name = c.this
LEFT JOIN bench.sizes sb ON sb.name = c.peer
WHERE coalesce(a.ms, sa.bytes) IS NOT NULL AND coalesce(b.ms, sb.bytes) IS NOT NULL
ORDER BY c.ord;
