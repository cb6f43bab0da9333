-- the bloomfilter index access method: build, inserts, probes, errors
SET client_min_messages = warning;

CREATE TABLE bi_urls (id int, url text);
INSERT INTO bi_urls SELECT i, 'https://example.org/page/' || i FROM generate_series(1, 20000) i;
CREATE INDEX bi_urls_f ON bi_urls USING bloomfilter (url) WITH (capacity = 20000, fpr = 0.01);

-- every row's element is found; non-members within the target
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_urls_f', url)) AS false_negatives
FROM bi_urls;
SELECT count(*) FILTER (WHERE bloom_index_contains('bi_urls_f', 'https://other.org/' || i)) <= 1000 * 0.01
	AS fpr_within_target
FROM generate_series(1, 1000) i;
SELECT count(*) FILTER (WHERE bloom_index_contains('bi_urls_f', 'https://other.org/' || i)) / 100000.0 < 0.01
	AS measured_rate_below_target
FROM generate_series(1, 100000) i;

-- the same bits as the value type: the snapshot is bloom_agg's value
SELECT bytea(bloom_index_snapshot('bi_urls_f')) =
	bytea((SELECT bloom_agg(url, 20000, 0.01) FROM bi_urls)) AS snapshot_is_bloom_agg;
SELECT bloom_contains(bloom_index_snapshot('bi_urls_f'), 'https://example.org/page/7') AS in_snapshot;
SELECT bloom_hash('abc'::text) = bloom_hash('abc'::bytea) AS text_and_bytea_hash_alike;

-- rows inserted later are maintained; an array probe answers each item
INSERT INTO bi_urls VALUES (20001, 'https://late.example/'), (20002, NULL);
SELECT bloom_index_contains('bi_urls_f', ARRAY['https://late.example/', NULL, 'https://example.org/page/1']);
SELECT bloom_index_contains('bi_urls_f', '{}'::text[]);
SELECT bloom_index_contains('bi_urls_f', NULL::text) IS NULL AS null_element_is_null;
COPY bi_urls FROM stdin;
20003	https://copied.example/
\.
SELECT bloom_index_contains('bi_urls_f', 'https://copied.example/') AS copied_found;

-- bloom_index_absent: the batch's items not in the index, each once, in
-- order, NULLs left out; the test-and-add of a batch log in one statement
SELECT bloom_index_absent('bi_urls_f', ARRAY['https://new.example/b', 'https://late.example/',
	NULL, 'https://new.example/a', 'https://new.example/b', 'https://example.org/page/2',
	'https://new.example/a']);
SELECT bloom_index_absent('bi_urls_f', '{}'::text[]) AS empty, bloom_index_absent('bi_urls_f', NULL::text[]) AS null_batch;
SELECT bloom_index_absent('bi_urls_f', ARRAY[NULL, 'https://late.example/']) AS none_new;
CREATE TABLE bi_seen_log (urls text[]);
CREATE INDEX bi_seen_log_f ON bi_seen_log USING bloomfilter (urls) WITH (capacity = 1000);
PREPARE tna(text[]) AS
	INSERT INTO bi_seen_log (urls) SELECT n FROM bloom_index_absent('bi_seen_log_f', $1) n
	WHERE cardinality(n) > 0 RETURNING urls;
EXECUTE tna(ARRAY['a', 'b', 'a', 'c']);
EXECUTE tna(ARRAY['c', 'd', 'b', 'e', 'd']);
EXECUTE tna(ARRAY['a', 'e']);
SELECT count(*) AS batches_logged FROM bi_seen_log;
-- in an open transaction the index answers for its own rows
BEGIN;
EXECUTE tna(ARRAY['f', 'g']);
SELECT bloom_index_absent('bi_seen_log_f', ARRAY['f', 'g', 'h']) AS only_h_after_own_insert;
ROLLBACK;
-- every element type
CREATE TABLE bi_ids (id bigint, u uuid);
CREATE INDEX bi_ids_id ON bi_ids USING bloomfilter (id) WITH (capacity = 1000);
CREATE INDEX bi_ids_u ON bi_ids USING bloomfilter (u) WITH (capacity = 1000);
INSERT INTO bi_ids VALUES (7, '00000000-0000-0000-0000-000000000007');
SELECT bloom_index_absent('bi_ids_id', ARRAY[8, 7, 9, 8]::bigint[]) AS ids,
	bloom_index_absent('bi_ids_u', ARRAY['00000000-0000-0000-0000-000000000007',
		'00000000-0000-0000-0000-000000000008']::uuid[]) AS uuids;
