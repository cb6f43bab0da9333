-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

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
	   < string_to_array('1.1', '.')::int[] THEN
		RAISE EXCEPTION 'the loaded bloomfilter module is version %, older than this script''s 1.1',
			bloomfilter_module_version()
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Install bloomfilter 1.1, then run this in a new session (a session keeps the module it loaded first).';
	END IF;
END $$;
-- end guard
