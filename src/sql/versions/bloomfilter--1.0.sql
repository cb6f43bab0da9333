-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

--
-- The planner support function of the row probes (bloom_contains and kin).
-- It answers no request: the planner's call loads the module, whose probe
-- scan (bloomfilter.enable_probe_scan) the planner can then consider even
-- in a session's first query.
--
CREATE FUNCTION bloomfilter_probe_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_probe_support(internal) IS 'planner support of the row probes: loads the module so the planner can use its probe scan';

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
COMMENT ON TYPE bloom_keyset IS 'aggregate state of self-sizing filter aggregates: the distinct element hashes seen so far';

CREATE FUNCTION bloom_keyset_combine(bloom_keyset, bloom_keyset) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_combine(bloom_keyset, bloom_keyset) IS 'aggregate support: merge two partial keyset states';
--
-- bloomfilter
--
CREATE TYPE bloomfilter;

CREATE FUNCTION bloomfilter_in(cstring) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_out(bloomfilter) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bf_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_recv(internal) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_send(bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloomfilter (
	INPUT = bloomfilter_in,
	OUTPUT = bloomfilter_out,
	RECEIVE = bloomfilter_recv,
	SEND = bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE bloomfilter IS 'Bloom filter (blocked or standard layout, scalable by default): false means never added, true means probably added';

CREATE FUNCTION bloomfilter(bytea) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter(bytea) IS 'bloomfilter from its bytes, validated';
CREATE FUNCTION bytea(bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(bloomfilter) IS 'the bytes of a bloomfilter';
CREATE CAST (bytea AS bloomfilter) WITH FUNCTION bloomfilter(bytea);
CREATE CAST (bloomfilter AS bytea) WITH FUNCTION bytea(bloomfilter);

CREATE FUNCTION bloom_create(capacity bigint, fpr float8 DEFAULT 0.01,
							 layout text DEFAULT 'blocked', scalable boolean DEFAULT true)
	RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_create(bigint, float8, text, boolean) IS 'empty bloomfilter sized for capacity distinct elements at false-positive rate fpr';

CREATE FUNCTION bloom_add(f bloomfilter, x text) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, text) IS 'f with x added';
CREATE FUNCTION bloom_add(f bloomfilter, xs text[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, text[]) IS 'f with every non-NULL element of xs added';
CREATE FUNCTION bloom_contains(f bloomfilter, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION bloom_contains(bloomfilter, text[]) IS 'bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
-- COST 10: a probe hashes the element and touches one cache line of a
-- filter that is often bigger than the CPU caches: several times a simple
-- comparison (COST 1), so the planner evaluates cheap quals first.
CREATE FUNCTION bloom_contains(f bloomfilter, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contains(bloomfilter, text) IS 'false: x was never added; true: x was probably added';
CREATE FUNCTION bloom_contained(x text, f bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contained(text, bloomfilter) IS 'same as bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = bloomfilter, RIGHTARG = text, FUNCTION = bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (bloomfilter, text) IS 'bloomfilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = text, RIGHTARG = bloomfilter, FUNCTION = bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (text, bloomfilter) IS 'element is probably in bloomfilter';

CREATE FUNCTION bloom_add(f bloomfilter, x bytea) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, bytea) IS 'f with x added';
CREATE FUNCTION bloom_add(f bloomfilter, xs bytea[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, bytea[]) IS 'f with every non-NULL element of xs added';
CREATE FUNCTION bloom_contains(f bloomfilter, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION bloom_contains(bloomfilter, bytea[]) IS 'bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION bloom_contains(f bloomfilter, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contains(bloomfilter, bytea) IS 'false: x was never added; true: x was probably added';
CREATE FUNCTION bloom_contained(x bytea, f bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contained(bytea, bloomfilter) IS 'same as bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = bloomfilter, RIGHTARG = bytea, FUNCTION = bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (bloomfilter, bytea) IS 'bloomfilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bytea, RIGHTARG = bloomfilter, FUNCTION = bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bytea, bloomfilter) IS 'element is probably in bloomfilter';

CREATE FUNCTION bloom_add(f bloomfilter, x bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, bigint) IS 'f with x added';
CREATE FUNCTION bloom_add(f bloomfilter, xs bigint[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, bigint[]) IS 'f with every non-NULL element of xs added';
CREATE FUNCTION bloom_contains(f bloomfilter, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION bloom_contains(bloomfilter, bigint[]) IS 'bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION bloom_contains(f bloomfilter, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contains(bloomfilter, bigint) IS 'false: x was never added; true: x was probably added';
CREATE FUNCTION bloom_contained(x bigint, f bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contained(bigint, bloomfilter) IS 'same as bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = bloomfilter, RIGHTARG = bigint, FUNCTION = bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (bloomfilter, bigint) IS 'bloomfilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = bigint, RIGHTARG = bloomfilter, FUNCTION = bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bigint, bloomfilter) IS 'element is probably in bloomfilter';

CREATE FUNCTION bloom_add(f bloomfilter, x uuid) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, uuid) IS 'f with x added';
CREATE FUNCTION bloom_add(f bloomfilter, xs uuid[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, uuid[]) IS 'f with every non-NULL element of xs added';
CREATE FUNCTION bloom_contains(f bloomfilter, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION bloom_contains(bloomfilter, uuid[]) IS 'bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION bloom_contains(f bloomfilter, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contains(bloomfilter, uuid) IS 'false: x was never added; true: x was probably added';
CREATE FUNCTION bloom_contained(x uuid, f bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contained(uuid, bloomfilter) IS 'same as bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = bloomfilter, RIGHTARG = uuid, FUNCTION = bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (bloomfilter, uuid) IS 'bloomfilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = uuid, RIGHTARG = bloomfilter, FUNCTION = bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (uuid, bloomfilter) IS 'element is probably in bloomfilter';

CREATE FUNCTION bloom_union(f bloomfilter, g bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union(bloomfilter, bloomfilter) IS 'filter that contains what either contains (same geometry required)';
CREATE OPERATOR | (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloom_union, COMMUTATOR = |);
COMMENT ON OPERATOR | (bloomfilter, bloomfilter) IS 'union of two bloomfilters';
CREATE FUNCTION bloom_intersection(f bloomfilter, g bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection(bloomfilter, bloomfilter) IS 'filter that contains at least what both contain (same geometry, one stage)';
CREATE OPERATOR & (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloom_intersection, COMMUTATOR = &);
COMMENT ON OPERATOR & (bloomfilter, bloomfilter) IS 'intersection of two bloomfilters';

CREATE FUNCTION bloom_cardinality(f bloomfilter) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_cardinality(bloomfilter) IS 'estimated number of distinct elements added, from the fill';
CREATE FUNCTION bloom_fpr(f bloomfilter) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr(bloomfilter) IS 'estimated false-positive rate now, from the fill';
CREATE FUNCTION bloom_info(f bloomfilter) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloomfilter) IS 'geometry, fill and rate estimates of a bloomfilter';

-- aggregate support
CREATE FUNCTION bloom_union_trans(bloomfilter, bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_trans(bloomfilter, bloomfilter) IS 'aggregate support: union in place (transition of bloom_union_agg, combine of bloom_agg)';
CREATE FUNCTION bloom_intersection_trans(bloomfilter, bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_trans(bloomfilter, bloomfilter) IS 'aggregate support: intersection in place';
CREATE FUNCTION bloom_agg_final(bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_final(bloomfilter) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION bloom_combine_final(bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_combine_final(bloomfilter) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION bloom_keyset_final(bloom_keyset) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_final(bloom_keyset) IS 'aggregate support: bloomfilter sized for the distinct hashes collected';

CREATE FUNCTION bloom_keyset_trans(bloom_keyset, text) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, text) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, text, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, text, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_agg_trans(bloomfilter, text, bigint, float8) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloomfilter, text, bigint, float8) IS 'aggregate support: add x in place';

CREATE AGGREGATE bloom_agg(text) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, false-positive rate at most 0.01';
CREATE AGGREGATE bloom_agg(text, fpr float8) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text, float8) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, at rate fpr';
CREATE AGGREGATE bloom_agg(text, capacity bigint, fpr float8) (
	SFUNC = bloom_agg_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_agg_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text, bigint, float8) IS 'bloom_create(capacity, fpr) with every non-NULL input added';

CREATE FUNCTION bloom_keyset_trans(bloom_keyset, bytea) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, bytea) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, bytea, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, bytea, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_agg_trans(bloomfilter, bytea, bigint, float8) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloomfilter, bytea, bigint, float8) IS 'aggregate support: add x in place';

CREATE AGGREGATE bloom_agg(bytea) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, false-positive rate at most 0.01';
CREATE AGGREGATE bloom_agg(bytea, fpr float8) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea, float8) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, at rate fpr';
CREATE AGGREGATE bloom_agg(bytea, capacity bigint, fpr float8) (
	SFUNC = bloom_agg_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_agg_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea, bigint, float8) IS 'bloom_create(capacity, fpr) with every non-NULL input added';

CREATE FUNCTION bloom_keyset_trans(bloom_keyset, bigint) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, bigint) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, bigint, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, bigint, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_agg_trans(bloomfilter, bigint, bigint, float8) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloomfilter, bigint, bigint, float8) IS 'aggregate support: add x in place';

CREATE AGGREGATE bloom_agg(bigint) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, false-positive rate at most 0.01';
CREATE AGGREGATE bloom_agg(bigint, fpr float8) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint, float8) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, at rate fpr';
CREATE AGGREGATE bloom_agg(bigint, capacity bigint, fpr float8) (
	SFUNC = bloom_agg_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_agg_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint, bigint, float8) IS 'bloom_create(capacity, fpr) with every non-NULL input added';

CREATE FUNCTION bloom_keyset_trans(bloom_keyset, uuid) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, uuid) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, uuid, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, uuid, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_agg_trans(bloomfilter, uuid, bigint, float8) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloomfilter, uuid, bigint, float8) IS 'aggregate support: add x in place';

CREATE AGGREGATE bloom_agg(uuid) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, false-positive rate at most 0.01';
CREATE AGGREGATE bloom_agg(uuid, fpr float8) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid, float8) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, at rate fpr';
CREATE AGGREGATE bloom_agg(uuid, capacity bigint, fpr float8) (
	SFUNC = bloom_agg_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_agg_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid, bigint, float8) IS 'bloom_create(capacity, fpr) with every non-NULL input added';

CREATE AGGREGATE bloom_union_agg(bloomfilter) (
	SFUNC = bloom_union_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_combine_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_union_agg(bloomfilter) IS 'union of the non-NULL filters';
CREATE AGGREGATE bloom_intersection_agg(bloomfilter) (
	SFUNC = bloom_intersection_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_combine_final, COMBINEFUNC = bloom_intersection_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_intersection_agg(bloomfilter) IS 'intersection of the non-NULL filters';
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
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, text[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, text[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x text) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, text) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs text[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, text[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, text) IS 'false: x is not in; true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x text, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(text, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x text) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, text) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more)';
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
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bytea[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bytea[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x bytea) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bytea) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs bytea[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bytea[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bytea) IS 'false: x is not in; true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x bytea, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(bytea, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x bytea) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bytea) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more)';
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
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, bigint[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bigint[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x bigint) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bigint) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs bigint[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, bigint[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, bigint) IS 'false: x is not in; true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x bigint, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(bigint, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x bigint) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, bigint) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more)';
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
	AS 'MODULE_PATHNAME', 'counting_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_add(countingbloom, uuid[]) IS 'f with every non-NULL element of xs in once more';
CREATE FUNCTION counting_bloom_contains(f countingbloom, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, uuid[]) IS 'counting_bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION counting_bloom_remove(f countingbloom, x uuid) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, uuid) IS 'f with x in once less; unchanged if x is reported absent';
CREATE FUNCTION counting_bloom_remove(f countingbloom, xs uuid[]) RETURNS countingbloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_remove(countingbloom, uuid[]) IS 'counting_bloom_remove of every non-NULL element of xs, in order';
CREATE FUNCTION counting_bloom_contains(f countingbloom, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contains(countingbloom, uuid) IS 'false: x is not in; true: x is probably in';
CREATE FUNCTION counting_bloom_contained(x uuid, f countingbloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION counting_bloom_contained(uuid, countingbloom) IS 'same as counting_bloom_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION counting_bloom_count(f countingbloom, x uuid) RETURNS int
	AS 'MODULE_PATHNAME', 'counting_bloom_count_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_count(countingbloom, uuid) IS 'upper bound of how many times x is in (0 .. 15; 15 means 15 or more)';
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
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, text[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs text[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, text[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, text) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, text) IS 'false: x is not in f; true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x text, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(text, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x text) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, text) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f';
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
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bytea[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs bytea[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bytea[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x bytea) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bytea) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bytea) IS 'false: x is not in f; true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x bytea, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(bytea, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x bytea) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bytea) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f';
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
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, bigint[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs bigint[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bigint[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x bigint) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, bigint) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, bigint) IS 'false: x is not in f; true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x bigint, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(bigint, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x bigint) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, bigint) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f';
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
	AS 'MODULE_PATHNAME', 'cuckoo_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_add(cuckoofilter, uuid[]) IS 'f with one more copy of every non-NULL element of xs';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, xs uuid[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, uuid[]) IS 'cuckoo_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION cuckoo_remove(f cuckoofilter, x uuid) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_remove_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, uuid) IS 'f with one copy of x taken out; unchanged if f reports x absent (remove only what was added)';
CREATE FUNCTION cuckoo_contains(f cuckoofilter, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, uuid) IS 'false: x is not in f; true: x is probably in f';
CREATE FUNCTION cuckoo_contained(x uuid, f cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contained_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION cuckoo_contained(uuid, cuckoofilter) IS 'same as cuckoo_contains(f, x), element first (the <@ operator)';
CREATE FUNCTION cuckoo_count(f cuckoofilter, x uuid) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter, uuid) IS 'copies of x''s fingerprint in f: at least the number of copies of x in f';
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
--
-- stablebloom: Deng and Rafiei's stable Bloom filter, for endless streams
-- where only recent duplicates matter.  Each insert decrements P random
-- cells, then sets the element's K cells to Max: old elements decay out, so
-- the false-positive rate converges to a bound instead of growing, at the
-- price of false negatives for elements last seen long ago.
--
CREATE TYPE stablebloom;

CREATE FUNCTION stablebloom_in(cstring) RETURNS stablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stablebloom_out(stablebloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bf_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stablebloom_recv(internal) RETURNS stablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stablebloom_send(stablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE stablebloom (
	INPUT = stablebloom_in,
	OUTPUT = stablebloom_out,
	RECEIVE = stablebloom_recv,
	SEND = stablebloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON FUNCTION stablebloom_in(cstring) IS 'stablebloom from its text form (base64 of its bytes), validated';
COMMENT ON FUNCTION stablebloom_out(stablebloom) IS 'text form of a stablebloom: base64 of its bytes';
COMMENT ON FUNCTION stablebloom_recv(internal) IS 'stablebloom from its binary form, validated';
COMMENT ON FUNCTION stablebloom_send(stablebloom) IS 'binary form of a stablebloom: its bytes';
COMMENT ON TYPE stablebloom IS 'stable Bloom filter (Deng and Rafiei 2006): duplicate detection over an endless stream; forgets old elements, false-positive rate bounded';

CREATE FUNCTION stablebloom(bytea) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stablebloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stablebloom(bytea) IS 'stablebloom from its bytes, validated';
CREATE FUNCTION bytea(stablebloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bf_value_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(stablebloom) IS 'the bytes of a stablebloom';
CREATE CAST (bytea AS stablebloom) WITH FUNCTION stablebloom(bytea);
CREATE CAST (stablebloom AS bytea) WITH FUNCTION bytea(stablebloom);

CREATE FUNCTION stable_bloom_create(cells bigint, fpr float8 DEFAULT 0.01, cell_bits int DEFAULT 3)
	RETURNS stablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_create(bigint, float8, int) IS 'empty stablebloom of cells cells of cell_bits bits, hashes and decrement chosen so the stable-point false-positive rate is at most fpr';

CREATE FUNCTION stable_bloom_info(f stablebloom) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_info(stablebloom) IS 'parameters, fill, stable-point false-positive bound and the false-negative rate after N inserts (fnr_after) of a stablebloom';

CREATE FUNCTION stable_bloom_fnr(f stablebloom, age bigint) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_fnr(stablebloom, bigint) IS 'expected false-negative rate for an element last inserted age inserts ago (other elements since)';

-- aggregate support shared by every element type
CREATE FUNCTION stable_bloom_agg_final(stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_final(stablebloom) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION stable_bloom_seen_final(stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_final(stablebloom) IS 'aggregate support: whether the latest row''s element was probably seen before it (read only)';

--
-- Neither aggregate has a COMBINEFUNC: a stable Bloom filter depends on the
-- order of its stream, and the filter of two halves of a stream cannot be
-- computed from the halves' filters (see src/stablebloom_type.c).
--

-- elements of type text
CREATE FUNCTION stable_bloom_add(f stablebloom, x text) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, text) IS 'f after inserting x (P random decrements, then x''s cells set to Max)';
CREATE FUNCTION stable_bloom_add(f stablebloom, xs text[]) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, text[]) IS 'f after inserting every non-NULL element of xs, in array order';
CREATE FUNCTION stable_bloom_contains(f stablebloom, x text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, text) IS 'true: x was probably inserted recently; false: not recently (or forgotten)';
CREATE FUNCTION stable_bloom_contained(x text, f stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contained(text, stablebloom) IS 'same as stable_bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = stablebloom, RIGHTARG = text, FUNCTION = stable_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (stablebloom, text) IS 'stablebloom probably saw element recently';
CREATE OPERATOR <@ (
	LEFTARG = text, RIGHTARG = stablebloom, FUNCTION = stable_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (text, stablebloom) IS 'element was probably seen recently by stablebloom';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, text) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, text) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, text, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, text, bigint, float8) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, text, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, text, bigint, float8, int) IS 'aggregate support: insert x in place';
CREATE AGGREGATE stable_bloom_agg(text) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(text) IS 'stablebloom after inserting every non-NULL input, in the order given by ORDER BY, 1M cells of 3 bits at fpr 0.01';
CREATE AGGREGATE stable_bloom_agg(text, cells bigint, fpr float8) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(text, bigint, float8) IS 'stable_bloom_create(cells, fpr) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE AGGREGATE stable_bloom_agg(text, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(text, bigint, float8, int) IS 'stable_bloom_create(cells, fpr, cell_bits) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, text) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, text) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, text, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, text, bigint, float8) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, text, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, text, bigint, float8, int) IS 'aggregate support: probe x, then insert it, in place';
CREATE AGGREGATE stable_bloom_seen(text) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(text) IS 'window use, stable_bloom_seen(x) OVER (ORDER BY ts): whether the stream had probably seen x recently before this row (1M cells of 3 bits, fpr 0.01)';
CREATE AGGREGATE stable_bloom_seen(text, cells bigint, fpr float8) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(text, bigint, float8) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr) filter';
CREATE AGGREGATE stable_bloom_seen(text, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(text, bigint, float8, int) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr, cell_bits) filter';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, text, stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, text, stablebloom) IS 'aggregate support: probe x, then insert it, in place (state starts as a copy of start)';
CREATE AGGREGATE stable_bloom_seen(text, start stablebloom) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(text, stablebloom) IS 'stable_bloom_seen(x) continuing the stream of filter start (e.g. a stored filter): answers for this batch, start is not changed';

-- elements of type bytea
CREATE FUNCTION stable_bloom_add(f stablebloom, x bytea) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, bytea) IS 'f after inserting x (P random decrements, then x''s cells set to Max)';
CREATE FUNCTION stable_bloom_add(f stablebloom, xs bytea[]) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, bytea[]) IS 'f after inserting every non-NULL element of xs, in array order';
CREATE FUNCTION stable_bloom_contains(f stablebloom, x bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, bytea) IS 'true: x was probably inserted recently; false: not recently (or forgotten)';
CREATE FUNCTION stable_bloom_contained(x bytea, f stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contained(bytea, stablebloom) IS 'same as stable_bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = stablebloom, RIGHTARG = bytea, FUNCTION = stable_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (stablebloom, bytea) IS 'stablebloom probably saw element recently';
CREATE OPERATOR <@ (
	LEFTARG = bytea, RIGHTARG = stablebloom, FUNCTION = stable_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bytea, stablebloom) IS 'element was probably seen recently by stablebloom';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bytea) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bytea) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bytea, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bytea, bigint, float8) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bytea, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bytea, bigint, float8, int) IS 'aggregate support: insert x in place';
CREATE AGGREGATE stable_bloom_agg(bytea) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bytea) IS 'stablebloom after inserting every non-NULL input, in the order given by ORDER BY, 1M cells of 3 bits at fpr 0.01';
CREATE AGGREGATE stable_bloom_agg(bytea, cells bigint, fpr float8) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bytea, bigint, float8) IS 'stable_bloom_create(cells, fpr) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE AGGREGATE stable_bloom_agg(bytea, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bytea, bigint, float8, int) IS 'stable_bloom_create(cells, fpr, cell_bits) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bytea) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bytea) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bytea, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bytea, bigint, float8) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bytea, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bytea, bigint, float8, int) IS 'aggregate support: probe x, then insert it, in place';
CREATE AGGREGATE stable_bloom_seen(bytea) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bytea) IS 'window use, stable_bloom_seen(x) OVER (ORDER BY ts): whether the stream had probably seen x recently before this row (1M cells of 3 bits, fpr 0.01)';
CREATE AGGREGATE stable_bloom_seen(bytea, cells bigint, fpr float8) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bytea, bigint, float8) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr) filter';
CREATE AGGREGATE stable_bloom_seen(bytea, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bytea, bigint, float8, int) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr, cell_bits) filter';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bytea, stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bytea, stablebloom) IS 'aggregate support: probe x, then insert it, in place (state starts as a copy of start)';
CREATE AGGREGATE stable_bloom_seen(bytea, start stablebloom) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bytea, stablebloom) IS 'stable_bloom_seen(x) continuing the stream of filter start (e.g. a stored filter): answers for this batch, start is not changed';

