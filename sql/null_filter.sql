--
-- A NULL filter contains nothing: every probe of every type answers false
-- for a non-NULL element (a count 0, an array of false), so a missing
-- filter never makes WHERE NOT contains(f, x) drop every row.  A NULL
-- element still gives NULL.  The probe scan gives the function's rows.
--
\pset null (null)

-- the crawler's test (doc/getting-started.md): no filter row yet, so every link is new
CREATE TABLE nf_filter (id int PRIMARY KEY, f bloomfilter);
CREATE TABLE nf_batch (url text);
INSERT INTO nf_batch VALUES ('https://a.example/'), ('https://b.example/'), (NULL);
SELECT url FROM nf_batch WHERE NOT bloom_contains((SELECT f FROM nf_filter WHERE id = 1), url) ORDER BY url;
SELECT count(*) AS kept FROM nf_batch WHERE NOT ((SELECT f FROM nf_filter WHERE id = 1) @> url);
SELECT count(*) AS found FROM nf_batch WHERE bloom_contains((SELECT f FROM nf_filter WHERE id = 1), url);

-- every scalar probe, every element type: a NULL filter gives false, a
-- NULL element NULL (with a NULL filter too)
SELECT t, f_null, x_null, both_null
FROM (VALUES
	('bloom text', bloom_contains(NULL::bloomfilter, 'a'::text), bloom_contains(bloom_create(10), NULL::text), bloom_contains(NULL::bloomfilter, NULL::text)),
	('bloom bytea', bloom_contains(NULL::bloomfilter, '\x01'::bytea), bloom_contains(bloom_create(10), NULL::bytea), bloom_contains(NULL::bloomfilter, NULL::bytea)),
	('bloom bigint', bloom_contains(NULL::bloomfilter, 1::bigint), bloom_contains(bloom_create(10), NULL::bigint), bloom_contains(NULL::bloomfilter, NULL::bigint)),
	('bloom integer', bloom_contains(NULL::bloomfilter, 1), bloom_contains(bloom_create(10), NULL::int), bloom_contains(NULL::bloomfilter, NULL::int)),
	('bloom smallint', bloom_contains(NULL::bloomfilter, 1::smallint), bloom_contains(bloom_create(10), NULL::smallint), bloom_contains(NULL::bloomfilter, NULL::smallint)),
	('bloom varchar', bloom_contains(NULL::bloomfilter, 'a'::varchar), bloom_contains(bloom_create(10), NULL::varchar), bloom_contains(NULL::bloomfilter, NULL::varchar)),
	('bloom uuid', bloom_contains(NULL::bloomfilter, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), bloom_contains(bloom_create(10), NULL::uuid), bloom_contains(NULL::bloomfilter, NULL::uuid)),
	('bloom contained text', bloom_contained('a'::text, NULL), bloom_contained(NULL::text, bloom_create(10)), bloom_contained(NULL::text, NULL)),
	('bloom contained bigint', bloom_contained(1::bigint, NULL), bloom_contained(NULL::bigint, bloom_create(10)), bloom_contained(NULL::bigint, NULL)),
	('counting text', counting_bloom_contains(NULL::countingbloom, 'a'::text), counting_bloom_contains(counting_bloom_create(10), NULL::text), counting_bloom_contains(NULL::countingbloom, NULL::text)),
	('counting bytea', counting_bloom_contains(NULL::countingbloom, '\x01'::bytea), counting_bloom_contains(counting_bloom_create(10), NULL::bytea), counting_bloom_contains(NULL::countingbloom, NULL::bytea)),
	('counting bigint', counting_bloom_contains(NULL::countingbloom, 1::bigint), counting_bloom_contains(counting_bloom_create(10), NULL::bigint), counting_bloom_contains(NULL::countingbloom, NULL::bigint)),
	('counting integer', counting_bloom_contains(NULL::countingbloom, 1), counting_bloom_contains(counting_bloom_create(10), NULL::int), counting_bloom_contains(NULL::countingbloom, NULL::int)),
	('counting varchar', counting_bloom_contains(NULL::countingbloom, 'a'::varchar), counting_bloom_contains(counting_bloom_create(10), NULL::varchar), counting_bloom_contains(NULL::countingbloom, NULL::varchar)),
	('counting uuid', counting_bloom_contains(NULL::countingbloom, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), counting_bloom_contains(counting_bloom_create(10), NULL::uuid), counting_bloom_contains(NULL::countingbloom, NULL::uuid)),
	('counting contained text', counting_bloom_contained('a'::text, NULL), counting_bloom_contained(NULL::text, counting_bloom_create(10)), counting_bloom_contained(NULL::text, NULL)),
	('counting contained uuid', counting_bloom_contained('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL), counting_bloom_contained(NULL::uuid, counting_bloom_create(10)), counting_bloom_contained(NULL::uuid, NULL)),
	('cuckoo text', cuckoo_contains(NULL::cuckoofilter, 'a'::text), cuckoo_contains(cuckoo_create(10), NULL::text), cuckoo_contains(NULL::cuckoofilter, NULL::text)),
	('cuckoo bytea', cuckoo_contains(NULL::cuckoofilter, '\x01'::bytea), cuckoo_contains(cuckoo_create(10), NULL::bytea), cuckoo_contains(NULL::cuckoofilter, NULL::bytea)),
	('cuckoo bigint', cuckoo_contains(NULL::cuckoofilter, 1::bigint), cuckoo_contains(cuckoo_create(10), NULL::bigint), cuckoo_contains(NULL::cuckoofilter, NULL::bigint)),
	('cuckoo integer', cuckoo_contains(NULL::cuckoofilter, 1), cuckoo_contains(cuckoo_create(10), NULL::int), cuckoo_contains(NULL::cuckoofilter, NULL::int)),
	('cuckoo varchar', cuckoo_contains(NULL::cuckoofilter, 'a'::varchar), cuckoo_contains(cuckoo_create(10), NULL::varchar), cuckoo_contains(NULL::cuckoofilter, NULL::varchar)),
	('cuckoo uuid', cuckoo_contains(NULL::cuckoofilter, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), cuckoo_contains(cuckoo_create(10), NULL::uuid), cuckoo_contains(NULL::cuckoofilter, NULL::uuid)),
	('cuckoo contained bytea', cuckoo_contained('\x01'::bytea, NULL), cuckoo_contained(NULL::bytea, cuckoo_create(10)), cuckoo_contained(NULL::bytea, NULL)),
	('cuckoo contained bigint', cuckoo_contained(1::bigint, NULL), cuckoo_contained(NULL::bigint, cuckoo_create(10)), cuckoo_contained(NULL::bigint, NULL)),
	('stable text', stable_bloom_contains(NULL::stablebloom, 'a'::text), stable_bloom_contains(stable_bloom_create(100), NULL::text), stable_bloom_contains(NULL::stablebloom, NULL::text)),
	('stable bytea', stable_bloom_contains(NULL::stablebloom, '\x01'::bytea), stable_bloom_contains(stable_bloom_create(100), NULL::bytea), stable_bloom_contains(NULL::stablebloom, NULL::bytea)),
	('stable bigint', stable_bloom_contains(NULL::stablebloom, 1::bigint), stable_bloom_contains(stable_bloom_create(100), NULL::bigint), stable_bloom_contains(NULL::stablebloom, NULL::bigint)),
	('stable integer', stable_bloom_contains(NULL::stablebloom, 1), stable_bloom_contains(stable_bloom_create(100), NULL::int), stable_bloom_contains(NULL::stablebloom, NULL::int)),
	('stable varchar', stable_bloom_contains(NULL::stablebloom, 'a'::varchar), stable_bloom_contains(stable_bloom_create(100), NULL::varchar), stable_bloom_contains(NULL::stablebloom, NULL::varchar)),
	('stable uuid', stable_bloom_contains(NULL::stablebloom, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), stable_bloom_contains(stable_bloom_create(100), NULL::uuid), stable_bloom_contains(NULL::stablebloom, NULL::uuid)),
	('stable contained text', stable_bloom_contained('a'::text, NULL), stable_bloom_contained(NULL::text, stable_bloom_create(100)), stable_bloom_contained(NULL::text, NULL)),
	('stable contained uuid', stable_bloom_contained('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL), stable_bloom_contained(NULL::uuid, stable_bloom_create(100)), stable_bloom_contained(NULL::uuid, NULL))
) v(t, f_null, x_null, both_null);

-- the operators and their negations, every type and element type
SELECT t, op, commutator, not_op, not_commutator
FROM (VALUES
	('bloom text', NULL::bloomfilter @> 'a'::text, 'a'::text <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> 'a'::text), NOT ('a'::text <@ NULL::bloomfilter)),
	('bloom bytea', NULL::bloomfilter @> '\x01'::bytea, '\x01'::bytea <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> '\x01'::bytea), NOT ('\x01'::bytea <@ NULL::bloomfilter)),
	('bloom bigint', NULL::bloomfilter @> 1::bigint, 1::bigint <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> 1::bigint), NOT (1::bigint <@ NULL::bloomfilter)),
	('bloom integer', NULL::bloomfilter @> 1, 1 <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> 1), NOT (1 <@ NULL::bloomfilter)),
	('bloom uuid', NULL::bloomfilter @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), NOT ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::bloomfilter)),
	('bloom NULL element', NULL::bloomfilter @> NULL::text, NULL::text <@ NULL::bloomfilter, NOT (NULL::bloomfilter @> NULL::text), NOT (NULL::text <@ NULL::bloomfilter)),
	('counting text', NULL::countingbloom @> 'a'::text, 'a'::text <@ NULL::countingbloom, NOT (NULL::countingbloom @> 'a'::text), NOT ('a'::text <@ NULL::countingbloom)),
	('counting bytea', NULL::countingbloom @> '\x01'::bytea, '\x01'::bytea <@ NULL::countingbloom, NOT (NULL::countingbloom @> '\x01'::bytea), NOT ('\x01'::bytea <@ NULL::countingbloom)),
	('counting bigint', NULL::countingbloom @> 1::bigint, 1::bigint <@ NULL::countingbloom, NOT (NULL::countingbloom @> 1::bigint), NOT (1::bigint <@ NULL::countingbloom)),
	('counting uuid', NULL::countingbloom @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::countingbloom, NOT (NULL::countingbloom @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), NOT ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::countingbloom)),
	('counting NULL element', NULL::countingbloom @> NULL::bigint, NULL::bigint <@ NULL::countingbloom, NOT (NULL::countingbloom @> NULL::bigint), NOT (NULL::bigint <@ NULL::countingbloom)),
	('cuckoo text', NULL::cuckoofilter @> 'a'::text, 'a'::text <@ NULL::cuckoofilter, NOT (NULL::cuckoofilter @> 'a'::text), NOT ('a'::text <@ NULL::cuckoofilter)),
	('cuckoo bytea', NULL::cuckoofilter @> '\x01'::bytea, '\x01'::bytea <@ NULL::cuckoofilter, NOT (NULL::cuckoofilter @> '\x01'::bytea), NOT ('\x01'::bytea <@ NULL::cuckoofilter)),
	('cuckoo bigint', NULL::cuckoofilter @> 1::bigint, 1::bigint <@ NULL::cuckoofilter, NOT (NULL::cuckoofilter @> 1::bigint), NOT (1::bigint <@ NULL::cuckoofilter)),
	('cuckoo uuid', NULL::cuckoofilter @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::cuckoofilter, NOT (NULL::cuckoofilter @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), NOT ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::cuckoofilter)),
	('cuckoo NULL element', NULL::cuckoofilter @> NULL::uuid, NULL::uuid <@ NULL::cuckoofilter, NOT (NULL::cuckoofilter @> NULL::uuid), NOT (NULL::uuid <@ NULL::cuckoofilter)),
	('stable text', NULL::stablebloom @> 'a'::text, 'a'::text <@ NULL::stablebloom, NOT (NULL::stablebloom @> 'a'::text), NOT ('a'::text <@ NULL::stablebloom)),
	('stable bytea', NULL::stablebloom @> '\x01'::bytea, '\x01'::bytea <@ NULL::stablebloom, NOT (NULL::stablebloom @> '\x01'::bytea), NOT ('\x01'::bytea <@ NULL::stablebloom)),
	('stable bigint', NULL::stablebloom @> 1::bigint, 1::bigint <@ NULL::stablebloom, NOT (NULL::stablebloom @> 1::bigint), NOT (1::bigint <@ NULL::stablebloom)),
	('stable uuid', NULL::stablebloom @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::stablebloom, NOT (NULL::stablebloom @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), NOT ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ NULL::stablebloom)),
	('stable NULL element', NULL::stablebloom @> NULL::bytea, NULL::bytea <@ NULL::stablebloom, NOT (NULL::stablebloom @> NULL::bytea), NOT (NULL::bytea <@ NULL::stablebloom))
) v(t, op, commutator, not_op, not_commutator);

