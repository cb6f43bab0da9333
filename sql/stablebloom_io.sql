--
-- stablebloom: text, binary and bytea I/O, golden vectors, malformed input
--
-- err(sql): run sql, show its SQLSTATE, message and detail instead of failing
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' | ' || nullif(d, ''), '');
END $$;

-- golden vectors: a fixed stream gives fixed bytes.  A change here is a
-- format, hashing or PRNG change and needs a new format_version.
SELECT md5(bytea(stable_bloom_add(stable_bloom_create(1000), ARRAY['a', 'b', 'c']))) AS text_3bit;
SELECT md5(bytea(stable_bloom_add(stable_bloom_create(1000, 0.001, 8), ARRAY[1, 2, 3]::bigint[]))) AS bigint_8bit;
SELECT md5(bytea(stable_bloom_add(stable_bloom_create(999, 0.1, 1), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))) AS uuid_1bit;
SELECT md5(bytea(stable_bloom_add(stable_bloom_create(333, 0.05, 5), '\x00ff'::bytea))) AS bytea_5bit;
SELECT md5(bytea(stable_bloom_agg(g, 5000, 0.01 ORDER BY g))) AS agg_100000
FROM generate_series(1, 100000) g;
-- the header: kind 4, version 1, hash 1 (XXH3-64), flags 0, seed 0,
-- reserved, cells 1000, cell_bits 3, reserved, K = 5, P = 67 (for 1000
-- cells at 1%), fpr 0.01, inserted 0, non-zero 0, PRNG state, reserved
SELECT substr(bytea(stable_bloom_create(1000)), 1, 76) AS header;
-- a tiny filter's whole text form
SELECT stable_bloom_add(stable_bloom_create(16, 0.5, 2), 'x');

-- text round trip is exact
SELECT f::text::stablebloom::text = f::text AS text_roundtrip,
       bytea(f::text::stablebloom) = bytea(f) AS text_same_bytes
FROM (SELECT stable_bloom_add(stable_bloom_create(1000), ARRAY['x', 'y']) AS f) s;
-- bytea round trip is exact
SELECT bytea(bytea(f)::stablebloom) = bytea(f) AS bytea_roundtrip
FROM (SELECT stable_bloom_add(stable_bloom_create(1001, 0.001, 7), ARRAY['x', 'y']) AS f) s;

-- binary COPY round trip (send/recv), and text COPY, for every width
CREATE TABLE sb_io_src (id int, f stablebloom);
INSERT INTO sb_io_src
SELECT b, stable_bloom_add(stable_bloom_create(b * 1000 + 7, 0.01, b),
                           (SELECT array_agg(g::text) FROM generate_series(1, b * 300) g))
FROM generate_series(1, 8) b;
CREATE TABLE sb_io_bin (LIKE sb_io_src);
CREATE TABLE sb_io_txt (LIKE sb_io_src);
\copy sb_io_src TO 'results/stablebloom_io.bin' (FORMAT binary)
\copy sb_io_bin FROM 'results/stablebloom_io.bin' (FORMAT binary)
\copy sb_io_src TO 'results/stablebloom_io.txt'
\copy sb_io_txt FROM 'results/stablebloom_io.txt'
SELECT count(*) AS rows,
       count(*) FILTER (WHERE bytea(s.f) = bytea(b.f)) AS binary_same,
       count(*) FILTER (WHERE bytea(s.f) = bytea(t.f)) AS text_same
FROM sb_io_src s JOIN sb_io_bin b USING (id) JOIN sb_io_txt t USING (id);
-- a round-tripped filter keeps working: same answers, same next bytes
SELECT count(*) FILTER (WHERE stable_bloom_contains(b.f, '17') = stable_bloom_contains(s.f, '17')) AS same_answer,
       count(*) FILTER (WHERE bytea(stable_bloom_add(b.f, 'z')) = bytea(stable_bloom_add(s.f, 'z'))) AS same_next
FROM sb_io_src s JOIN sb_io_bin b USING (id);

