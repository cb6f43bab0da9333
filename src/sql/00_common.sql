-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

--
-- The loaded module's version.  A backend that loaded the module before a
-- newer one was installed keeps running the old one: the guard refuses to
-- make a catalog that module cannot serve.
--
CREATE FUNCTION bloomfilter_module_version() RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_module_version() IS 'version of the loaded bloomfilter module (a newer module serves an older catalog, never the reverse)';

-- guard: module older than this script
DO $$
BEGIN
	IF string_to_array(bloomfilter_module_version(), '.')::int[]
	   < string_to_array('@EXTVERSION@', '.')::int[] THEN
		RAISE EXCEPTION 'the loaded bloomfilter module is version %, older than this script''s @EXTVERSION@',
			bloomfilter_module_version()
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Install bloomfilter @EXTVERSION@, then run this in a new session (a session keeps the module it loaded first).';
	END IF;
END $$;
-- end guard

--
-- The planner support function of the row probes (bloom_contains and kin)
-- and of the final functions of the aggregates the build scan builds.  It
-- answers no request: the planner's call (for a probe's selectivity or
-- cost, for an aggregate's costs) loads the module, whose probe and build
-- scans the planner can then consider even in a session's first query,
-- so a query gets the same plan in a session's first statement as later.
--
CREATE FUNCTION bloomfilter_probe_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_probe_support(internal) IS 'planner support of the row probes and the built aggregates'' final functions: loads the module so the planner can use its scans';

--
-- bloom_keyset: the state of every self-sizing aggregate (bloom_agg(x),
-- counting_bloom_agg(x), cuckoo_agg(x)): the distinct element hashes seen so
-- far.  A real type with an exact text form, so a distributed engine can
-- ship partial states between nodes as text.
--
CREATE TYPE bloom_keyset;

CREATE FUNCTION bloom_keyset_in(cstring) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_keyset_out(bloom_keyset) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bf_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_keyset_recv(internal) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_keyset_send(bloom_keyset) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom_keyset (
	INPUT = bloom_keyset_in,
	OUTPUT = bloom_keyset_out,
	RECEIVE = bloom_keyset_recv,
	SEND = bloom_keyset_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON FUNCTION bloom_keyset_in(cstring) IS 'bloom_keyset text input: base64 of its bytes, validated';
COMMENT ON FUNCTION bloom_keyset_out(bloom_keyset) IS 'bloom_keyset text output: base64 of its bytes';
COMMENT ON FUNCTION bloom_keyset_recv(internal) IS 'bloom_keyset binary input, validated';
COMMENT ON FUNCTION bloom_keyset_send(bloom_keyset) IS 'bloom_keyset binary output: its bytes';
COMMENT ON TYPE bloom_keyset IS 'aggregate state of self-sizing filter aggregates: the distinct element hashes seen so far';

CREATE FUNCTION bloom_keyset_combine(bloom_keyset, bloom_keyset) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_combine(bloom_keyset, bloom_keyset) IS 'aggregate support: merge two partial keyset states';
