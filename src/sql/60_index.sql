
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

CREATE FUNCTION bloom_index_info(index regclass) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_info(regclass) IS 'geometry, fill, stages and rate of a bloomfilter index (of each partition''s, for a partitioned one)';
CREATE FUNCTION bloom_index_snapshot(index regclass) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_snapshot(regclass) IS 'the bloomfilter index''s bits as a bloomfilter value (at most 1 GB)';
