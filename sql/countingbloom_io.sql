--
-- countingbloom I/O: text, bytea and binary COPY round trips, golden
-- vectors, and malformed input of every kind (22P02 text, 22P03 bytea)
--
SET extra_float_digits = 0;

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

CREATE TEMP TABLE cio AS
	SELECT counting_bloom_add(counting_bloom_add(counting_bloom_create(20, 0.05),
	       ARRAY['a', 'b', 'c', 'a']), 7::bigint) AS f;

-- golden vectors: fixed input, fixed bytes (a format or hashing change
-- cannot slip in unnoticed)
SELECT length(bytea(f)) AS bytes, md5(bytea(f)) FROM cio;
SELECT f::text FROM cio;
SELECT md5(bytea(counting_bloom_agg(x))) AS agg_1000 FROM generate_series(1, 1000) x;
SELECT md5(bytea(counting_bloom_agg(x::text, 0.001))) AS agg_text_1000 FROM generate_series(1, 1000) x;

-- the blocked layout, which earlier releases wrote (these bytes are cio's
-- filter as one of them stored it), is still read, and written packed
-- once changed
CREATE TEMP TABLE cio_old AS SELECT 'AgEBAAAAAAAAAAAAAAAAAAAAAAABBAAAAwAAAJqZmZmZmak/FAAAAAAAAAAFAAAAAAAAAAIAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAEAAAAAAAABAAAAAAEhAAEAAAAAAAAAAAAAAAAAAAAAAAAAAgIAAAAAA='::countingbloom AS f;
SELECT length(bytea(o.f)) AS old_bytes,
       counting_bloom_info(o.f) - 'bytes' - 'bytes_per_element' = counting_bloom_info(n.f) - 'bytes' - 'bytes_per_element' AS same_info,
       (SELECT bool_and(counting_bloom_contains(o.f, e) = counting_bloom_contains(n.f, e) AND
                        counting_bloom_count(o.f, e) = counting_bloom_count(n.f, e))
          FROM unnest(ARRAY['a', 'b', 'c', 'd', 'z', '7']) e) AS same_answers,
       bytea(counting_bloom_remove(counting_bloom_add(o.f, 'z'), 'z')) = bytea(n.f) AS rewritten_packed,
       bytea(counting_bloom_union(o.f, counting_bloom_create(20, 0.05))) = bytea(n.f) AS union_packed
  FROM cio_old o, cio n;
-- removing elements it reports absent gives back the very bytes it was
-- given, in the blocked layout too, not the packed form a change writes
-- (one element, and an array whose every element is absent)
SELECT counting_bloom_contains(f, 'zz'::text) AS zz_present,
       counting_bloom_contains(f, 'yy'::text) AS yy_present,
       counting_bloom_remove(f, 'zz'::text)::bytea = f::bytea AS same,
       counting_bloom_remove(f, ARRAY['zz', NULL, 'yy'])::bytea = f::bytea AS same_array,
       counting_bloom_remove(f, '{}'::text[])::bytea = f::bytea AS same_empty_array,
       length(f::bytea) AS bytes
FROM (SELECT '\x020101000000000000000000000000000000000001040000030000007b14ae47e17a843f0a00000000000000010000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000101000000000'::bytea::countingbloom AS f) s;
SELECT counting_bloom_remove(o.f, 'zz'::text)::bytea = o.f::bytea AS old_same,
       counting_bloom_remove(o.f, ARRAY['zz', 'yy'])::bytea = o.f::bytea AS old_same_array
  FROM cio_old o;

-- round trips: text, bytea, binary COPY
SELECT f::text::countingbloom::text = f::text AS text_round_trip,
       bytea(countingbloom(bytea(f))) = bytea(f) AS bytea_round_trip,
       bytea(f)::countingbloom::text = f::text AS bytea_cast
  FROM cio;
CREATE TEMP TABLE cio_copy (f countingbloom);
\copy cio TO 'results/countingbloom_io.bin' (FORMAT binary)
\copy cio_copy FROM 'results/countingbloom_io.bin' (FORMAT binary)
SELECT bytea(a.f) = bytea(b.f) AS binary_copy_round_trip FROM cio a, cio_copy b;
-- binary input goes through the same checker: a bytea column's binary
-- COPY form is a countingbloom's, so corrupt bytes reach recv this way
CREATE TEMP TABLE cio_bad AS SELECT set_byte(bytea(f), 44, 99) AS b FROM cio;
\copy cio_bad TO 'results/countingbloom_bad.bin' (FORMAT binary)
\copy cio_copy FROM 'results/countingbloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy cio_copy FROM 'results/countingbloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_after_bad_copy FROM cio_copy;

