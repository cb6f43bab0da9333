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

CREATE TYPE cuckoofilter (
	INPUT = cuckoofilter_in,
	OUTPUT = cuckoofilter_out,
	RECEIVE = cuckoofilter_recv,
	SEND = cuckoofilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_final(bloom_keyset) IS 'aggregate support: cuckoofilter sized for the distinct hashes collected (about 95% load)';
CREATE FUNCTION cuckoo_keyset_final_sized(bloom_keyset) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_final_sized(bloom_keyset) IS 'aggregate support: cuckoo_create(capacity, fpr) with the distinct hashes collected added';

-- elements of type text
CREATE FUNCTION cuckoo_add(f cuckoofilter, x text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, text) IS 'f with one more copy of x';
CREATE FUNCTION cuckoo_add(f cuckoofilter, xs text[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, text[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, text[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, text) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, text) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x text, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(text, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x text) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, text) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = cuckoofilter, RIGHTARG = text, FUNCTION = cuckoo_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (cuckoofilter, text) IS 'cuckoofilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = text, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (text, cuckoofilter) IS 'element is probably in cuckoofilter';

CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, text) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, text) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, text, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, text, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, text, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, text, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE cuckoo_agg(text) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), false-positive rate at most 0.01';
CREATE AGGREGATE cuckoo_agg(text, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text, float8) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), at rate fpr';
CREATE AGGREGATE cuckoo_agg(text, capacity bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final_sized, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(text, bigint, float8) IS 'cuckoo_create(capacity, fpr) with each distinct non-NULL input added once';

-- elements of type bytea
CREATE FUNCTION cuckoo_add(f cuckoofilter, x bytea) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bytea) IS 'f with one more copy of x';
CREATE FUNCTION cuckoo_add(f cuckoofilter, xs bytea[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bytea[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bytea[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x bytea) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bytea) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bytea) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x bytea, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(bytea, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x bytea) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bytea) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = cuckoofilter, RIGHTARG = bytea, FUNCTION = cuckoo_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (cuckoofilter, bytea) IS 'cuckoofilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bytea, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bytea, cuckoofilter) IS 'element is probably in cuckoofilter';

CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bytea, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE cuckoo_agg(bytea) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), false-positive rate at most 0.01';
CREATE AGGREGATE cuckoo_agg(bytea, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea, float8) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), at rate fpr';
CREATE AGGREGATE cuckoo_agg(bytea, capacity bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final_sized, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bytea, bigint, float8) IS 'cuckoo_create(capacity, fpr) with each distinct non-NULL input added once';

-- elements of type bigint
CREATE FUNCTION cuckoo_add(f cuckoofilter, x bigint) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bigint) IS 'f with one more copy of x';
CREATE FUNCTION cuckoo_add(f cuckoofilter, xs bigint[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bigint[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bigint[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x bigint) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bigint) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bigint) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x bigint, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(bigint, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x bigint) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bigint) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = cuckoofilter, RIGHTARG = bigint, FUNCTION = cuckoo_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (cuckoofilter, bigint) IS 'cuckoofilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bigint, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bigint, cuckoofilter) IS 'element is probably in cuckoofilter';

CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, bigint, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE cuckoo_agg(bigint) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), false-positive rate at most 0.01';
CREATE AGGREGATE cuckoo_agg(bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint, float8) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), at rate fpr';
CREATE AGGREGATE cuckoo_agg(bigint, capacity bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final_sized, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(bigint, bigint, float8) IS 'cuckoo_create(capacity, fpr) with each distinct non-NULL input added once';

-- elements of type uuid
CREATE FUNCTION cuckoo_add(f cuckoofilter, x uuid) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, uuid) IS 'f with one more copy of x';
CREATE FUNCTION cuckoo_add(f cuckoofilter, xs uuid[]) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, uuid[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, uuid[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x uuid) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, uuid) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, uuid) IS 'false: x is not in f (a NULL f contains nothing); true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x uuid, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(uuid, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x uuid) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, uuid) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f (0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = cuckoofilter, RIGHTARG = uuid, FUNCTION = cuckoo_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (cuckoofilter, uuid) IS 'cuckoofilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = uuid, RIGHTARG = cuckoofilter, FUNCTION = cuckoo_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (uuid, cuckoofilter) IS 'element is probably in cuckoofilter';

CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'cuckoo_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_keyset_trans(bloom_keyset, uuid, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE cuckoo_agg(uuid) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), false-positive rate at most 0.01';
CREATE AGGREGATE cuckoo_agg(uuid, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid, float8) IS 'cuckoofilter of the distinct non-NULL inputs, sized for their number (about 95% load), at rate fpr';
CREATE AGGREGATE cuckoo_agg(uuid, capacity bigint, fpr float8) (
	SFUNC = cuckoo_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = cuckoo_keyset_final_sized, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cuckoo_agg(uuid, bigint, float8) IS 'cuckoo_create(capacity, fpr) with each distinct non-NULL input added once';

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