SELECT err($$SELECT bloom_index_absent('bi_ids_id', ARRAY['x']::text[])$$);
SELECT err($$SELECT bloom_index_absent(NULL, ARRAY['x']::text[])$$);
SELECT err($$SELECT bloom_index_absent('bi_ids', ARRAY[1]::bigint[])$$);
DROP TABLE bi_ids, bi_seen_log;
-- no false negative and within the rate over 20,000 members and 100,000
-- others, 10,000 of each a call
SELECT count(*) AS members_reported_absent
FROM (SELECT id / 10000 AS g, array_agg(url) AS urls FROM bi_urls WHERE id <= 20000 GROUP BY 1) b,
	unnest(bloom_index_absent('bi_urls_f', b.urls)) u;
SELECT (SELECT count(*) FROM (SELECT array_agg('https://other.org/' || i) AS urls
		FROM generate_series(1, 100000) i GROUP BY i / 10000) b, unnest(bloom_index_absent('bi_urls_f', b.urls)) u)
	BETWEEN 100000 * 0.99 AND 100000 AS others_absent_within_rate;

-- past capacity, a scalable index grows a stage and loses nothing
INSERT INTO bi_urls SELECT i, 'https://grow.example/' || i FROM generate_series(1, 40000) i;
SELECT (bloom_index_info('bi_urls_f')->>'stages')::int > 1 AS grew,
	(bloom_index_info('bi_urls_f')->'stage_info'->0->>'rate_used')::float8 BETWEEN 0.9 AND 0.975
		AS first_stage_filled_to_its_limit,
	(bloom_index_info('bi_urls_f')->>'fpr_estimate')::float8 <= 0.01 AS estimate_within_target;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_urls_f', url)) AS false_negatives
FROM bi_urls;

-- REINDEX with a new capacity gives one right-sized stage
ALTER INDEX bi_urls_f SET (capacity = 100000);
REINDEX INDEX bi_urls_f;
SELECT bloom_index_info('bi_urls_f')->'stages' AS stages,
	bloom_index_info('bi_urls_f')->'capacity' AS capacity;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_urls_f', url)) AS false_negatives
FROM bi_urls;

-- a build adds every row version a snapshot may still see and leaves out
-- the ones none can (here the updated and deleted rows' old versions,
-- before any VACUUM); after VACUUM a REINDEX holds what bloom_agg over the
-- rows holds; an expression or partial index is built by the table's own
-- build scan
CREATE TABLE bi_dead (id int, url text);
INSERT INTO bi_dead SELECT i, 'https://dead.example/' || i FROM generate_series(1, 4000) i;
UPDATE bi_dead SET url = url || '?v2' WHERE id <= 1000;
DELETE FROM bi_dead WHERE id > 3000;
CREATE INDEX bi_dead_f ON bi_dead USING bloomfilter (url) WITH (capacity = 5000);
SELECT count(*) FILTER (WHERE bloom_index_contains('bi_dead_f', 'https://dead.example/' || i)) AS old_versions_found
FROM generate_series(1, 4000) i;
VACUUM bi_dead;
REINDEX INDEX bi_dead_f;
SELECT bytea(bloom_index_snapshot('bi_dead_f')) =
	bytea((SELECT bloom_agg(url, 5000, 0.01) FROM bi_dead)) AS after_vacuum_only_live_rows;
CREATE INDEX bi_dead_expr ON bi_dead USING bloomfilter (lower(url)) WITH (capacity = 5000);
CREATE INDEX bi_dead_part ON bi_dead USING bloomfilter (url) WITH (capacity = 5000) WHERE id <= 1000;
SELECT bytea(bloom_index_snapshot('bi_dead_expr')) =
		bytea((SELECT bloom_agg(lower(url), 5000, 0.01) FROM bi_dead)) AS expression_built,
	bytea(bloom_index_snapshot('bi_dead_part')) =
		bytea((SELECT bloom_agg(url, 5000, 0.01) FROM bi_dead WHERE id <= 1000)) AS partial_built;