-- malformed text: not base64, or base64 of bytes that are not a filter
SELECT q, pg_temp.err(q) FROM (VALUES
	($$SELECT ''::countingbloom$$),
	($$SELECT 'not base64!'::countingbloom$$),
	($$SELECT 'AAA'::countingbloom$$),
	($$SELECT 'AAAA'::countingbloom$$),
	($$SELECT 'QUJD='::countingbloom$$)) v(q);
-- a bloomfilter is not a countingbloom
SELECT pg_temp.err(format('SELECT %L::countingbloom', bloom_create(10)::text));
SELECT pg_temp.err(format('SELECT %L::bytea::countingbloom', bytea(bloom_create(10))));

-- malformed bytea: each field of a valid value broken in turn.  Offsets in
-- the bytea are the layout's (counting.h) minus the 4-byte varlena header:
-- cio is packed, its occupancy at 60, ge2 at 92, ge3 at 100.
CREATE FUNCTION pg_temp.put64(b bytea, off int, v bigint) RETURNS bytea LANGUAGE sql AS $$
	SELECT overlay(b PLACING decode(lpad(to_hex(v), 16, '0'), 'hex') FROM off + 1 FOR 8)
$$;
CREATE FUNCTION pg_temp.le64(v bigint) RETURNS bigint LANGUAGE sql AS $$
	-- byte-swap, so put64 writes little-endian
	SELECT ('x' || string_agg(substr(lpad(to_hex(v), 16, '0'), 15 - 2 * i, 2), '' ORDER BY i))::bit(64)::bigint
	FROM generate_series(0, 7) i
$$;
SELECT what, pg_temp.err(format('SELECT %L::bytea::countingbloom', b)) FROM (
	SELECT 'valid' AS what, bytea(f) AS b FROM cio
	UNION ALL SELECT 'truncated', substr(bytea(f), 1, length(bytea(f)) - 1) FROM cio
	UNION ALL SELECT 'trailing byte', bytea(f) || '\x00'::bytea FROM cio
	UNION ALL SELECT 'header only', substr(bytea(f), 1, 60) FROM cio
	UNION ALL SELECT 'kind', set_byte(bytea(f), 0, 1) FROM cio
	UNION ALL SELECT 'version', set_byte(bytea(f), 1, 2) FROM cio
	UNION ALL SELECT 'hash id', set_byte(bytea(f), 2, 9) FROM cio
	UNION ALL SELECT 'flags', set_byte(bytea(f), 3, 1) FROM cio
	UNION ALL SELECT 'header reserved', set_byte(bytea(f), 12, 1) FROM cio
	UNION ALL SELECT 'layout', set_byte(bytea(f), 20, 0) FROM cio
	UNION ALL SELECT 'packed read as blocked', set_byte(bytea(f), 20, 1) FROM cio
	UNION ALL SELECT 'bit past the ge2 stream', set_byte(bytea(f), 99, 128) FROM cio
	UNION ALL SELECT 'bit past the ge3 stream', set_byte(bytea(f), 107, 128) FROM cio
	UNION ALL SELECT 'counter width', set_byte(bytea(f), 21, 8) FROM cio
	UNION ALL SELECT 'reserved', set_byte(bytea(f), 22, 1) FROM cio
	UNION ALL SELECT 'no hashes', set_byte(bytea(f), 24, 0) FROM cio
	UNION ALL SELECT '200 hashes', set_byte(bytea(f), 24, 200) FROM cio
	UNION ALL SELECT 'fpr 0', pg_temp.put64(bytea(f), 28, 0) FROM cio
	UNION ALL SELECT 'fpr NaN', pg_temp.put64(bytea(f), 28, pg_temp.le64(x'7ff8000000000000'::bigint)) FROM cio
	UNION ALL SELECT 'capacity 0', pg_temp.put64(bytea(f), 36, 0) FROM cio
	UNION ALL SELECT 'capacity -1', pg_temp.put64(bytea(f), 36, -1) FROM cio
	UNION ALL SELECT 'capacity too big for counters', pg_temp.put64(bytea(f), 36, pg_temp.le64(100000)) FROM cio
	UNION ALL SELECT 'count over capacity', pg_temp.put64(bytea(f), 44, pg_temp.le64(21)) FROM cio
	UNION ALL SELECT 'no blocks', pg_temp.put64(bytea(f), 52, 0) FROM cio
	UNION ALL SELECT 'more blocks than bytes', pg_temp.put64(bytea(f), 52, pg_temp.le64(3)) FROM cio
	UNION ALL SELECT 'huge block count', pg_temp.put64(bytea(f), 52, -1) FROM cio
) s;
-- the same checker guards text input
SELECT pg_temp.err(format('SELECT %L::countingbloom', replace(encode(set_byte(bytea(f), 44, 99), 'base64'), E'\n', ''))) FROM cio;