-- counts: a NULL filter holds no copy of anything; a NULL element is NULL
SELECT counting_bloom_count(NULL, 'a'::text) AS counting_text,
       counting_bloom_count(NULL, '\x01'::bytea) AS counting_bytea,
       counting_bloom_count(NULL, 1::bigint) AS counting_bigint,
       counting_bloom_count(NULL, 1) AS counting_integer,
       counting_bloom_count(NULL, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS counting_uuid,
       counting_bloom_count(NULL, NULL::text) AS counting_null_element,
       counting_bloom_count(counting_bloom_create(10), NULL::bigint) AS counting_null_element2;
SELECT cuckoo_count(NULL, 'a'::text) AS cuckoo_text,
       cuckoo_count(NULL, '\x01'::bytea) AS cuckoo_bytea,
       cuckoo_count(NULL, 1::bigint) AS cuckoo_bigint,
       cuckoo_count(NULL, 1::smallint) AS cuckoo_smallint,
       cuckoo_count(NULL, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS cuckoo_uuid,
       cuckoo_count(NULL, NULL::uuid) AS cuckoo_null_element,
       cuckoo_count(cuckoo_create(10), NULL::text) AS cuckoo_null_element2;

-- the array probes: false in every place, NULL where the element is,
-- the input's dimensions and bounds, as a probe of an empty filter gives
SELECT bloom_contains(NULL::bloomfilter, ARRAY['a', NULL, 'b']) AS bloom_text,
       bloom_contains(NULL::bloomfilter, ARRAY['\x01'::bytea, NULL]) AS bloom_bytea,
       bloom_contains(NULL::bloomfilter, ARRAY[1::bigint, 2, NULL]) AS bloom_bigint,
       bloom_contains(NULL::bloomfilter, ARRAY[NULL, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]) AS bloom_uuid;
SELECT counting_bloom_contains(NULL::countingbloom, ARRAY['a', NULL]) AS counting_text,
       counting_bloom_contains(NULL::countingbloom, ARRAY[NULL, '\x01'::bytea]) AS counting_bytea,
       counting_bloom_contains(NULL::countingbloom, ARRAY[1::bigint]) AS counting_bigint,
       counting_bloom_contains(NULL::countingbloom, ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL]) AS counting_uuid;
SELECT cuckoo_contains(NULL::cuckoofilter, ARRAY[NULL, 'a']) AS cuckoo_text,
       cuckoo_contains(NULL::cuckoofilter, ARRAY['\x01'::bytea, '\x02']) AS cuckoo_bytea,
       cuckoo_contains(NULL::cuckoofilter, ARRAY[NULL, 1::bigint, NULL]) AS cuckoo_bigint,
       cuckoo_contains(NULL::cuckoofilter, ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]) AS cuckoo_uuid;
