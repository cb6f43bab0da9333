--
-- bloom_index_sync: a replica kept current by the pages changed since a
-- token.  Every written page and resync without a token; after adds,
-- the metapage and the pages the adds changed; a token that no longer
-- applies (REINDEX, TRUNCATE, another index) gives every page again and
-- resync.  (Concurrent writers and a replica answering: t/015.)
--
SET client_min_messages = warning;
CREATE TABLE sy (k bigint);
INSERT INTO sy SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX sy_f ON sy USING bloomfilter (k) WITH (capacity = 100000);
CREATE TEMP TABLE sy_pages AS SELECT * FROM bloom_index_sync('sy_f');

-- a whole replica: the metapage first, then every written page, one token
SELECT count(DISTINCT token) AS tokens, bool_and(resync) AS resync,
	min(blkno) AS first, count(*) = (SELECT count(*) FROM sy_pages) AS rows_once,
	bool_and(length(page) = current_setting('block_size')::int) AS whole_pages,
	count(*) <= pg_relation_size('sy_f') / current_setting('block_size')::int AS at_most_the_relation
FROM sy_pages;
SELECT token ~ '^bfsync1:[0-9a-f]{16}:[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9A-F]+/[0-9A-F]+$' AS token_shape
FROM sy_pages LIMIT 1;

-- nothing changed: the metapage alone, no resync, a token as good
SELECT token AS t1 FROM sy_pages LIMIT 1 \gset
SELECT resync, array_agg(blkno) AS blocks FROM bloom_index_sync('sy_f', :'t1') GROUP BY resync;

-- one add: the metapage and the one page it changed, now as the index has it
INSERT INTO sy VALUES (-1);
SELECT resync, count(*) AS pages, min(blkno) AS first FROM bloom_index_sync('sy_f', :'t1') GROUP BY resync;
SELECT s.page = (SELECT page FROM bloom_index_sync('sy_f') a WHERE a.blkno = s.blkno) AS current_page
FROM bloom_index_sync('sy_f', :'t1') s WHERE s.blkno > 0;
-- applied to the replica, the pages are the index's
CREATE TEMP TABLE sy_changed AS SELECT * FROM bloom_index_sync('sy_f', :'t1');
UPDATE sy_pages p SET page = c.page FROM sy_changed c WHERE c.blkno = p.blkno;
INSERT INTO sy_pages SELECT * FROM sy_changed c WHERE NOT EXISTS (SELECT 1 FROM sy_pages p WHERE p.blkno = c.blkno);
SELECT count(*) AS differ FROM bloom_index_sync('sy_f') a FULL JOIN sy_pages p USING (blkno)
WHERE a.page IS DISTINCT FROM p.page;
-- an earlier token still works: pages since then, again
SELECT (SELECT count(*) FROM bloom_index_sync('sy_f', :'t1')) = 2 AS since_t1_again;

-- what no longer applies: every page again, resync
SELECT token AS t2 FROM bloom_index_sync('sy_f') LIMIT 1 \gset
REINDEX INDEX sy_f;
SELECT resync, count(*) > 2 AS every_page FROM bloom_index_sync('sy_f', :'t2') GROUP BY resync;
SELECT token AS t3 FROM bloom_index_sync('sy_f') LIMIT 1 \gset
TRUNCATE sy;
SELECT resync, array_agg(blkno) AS blocks FROM bloom_index_sync('sy_f', :'t3') GROUP BY resync;
CREATE INDEX sy_g ON sy USING bloomfilter (k);
SELECT resync FROM bloom_index_sync('sy_g', :'t3') LIMIT 1;
-- a position this server has not reached (a restored server's)
SELECT resync FROM bloom_index_sync('sy_f',
	regexp_replace(:'t3', ':[0-9A-F]+/[0-9A-F]+$', ':FFFFFFFF/0')) LIMIT 1;

-- an unlogged index has no LSNs to go by: every written page each time
CREATE UNLOGGED TABLE syu (k bigint);
INSERT INTO syu SELECT g FROM generate_series(1, 5000) g;
CREATE INDEX syu_f ON syu USING bloomfilter (k) WITH (capacity = 100000);
SELECT token AS u1 FROM bloom_index_sync('syu_f') LIMIT 1 \gset
SELECT resync, count(*) = (SELECT count(*) FROM bloom_index_sync('syu_f')) AS every_page
FROM bloom_index_sync('syu_f', :'u1') GROUP BY resync;

-- errors
\set VERBOSITY terse
SELECT * FROM bloom_index_sync('sy_f', 'bfsync1:not-a-token');
SELECT * FROM bloom_index_sync('sy_f', 'bfsync1:0000000000000000:1:2:3:4:0/0x');
SELECT * FROM bloom_index_sync(NULL);
SELECT * FROM bloom_index_sync('sy');
CREATE TABLE syp (k bigint) PARTITION BY RANGE (k);
CREATE TABLE syp1 PARTITION OF syp FOR VALUES FROM (0) TO (100);
CREATE INDEX syp_f ON syp USING bloomfilter (k);
SELECT * FROM bloom_index_sync('syp_f');
\set VERBOSITY default
DROP TABLE sy, syu, syp;
