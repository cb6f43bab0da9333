--
-- the session cache: a stored filter is read from its TOAST table by the
-- first statement that probes it and checked, not read, by later ones;
-- whatever happened to the table in between (UPDATE, DELETE + VACUUM +
-- INSERT, TRUNCATE, VACUUM FULL, a rolled-back write, a subtransaction),
-- every answer equals the answer of a fresh detoast (f::bytea::bloomfilter,
-- an in-memory copy no cache keeps).  sc_since() shows what the cache did
-- since its last call.
--
SELECT bloom_contains(bloom_create(10, 0.1), 'x') AS module_loaded;
CREATE FUNCTION sc_counter(name text) RETURNS bigint LANGUAGE sql AS $$
  SELECT substring(current_setting('bloomfilter.session_cache_stats')
                   FROM name || '=([0-9]+)')::bigint $$;
CREATE TEMP TABLE sc_last AS
  SELECT sc_counter('hits') AS hits, sc_counter('loads') AS loads,
         sc_counter('stale') AS stale;
CREATE FUNCTION sc_since() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  SELECT format('hits=%s loads=%s stale=%s', sc_counter('hits') - hits,
                sc_counter('loads') - loads, sc_counter('stale') - stale)
    INTO r FROM sc_last;
  UPDATE sc_last SET hits = sc_counter('hits'), loads = sc_counter('loads'),
                     stale = sc_counter('stale');
  RETURN r;
END $$;
SHOW bloomfilter.session_cache_size;
SET max_parallel_workers_per_gather = 0;
-- stored uncompressed (the usual form of a big filter), and a second one
-- compressed (sparse bits compress)
CREATE TABLE sc (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE sc ALTER COLUMN f SET STORAGE external;
INSERT INTO sc SELECT 1, bloom_agg(md5(i::text), 100000, 0.01)
FROM generate_series(1, 3000) i;
ALTER TABLE sc ALTER COLUMN f SET STORAGE extended;
INSERT INTO sc SELECT 2, bloom_agg(md5(i::text), 100000, 0.01)
FROM generate_series(1, 300) i;
SELECT id, pg_column_size(f) < octet_length(bytea(f)) AS compressed,
       pg_column_size(f) > 2000 AS out_of_line
FROM sc ORDER BY id;
-- members found through the cache, and whether every one of 6000 answers
-- equals a fresh detoast's
CREATE VIEW sc_probe AS
WITH fresh AS MATERIALIZED (SELECT id, f::bytea::bloomfilter AS g FROM sc)
SELECT sc.id,
       count(*) FILTER (WHERE bloom_contains(sc.f, k)) AS found,
       bool_and(bloom_contains(sc.f, k) = bloom_contains(fresh.g, k)) AS same
FROM sc JOIN fresh USING (id),
     (SELECT md5(i::text) AS k FROM generate_series(1, 6000) i) p
GROUP BY sc.id;
SELECT sc_since();
-- the first statement reads both, the next ones only check them
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- UPDATE: a new value under a new OID; reading it drops the copy of the
-- old one, deleted (two entries left, not three)
UPDATE sc SET f = bloom_add(f, array(SELECT md5(i::text) FROM generate_series(3001, 4000) i))
WHERE id = 1;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
SELECT substring(current_setting('bloomfilter.session_cache_stats')
                 FROM 'entries=([0-9]+)') AS entries;
-- DELETE, VACUUM (the chunks are removed, the OID free again), INSERT
DELETE FROM sc WHERE id = 1;
VACUUM sc;
INSERT INTO sc SELECT 1, bloom_agg(md5(i::text), 100000, 0.01)
FROM generate_series(1, 2000) i;
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- VACUUM FULL copies each value under its own OID into a new file: the
-- check sees another chunk 0 (another file, TID and xmin), reads again
VACUUM FULL sc;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- VACUUM FREEZE keeps chunk 0's raw xmin: still the same
VACUUM FREEZE sc;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- a value read while frozen is checked the frozen way
SET bloomfilter.session_cache_size = 0;
SELECT * FROM sc_probe ORDER BY id;
RESET bloomfilter.session_cache_size;
SELECT current_setting('bloomfilter.session_cache_stats') ~ '^entries=0 bytes=0 ' AS emptied;
SELECT sc_since();
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- a value written and probed in one transaction, then rolled back: each
-- statement reads it (a value is kept only once the transaction that
-- wrote it has committed: loads=0 below), and the other one is kept
SELECT sc_since() IS NOT NULL AS reset;
BEGIN;
UPDATE sc SET f = bloom_add(f, 'only in the rolled back one') WHERE id = 1;
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
SELECT bloom_contains(f, 'only in the rolled back one') FROM sc WHERE id = 1;
ROLLBACK;
SELECT bloom_contains(f, 'only in the rolled back one') FROM sc WHERE id = 1;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
-- a subtransaction's value, rolled back to the savepoint, and one released
BEGIN;
SAVEPOINT a;
UPDATE sc SET f = bloom_add(f, 'savepoint a') WHERE id = 1;
SELECT bloom_contains(f, 'savepoint a') FROM sc WHERE id = 1;
ROLLBACK TO SAVEPOINT a;
SELECT bloom_contains(f, 'savepoint a') FROM sc WHERE id = 1;
SAVEPOINT b;
UPDATE sc SET f = bloom_add(f, 'savepoint b') WHERE id = 1;
SELECT bloom_contains(f, 'savepoint b') FROM sc WHERE id = 1;
RELEASE SAVEPOINT b;
SELECT bloom_contains(f, 'savepoint b') FROM sc WHERE id = 1;
COMMIT;
SELECT bloom_contains(f, 'savepoint a') AS a, bloom_contains(f, 'savepoint b') AS b
FROM sc WHERE id = 1;
SELECT * FROM sc_probe ORDER BY id;
-- TRUNCATE: a new file whose index has forgotten every OID
TRUNCATE sc;
INSERT INTO sc SELECT 1, bloom_agg(md5(i::text), 100000, 0.01)
FROM generate_series(1, 1000) i;
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
-- a cap smaller than the filter: kept for the statement only
SET bloomfilter.session_cache_size = '100kB';
SELECT sc_since() IS NOT NULL AS reset;
SELECT * FROM sc_probe ORDER BY id;
SELECT * FROM sc_probe ORDER BY id;
SELECT sc_since();
SELECT current_setting('bloomfilter.session_cache_stats') ~ '^entries=0 bytes=0 ' AS emptied;
RESET bloomfilter.session_cache_size;
RESET max_parallel_workers_per_gather;
DROP VIEW sc_probe;
DROP TABLE sc;