-- elements of type bigint
CREATE FUNCTION stable_bloom_add(f stablebloom, x bigint) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, bigint) IS 'f after inserting x (P random decrements, then x''s cells set to Max)';
CREATE FUNCTION stable_bloom_add(f stablebloom, xs bigint[]) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, bigint[]) IS 'f after inserting every non-NULL element of xs, in array order';
CREATE FUNCTION stable_bloom_contains(f stablebloom, x bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contains_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, bigint) IS 'true: x was probably inserted recently; false: not recently (or forgotten)';
CREATE FUNCTION stable_bloom_contained(x bigint, f stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contained(bigint, stablebloom) IS 'same as stable_bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = stablebloom, RIGHTARG = bigint, FUNCTION = stable_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (stablebloom, bigint) IS 'stablebloom probably saw element recently';
CREATE OPERATOR <@ (
	LEFTARG = bigint, RIGHTARG = stablebloom, FUNCTION = stable_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (bigint, stablebloom) IS 'element was probably seen recently by stablebloom';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bigint) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bigint) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bigint, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bigint, bigint, float8) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, bigint, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, bigint, bigint, float8, int) IS 'aggregate support: insert x in place';
CREATE AGGREGATE stable_bloom_agg(bigint) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bigint) IS 'stablebloom after inserting every non-NULL input, in the order given by ORDER BY, 1M cells of 3 bits at fpr 0.01';
CREATE AGGREGATE stable_bloom_agg(bigint, cells bigint, fpr float8) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bigint, bigint, float8) IS 'stable_bloom_create(cells, fpr) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE AGGREGATE stable_bloom_agg(bigint, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(bigint, bigint, float8, int) IS 'stable_bloom_create(cells, fpr, cell_bits) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bigint) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bigint) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bigint, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bigint, bigint, float8) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bigint, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bigint, bigint, float8, int) IS 'aggregate support: probe x, then insert it, in place';
CREATE AGGREGATE stable_bloom_seen(bigint) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bigint) IS 'window use, stable_bloom_seen(x) OVER (ORDER BY ts): whether the stream had probably seen x recently before this row (1M cells of 3 bits, fpr 0.01)';
CREATE AGGREGATE stable_bloom_seen(bigint, cells bigint, fpr float8) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bigint, bigint, float8) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr) filter';
CREATE AGGREGATE stable_bloom_seen(bigint, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bigint, bigint, float8, int) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr, cell_bits) filter';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, bigint, stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, bigint, stablebloom) IS 'aggregate support: probe x, then insert it, in place (state starts as a copy of start)';
CREATE AGGREGATE stable_bloom_seen(bigint, start stablebloom) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(bigint, stablebloom) IS 'stable_bloom_seen(x) continuing the stream of filter start (e.g. a stored filter): answers for this batch, start is not changed';

