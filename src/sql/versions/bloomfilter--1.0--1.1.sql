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

--
-- A NULL filter contains nothing: every probe (contains, contained, count
-- and the array forms, of every type) answers false (a count 0, an array
-- of false) for a NULL filter, where 1.0's STRICT functions answered NULL
-- and WHERE NOT bloom_contains(f, x) dropped every row.  A NULL element
-- still gives NULL.
--
ALTER FUNCTION bloom_contains(bloomfilter, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, text) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contained(text, bloomfilter) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contained(bytea, bloomfilter) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contained(bigint, bloomfilter) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contains(bloomfilter, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_contained(uuid, bloomfilter) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, text) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contained(text, countingbloom) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_count(countingbloom, text) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contained(bytea, countingbloom) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_count(countingbloom, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contained(bigint, countingbloom) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_count(countingbloom, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contains(countingbloom, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_contained(uuid, countingbloom) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_count(countingbloom, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, text) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contained(text, cuckoofilter) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_count(cuckoofilter, text) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contained(bytea, cuckoofilter) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_count(cuckoofilter, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contained(bigint, cuckoofilter) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_count(cuckoofilter, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contains(cuckoofilter, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_contained(uuid, cuckoofilter) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_count(cuckoofilter, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contains(stablebloom, text) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contained(text, stablebloom) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contains(stablebloom, bytea) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contained(bytea, stablebloom) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contains(stablebloom, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contained(bigint, stablebloom) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contains(stablebloom, uuid) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_contained(uuid, stablebloom) CALLED ON NULL INPUT;

COMMENT ON FUNCTION bloom_contains(bloomfilter, text) IS 'false: x was never added (a NULL f contains nothing); true: x was probably added';
COMMENT ON FUNCTION bloom_contains(bloomfilter, bytea) IS 'false: x was never added (a NULL f contains nothing); true: x was probably added';
COMMENT ON FUNCTION bloom_contains(bloomfilter, bigint) IS 'false: x was never added (a NULL f contains nothing); true: x was probably added';
COMMENT ON FUNCTION bloom_contains(bloomfilter, uuid) IS 'false: x was never added (a NULL f contains nothing); true: x was probably added';
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, text) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
COMMENT ON FUNCTION counting_bloom_count(countingbloom, text) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bytea) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bytea) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bigint) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bigint) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, uuid) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
COMMENT ON FUNCTION counting_bloom_count(countingbloom, uuid) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, text) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, text) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bytea) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bytea) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bigint) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bigint) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, uuid) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, uuid) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, text) IS 'true: x was probably inserted recently; false: not recently (or forgotten; a NULL f contains nothing)';
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, bytea) IS 'true: x was probably inserted recently; false: not recently (or forgotten; a NULL f contains nothing)';
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, bigint) IS 'true: x was probably inserted recently; false: not recently (or forgotten; a NULL f contains nothing)';
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, uuid) IS 'true: x was probably inserted recently; false: not recently (or forgotten; a NULL f contains nothing)';

-- ---- the bloomfilter index access method ----