DROP TABLE bi_dead;

-- not scalable: an insert past what it can hold fails, nothing silently lost
CREATE TABLE bi_fixed (x bigint);
CREATE INDEX bi_fixed_f ON bi_fixed USING bloomfilter (x) WITH (capacity = 1000, scalable = false);
INSERT INTO bi_fixed SELECT generate_series(1, 500);
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_fixed_f', x)) AS false_negatives FROM bi_fixed;
INSERT INTO bi_fixed SELECT generate_series(1, 5000);
SELECT count(*) AS rows_after_failed_insert FROM bi_fixed;

-- other element types, expressions and arrays
CREATE TABLE bi_types (b bytea, u uuid, tags text[], url text);
CREATE INDEX bi_types_b ON bi_types USING bloomfilter (b);
CREATE INDEX bi_types_u ON bi_types USING bloomfilter (u);
CREATE INDEX bi_types_tags ON bi_types USING bloomfilter (tags);
CREATE INDEX bi_types_norm ON bi_types USING bloomfilter (url_normalize(url));
INSERT INTO bi_types VALUES ('\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
	ARRAY['crawl', NULL, 'seed'], 'HTTP://Example.COM:80/a/./b');
SELECT bloom_index_contains('bi_types_b', '\x0102'::bytea) AS b,
	bloom_index_contains('bi_types_u', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS u,
	bloom_index_contains('bi_types_tags', ARRAY['seed', 'crawl', 'other']) AS tags,
	bloom_index_contains('bi_types_norm', url_normalize('http://example.com/a/b')) AS normalized;

-- a transaction sees its own rows' entries before it commits
BEGIN;
INSERT INTO bi_types (url) VALUES ('https://in-xact.example/');
SELECT bloom_index_contains('bi_types_norm', url_normalize('https://in-xact.example/')) AS own_row_found;
SAVEPOINT s;
INSERT INTO bi_types (url) SELECT 'https://sub.example/' || i FROM generate_series(1, 3000) i;
ROLLBACK TO s;
INSERT INTO bi_types (url) SELECT 'https://after.example/' || i FROM generate_series(1, 3000) i;
COMMIT;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_types_norm', url_normalize(url))) AS false_negatives
FROM bi_types WHERE url IS NOT NULL;

-- the probe scan answers bloom_index_contains a heap page at a time, with
-- the same rows as the function row by row
CREATE TABLE bi_links2 (url text);
INSERT INTO bi_links2 SELECT 'https://example.org/page/' || i FROM generate_series(1, 30000, 3) i;
INSERT INTO bi_links2 SELECT 'https://nowhere.example/' || i FROM generate_series(1, 5000) i;
SELECT explain_plan('COSTS OFF', $$SELECT count(*) FROM bi_links2 WHERE NOT bloom_index_contains('bi_urls_f', url)$$);
SELECT count(*) AS new_by_scan FROM bi_links2 WHERE NOT bloom_index_contains('bi_urls_f', url);
SET bloomfilter.enable_probe_scan = off;
SELECT count(*) AS new_row_by_row FROM bi_links2 WHERE NOT bloom_index_contains('bi_urls_f', url);
RESET bloomfilter.enable_probe_scan;
SELECT count(*) AS in_by_scan FROM bi_links2 WHERE bloom_index_contains('bi_urls_f', url_normalize(url));
SELECT err($$SELECT count(*) FROM bi_links2 WHERE bloom_index_contains(NULL, url)$$);
DROP TABLE bi_links2;

-- partitioned: the parent's index asks every partition's
CREATE TABLE bi_log (day date, url text) PARTITION BY RANGE (day);
CREATE TABLE bi_log_1 PARTITION OF bi_log FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE bi_log_2 PARTITION OF bi_log FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE INDEX bi_log_f ON bi_log USING bloomfilter (url) WITH (capacity = 1000);
INSERT INTO bi_log VALUES ('2026-01-05', 'https://jan.example/'), ('2026-02-05', 'https://feb.example/');
SELECT bloom_index_contains('bi_log_f', ARRAY['https://jan.example/', 'https://feb.example/', 'https://mar.example/']);
SELECT jsonb_array_length(bloom_index_info('bi_log_f')->'partitions') AS partitions;
SELECT bloom_index_absent('bi_log_f', ARRAY['https://mar.example/', 'https://feb.example/', 'https://jan.example/']) AS absent_from_every_partition;
DROP TABLE bi_log_1;
SELECT bloom_index_contains('bi_log_f', ARRAY['https://jan.example/', 'https://feb.example/']);

-- unlogged tables, VACUUM
CREATE UNLOGGED TABLE bi_unlogged (url text);
CREATE INDEX bi_unlogged_f ON bi_unlogged USING bloomfilter (url);
INSERT INTO bi_unlogged VALUES ('https://u.example/');
DELETE FROM bi_unlogged;
VACUUM bi_unlogged;
SELECT bloom_index_contains('bi_unlogged_f', 'https://u.example/') AS deleted_rows_keep_their_bits;

-- real URLs, added row by row: every documentation link is found, the
-- Debian homepages that are not links are found at most at the target
-- rate, and the bits are bloom_agg's over the same URLs
CREATE TABLE bi_links (url text);
CREATE INDEX bi_links_f ON bi_links USING bloomfilter (url) WITH (capacity = 80000, fpr = 0.01);
\copy bi_links FROM PROGRAM 'gzip -dc ../shared/data/doc-links-stream.txt.gz'
CREATE TABLE bi_home (url text);
\copy bi_home FROM PROGRAM 'gzip -dc ../shared/data/debian-homepages.txt.gz'
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_links_f', url)) AS false_negatives
FROM bi_links;
SELECT count(*) FILTER (WHERE bloom_index_contains('bi_links_f', h.url)) < 0.01 * count(*)
	AS fp_rate_below_target
FROM bi_home h WHERE NOT EXISTS (SELECT 1 FROM bi_links l WHERE l.url = h.url);
SELECT bytea(bloom_index_snapshot('bi_links_f')) =
	bytea((SELECT bloom_agg(url, 80000, 0.01) FROM bi_links)) AS snapshot_is_bloom_agg;

-- a million random keys, built by CREATE INDEX: none lost, a million
-- others found at most at the target rate
CREATE TABLE bi_random (k bigint);
INSERT INTO bi_random SELECT (random() * 9e18)::bigint FROM generate_series(1, 1000000);
CREATE INDEX bi_random_f ON bi_random USING bloomfilter (k) WITH (capacity = 1000000, fpr = 0.01);
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('bi_random_f', k)) AS false_negatives
FROM bi_random;
SELECT count(*) FILTER (WHERE bloom_index_contains('bi_random_f', -1 - (random() * 9e18)::bigint))
	< 1000000 * 0.01 AS fp_rate_below_target