-- malformed text: 22P02, never a crash
SELECT pg_temp.err($$SELECT ''::stablebloom$$);
SELECT pg_temp.err($$SELECT 'not base64!'::stablebloom$$);
SELECT pg_temp.err($$SELECT 'AAAA'::stablebloom$$);
SELECT pg_temp.err($$SELECT 'AAA='::stablebloom$$);
-- a bloomfilter's text is not a stablebloom
SELECT pg_temp.err(format('SELECT %L::stablebloom', bloom_create(10)::text));
-- truncated and extended text forms of a valid value
SELECT pg_temp.err(format('SELECT %L::stablebloom', translate(encode(substr(bytea(stable_bloom_create(100)), 1, 60), 'base64'), E'\n', '')));
SELECT pg_temp.err(format('SELECT %L::stablebloom', translate(encode(bytea(stable_bloom_create(100)) || '\x0000000000000000'::bytea, 'base64'), E'\n', '')));

-- malformed bytes through the bytea cast: 22P03.  b is a valid value;
-- each line corrupts one field (0-based byte offsets of the bytea form).
CREATE TABLE sb_valid AS
SELECT bytea(stable_bloom_add(stable_bloom_create(100, 0.01, 3), ARRAY['a', 'b', 'c'])) AS b;
SELECT length(b) AS bytes, pg_temp.err(format('SELECT %L::bytea::stablebloom', b)) AS valid FROM sb_valid;
SELECT what, pg_temp.err(format('SELECT %L::bytea::stablebloom', bad)) AS result
FROM sb_valid, LATERAL (VALUES
	('empty', ''::bytea),
	('short header', substr(b, 1, 40)),
	('truncated payload', substr(b, 1, length(b) - 8)),
	('trailing bytes', b || '\x00'::bytea),
	('kind', set_byte(b, 0, 1)),
	('version', set_byte(b, 1, 2)),
	('hash id', set_byte(b, 2, 9)),
	('unknown flag', set_byte(b, 3, 4)),
	('both flags', set_byte(b, 3, 3)),
	('header reserved', set_byte(b, 12, 1)),
	('cells 0', overlay(b placing '\x0000000000000000'::bytea from 21)),
	('cells huge', overlay(b placing '\xffffffffffffff7f'::bytea from 21)),
	('cells changed', overlay(b placing '\xc800000000000000'::bytea from 21)),
	('cell_bits 0', set_byte(b, 28, 0)),
	('cell_bits 9', set_byte(b, 28, 9)),
	('reserved after cell_bits', set_byte(b, 29, 1)),
	('hashes 0', overlay(b placing '\x0000'::bytea from 31)),
	('hashes 100', overlay(b placing '\x6400'::bytea from 31)),
	('decrement 0', overlay(b placing '\x00000000'::bytea from 33)),
	('decrement too small for fpr', overlay(b placing '\x01000000'::bytea from 33)),
	('decrement huge', overlay(b placing '\xffffffff'::bytea from 33)),
	('fpr 0', overlay(b placing '\x0000000000000000'::bytea from 37)),
	('fpr NaN', overlay(b placing '\x000000000000f87f'::bytea from 37)),
	('fpr 2', overlay(b placing '\x0000000000000040'::bytea from 37)),
	('nonzero count', set_byte(b, 52, get_byte(b, 52) + 1)),
	('trailing reserved', set_byte(b, 68, 1)),
	('padding bit', set_byte(b, length(b) - 1, 128)),
	('cell changed to non-zero', set_byte(b, 76, get_byte(b, 76) | 7))
) v(what, bad)
WHERE get_byte(b, 76) & 7 = 0 OR what <> 'cell changed to non-zero';
-- the same bytes through binary COPY are refused too (22P03)
CREATE TABLE sb_bad (f stablebloom);
\copy (SELECT set_byte(b, 28, 9) FROM sb_valid) TO 'results/stablebloom_bad.bin' (FORMAT binary)
\copy sb_bad FROM 'results/stablebloom_bad.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy sb_bad FROM 'results/stablebloom_bad.bin' (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded FROM sb_bad;

DROP TABLE sb_io_src, sb_io_bin, sb_io_txt, sb_valid, sb_bad;
