-- bench/setup.sql: the benchmark data, deterministic (no random(): md5 of
-- the row number), so every run and every machine probes the same URLs.
--   psql -v nrows=2000000 -v batch_every=20 -f bench/setup.sql
-- urls     nrows URLs of ~75 bytes
-- members  the first half of them (the "seen" set), url PRIMARY KEY (btree)
-- batch    every batch_every-th URL: half seen, half new
-- arr      the members as one text[] (STORAGE EXTERNAL: no decompression)
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

DROP TABLE IF EXISTS hosts, urls, members, batch, arr CASCADE;

-- 1000 host names, then URLs like
-- https://www.3f2a9c81d7.com/4b1e0c2f9a7d/a1c9e3b5f70d2e4c6b8a.html?id=123456
CREATE TABLE hosts AS
	SELECT j, 'www.' || substr(md5('host' || j), 1, 10) || (ARRAY['.com', '.org', '.net', '.de', '.io'])[j % 5 + 1] AS host
	FROM generate_series(0, 999) j;

CREATE TABLE urls (id int NOT NULL, url text NOT NULL);
INSERT INTO urls
	SELECT i, 'https://' || h.host || '/' || substr(md5(i::text), 1, 12) || '/'
		|| substr(md5((i * 7)::text), 1, 20) || '.html?id=' || i
	FROM generate_series(1, :nrows) i
	JOIN hosts h ON h.j = (i::bigint * 7919) % 1000;
ALTER TABLE urls SET (autovacuum_enabled = false);

CREATE TABLE members (url text PRIMARY KEY);
INSERT INTO members SELECT url FROM urls WHERE id <= :nrows / 2 ORDER BY id;

CREATE TABLE batch AS SELECT url FROM urls WHERE id % :batch_every = 0 ORDER BY id;

CREATE TABLE arr (id int PRIMARY KEY, a text[]);
ALTER TABLE arr ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO arr SELECT 1, array_agg(url ORDER BY url) FROM members;

VACUUM (FREEZE, ANALYZE) hosts, urls, members, batch, arr;