FROM generate_series(1, 1000000);
DROP TABLE bi_links, bi_home, bi_random;

-- errors, with their SQLSTATEs
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (url) WITH (fpr = 0)$$);
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (url) WITH (fpr = 1)$$);
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (url) WITH (capacity = 10.5)$$);
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (url) WITH (colour = 1)$$);
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (id, url)$$);
SELECT err($$CREATE INDEX ON bi_urls USING bloomfilter (id)$$);
SELECT err($$SELECT bloom_index_contains('bi_urls_f', 1::bigint)$$);
SELECT err($$SELECT bloom_index_contains('bi_urls', 'x')$$);
SELECT err($$SELECT bloom_index_contains(NULL, 'x')$$);
CREATE INDEX bi_urls_btree ON bi_urls (url);
SELECT err($$SELECT bloom_index_contains('bi_urls_btree', 'x')$$);
SELECT err($$SELECT bloom_index_snapshot('bi_log_f')$$);
CREATE ROLE bi_nobody;
SET ROLE bi_nobody;
SELECT err($$SELECT bloom_index_contains('bi_urls_f', 'x')$$);
SELECT err($$SELECT bloom_index_info('bi_urls_f')$$);
RESET ROLE;
DROP ROLE bi_nobody;

DROP TABLE bi_urls, bi_fixed, bi_types, bi_log, bi_unlogged;