CREATE FUNCTION bloom_hash(x text, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(text, bigint) IS 'the 64-bit hash every filter type gives x (XXH3-64 of its bytes with seed)';
CREATE FUNCTION bloom_hash(x bytea, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(bytea, bigint) IS 'the 64-bit hash every filter type gives x (XXH3-64 of its bytes with seed)';
CREATE FUNCTION bloom_hash(x bigint, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(bigint, bigint) IS 'the 64-bit hash every filter type gives x (XXH3-64 of its 8 little-endian bytes with seed)';
CREATE FUNCTION bloom_hash(x uuid, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(uuid, bigint) IS 'the 64-bit hash every filter type gives x (XXH3-64 of its 16 bytes with seed)';

CREATE FUNCTION bloomfilter_index_handler(internal) RETURNS index_am_handler
	AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION bloomfilter_index_handler(internal) IS 'handler of the bloomfilter index access method';
CREATE ACCESS METHOD bloomfilter TYPE INDEX HANDLER bloomfilter_index_handler;
COMMENT ON ACCESS METHOD bloomfilter IS 'a Bloom filter of a column kept in pages: maintained by the table, probed with bloom_index_contains';

CREATE OPERATOR CLASS bloomfilter_text_ops DEFAULT FOR TYPE text USING bloomfilter AS
	FUNCTION 1 bloom_hash(text, bigint);
CREATE OPERATOR CLASS bloomfilter_bytea_ops DEFAULT FOR TYPE bytea USING bloomfilter AS
	FUNCTION 1 bloom_hash(bytea, bigint);
CREATE OPERATOR CLASS bloomfilter_int8_ops DEFAULT FOR TYPE bigint USING bloomfilter AS
	FUNCTION 1 bloom_hash(bigint, bigint);
CREATE OPERATOR CLASS bloomfilter_uuid_ops DEFAULT FOR TYPE uuid USING bloomfilter AS
	FUNCTION 1 bloom_hash(uuid, bigint);
-- an array column: an entry for each non-NULL item
CREATE OPERATOR CLASS bloomfilter_text_array_ops DEFAULT FOR TYPE text[] USING bloomfilter AS
	FUNCTION 1 (text[], text[]) bloom_hash(text, bigint);
CREATE OPERATOR CLASS bloomfilter_bytea_array_ops DEFAULT FOR TYPE bytea[] USING bloomfilter AS
	FUNCTION 1 (bytea[], bytea[]) bloom_hash(bytea, bigint);
CREATE OPERATOR CLASS bloomfilter_int8_array_ops DEFAULT FOR TYPE bigint[] USING bloomfilter AS
	FUNCTION 1 (bigint[], bigint[]) bloom_hash(bigint, bigint);
CREATE OPERATOR CLASS bloomfilter_uuid_array_ops DEFAULT FOR TYPE uuid[] USING bloomfilter AS
	FUNCTION 1 (uuid[], uuid[]) bloom_hash(uuid, bigint);
-- elements that are already hashes: a column of bloom_hash values (a log
-- of 8-byte hashes rather than of URLs) gives the bits an index on the
-- elements themselves would
CREATE FUNCTION bloom_hash_identity(h bigint, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash_identity(bigint, bigint) IS 'h itself, a bloom_hash value: the support function of bloomfilter_hash_ops (seed must be 0, the index''s)';
CREATE OPERATOR CLASS bloomfilter_hash_ops FOR TYPE bigint USING bloomfilter AS
	FUNCTION 1 bloom_hash_identity(bigint, bigint);
CREATE OPERATOR CLASS bloomfilter_hash_array_ops FOR TYPE bigint[] USING bloomfilter AS
	FUNCTION 1 (bigint[], bigint[]) bloom_hash_identity(bigint, bigint);
-- a batch of bloom_hash values from a driver that sends its parameters
-- only as text: packed in a bytea, 8 bytes each, as int8send writes them
CREATE FUNCTION bloom_hashes(packed bytea) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hashes(bytea) IS 'the bloom_hash values packed in a bytea, 8 bytes each in network byte order (as int8send writes them), as a bigint[]';

-- The probes read the index's current bits, not a snapshot: VOLATILE.
-- Restricted to the leader, which adds its transaction's waiting rows
-- (bloomindex.c) before it reads.
CREATE FUNCTION bloom_index_contains(index regclass, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_index_contains_text' LANGUAGE C VOLATILE PARALLEL RESTRICTED
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_index_contains(regclass, text) IS 'false if x is surely not in the bloomfilter index; true if it probably is';
CREATE FUNCTION bloom_index_contains(index regclass, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_index_contains_text' LANGUAGE C VOLATILE PARALLEL RESTRICTED
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_index_contains(regclass, bytea) IS 'false if x is surely not in the bloomfilter index; true if it probably is';
CREATE FUNCTION bloom_index_contains(index regclass, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_index_contains_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_index_contains(regclass, bigint) IS 'false if x is surely not in the bloomfilter index; true if it probably is';
CREATE FUNCTION bloom_index_contains(index regclass, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_index_contains_uuid' LANGUAGE C VOLATILE PARALLEL RESTRICTED
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_index_contains(regclass, uuid) IS 'false if x is surely not in the bloomfilter index; true if it probably is';
CREATE FUNCTION bloom_index_contains(index regclass, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_index_contains_array' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_contains(regclass, text[]) IS 'bloom_index_contains(index, x) for each item x of xs';
CREATE FUNCTION bloom_index_contains(index regclass, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_index_contains_array' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_contains(regclass, bytea[]) IS 'bloom_index_contains(index, x) for each item x of xs';
CREATE FUNCTION bloom_index_contains(index regclass, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_index_contains_array' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_contains(regclass, bigint[]) IS 'bloom_index_contains(index, x) for each item x of xs';
CREATE FUNCTION bloom_index_contains(index regclass, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_index_contains_array' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_contains(regclass, uuid[]) IS 'bloom_index_contains(index, x) for each item x of xs';

CREATE FUNCTION bloom_index_absent(index regclass, xs text[]) RETURNS text[]
	AS 'MODULE_PATHNAME', 'bloom_index_absent_text' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_absent(regclass, text[]) IS 'the items of xs the bloomfilter index surely does not contain, each once, in order (insert them to add them)';
CREATE FUNCTION bloom_index_absent(index regclass, xs bytea[]) RETURNS bytea[]
	AS 'MODULE_PATHNAME', 'bloom_index_absent_text' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_absent(regclass, bytea[]) IS 'the items of xs the bloomfilter index surely does not contain, each once, in order (insert them to add them)';
CREATE FUNCTION bloom_index_absent(index regclass, xs bigint[]) RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'bloom_index_absent_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_absent(regclass, bigint[]) IS 'the items of xs the bloomfilter index surely does not contain, each once, in order (insert them to add them)';
CREATE FUNCTION bloom_index_absent(index regclass, xs uuid[]) RETURNS uuid[]
	AS 'MODULE_PATHNAME', 'bloom_index_absent_uuid' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_absent(regclass, uuid[]) IS 'the items of xs the bloomfilter index surely does not contain, each once, in order (insert them to add them)';
CREATE FUNCTION bloom_index_info(index regclass) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_info(regclass) IS 'geometry, fill, stages and rate of a bloomfilter index (of each partition''s, for a partitioned one)';
CREATE FUNCTION bloom_index_snapshot(index regclass) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_snapshot(regclass) IS 'the bloomfilter index''s bits as a bloomfilter value (at most 1 GB)';
CREATE FUNCTION bloom_index_sync(index regclass, since text DEFAULT NULL)
	RETURNS TABLE (token text, resync boolean, blkno bigint, page bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION bloom_index_sync(regclass, text) IS 'the bloomfilter index''s pages changed since the token of an earlier sync (all of them, resync, without one or when it no longer applies), each with this sync''s token';

CREATE FUNCTION url_host(url text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_host_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_host(text) IS 'the host of url_normalize(url) (no userinfo, no port; an IP literal keeps its brackets), NULL when it has none: the natural key to distribute or partition a crawl by';


CREATE FUNCTION url_normalize(ref text, base text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_normalize_ref' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_normalize(text, text) IS 'ref, a link found on the page at base, resolved against base (RFC 3986 section 5.2), then url_normalize''d';

-- ---- equality: the same bytes; hash and btree support, so DISTINCT,
-- GROUP BY, UNION, count(DISTINCT f) and joins work on filter columns ----

CREATE FUNCTION bloomfilter_eq(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_eq(bloomfilter, bloomfilter) IS 'true when the two values are byte for byte the same (parameters, format and contents)';
CREATE FUNCTION bloomfilter_ne(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_ne(bloomfilter, bloomfilter) IS 'not bloomfilter_eq';
CREATE FUNCTION bloomfilter_cmp(bloomfilter, bloomfilter) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_cmp(bloomfilter, bloomfilter) IS 'order of the values'' bytes (btree operator class support; not an order of what they hold)';
CREATE FUNCTION bloomfilter_lt(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_lt(bloomfilter, bloomfilter) IS 'bloomfilter_cmp(a, b) < 0';
CREATE FUNCTION bloomfilter_le(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_le(bloomfilter, bloomfilter) IS 'bloomfilter_cmp(a, b) <= 0';
CREATE FUNCTION bloomfilter_gt(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_gt(bloomfilter, bloomfilter) IS 'bloomfilter_cmp(a, b) > 0';
CREATE FUNCTION bloomfilter_ge(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_ge(bloomfilter, bloomfilter) IS 'bloomfilter_cmp(a, b) >= 0';
CREATE FUNCTION bloomfilter_hash(bloomfilter) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_hash(bloomfilter) IS 'hash of the value''s bytes (hash operator class support)';
CREATE FUNCTION bloomfilter_hash_extended(bloomfilter, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bf_value_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_hash_extended(bloomfilter, bigint) IS 'seeded 64-bit hash of the value''s bytes (hash operator class support)';
CREATE OPERATOR = (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloomfilter_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR CLASS bloomfilter_hash_ops DEFAULT FOR TYPE bloomfilter USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 bloomfilter_hash(bloomfilter),
	FUNCTION 2 bloomfilter_hash_extended(bloomfilter, bigint);
CREATE OPERATOR CLASS bloomfilter_btree_ops DEFAULT FOR TYPE bloomfilter USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 bloomfilter_cmp(bloomfilter, bloomfilter);

CREATE FUNCTION countingbloom_eq(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_eq(countingbloom, countingbloom) IS 'true when the two values are byte for byte the same (parameters, format and contents)';
CREATE FUNCTION countingbloom_ne(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_ne(countingbloom, countingbloom) IS 'not countingbloom_eq';
CREATE FUNCTION countingbloom_cmp(countingbloom, countingbloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_cmp(countingbloom, countingbloom) IS 'order of the values'' bytes (btree operator class support; not an order of what they hold)';
CREATE FUNCTION countingbloom_lt(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_lt(countingbloom, countingbloom) IS 'countingbloom_cmp(a, b) < 0';
CREATE FUNCTION countingbloom_le(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_le(countingbloom, countingbloom) IS 'countingbloom_cmp(a, b) <= 0';
CREATE FUNCTION countingbloom_gt(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_gt(countingbloom, countingbloom) IS 'countingbloom_cmp(a, b) > 0';
CREATE FUNCTION countingbloom_ge(countingbloom, countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_ge(countingbloom, countingbloom) IS 'countingbloom_cmp(a, b) >= 0';
CREATE FUNCTION countingbloom_hash(countingbloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_hash(countingbloom) IS 'hash of the value''s bytes (hash operator class support)';
CREATE FUNCTION countingbloom_hash_extended(countingbloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bf_value_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_hash_extended(countingbloom, bigint) IS 'seeded 64-bit hash of the value''s bytes (hash operator class support)';
CREATE OPERATOR = (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = countingbloom, RIGHTARG = countingbloom, FUNCTION = countingbloom_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR CLASS countingbloom_hash_ops DEFAULT FOR TYPE countingbloom USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 countingbloom_hash(countingbloom),
	FUNCTION 2 countingbloom_hash_extended(countingbloom, bigint);
CREATE OPERATOR CLASS countingbloom_btree_ops DEFAULT FOR TYPE countingbloom USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 countingbloom_cmp(countingbloom, countingbloom);

CREATE FUNCTION cuckoofilter_eq(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_eq(cuckoofilter, cuckoofilter) IS 'true when the two values are byte for byte the same (parameters, format and contents)';
CREATE FUNCTION cuckoofilter_ne(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_ne(cuckoofilter, cuckoofilter) IS 'not cuckoofilter_eq';
CREATE FUNCTION cuckoofilter_cmp(cuckoofilter, cuckoofilter) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_cmp(cuckoofilter, cuckoofilter) IS 'order of the values'' bytes (btree operator class support; not an order of what they hold)';
CREATE FUNCTION cuckoofilter_lt(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_lt(cuckoofilter, cuckoofilter) IS 'cuckoofilter_cmp(a, b) < 0';
CREATE FUNCTION cuckoofilter_le(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_le(cuckoofilter, cuckoofilter) IS 'cuckoofilter_cmp(a, b) <= 0';
CREATE FUNCTION cuckoofilter_gt(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_gt(cuckoofilter, cuckoofilter) IS 'cuckoofilter_cmp(a, b) > 0';
CREATE FUNCTION cuckoofilter_ge(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_ge(cuckoofilter, cuckoofilter) IS 'cuckoofilter_cmp(a, b) >= 0';
CREATE FUNCTION cuckoofilter_hash(cuckoofilter) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_hash(cuckoofilter) IS 'hash of the value''s bytes (hash operator class support)';
CREATE FUNCTION cuckoofilter_hash_extended(cuckoofilter, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bf_value_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_hash_extended(cuckoofilter, bigint) IS 'seeded 64-bit hash of the value''s bytes (hash operator class support)';
CREATE OPERATOR = (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR CLASS cuckoofilter_hash_ops DEFAULT FOR TYPE cuckoofilter USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 cuckoofilter_hash(cuckoofilter),
	FUNCTION 2 cuckoofilter_hash_extended(cuckoofilter, bigint);
CREATE OPERATOR CLASS cuckoofilter_btree_ops DEFAULT FOR TYPE cuckoofilter USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 cuckoofilter_cmp(cuckoofilter, cuckoofilter);

CREATE FUNCTION stablebloom_eq(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_eq(stablebloom, stablebloom) IS 'true when the two values are byte for byte the same (parameters, format and contents)';
CREATE FUNCTION stablebloom_ne(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_ne(stablebloom, stablebloom) IS 'not stablebloom_eq';
CREATE FUNCTION stablebloom_cmp(stablebloom, stablebloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_cmp(stablebloom, stablebloom) IS 'order of the values'' bytes (btree operator class support; not an order of what they hold)';
CREATE FUNCTION stablebloom_lt(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_lt(stablebloom, stablebloom) IS 'stablebloom_cmp(a, b) < 0';
CREATE FUNCTION stablebloom_le(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_le(stablebloom, stablebloom) IS 'stablebloom_cmp(a, b) <= 0';
CREATE FUNCTION stablebloom_gt(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_gt(stablebloom, stablebloom) IS 'stablebloom_cmp(a, b) > 0';
CREATE FUNCTION stablebloom_ge(stablebloom, stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bf_value_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_ge(stablebloom, stablebloom) IS 'stablebloom_cmp(a, b) >= 0';
CREATE FUNCTION stablebloom_hash(stablebloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bf_value_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_hash(stablebloom) IS 'hash of the value''s bytes (hash operator class support)';
CREATE FUNCTION stablebloom_hash_extended(stablebloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bf_value_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom_hash_extended(stablebloom, bigint) IS 'seeded 64-bit hash of the value''s bytes (hash operator class support)';
CREATE OPERATOR = (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = stablebloom, RIGHTARG = stablebloom, FUNCTION = stablebloom_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR CLASS stablebloom_hash_ops DEFAULT FOR TYPE stablebloom USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 stablebloom_hash(stablebloom),
	FUNCTION 2 stablebloom_hash_extended(stablebloom, bigint);
CREATE OPERATOR CLASS stablebloom_btree_ops DEFAULT FOR TYPE stablebloom USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 stablebloom_cmp(stablebloom, stablebloom);


-- a NULL array adds or removes nothing: f as it is (issue 36)
ALTER FUNCTION bloom_add(bloomfilter, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_add(bloomfilter, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_add(bloomfilter, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION bloom_add(bloomfilter, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_add(countingbloom, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_add(countingbloom, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_add(countingbloom, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_add(countingbloom, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_remove(countingbloom, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_remove(countingbloom, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_remove(countingbloom, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION counting_bloom_remove(countingbloom, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_add(cuckoofilter, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_add(cuckoofilter, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_add(cuckoofilter, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION cuckoo_add(cuckoofilter, uuid[]) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_add(stablebloom, text[]) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_add(stablebloom, bytea[]) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_add(stablebloom, bigint[]) CALLED ON NULL INPUT;
ALTER FUNCTION stable_bloom_add(stablebloom, uuid[]) CALLED ON NULL INPUT;

-- test-and-add: which elements of a batch were new (issue 36)
CREATE FUNCTION bloom_test_and_add(f bloomfilter, xs text[], OUT filter bloomfilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_test_and_add(bloomfilter, text[]) IS 'f with every element of xs added, and for each element whether it was new (not probably in f, nor earlier in xs): BF.MADD';
CREATE FUNCTION bloom_test_and_add(f bloomfilter, xs bytea[], OUT filter bloomfilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_test_and_add(bloomfilter, bytea[]) IS 'f with every element of xs added, and for each element whether it was new (not probably in f, nor earlier in xs): BF.MADD';
CREATE FUNCTION bloom_test_and_add(f bloomfilter, xs bigint[], OUT filter bloomfilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_test_and_add(bloomfilter, bigint[]) IS 'f with every element of xs added, and for each element whether it was new (not probably in f, nor earlier in xs): BF.MADD';
CREATE FUNCTION bloom_test_and_add(f bloomfilter, xs uuid[], OUT filter bloomfilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_test_and_add(bloomfilter, uuid[]) IS 'f with every element of xs added, and for each element whether it was new (not probably in f, nor earlier in xs): BF.MADD';

-- add-if-absent: which elements of a batch were new (issue 36)
CREATE FUNCTION cuckoo_test_and_add(f cuckoofilter, xs text[], OUT filter cuckoofilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'cuckoo_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_test_and_add(cuckoofilter, text[]) IS 'f with each element of xs added that it does not probably hold, and for each whether it was so added: CF.INSERTNX';
CREATE FUNCTION cuckoo_test_and_add(f cuckoofilter, xs bytea[], OUT filter cuckoofilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'cuckoo_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_test_and_add(cuckoofilter, bytea[]) IS 'f with each element of xs added that it does not probably hold, and for each whether it was so added: CF.INSERTNX';
CREATE FUNCTION cuckoo_test_and_add(f cuckoofilter, xs bigint[], OUT filter cuckoofilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'cuckoo_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_test_and_add(cuckoofilter, bigint[]) IS 'f with each element of xs added that it does not probably hold, and for each whether it was so added: CF.INSERTNX';
CREATE FUNCTION cuckoo_test_and_add(f cuckoofilter, xs uuid[], OUT filter cuckoofilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'cuckoo_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_test_and_add(cuckoofilter, uuid[]) IS 'f with each element of xs added that it does not probably hold, and for each whether it was so added: CF.INSERTNX';

-- Every probe of every type is COST 10 (1.0: the Bloom filter's only), and
-- every row probe has the planner support function that loads the module
-- (1.0: not the stable Bloom filter's)
ALTER FUNCTION counting_bloom_contains(countingbloom, text) COST 10;
ALTER FUNCTION counting_bloom_contained(text, countingbloom) COST 10;
ALTER FUNCTION counting_bloom_count(countingbloom, text) COST 10;
ALTER FUNCTION counting_bloom_contains(countingbloom, bytea) COST 10;
ALTER FUNCTION counting_bloom_contained(bytea, countingbloom) COST 10;
ALTER FUNCTION counting_bloom_count(countingbloom, bytea) COST 10;
ALTER FUNCTION counting_bloom_contains(countingbloom, bigint) COST 10;
ALTER FUNCTION counting_bloom_contained(bigint, countingbloom) COST 10;
ALTER FUNCTION counting_bloom_count(countingbloom, bigint) COST 10;
ALTER FUNCTION counting_bloom_contains(countingbloom, uuid) COST 10;
ALTER FUNCTION counting_bloom_contained(uuid, countingbloom) COST 10;
ALTER FUNCTION counting_bloom_count(countingbloom, uuid) COST 10;
ALTER FUNCTION cuckoo_contains(cuckoofilter, text) COST 10;
ALTER FUNCTION cuckoo_contained(text, cuckoofilter) COST 10;
ALTER FUNCTION cuckoo_count(cuckoofilter, text) COST 10;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bytea) COST 10;
ALTER FUNCTION cuckoo_contained(bytea, cuckoofilter) COST 10;
ALTER FUNCTION cuckoo_count(cuckoofilter, bytea) COST 10;
ALTER FUNCTION cuckoo_contains(cuckoofilter, bigint) COST 10;
ALTER FUNCTION cuckoo_contained(bigint, cuckoofilter) COST 10;
ALTER FUNCTION cuckoo_count(cuckoofilter, bigint) COST 10;
ALTER FUNCTION cuckoo_contains(cuckoofilter, uuid) COST 10;
ALTER FUNCTION cuckoo_contained(uuid, cuckoofilter) COST 10;
ALTER FUNCTION cuckoo_count(cuckoofilter, uuid) COST 10;
ALTER FUNCTION stable_bloom_contains(stablebloom, text) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contained(text, stablebloom) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contains(stablebloom, bytea) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contained(bytea, stablebloom) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contains(stablebloom, bigint) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contained(bigint, stablebloom) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contains(stablebloom, uuid) COST 10 SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_contained(uuid, stablebloom) COST 10 SUPPORT bloomfilter_probe_support;

-- a comment on every function (1.0: none on these types' I/O functions)
COMMENT ON FUNCTION bloom_keyset_in(cstring) IS 'bloom_keyset text input: base64 of its bytes, validated';
COMMENT ON FUNCTION bloom_keyset_out(bloom_keyset) IS 'bloom_keyset text output: base64 of its bytes';
COMMENT ON FUNCTION bloom_keyset_recv(internal) IS 'bloom_keyset binary input, validated';
COMMENT ON FUNCTION bloom_keyset_send(bloom_keyset) IS 'bloom_keyset binary output: its bytes';
COMMENT ON FUNCTION bloomfilter_in(cstring) IS 'bloomfilter text input: base64 of its bytes, validated';
COMMENT ON FUNCTION bloomfilter_out(bloomfilter) IS 'bloomfilter text output: base64 of its bytes';
COMMENT ON FUNCTION bloomfilter_recv(internal) IS 'bloomfilter binary input, validated';
COMMENT ON FUNCTION bloomfilter_send(bloomfilter) IS 'bloomfilter binary output: its bytes';
COMMENT ON FUNCTION countingbloom_in(cstring) IS 'countingbloom text input: base64 of its bytes, validated';
COMMENT ON FUNCTION countingbloom_out(countingbloom) IS 'countingbloom text output: base64 of its bytes';
COMMENT ON FUNCTION countingbloom_recv(internal) IS 'countingbloom binary input, validated';
COMMENT ON FUNCTION countingbloom_send(countingbloom) IS 'countingbloom binary output: its bytes';

-- test-and-add for countingbloom (add-if-absent) and stablebloom
CREATE FUNCTION counting_bloom_test_and_add(f countingbloom, xs text[], OUT filter countingbloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'counting_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_test_and_add(countingbloom, text[]) IS 'f with each element of xs added once that it does not probably hold, and for each whether it was so added';
CREATE FUNCTION counting_bloom_test_and_add(f countingbloom, xs bytea[], OUT filter countingbloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'counting_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_test_and_add(countingbloom, bytea[]) IS 'f with each element of xs added once that it does not probably hold, and for each whether it was so added';
CREATE FUNCTION counting_bloom_test_and_add(f countingbloom, xs bigint[], OUT filter countingbloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'counting_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_test_and_add(countingbloom, bigint[]) IS 'f with each element of xs added once that it does not probably hold, and for each whether it was so added';
CREATE FUNCTION counting_bloom_test_and_add(f countingbloom, xs uuid[], OUT filter countingbloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'counting_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_test_and_add(countingbloom, uuid[]) IS 'f with each element of xs added once that it does not probably hold, and for each whether it was so added';
CREATE FUNCTION stable_bloom_test_and_add(f stablebloom, xs text[], OUT filter stablebloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'stable_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_test_and_add(stablebloom, text[]) IS 'f after inserting every element of xs in order, and for each whether it was new (not recently seen, nor earlier in xs)';
CREATE FUNCTION stable_bloom_test_and_add(f stablebloom, xs bytea[], OUT filter stablebloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'stable_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_test_and_add(stablebloom, bytea[]) IS 'f after inserting every element of xs in order, and for each whether it was new (not recently seen, nor earlier in xs)';
CREATE FUNCTION stable_bloom_test_and_add(f stablebloom, xs bigint[], OUT filter stablebloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'stable_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_test_and_add(stablebloom, bigint[]) IS 'f after inserting every element of xs in order, and for each whether it was new (not recently seen, nor earlier in xs)';
CREATE FUNCTION stable_bloom_test_and_add(f stablebloom, xs uuid[], OUT filter stablebloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'stable_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_test_and_add(stablebloom, uuid[]) IS 'f after inserting every element of xs in order, and for each whether it was new (not recently seen, nor earlier in xs)';

-- cuckoo_remove of an array
CREATE FUNCTION cuckoo_remove(f cuckoofilter, xs text[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, text[]) IS 'cuckoo_remove of every non-NULL element of xs, in order';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, xs bytea[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bytea[]) IS 'cuckoo_remove of every non-NULL element of xs, in order';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, xs bigint[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bigint[]) IS 'cuckoo_remove of every non-NULL element of xs, in order';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, xs uuid[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, uuid[]) IS 'cuckoo_remove of every non-NULL element of xs, in order';

-- a bloomfilter's or cuckoofilter's bytes do not compress: columns made
-- from now on store them without trying (bench/storage.sql); existing
-- columns keep their storage (ALTER TABLE ... ALTER col SET STORAGE EXTERNAL)
ALTER TYPE bloomfilter SET (STORAGE = external);
ALTER TYPE cuckoofilter SET (STORAGE = external);

-- the final functions of the aggregates the build scan builds load the
-- module when the planner costs them, as the probes' support does
ALTER FUNCTION bloom_agg_final(bloomfilter) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION bloom_keyset_final(bloom_keyset) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION counting_bloom_keyset_final(bloom_keyset) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION counting_bloom_keyset_sized_final(bloom_keyset) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION cuckoo_keyset_final(bloom_keyset) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION cuckoo_keyset_final_sized(bloom_keyset) SUPPORT bloomfilter_probe_support;
ALTER FUNCTION stable_bloom_agg_final(stablebloom) SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloomfilter_probe_support(internal) IS 'planner support of the row probes and the built aggregates'' final functions: loads the module so the planner can use its scans';
