--
-- The index keeps its promises (issue 45): an index that may lack
-- elements does not answer; a probe tells nothing a row-level security
-- policy hides; a fixed-size index that cannot take a statement's adds
-- takes none of them; ALTER INDEX refuses what CREATE INDEX refuses; a
-- missing index is the user's error; amvalidate checks the classes.
--

-- (a server without the preload says so at the first build: t/014)
SET client_min_messages = warning;

-- ---- an index whose build did not finish does not answer ----
CREATE TABLE ip_t (k text);
INSERT INTO ip_t SELECT 'ip-' || g FROM generate_series(1, 3000) g;
-- a build that fails part way (here: on row 2500), as a cancelled CREATE
-- INDEX CONCURRENTLY does, leaves an index that is not valid
CREATE FUNCTION ip_boom(text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
	IF $1 = 'ip-2500' THEN
		RAISE EXCEPTION 'injected build failure';
	END IF;
	RETURN $1;
END $$;
-- (no CONTEXT line: from PostgreSQL 17 it names the function's schema)
\set SHOW_CONTEXT never
CREATE INDEX CONCURRENTLY ip_bad ON ip_t USING bloomfilter (ip_boom(k)) WITH (capacity = 10000);
\set SHOW_CONTEXT errors
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'ip_bad'::regclass;
-- every way of reading it refuses, with what to do
SELECT err($$SELECT bloom_index_contains('ip_bad', 'ip-1')$$);
SELECT err($$SELECT bloom_index_contains('ip_bad', ARRAY['ip-1', 'ip-2'])$$);
SELECT err($$SELECT bloom_index_absent('ip_bad', ARRAY['ip-1'])$$);
SELECT err($$SELECT bloom_index_snapshot('ip_bad')$$);
SELECT err($$SELECT bloom_index_info('ip_bad')$$);
SELECT err($$SELECT count(*) FROM ip_t WHERE NOT bloom_index_contains('ip_bad', k)$$);
SELECT bloom_index_contains('ip_bad', 'ip-1');
-- REINDEX, as the hint says, and it answers, every row found
DELETE FROM ip_t WHERE k = 'ip-2500';
REINDEX INDEX ip_bad;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'ip_bad'::regclass;
SELECT count(*) AS false_negatives FROM ip_t WHERE NOT bloom_index_contains('ip_bad', k);
SELECT count(*) AS false_negatives FROM ip_t
WHERE k = ANY (bloom_index_absent('ip_bad', ARRAY(SELECT k FROM ip_t)));
DROP TABLE ip_t;
DROP FUNCTION ip_boom(text);

-- ---- a partitioned index answers only with every partition's ----
CREATE TABLE ip_p (k text) PARTITION BY LIST (substr(k, 1, 1));
CREATE TABLE ip_pa PARTITION OF ip_p FOR VALUES IN ('a');
CREATE TABLE ip_pb PARTITION OF ip_p FOR VALUES IN ('b');
INSERT INTO ip_p SELECT 'a' || g FROM generate_series(1, 500) g;
INSERT INTO ip_p SELECT 'b' || g FROM generate_series(1, 500) g;
CREATE INDEX ip_pf ON ONLY ip_p USING bloomfilter (k) WITH (capacity = 10000);
SELECT err($$SELECT bloom_index_contains('ip_pf', 'a1')$$);
CREATE INDEX ip_paf ON ip_pa USING bloomfilter (k) WITH (capacity = 10000);
ALTER INDEX ip_pf ATTACH PARTITION ip_paf;
-- one of two attached: still not valid
SELECT err($$SELECT count(*) FROM ip_p WHERE NOT bloom_index_contains('ip_pf', k)$$);
SELECT err($$SELECT bloom_index_absent('ip_pf', ARRAY['a1', 'b1'])$$);
-- a partition's own index answers for its partition
SELECT count(*) AS false_negatives FROM ip_pa WHERE NOT bloom_index_contains('ip_paf', k);
CREATE INDEX ip_pbf ON ip_pb USING bloomfilter (k) WITH (capacity = 10000);
ALTER INDEX ip_pf ATTACH PARTITION ip_pbf;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'ip_pf'::regclass;
SELECT count(*) AS false_negatives FROM ip_p WHERE NOT bloom_index_contains('ip_pf', k);
SELECT bloom_index_absent('ip_pf', ARRAY['a1', 'b1', 'a500', 'b500']) AS absent;
DROP TABLE ip_p;

-- ---- row-level security ----
CREATE ROLE regress_bf_rls_reader;
CREATE ROLE regress_bf_rls_owner;
CREATE TABLE ip_rls (k text);
INSERT INTO ip_rls VALUES ('secret-1'), ('open-1');
CREATE INDEX ip_rls_f ON ip_rls USING bloomfilter (k) WITH (capacity = 1000);
ALTER TABLE ip_rls OWNER TO regress_bf_rls_owner;
ALTER TABLE ip_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY ip_rls_open ON ip_rls FOR SELECT USING (k LIKE 'open-%');
GRANT SELECT ON ip_rls TO regress_bf_rls_reader;
SET ROLE regress_bf_rls_reader;
-- the policy hides the row from a query ...
SELECT count(*) FROM ip_rls WHERE k = 'secret-1';
-- ... and from every probe
SELECT err($$SELECT bloom_index_contains('ip_rls_f', 'secret-1')$$);
SELECT err($$SELECT bloom_index_contains('ip_rls_f', ARRAY['secret-1'])$$);
SELECT err($$SELECT bloom_index_absent('ip_rls_f', ARRAY['secret-1'])$$);
SELECT err($$SELECT bloom_index_info('ip_rls_f')$$);
SELECT err($$SELECT bloom_index_snapshot('ip_rls_f')$$);
SELECT err($$SELECT count(*) FROM (VALUES ('secret-1')) v(k) WHERE bloom_index_contains('ip_rls_f', k)$$);
-- with row_security off, the same
SET row_security = off;
SELECT err($$SELECT bloom_index_contains('ip_rls_f', 'secret-1')$$);
RESET row_security;
RESET ROLE;
-- the owner is not subject to its own policies, unless forced
SET ROLE regress_bf_rls_owner;
SELECT bloom_index_contains('ip_rls_f', 'secret-1') AS owner_sees;
RESET ROLE;
ALTER TABLE ip_rls FORCE ROW LEVEL SECURITY;
SET ROLE regress_bf_rls_owner;
SELECT err($$SELECT bloom_index_contains('ip_rls_f', 'secret-1')$$);
RESET ROLE;
-- a role with BYPASSRLS is not subject to them
ALTER ROLE regress_bf_rls_reader BYPASSRLS;
SET ROLE regress_bf_rls_reader;
SELECT bloom_index_contains('ip_rls_f', 'secret-1') AS bypassrls_sees;
RESET ROLE;
-- and without row-level security, SELECT is enough
ALTER ROLE regress_bf_rls_reader NOBYPASSRLS;
ALTER TABLE ip_rls DISABLE ROW LEVEL SECURITY;
SET ROLE regress_bf_rls_reader;
SELECT bloom_index_contains('ip_rls_f', 'secret-1') AS no_rls_sees;
RESET ROLE;
DROP TABLE ip_rls;
DROP ROLE regress_bf_rls_reader;
DROP ROLE regress_bf_rls_owner;

-- ---- a fixed-size index takes a statement's adds all or not at all ----
CREATE TABLE ip_fx (k text);
CREATE INDEX ip_fx_f ON ip_fx USING bloomfilter (k) WITH (capacity = 10000, scalable = false);
INSERT INTO ip_fx SELECT 'fx-' || g FROM generate_series(1, 9000) g;
SELECT (bloom_index_info('ip_fx_f')->'stage_info'->0->>'rate_used')::float8 AS rate_before \gset
SELECT round(:rate_before::numeric, 2) AS rate_used;
-- 5,000 more do not fit: refused, nothing of them added, no rate spent
INSERT INTO ip_fx SELECT 'fx-' || g FROM generate_series(9001, 14000) g;
SELECT count(*) FROM ip_fx;
SELECT (bloom_index_info('ip_fx_f')->'stage_info'->0->>'rate_used')::float8 = :rate_before
	AS rate_unchanged;
-- what the failed statement tried to add reads as never added: only
-- false positives, at the filter's rate (below 1% of 5,000 with margin)
SELECT count(*) < 100 AS only_false_positives FROM generate_series(9001, 14000) g
WHERE bloom_index_contains('ip_fx_f', 'fx-' || g);
-- so 500 more, under the capacity, go in
INSERT INTO ip_fx SELECT 'fx-' || g FROM generate_series(9001, 9500) g;
SELECT count(*) FROM ip_fx;
SELECT count(*) AS false_negatives FROM ip_fx WHERE NOT bloom_index_contains('ip_fx_f', k);
-- the same in a transaction that fails at COMMIT, where its adds go in
SELECT (bloom_index_info('ip_fx_f')->'stage_info'->0->>'rate_used')::float8 AS rate_before \gset
BEGIN;
INSERT INTO ip_fx SELECT 'fx-' || g FROM generate_series(20001, 30000) g;
COMMIT;
SELECT (bloom_index_info('ip_fx_f')->'stage_info'->0->>'rate_used')::float8 = :rate_before
	AS rate_unchanged_after_failed_commit;
INSERT INTO ip_fx VALUES ('fx-last');
SELECT bloom_index_contains('ip_fx_f', 'fx-last') AS last_added;

-- ---- ALTER INDEX refuses what CREATE INDEX refuses ----
SELECT err($$CREATE INDEX ON ip_fx USING bloomfilter (k) WITH (fpr = 0)$$);
SELECT err($$ALTER INDEX ip_fx_f SET (fpr = 0)$$);
SELECT err($$CREATE INDEX ON ip_fx USING bloomfilter (k) WITH (fpr = 1)$$);
SELECT err($$ALTER INDEX ip_fx_f SET (fpr = 1)$$);
SELECT err($$CREATE INDEX ON ip_fx USING bloomfilter (k) WITH (capacity = 2.5)$$);
SELECT err($$ALTER INDEX ip_fx_f SET (capacity = 2.5)$$);
SELECT err($$CREATE INDEX ON ip_fx USING bloomfilter (k) WITH (capacity = 1e15, fpr = 1e-9)$$);
SELECT err($$ALTER INDEX ip_fx_f SET (capacity = 1e15, fpr = 1e-9)$$);
-- nothing was stored, so what rebuilds the index still works
SELECT reloptions FROM pg_class WHERE oid = 'ip_fx_f'::regclass;
REINDEX INDEX ip_fx_f;
-- a good option is stored and used
ALTER INDEX ip_fx_f SET (capacity = 20000);
REINDEX INDEX ip_fx_f;
SELECT bloom_index_info('ip_fx_f')->>'capacity' AS capacity;
TRUNCATE ip_fx;
DROP TABLE ip_fx;

-- ---- a missing index is the user's error (42P01), not an internal one ----
CREATE TABLE ip_gone (k text);
CREATE INDEX ip_gone_f ON ip_gone USING bloomfilter (k);
SELECT 'ip_gone_f'::regclass::oid AS gone \gset
DROP TABLE ip_gone;
SELECT err(format('SELECT bloom_index_contains(%s, %L)', :gone, 'x')) LIKE '42P01: index with OID % does not exist' AS contains_42p01;
SELECT err(format('SELECT bloom_index_contains(%s, %L)', :gone, '{x}')) LIKE '42P01:%' AS contains_array_42p01;
SELECT err(format('SELECT bloom_index_absent(%s, %L)', :gone, '{x}')) LIKE '42P01:%' AS absent_42p01;
SELECT err(format('SELECT bloom_index_info(%s)', :gone)) LIKE '42P01:%' AS info_42p01;
SELECT err(format('SELECT bloom_index_snapshot(%s)', :gone)) LIKE '42P01:%' AS snapshot_42p01;
SELECT err($$SELECT bloom_index_contains(0, 'x')$$);
SELECT err($$SELECT bloom_index_info(0)$$);

-- ---- amvalidate ----
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'bloomfilter' ORDER BY 1;
CREATE FUNCTION ip_hash4(text, integer) RETURNS bigint IMMUTABLE LANGUAGE sql AS 'SELECT 0::bigint';
CREATE OPERATOR CLASS ip_bad_sig_ops FOR TYPE text USING bloomfilter AS
	FUNCTION 1 ip_hash4(text, integer);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'ip_bad_sig_ops';
CREATE OPERATOR CLASS ip_bad_op_ops FOR TYPE uuid USING bloomfilter AS
	OPERATOR 1 = (uuid, uuid),
	FUNCTION 1 bloom_hash(uuid, bigint);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'ip_bad_op_ops';
DROP OPERATOR FAMILY ip_bad_sig_ops USING bloomfilter;
DROP OPERATOR FAMILY ip_bad_op_ops USING bloomfilter;
DROP FUNCTION ip_hash4(text, integer);

-- ---- an operator class that hashes with a function of its own ----
-- the probe scan hashes as the module does: it must not answer for such
-- an index (it answered "absent" for every row)
-- (its search_path fixed: from PostgreSQL 17 an index build runs with
-- pg_catalog's alone)
CREATE FUNCTION ip_lower_hash(text, bigint) RETURNS bigint IMMUTABLE STRICT
SET search_path FROM CURRENT LANGUAGE sql AS 'SELECT bloom_hash(lower($1), $2)';
CREATE OPERATOR CLASS ip_lower_ops FOR TYPE text USING bloomfilter AS
	FUNCTION 1 ip_lower_hash(text, bigint);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'ip_lower_ops';
CREATE TABLE ip_co (k text);
INSERT INTO ip_co SELECT 'KEY-' || g FROM generate_series(1, 5000) g;
CREATE INDEX ip_co_f ON ip_co USING bloomfilter (k ip_lower_ops) WITH (capacity = 10000);
SELECT * FROM explain_plan('costs off', $$SELECT count(*) FROM ip_co WHERE NOT bloom_index_contains('ip_co_f', k)$$);
SELECT count(*) AS false_negatives FROM ip_co WHERE NOT bloom_index_contains('ip_co_f', k);
SELECT bloom_index_contains('ip_co_f', 'key-1') AS lower_case_found;
SELECT bloom_index_contains('ip_co_f', ARRAY['key-1', NULL, 'KEY-2', 'key-x']) AS array_probe;
-- named by a parameter, the plan cannot tell: the scan refuses at run time
PREPARE ip_co_q(regclass) AS SELECT count(*) FROM ip_co WHERE NOT bloom_index_contains($1, k);
SET plan_cache_mode = force_generic_plan;
SELECT err($$EXECUTE ip_co_q('ip_co_f')$$);
-- planned without the probe scan, the function probes it
DEALLOCATE ip_co_q;
SET bloomfilter.enable_probe_scan = off;
PREPARE ip_co_q(regclass) AS SELECT count(*) FROM ip_co WHERE NOT bloom_index_contains($1, k);
EXECUTE ip_co_q('ip_co_f');
RESET bloomfilter.enable_probe_scan;
RESET plan_cache_mode;
DEALLOCATE ip_co_q;
DROP TABLE ip_co;
DROP OPERATOR FAMILY ip_lower_ops USING bloomfilter;
DROP FUNCTION ip_lower_hash(text, bigint);