-- elements of type uuid
CREATE FUNCTION stable_bloom_add(f stablebloom, x uuid) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, uuid) IS 'f after inserting x (P random decrements, then x''s cells set to Max)';
CREATE FUNCTION stable_bloom_add(f stablebloom, xs uuid[]) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, uuid[]) IS 'f after inserting every non-NULL element of xs, in array order';
CREATE FUNCTION stable_bloom_contains(f stablebloom, x uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, uuid) IS 'true: x was probably inserted recently; false: not recently (or forgotten)';
CREATE FUNCTION stable_bloom_contained(x uuid, f stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contained_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_contained(uuid, stablebloom) IS 'same as stable_bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = stablebloom, RIGHTARG = uuid, FUNCTION = stable_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (stablebloom, uuid) IS 'stablebloom probably saw element recently';
CREATE OPERATOR <@ (
	LEFTARG = uuid, RIGHTARG = stablebloom, FUNCTION = stable_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (uuid, stablebloom) IS 'element was probably seen recently by stablebloom';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, uuid) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, uuid) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, uuid, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, uuid, bigint, float8) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, uuid, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, uuid, bigint, float8, int) IS 'aggregate support: insert x in place';
CREATE AGGREGATE stable_bloom_agg(uuid) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(uuid) IS 'stablebloom after inserting every non-NULL input, in the order given by ORDER BY, 1M cells of 3 bits at fpr 0.01';
CREATE AGGREGATE stable_bloom_agg(uuid, cells bigint, fpr float8) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(uuid, bigint, float8) IS 'stable_bloom_create(cells, fpr) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE AGGREGATE stable_bloom_agg(uuid, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(uuid, bigint, float8, int) IS 'stable_bloom_create(cells, fpr, cell_bits) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, uuid) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, uuid) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, uuid, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, uuid, bigint, float8) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, uuid, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, uuid, bigint, float8, int) IS 'aggregate support: probe x, then insert it, in place';
CREATE AGGREGATE stable_bloom_seen(uuid) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(uuid) IS 'window use, stable_bloom_seen(x) OVER (ORDER BY ts): whether the stream had probably seen x recently before this row (1M cells of 3 bits, fpr 0.01)';
CREATE AGGREGATE stable_bloom_seen(uuid, cells bigint, fpr float8) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(uuid, bigint, float8) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr) filter';
CREATE AGGREGATE stable_bloom_seen(uuid, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(uuid, bigint, float8, int) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr, cell_bits) filter';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, uuid, stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, uuid, stablebloom) IS 'aggregate support: probe x, then insert it, in place (state starts as a copy of start)';
CREATE AGGREGATE stable_bloom_seen(uuid, start stablebloom) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(uuid, stablebloom) IS 'stable_bloom_seen(x) continuing the stream of filter start (e.g. a stored filter): answers for this batch, start is not changed';
--
-- URLs: the key a URL-seen filter is asked about
--
CREATE FUNCTION url_normalize(url text) RETURNS text
	AS 'MODULE_PATHNAME', 'url_normalize_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION url_normalize(text) IS 'RFC 3986 syntax-based normalization (lower-case scheme and host, percent-encodings, dot segments, default port, no fragment, "/" for an empty http(s) path), so two spellings of one URL give one key; text that is not an absolute URL is returned unchanged';
