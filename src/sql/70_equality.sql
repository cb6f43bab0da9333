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