SELECT bloom_contains(NULL::bloomfilter, '[0:1][2:3]={{a,NULL},{c,d}}'::text[]) AS two_dims,
       bloom_contains(NULL::bloomfilter, '{}'::text[]) AS empty,
       bloom_contains(NULL::bloomfilter, ARRAY[NULL]::text[]) AS all_null,
       bloom_contains(NULL::bloomfilter, NULL::text[]) AS null_array,
       bloom_contains(bloom_create(10), NULL::bigint[]) AS null_array2;
-- the same answers as a probe of an empty filter, whatever the elements
SELECT bloom_contains(NULL::bloomfilter, xs) IS NOT DISTINCT FROM bloom_contains(bloom_create(10), xs) AS bloom_same,
       counting_bloom_contains(NULL::countingbloom, xs) IS NOT DISTINCT FROM counting_bloom_contains(counting_bloom_create(10), xs) AS counting_same,
       cuckoo_contains(NULL::cuckoofilter, xs) IS NOT DISTINCT FROM cuckoo_contains(cuckoo_create(10), xs) AS cuckoo_same
FROM (SELECT array_agg(CASE WHEN i % 7 = 0 THEN NULL ELSE 'k' || i END) AS xs FROM generate_series(1, 1000) i) s;

-- the catalog: every probe is CALLED ON NULL INPUT, and still IMMUTABLE
-- and PARALLEL SAFE; everything else that takes a filter stays STRICT
-- (a NULL filter to add to, remove from, combine or describe is NULL)
SELECT p.proname, p.proisstrict AS strict, p.provolatile AS volatile, p.proparallel AS parallel, count(*)
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
WHERE p.proname ~ '(_contains|_contained|_count|_remove|_add|_union|_intersection|_info|_cardinality|_fpr|_fnr)$'
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2;

