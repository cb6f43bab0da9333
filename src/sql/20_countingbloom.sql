--
-- countingbloom: counting Bloom filter, 4-bit saturating sticky counters,
-- blocked layout, fixed size; add and remove are multiset operations
--
CREATE TYPE countingbloom;

CREATE FUNCTION countingbloom_in(cstring) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION countingbloom_out(countingbloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bf_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION countingbloom_recv(internal) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION countingbloom_send(countingbloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE countingbloom (
	INPUT = countingbloom_in,
	OUTPUT = countingbloom_out,
	RECEIVE = countingbloom_recv,
	SEND = countingbloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON FUNCTION countingbloom_in(cstring) IS 'countingbloom text input: base64 of its bytes, validated';
COMMENT ON FUNCTION countingbloom_out(countingbloom) IS 'countingbloom text output: base64 of its bytes';
COMMENT ON FUNCTION countingbloom_recv(internal) IS 'countingbloom binary input, validated';
COMMENT ON FUNCTION countingbloom_send(countingbloom) IS 'countingbloom binary output: its bytes';
COMMENT ON TYPE countingbloom IS 'counting Bloom filter (4-bit saturating counters, blocked layout, fixed size): supports remove; false means not in, true means probably in';

CREATE FUNCTION countingbloom(bytea) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'countingbloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom(bytea) IS 'countingbloom from its bytes, validated';
CREATE FUNCTION bytea(countingbloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(countingbloom) IS 'the bytes of a countingbloom';
CREATE CAST (bytea AS countingbloom) WITH FUNCTION countingbloom(bytea);
CREATE CAST (countingbloom AS bytea) WITH FUNCTION bytea(countingbloom);

CREATE FUNCTION counting_bloom_create(capacity bigint, fpr float8 DEFAULT 0.01)
	RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_create(bigint, float8) IS 'empty countingbloom for at most capacity elements in at once, at false-positive rate fpr';

CREATE FUNCTION counting_bloom_union(f countingbloom, g countingbloom) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_union(countingbloom, countingbloom) IS 'counters added, saturating: holds the elements of both (same geometry required)';
CREATE FUNCTION counting_bloom_info(f countingbloom) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_info(countingbloom) IS 'geometry, count, fill, saturation and rate estimates of a countingbloom';

-- aggregate support (the state is the shared bloom_keyset)
CREATE FUNCTION counting_bloom_keyset_final(bloom_keyset) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_keyset_final(bloom_keyset) IS 'aggregate support: countingbloom sized for the distinct hashes collected, each added once';
CREATE FUNCTION counting_bloom_keyset_sized_final(bloom_keyset) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_keyset_sized_final(bloom_keyset) IS 'aggregate support: countingbloom of the asked capacity with the distinct hashes collected, each added once';
-- @each element

-- elements of type @ELEM@
CREATE FUNCTION counting_bloom_add(f countingbloom, x @ELEM@) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, @ELEM@) IS 'f with x in once more (error 54000 at capacity)';
CREATE FUNCTION counting_bloom_add(f countingbloom, xs @ELEM@[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, @ELEM@[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs @ELEM@[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, @ELEM@[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x @ELEM@) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, @ELEM@) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs @ELEM@[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, @ELEM@[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_test_and_add(f countingbloom, xs @ELEM@[], OUT filter countingbloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'counting_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_test_and_add(countingbloom, @ELEM@[]) IS 'f with each element of xs added once that it does not probably hold, and for each whether it was so added';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x @ELEM@) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, @ELEM@) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x @ELEM@, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(@ELEM@, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x @ELEM@) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, @ELEM@) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = countingbloom, RIGHTARG = @ELEM@, FUNCTION = counting_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (countingbloom, @ELEM@) IS 'countingbloom probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = @ELEM@, RIGHTARG = countingbloom, FUNCTION = counting_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (@ELEM@, countingbloom) IS 'element is probably in countingbloom';

CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, @ELEM@, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE counting_bloom_agg(@ELEM@) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(@ELEM@) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, false-positive rate 0.01';
CREATE AGGREGATE counting_bloom_agg(@ELEM@, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(@ELEM@, float8) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, at rate fpr';
CREATE AGGREGATE counting_bloom_agg(@ELEM@, capacity bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_sized_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(@ELEM@, bigint, float8) IS 'counting_bloom_create(capacity, fpr) with each distinct non-NULL input added once (error 54000 if more than capacity)';
-- @end
