--
-- bench/storage.sql: what a stored filter's column storage costs, per
-- write and per read, for the column storage choices a user has: the
-- default compression (pglz), lz4, and STORAGE EXTERNAL (no compression).
--
--   psql -X -f bench/storage.sql        (any server with the extension
--                                        installable; needs lz4 support)
--
-- For each storage: a bloomfilter of capacity 1M at 1% holding 500,000
-- URLs (1.2 MB, half full: random bits that do not compress), updated by
-- 50 statements that each add 1,000 new URLs, committed one by one (time
-- and WAL per statement); probed by 200 statements that each test 1,000
-- URLs (time per statement; each statement is planned afresh, so the
-- filter is read from its column every time); then a sparse filter
-- (capacity 100M, 1,000 URLs: 120 MB of mostly zero bytes) written once.
--
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP SCHEMA IF EXISTS bench_storage CASCADE;
CREATE SCHEMA bench_storage;
SET search_path = bench_storage, public;

CREATE FUNCTION url(i bigint) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT 'https://www.' || substr(md5(i::text), 1, 10) || '.example/' || md5('p' || i) || '.html' $$;
CREATE FUNCTION urls(first bigint, n int) RETURNS text[] LANGUAGE sql IMMUTABLE
	AS $$ SELECT array_agg(url(g)) FROM generate_series(first, first + n - 1) g $$;

CREATE TABLE results (storage text, what text, value float8, unit text);
CREATE TABLE f_pglz (id int PRIMARY KEY, f bloomfilter);
CREATE TABLE f_lz4 (id int PRIMARY KEY, f bloomfilter);
CREATE TABLE f_external (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE f_pglz ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION pglz;
ALTER TABLE f_lz4 ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION lz4;
ALTER TABLE f_external ALTER f SET STORAGE EXTERNAL;

CREATE PROCEDURE measure(storage text)
LANGUAGE plpgsql AS $$
DECLARE
	t text := 'f_' || storage;
	t0 timestamptz;
	lsn0 pg_lsn;
	times float8[] := '{}';
	wal float8 := 0;
	ok boolean;
	size float8;
BEGIN
	EXECUTE format('INSERT INTO %I SELECT 1, bloom_agg(url(g), 1000000, 0.01) FROM generate_series(1, 500000) g', t);
	COMMIT;
	EXECUTE format('SELECT pg_column_size(f) / 1e6 FROM %I WHERE id = 1', t) INTO size;
	INSERT INTO results VALUES (storage, 'stored size, half-full 1M filter', size, 'MB');
	FOR i IN 1 .. 50 LOOP
		t0 := clock_timestamp();
		lsn0 := pg_current_wal_insert_lsn();
		EXECUTE format('UPDATE %I SET f = bloom_add(f, urls($1, 1000)) WHERE id = 1', t)
			USING 1000000 + i * 1000;
		COMMIT;
		times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
		wal := wal + (pg_current_wal_insert_lsn() - lsn0);
	END LOOP;
	INSERT INTO results VALUES
		(storage, 'write: add 1,000 URLs, median', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 'ms'),
		(storage, 'write: WAL per statement', wal / 50 / 1e6, 'MB');
	times := '{}';
	FOR i IN 1 .. 200 LOOP
		t0 := clock_timestamp();
		-- a new query text each time: planned afresh, the filter read from the column
		EXECUTE format('SELECT bool_or(x) FROM %I, unnest(bloom_contains(f, urls(%s, 1000))) x WHERE id = 1', t, 2000000 + i * 1000) INTO ok;
		times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	INSERT INTO results VALUES
		(storage, 'read: test 1,000 URLs, median', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 'ms');
	EXECUTE format('DELETE FROM %I', t);
	COMMIT;
	t0 := clock_timestamp();
	EXECUTE format('INSERT INTO %I VALUES (2, bloom_add(bloom_create(100000000, 0.01, ''blocked'', false), urls(1, 1000)))', t);
	COMMIT;
	INSERT INTO results VALUES
		(storage, 'write: sparse 100M filter, once', extract(epoch FROM clock_timestamp() - t0) * 1000, 'ms');
	times := '{}';
	FOR i IN 1 .. 5 LOOP
		t0 := clock_timestamp();
		EXECUTE format('SELECT bool_or(x) FROM %I, unnest(bloom_contains(f, urls(%s, 1000))) x WHERE id = 2', t, 3000000 + i * 1000) INTO ok;
		times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	EXECUTE format('SELECT pg_column_size(f) / 1e6 FROM %I WHERE id = 2', t) INTO size;
	INSERT INTO results VALUES
		(storage, 'read: sparse 100M filter, test 1,000 URLs, median', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x), 'ms'),
		(storage, 'stored size, sparse 100M filter', size, 'MB');
	COMMIT;
END $$;

CALL measure('pglz');
CALL measure('lz4');
CALL measure('external');

SELECT what, unit,
	   max(value) FILTER (WHERE storage = 'pglz') AS pglz,
	   max(value) FILTER (WHERE storage = 'lz4') AS lz4,
	   max(value) FILTER (WHERE storage = 'external') AS external
FROM results GROUP BY what, unit ORDER BY what;
DROP SCHEMA bench_storage CASCADE;
