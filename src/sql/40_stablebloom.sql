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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION stable_bloom_agg_final(stablebloom) IS 'aggregate support: the filter, or an empty one for zero rows';
CREATE FUNCTION stable_bloom_seen_final(stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_final(stablebloom) IS 'aggregate support: whether the latest row''s element was probably seen before it (read only)';

--
-- Neither aggregate has a COMBINEFUNC: a stable Bloom filter depends on the
-- order of its stream, and the filter of two halves of a stream cannot be
-- computed from the halves' filters (see src/stablebloom_type.c).
--
-- @each element

-- elements of type @ELEM@
CREATE FUNCTION stable_bloom_add(f stablebloom, x @ELEM@) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_@SYM@' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, @ELEM@) IS 'f after inserting x (P random decrements, then x''s cells set to Max)';
CREATE FUNCTION stable_bloom_add(f stablebloom, xs @ELEM@[]) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_add_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_add(stablebloom, @ELEM@[]) IS 'f after inserting every non-NULL element of xs, in array order';
CREATE FUNCTION stable_bloom_test_and_add(f stablebloom, xs @ELEM@[], OUT filter stablebloom, OUT added boolean[])
	AS 'MODULE_PATHNAME', 'stable_bloom_test_and_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_test_and_add(stablebloom, @ELEM@[]) IS 'f after inserting every element of xs in order, and for each whether it was new (not recently seen, nor earlier in xs)';
CREATE FUNCTION stable_bloom_contains(f stablebloom, x @ELEM@) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contains_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION stable_bloom_contains(stablebloom, @ELEM@) IS 'true: x was probably inserted recently; false: not recently (or forgotten; a NULL f contains nothing)';
CREATE FUNCTION stable_bloom_contained(x @ELEM@, f stablebloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'stable_bloom_contained_@SYM@' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE COST 10 SUPPORT bloomfilter_probe_support;
COMMENT ON FUNCTION stable_bloom_contained(@ELEM@, stablebloom) IS 'same as stable_bloom_contains(f, x), element first (the <@ operator)';
CREATE OPERATOR @> (
	LEFTARG = stablebloom, RIGHTARG = @ELEM@, FUNCTION = stable_bloom_contains,
	COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR @> (stablebloom, @ELEM@) IS 'stablebloom probably saw element recently';
CREATE OPERATOR <@ (
	LEFTARG = @ELEM@, RIGHTARG = stablebloom, FUNCTION = stable_bloom_contained,
	COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON OPERATOR <@ (@ELEM@, stablebloom) IS 'element was probably seen recently by stablebloom';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@, bigint, float8) IS 'aggregate support: insert x in place';
CREATE FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_agg_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_agg_trans(stablebloom, @ELEM@, bigint, float8, int) IS 'aggregate support: insert x in place';
CREATE AGGREGATE stable_bloom_agg(@ELEM@) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(@ELEM@) IS 'stablebloom after inserting every non-NULL input, in the order given by ORDER BY, 1M cells of 3 bits at fpr 0.01';
CREATE AGGREGATE stable_bloom_agg(@ELEM@, cells bigint, fpr float8) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(@ELEM@, bigint, float8) IS 'stable_bloom_create(cells, fpr) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE AGGREGATE stable_bloom_agg(@ELEM@, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_agg_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_agg(@ELEM@, bigint, float8, int) IS 'stable_bloom_create(cells, fpr, cell_bits) after inserting every non-NULL input, in the order given by ORDER BY';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, bigint, float8) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, bigint, float8) IS 'aggregate support: probe x, then insert it, in place';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, bigint, float8, int) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, bigint, float8, int) IS 'aggregate support: probe x, then insert it, in place';
CREATE AGGREGATE stable_bloom_seen(@ELEM@) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(@ELEM@) IS 'window use, stable_bloom_seen(x) OVER (ORDER BY ts): whether the stream had probably seen x recently before this row (1M cells of 3 bits, fpr 0.01)';
CREATE AGGREGATE stable_bloom_seen(@ELEM@, cells bigint, fpr float8) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(@ELEM@, bigint, float8) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr) filter';
CREATE AGGREGATE stable_bloom_seen(@ELEM@, cells bigint, fpr float8, cell_bits int) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(@ELEM@, bigint, float8, int) IS 'stable_bloom_seen(x) with a stable_bloom_create(cells, fpr, cell_bits) filter';
CREATE FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, stablebloom) RETURNS stablebloom
	AS 'MODULE_PATHNAME', 'stable_bloom_seen_trans_@SYM@' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stable_bloom_seen_trans(stablebloom, @ELEM@, stablebloom) IS 'aggregate support: probe x, then insert it, in place (state starts as a copy of start)';
CREATE AGGREGATE stable_bloom_seen(@ELEM@, start stablebloom) (
	SFUNC = stable_bloom_seen_trans, STYPE = stablebloom,
	FINALFUNC = stable_bloom_seen_final, FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE stable_bloom_seen(@ELEM@, stablebloom) IS 'stable_bloom_seen(x) continuing the stream of filter start (e.g. a stored filter): answers for this batch, start is not changed';
-- @end