--
-- the probe scan gives the function's rows: with a NULL filter, none for
-- the qual, every row with a non-NULL element for its negation
--
CREATE TABLE nf_links (id int, url text, b bytea, n bigint, i int, s smallint, u uuid, v varchar);
INSERT INTO nf_links
SELECT g, CASE WHEN g % 13 = 0 THEN NULL ELSE 'https://example.com/page/' || g END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE convert_to('page ' || g, 'UTF8') END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE g END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE g END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE (g % 30000)::smallint END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE md5(g::text)::uuid END,
       CASE WHEN g % 37 = 0 THEN NULL ELSE 'https://example.com/page/' || g END
FROM generate_series(1, 20000) g;
CREATE TABLE nf_f (id int PRIMARY KEY, b bloomfilter, bn bloomfilter, c countingbloom, k cuckoofilter);
INSERT INTO nf_f
SELECT 1, bloom_agg(url), bloom_agg(n), counting_bloom_agg(url), cuckoo_agg(url)
FROM nf_links WHERE id % 2 = 0;
INSERT INTO nf_f (id) VALUES (2);
ANALYZE nf_links, nf_f;
SELECT count(url) AS urls, count(b) AS byteas, count(n) AS bigints, count(i) AS integers,
       count(s) AS smallints, count(u) AS uuids, count(v) AS varchars
