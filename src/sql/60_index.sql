
-- ---- the bloomfilter index access method ----

-- @each element
CREATE FUNCTION bloom_hash(x @ELEM@, seed bigint DEFAULT 0) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash_@HASH@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(@ELEM@, bigint) IS 'the 64-bit hash every filter type gives x (XXH3-64 of @HASHED@ with seed)';
-- @end

CREATE FUNCTION bloomfilter_index_handler(internal) RETURNS index_am_handler
	AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION bloomfilter_index_handler(internal) IS 'handler of the bloomfilter index access method';
CREATE ACCESS METHOD bloomfilter TYPE INDEX HANDLER bloomfilter_index_handler;
COMMENT ON ACCESS METHOD bloomfilter IS 'a Bloom filter of a column kept in pages: maintained by the table, probed with bloom_index_contains';

-- @each element
CREATE OPERATOR CLASS bloomfilter_@NAME@_ops DEFAULT FOR TYPE @ELEM@ USING bloomfilter AS
	FUNCTION 1 bloom_hash(@ELEM@, bigint);
-- @end
-- an array column: an entry for each non-NULL item
-- @each element
CREATE OPERATOR CLASS bloomfilter_@NAME@_array_ops DEFAULT FOR TYPE @ELEM@[] USING bloomfilter AS
	FUNCTION 1 (@ELEM@[], @ELEM@[]) bloom_hash(@ELEM@, bigint);
-- @end
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
-- @each element
CREATE FUNCTION bloom_index_contains(index regclass, x @ELEM@) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_index_contains_@SYM@' LANGUAGE C VOLATILE PARALLEL RESTRICTED
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_index_contains(regclass, @ELEM@) IS 'false if x is surely not in the bloomfilter index; true if it probably is';
-- @end
-- @each element
CREATE FUNCTION bloom_index_contains(index regclass, xs @ELEM@[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_index_contains_array' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_contains(regclass, @ELEM@[]) IS 'bloom_index_contains(index, x) for each item x of xs';
-- @end

-- @each element
CREATE FUNCTION bloom_index_absent(index regclass, xs @ELEM@[]) RETURNS @ELEM@[]
	AS 'MODULE_PATHNAME', 'bloom_index_absent_@SYM@' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_absent(regclass, @ELEM@[]) IS 'the items of xs the bloomfilter index surely does not contain, each once, in order (insert them to add them)';
-- @end

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
