--
-- bloom_index_contains(index, x) called row after row keeps, at its call
-- site, the index it opened: its file, hasher and stages, and the lock
-- its first call took.  What it keeps must answer as a fresh open does:
-- after adds that grow a stage within the statement, after a REINDEX
-- that resizes the stages between two statements sharing the site (a
-- PL/pgSQL expression's), after a GRANT or REVOKE, after a rollback to a
-- savepoint that released its lock.
--
SET client_min_messages = warning;

CREATE TABLE ps_t (u text);
CREATE INDEX ps_f ON ps_t USING bloomfilter (u) WITH (capacity = 100, fpr = 0.01);

-- ---- the adds of the statement itself, growing the index to 3 stages ----
-- each row is probed after the rows before it were added: a key goes in
-- once (or never, its first probe a false positive)
INSERT INTO ps_t
SELECT 'ps-' || (g % 700) FROM generate_series(0, 2099) g
WHERE NOT bloom_index_contains('ps_f', 'ps-' || (g % 700));
SELECT count(*) AS added, count(DISTINCT u) AS distinct_added,
       bloom_index_info('ps_f')->>'stages' AS stages
FROM ps_t;
SELECT count(*) AS false_negatives FROM generate_series(0, 699) g
WHERE NOT bloom_index_contains('ps_f', 'ps-' || g)
  AND 'ps-' || g IN (SELECT u FROM ps_t);

-- ---- one call site across statements: a PL/pgSQL expression ----
-- (the index a variable: a constant's plan would be made again when the
-- index changes, and the site with it)
CREATE FUNCTION ps_probe(k text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	i regclass := 'ps_f';
BEGIN
	RETURN bloom_index_contains(i, k);
END $$;
-- the index's lock, held by this session
CREATE FUNCTION ps_locked() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM pg_locks
	WHERE relation = 'ps_f'::regclass AND pid = pg_backend_pid() AND granted
$$;

ALTER INDEX ps_f SET (capacity = 100000);
TRUNCATE ps_t;
INSERT INTO ps_t SELECT 'ps-' || g FROM generate_series(1, 300) g;
BEGIN;
-- one stage of 100,000: the site keeps it, and the lock
SELECT count(*) FILTER (WHERE NOT ps_probe('ps-' || g)) AS false_negatives
FROM generate_series(1, 300) g;
SELECT ps_locked() AS locked, bloom_index_info('ps_f')->>'stages' AS stages;
-- the same stage count, other stages: the file changed, the site opens it again
ALTER INDEX ps_f SET (capacity = 1000);
REINDEX INDEX ps_f;
SELECT count(*) FILTER (WHERE NOT ps_probe('ps-' || g)) AS false_negatives
FROM generate_series(1, 300) g;
-- emptied: no stale answer from the pages before
TRUNCATE ps_t;
SELECT ps_probe('ps-1') AS after_truncate;
-- this transaction's own row: added when the probe reads the index
INSERT INTO ps_t VALUES ('ps-1');
SELECT ps_probe('ps-1') AS own_row;
COMMIT;
SELECT ps_locked() AS locked_after_commit;

-- ---- a rollback to a savepoint releases the lock the site's first call took ----
BEGIN;
SAVEPOINT s;
SELECT ps_probe('ps-1') AS in_savepoint, ps_locked() AS locked;
ROLLBACK TO SAVEPOINT s;
SELECT ps_locked() AS locked_after_rollback;
-- the next call takes it again rather than read the index unlocked
SELECT ps_probe('ps-1') AS again, ps_locked() AS locked;
COMMIT;

-- ---- privileges are checked every call ----
CREATE ROLE regress_bf_site_reader;
GRANT SELECT ON ps_t TO regress_bf_site_reader;
BEGIN;
SET LOCAL ROLE regress_bf_site_reader;
SELECT ps_probe('ps-1') AS granted;
RESET ROLE;
REVOKE SELECT ON ps_t FROM regress_bf_site_reader;
SET LOCAL ROLE regress_bf_site_reader;
SELECT err($$SELECT ps_probe('ps-1')$$);
COMMIT;

DROP TABLE ps_t;
DROP FUNCTION ps_probe(text);
DROP FUNCTION ps_locked();
DROP ROLE regress_bf_site_reader;
