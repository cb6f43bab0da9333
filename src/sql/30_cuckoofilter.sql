--
-- cuckoofilter: Fan, Andersen, Kaminsky and Mitzenmacher's cuckoo filter.
-- Multiset add/remove, buckets of four bit-packed fingerprints, grows with
-- a new table (wider fingerprints) when full so the false-positive rate
-- stays under its target.
--
CREATE TYPE cuckoofilter;

CREATE FUNCTION cuckoofilter_in(cstring) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoofilter_out(cuckoofilter) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bf_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoofilter_recv(internal) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cuckoofilter_send(cuckoofilter) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE external: fingerprints do not compress, and trying costs every write
-- of a stored filter (pglz made adding 1,000 URLs to a stored 1.4 MB filter
-- 3.7x slower, lz4 2x: bench/storage.sql).  A filter created far larger
-- than it will hold for long compresses well (ALTER TABLE ... ALTER col
-- SET STORAGE EXTENDED, SET COMPRESSION lz4), or belongs in the index.
CREATE TYPE cuckoofilter (
	INPUT = cuckoofilter_in,
	OUTPUT = cuckoofilter_out,
	RECEIVE = cuckoofilter_recv,
	SEND = cuckoofilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON FUNCTION cuckoofilter_in(cstring) IS 'cuckoofilter text input: base64 of its bytes, validated';
COMMENT ON FUNCTION cuckoofilter_out(cuckoofilter) IS 'cuckoofilter text output: base64 of its bytes';
COMMENT ON FUNCTION cuckoofilter_recv(internal) IS 'cuckoofilter binary input, validated';
COMMENT ON FUNCTION cuckoofilter_send(cuckoofilter) IS 'cuckoofilter binary output: its bytes';
COMMENT ON TYPE cuckoofilter IS 'cuckoo filter (multiset with remove, grows when full): false means not in, true means probably in';

CREATE FUNCTION cuckoofilter(bytea) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoofilter_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter(bytea) IS 'cuckoofilter from its bytes, validated';
CREATE FUNCTION bytea(cuckoofilter) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(cuckoofilter) IS 'the bytes of a cuckoofilter';
CREATE CAST (bytea AS cuckoofilter) WITH FUNCTION cuckoofilter(bytea);
CREATE CAST (cuckoofilter AS bytea) WITH FUNCTION bytea(cuckoofilter);

CREATE FUNCTION cuckoo_create(capacity bigint, fpr float8 DEFAULT 0.01)
	RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_create(bigint, float8) IS 'empty cuckoofilter sized for capacity elements at false-positive rate fpr';

CREATE FUNCTION cuckoo_info(f cuckoofilter) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_info(cuckoofilter) IS 'geometry, load and rate bounds of a cuckoofilter';

CREATE FUNCTION cuckoo_keyset_final(bloom_keyset) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_keyset_final(bloom_keyset) IS 'aggregate support: cuckoofilter sized for the distinct hashes collected (about 95% load)';
CREATE FUNCTION cuckoo_keyset_final_sized(bloom_keyset) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_keyset_final_sized(bloom_keyset) IS 'aggregate support: cuckoo_create(capacity, fpr) with the distinct hashes collected added';
-- @each element

-- elements of type @ELEM@
CREATE FUNCTION cuckoo_add(f cuckoofilter, x @ELEM@) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, @ELEM@) IS 'f with one more copy of x';
CREATE FUNCTION cuckoo_add(f cuckoofilter, xs @ELEM@[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, @ELEM@[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs @ELEM@[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, @ELEM@[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x @ELEM@) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, @ELEM@) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, xs @ELEM@[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, @ELEM@[]) IS 'cuckoo_remove of every non-NULL element of xs, in order';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x @ELEM@) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, @ELEM@) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x @ELEM@, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(@ELEM@, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x @ELEM@) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, @ELEM@) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = cuckoofilter, RIGHTARG = @ELEM@, FUNCTION = cuckoo_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (cuckoofilter, @ELEM@) IS 'cuckoofilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = @ELEM@, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (@ELEM@, cuckoofilter) IS 'element is probably in cuckoofilter';

CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, @ELEM@, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE cuckoo_agg(@ELEM@) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(@ELEM@) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), false-positive rate at most 0.01';
CREATE AGGREGATE cuckoo_agg(@ELEM@, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(@ELEM@, float8) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), at rate fpr';
CREATE AGGREGATE cuckoo_agg(@ELEM@, capacity bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final_sized, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(@ELEM@, bigint, float8) IS 'cuckoo_create(capacity, fpr) with each distinct non-NULL input added once';
-- @end

-- add-if-absent: which elements of a batch were new (issue 36)
-- @each element
CREATE FUNCTION cuckoo_test_and_add(f cuckoofilter, xs @ELEM@[], OUT filter cuckoofilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'cuckoo_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_test_and_add(cuckoofilter, @ELEM@[]) IS 'f with each element of xs added that it does not probably hold, and for each whether it was so added: CF.INSERTNX';
-- @end