FROM nf_links;

-- nf_same(q): the ids q returns with the probe scan and without it;
-- says how many, whether the probe scan was in the plan (and in a
-- parallel one), whether the two agree
CREATE FUNCTION nf_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	wrapped text := 'SELECT array_agg(id ORDER BY id) FROM (' || q || ') s';
	line text;
	used text := 'not used';
	used_off bool := false;
	a bigint[];
	b bigint[];
BEGIN
	PERFORM set_config('bloomfilter.enable_probe_scan', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
		IF line LIKE '%Parallel Custom Scan (BloomProbeScan)%' THEN
			used := 'used in parallel';
		ELSIF line LIKE '%BloomProbeScan%' AND used = 'not used' THEN
			used := 'used';
		END IF;
	END LOOP;
	EXECUTE wrapped INTO a;
	PERFORM set_config('bloomfilter.enable_probe_scan', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
		used_off := used_off OR line LIKE '%BloomProbeScan%';
	END LOOP;
	EXECUTE wrapped INTO b;
	PERFORM set_config('bloomfilter.enable_probe_scan', 'on', true);
	RETURN format('%s rows, probe scan %s, same %s', coalesce(cardinality(a), 0),
				  CASE WHEN used_off THEN 'used with it off!' ELSE used END,
				  a IS NOT DISTINCT FROM b);
END $$;

-- the same queries in a serial plan, then in a parallel one
CREATE TABLE nf_queries (n int, q text);
INSERT INTO nf_queries VALUES
	(1, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url)'),
	(2, 'SELECT id FROM nf_links WHERE bloom_contains((SELECT b FROM nf_f WHERE false), url)'),
	(3, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE id = 2), url)'),
	(4, 'SELECT id FROM nf_links WHERE NOT ((SELECT b FROM nf_f WHERE false) @> url)'),
	(5, 'SELECT id FROM nf_links WHERE NOT (url <@ (SELECT b FROM nf_f WHERE false))'),
	(6, 'SELECT id FROM nf_links WHERE url <@ (SELECT b FROM nf_f WHERE false)'),
	(7, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), b)'),
	(8, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT bn FROM nf_f WHERE false), n)'),
	(9, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT bn FROM nf_f WHERE false), i)'),
	(10, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT bn FROM nf_f WHERE false), s)'),
	(11, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), u)'),
	(12, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), v)'),
	(13, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url_normalize(url))'),
	(14, 'SELECT id FROM nf_links WHERE NOT bloom_contains(NULL::bloomfilter, url)'),
	(15, 'SELECT id FROM nf_links WHERE NOT counting_bloom_contains((SELECT c FROM nf_f WHERE false), url)'),
	(16, 'SELECT id FROM nf_links WHERE counting_bloom_contains((SELECT c FROM nf_f WHERE false), url)'),
	(17, 'SELECT id FROM nf_links WHERE NOT (n <@ (SELECT c FROM nf_f WHERE false))'),
	(18, 'SELECT id FROM nf_links WHERE NOT cuckoo_contains((SELECT k FROM nf_f WHERE false), url)'),
	(19, 'SELECT id FROM nf_links WHERE cuckoo_contains((SELECT k FROM nf_f WHERE false), url)'),
	(20, 'SELECT id FROM nf_links WHERE NOT ((SELECT k FROM nf_f WHERE false) @> u)'),
	(21, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url) AND id % 3 = 0'),
	(22, 'SELECT id FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE id = 1), url)');
