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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_final(bloom_keyset) IS 'aggregate support: countingbloom sized for the distinct hashes collected, each added once';
CREATE FUNCTION counting_bloom_keyset_sized_final(bloom_keyset) RETURNS countingbloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_sized_final(bloom_keyset) IS 'aggregate support: countingbloom of the asked capacity with the distinct hashes collected, each added once';

-- elements of type text
CREATE FUNCTION counting_bloom_add(f countingbloom, x text) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, text) IS 'f with x in once more (error 54000 at capacity)';
CREATE FUNCTION counting_bloom_add(f countingbloom, xs text[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, text[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, text[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x text) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, text) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs text[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, text[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, text) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x text, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(text, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x text) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, text) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = countingbloom, RIGHTARG = text, FUNCTION = counting_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (countingbloom, text) IS 'countingbloom probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = text, RIGHTARG = countingbloom, FUNCTION = counting_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (text, countingbloom) IS 'element is probably in countingbloom';

CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, text) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, text) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, text, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, text, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, text, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, text, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE counting_bloom_agg(text) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(text) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, false-positive rate 0.01';
CREATE AGGREGATE counting_bloom_agg(text, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(text, float8) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, at rate fpr';
CREATE AGGREGATE counting_bloom_agg(text, capacity bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_sized_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(text, bigint, float8) IS 'counting_bloom_create(capacity, fpr) with each distinct non-NULL input added once (error 54000 if more than capacity)';

-- elements of type bytea
CREATE FUNCTION counting_bloom_add(f countingbloom, x bytea) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bytea) IS 'f with x in once more (error 54000 at capacity)';
CREATE FUNCTION counting_bloom_add(f countingbloom, xs bytea[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bytea[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bytea[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x bytea) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bytea) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs bytea[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bytea[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bytea) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x bytea, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(bytea, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x bytea) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bytea) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = countingbloom, RIGHTARG = bytea, FUNCTION = counting_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (countingbloom, bytea) IS 'countingbloom probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bytea, RIGHTARG = countingbloom, FUNCTION = counting_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bytea, countingbloom) IS 'element is probably in countingbloom';

CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bytea, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE counting_bloom_agg(bytea) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bytea) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, false-positive rate 0.01';
CREATE AGGREGATE counting_bloom_agg(bytea, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bytea, float8) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, at rate fpr';
CREATE AGGREGATE counting_bloom_agg(bytea, capacity bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_sized_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bytea, bigint, float8) IS 'counting_bloom_create(capacity, fpr) with each distinct non-NULL input added once (error 54000 if more than capacity)';

-- elements of type bigint
CREATE FUNCTION counting_bloom_add(f countingbloom, x bigint) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bigint) IS 'f with x in once more (error 54000 at capacity)';
CREATE FUNCTION counting_bloom_add(f countingbloom, xs bigint[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bigint[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bigint[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x bigint) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bigint) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs bigint[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bigint[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bigint) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x bigint, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(bigint, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x bigint) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bigint) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = countingbloom, RIGHTARG = bigint, FUNCTION = counting_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (countingbloom, bigint) IS 'countingbloom probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bigint, RIGHTARG = countingbloom, FUNCTION = counting_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bigint, countingbloom) IS 'element is probably in countingbloom';

CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, bigint, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE counting_bloom_agg(bigint) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bigint) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, false-positive rate 0.01';
CREATE AGGREGATE counting_bloom_agg(bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bigint, float8) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, at rate fpr';
CREATE AGGREGATE counting_bloom_agg(bigint, capacity bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_sized_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bigint, bigint, float8) IS 'counting_bloom_create(capacity, fpr) with each distinct non-NULL input added once (error 54000 if more than capacity)';

-- elements of type uuid
CREATE FUNCTION counting_bloom_add(f countingbloom, x uuid) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, uuid) IS 'f with x in once more (error 54000 at capacity)';
CREATE FUNCTION counting_bloom_add(f countingbloom, xs uuid[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, uuid[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, uuid[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x uuid) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, uuid) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs uuid[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, uuid[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, uuid) IS 'false: x is not in (a NULL f contains nothing); true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x uuid, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(uuid, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x uuid) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, uuid) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more; 0 for a NULL f)';
CREATE OPERATOR @> (
	LEFTARG = countingbloom, RIGHTARG = uuid, FUNCTION = counting_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (countingbloom, uuid) IS 'countingbloom probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = uuid, RIGHTARG = countingbloom, FUNCTION = counting_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (uuid, countingbloom) IS 'element is probably in countingbloom';

CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'counting_bloom_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_keyset_trans(bloom_keyset, uuid, bigint, float8) IS 'aggregate support: collect the hash of x';

CREATE AGGREGATE counting_bloom_agg(uuid) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(uuid) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, false-positive rate 0.01';
CREATE AGGREGATE counting_bloom_agg(uuid, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(uuid, float8) IS 'countingbloom of the distinct non-NULL inputs (each in once), capacity their number, at rate fpr';
CREATE AGGREGATE counting_bloom_agg(uuid, capacity bigint, fpr float8) (
	SFUNC = counting_bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = counting_bloom_keyset_sized_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(uuid, bigint, float8) IS 'counting_bloom_create(capacity, fpr) with each distinct non-NULL input added once (error 54000 if more than capacity)';
