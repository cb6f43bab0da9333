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

-- STORAGE external: a filter's bits do not compress once it holds anything, and trying costs every write
-- of a stored filter (pglz made adding 1,000 URLs to a stored 1.4 MB filter
-- 3.7x slower, lz4 2x: bench/storage.sql).  A filter created far larger
-- than it will hold for long compresses well (ALTER TABLE ... ALTER col
-- SET STORAGE EXTENDED, SET COMPRESSION lz4), or belongs in the index.
CREATE TYPE bloomfilter (
	INPUT = bloomfilter_in,
	OUTPUT = bloomfilter_out,
	RECEIVE = bloomfilter_recv,
	SEND = bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON FUNCTION bloomfilter_in(cstring) IS 'bloomfilter text input: base64 of its bytes, validated';
COMMENT ON FUNCTION bloomfilter_out(bloomfilter) IS 'bloomfilter text output: base64 of its bytes';
COMMENT ON FUNCTION bloomfilter_recv(internal) IS 'bloomfilter binary input, validated';
COMMENT ON FUNCTION bloomfilter_send(bloomfilter) IS 'bloomfilter binary output: its bytes';
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

-- Every probe of every type (contains, contained, count, the array forms)
-- is COST 10: it hashes the element and reads the filter where the hash
-- points, often outside the CPU caches: several times a simple comparison
-- (COST 1), so the planner evaluates cheap quals first.  The row probes
-- (contains, contained) have the planner support function that loads the
-- module (00_common.sql).  Every probe is CALLED ON NULL INPUT: a NULL
-- filter contains nothing, so bloom_contains(NULL, x) is false, not NULL.
-- A missing filter (a scalar subquery that found no row) must not make
-- WHERE NOT bloom_contains(f, x) drop every row.  A NULL element still
-- gives NULL.
-- @each element
CREATE FUNCTION bloom_add(f bloomfilter, x @ELEM@) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, @ELEM@) IS 'f with x added';
CREATE FUNCTION bloom_add(f bloomfilter, xs @ELEM@[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloomfilter, @ELEM@[]) IS 'f with every non-NULL element of xs added';
CREATE FUNCTION bloom_contains(f bloomfilter, xs @ELEM@[]) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'bloom_contains_array' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10;
COMMENT ON FUNCTION bloom_contains(bloomfilter, @ELEM@[]) IS 'bloom_contains(f, x) for each element x of xs, in the same places (NULL for NULL), the cache misses of a big filter overlapped';
CREATE FUNCTION bloom_contains(f bloomfilter, x @ELEM@) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contains(bloomfilter, @ELEM@) IS 'false: x was never added (a NULL f contains nothing); true: x was probably added';
CREATE FUNCTION bloom_contained(x @ELEM@, f bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_contained(@ELEM@, bloomfilter) IS 'same as bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = bloomfilter, RIGHTARG = @ELEM@, FUNCTION = bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (bloomfilter, @ELEM@) IS 'bloomfilter probably contains element';
CREATE OPERATOR <@ (
	LEFTARG = @ELEM@, RIGHTARG = bloomfilter, FUNCTION = bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (@ELEM@, bloomfilter) IS 'element is probably in bloomfilter';

-- @end
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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_agg_final(bloomfilter) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION bloom_combine_final(bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_combine_final(bloomfilter) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION bloom_keyset_final(bloom_keyset) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION bloom_keyset_final(bloom_keyset) IS 'aggregate support: bloomfilter sized for the distinct hashes collected';

-- @each element
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, @ELEM@) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, @ELEM@) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_keyset_trans(bloom_keyset, @ELEM@, float8) RETURNS bloom_keyset
	AS 'MODULE_PATHNAME', 'bloom_keyset_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_keyset_trans(bloom_keyset, @ELEM@, float8) IS 'aggregate support: collect the hash of x';
CREATE FUNCTION bloom_agg_trans(bloomfilter, @ELEM@, bigint, float8) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloomfilter, @ELEM@, bigint, float8) IS 'aggregate support: add x in place';

CREATE AGGREGATE bloom_agg(@ELEM@) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@ELEM@) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, false-positive rate at most 0.01';
CREATE AGGREGATE bloom_agg(@ELEM@, fpr float8) (
	SFUNC = bloom_keyset_trans, STYPE = bloom_keyset,
	FINALFUNC = bloom_keyset_final, COMBINEFUNC = bloom_keyset_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@ELEM@, float8) IS 'bloomfilter of the distinct non-NULL inputs, sized for their number, at rate fpr';
CREATE AGGREGATE bloom_agg(@ELEM@, capacity bigint, fpr float8) (
	SFUNC = bloom_agg_trans, STYPE = bloomfilter,
	FINALFUNC = bloom_agg_final, COMBINEFUNC = bloom_union_trans,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@ELEM@, bigint, float8) IS 'bloom_create(capacity, fpr) with every non-NULL input added';

-- @end
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

-- test-and-add: which elements of a batch were new (issue 36)
-- @each element
CREATE FUNCTION bloom_test_and_add(f bloomfilter, xs @ELEM@[], OUT filter bloomfilter, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_test_and_add(bloomfilter, @ELEM@[]) IS 'f with every element of xs added, and for each element whether it was new (not probably in f, nor earlier in xs): BF.MADD';
-- @end