SET max_parallel_workers_per_gather = 0;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url)$$);
SELECT n, nf_same(q) FROM nf_queries ORDER BY n;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT count(*) FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url)$$);
SELECT n, nf_same(q) FROM nf_queries ORDER BY n;
-- the parallel plan's rows, counted in the workers
SELECT count(*) AS rows, sum(id) AS ids FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url);
SELECT count(*) AS rows, sum(id) AS ids FROM nf_links WHERE url IS NOT NULL;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a filter per outer row (a nested loop's parameterized probe scan): the
-- row whose filter is NULL keeps every link for the negation, none for
-- the qual; its LEFT JOIN keeps the outer row with no link
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT nf_same('SELECT f.id * 100000 + l.id AS id FROM nf_f f JOIN nf_links l ON NOT bloom_contains(f.b, l.url)') AS join_negated,
       nf_same('SELECT f.id * 100000 + l.id AS id FROM nf_f f JOIN nf_links l ON cuckoo_contains(f.k, l.url)') AS join_qual,
       nf_same('SELECT f.id * 100000 + coalesce(l.id, 0) AS id FROM nf_f f LEFT JOIN nf_links l ON counting_bloom_contains(f.c, l.url)') AS left_join;
SELECT f.id, count(l.id) AS links FROM nf_f f JOIN nf_links l ON NOT bloom_contains(f.b, l.url) GROUP BY f.id ORDER BY f.id;
-- a WHERE on the nullable side of an outer join: the probe of a NULL
-- filter is no longer strict, so the join stays an outer join
SELECT count(*) AS rows FROM nf_links l LEFT JOIN nf_f f ON f.id = l.id WHERE NOT bloom_contains(f.b, l.url);
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- the build scan reads the same rows through the WHERE clause as the
-- plain aggregate does
SET bloomfilter.enable_build_scan = on;
SELECT * FROM explain_plan('COSTS OFF', $$SELECT bloom_agg(url) AS f FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url)$$);
CREATE TABLE nf_built_on AS SELECT bloom_agg(url) AS f FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url);
SET bloomfilter.enable_build_scan = off;
CREATE TABLE nf_built_off AS SELECT bloom_agg(url) AS f FROM nf_links WHERE NOT bloom_contains((SELECT b FROM nf_f WHERE false), url);
RESET bloomfilter.enable_build_scan;
SELECT bytea(a.f) = bytea(b.f) AS same_bytes,
       (SELECT count(*) FROM nf_links WHERE bloom_contains(a.f, url)) AS members_found
FROM nf_built_on a, nf_built_off b;

RESET ALL;
DROP TABLE nf_filter, nf_batch, nf_links, nf_f, nf_queries, nf_built_on, nf_built_off;
DROP FUNCTION nf_same(text);

-- a NULL array adds or removes nothing: the array forms give f as it is
-- (a stored filter updated with a batch that had nothing new stays
-- itself), and a NULL f stays NULL
SELECT bytea(bloom_add(f, NULL::text[])) = bytea(f) AS bloom_kept,
       bytea(bloom_add(f, NULL::bigint[])) = bytea(f) AS bloom_bigint_kept,
       bloom_add(NULL::bloomfilter, ARRAY['a']) IS NULL AS null_stays_null
FROM (SELECT bloom_add(bloom_create(100), 'x'::text) AS f) s;
SELECT bytea(counting_bloom_add(f, NULL::text[])) = bytea(f) AS counting_added,
       bytea(counting_bloom_remove(f, NULL::uuid[])) = bytea(f) AS counting_removed
FROM (SELECT counting_bloom_add(counting_bloom_create(100), 'x'::text) AS f) s;
SELECT bytea(cuckoo_add(f, NULL::bytea[])) = bytea(f) AS cuckoo_kept
FROM (SELECT cuckoo_add(cuckoo_create(100), 'x'::text) AS f) s;
SELECT bytea(stable_bloom_add(f, NULL::text[])) = bytea(f) AS stable_kept
FROM (SELECT stable_bloom_add(stable_bloom_create(1000), 'x'::text) AS f) s;
