--
-- bloomfilter: text, binary and bytea I/O, golden vectors, malformed input
--

-- golden vectors: fixed input -> fixed bytes.  A change here is a format
-- change (or a hashing change) and needs a new format_version.
SELECT md5(bytea(bloom_add(bloom_create(100, 0.01), ARRAY['a', 'b', 'c']))) AS blocked_text;
SELECT md5(bytea(bloom_add(bloom_create(100, 0.01, 'standard'), ARRAY['a', 'b', 'c']))) AS standard_text;
SELECT md5(bytea(bloom_add(bloom_create(1000, 0.001, 'blocked', false), ARRAY[1, 2, 3]::bigint[]))) AS blocked_bigint;
SELECT md5(bytea(bloom_add(bloom_create(1000), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))) AS blocked_uuid;
SELECT md5(bytea(bloom_add(bloom_create(10), '\x00ff'::bytea))) AS blocked_bytea;
-- the header: kind 1, version 1, hash 1 (XXH3-64), seed 0
SELECT substr(bytea(bloom_create(10)), 1, 24) AS header;
-- a tiny filter's whole text form
SELECT bloom_add(bloom_create(1, 0.5, 'standard', false), 'x');

-- text round trip is exact
SELECT f::text::bloomfilter::text = f::text AS text_roundtrip,
       bytea(f::text::bloomfilter) = bytea(f) AS text_same_bytes
FROM (SELECT bloom_add(bloom_create(1000), ARRAY['x', 'y']) AS f) s;
-- bytea round trip is exact
SELECT bytea(bytea(f)::bloomfilter) = bytea(f) AS bytea_roundtrip
FROM (SELECT bloom_add(bloom_create(1000, 0.001, 'standard'), ARRAY['x', 'y']) AS f) s;

-- binary COPY round trip (send/recv), and text COPY
CREATE TABLE io_src (id int, f bloomfilter);
INSERT INTO io_src
SELECT i, bloom_add(bloom_create(i * 100, 0.01, CASE WHEN i % 2 = 0 THEN 'blocked' ELSE 'standard' END),
                    (SELECT array_agg(g::text) FROM generate_series(1, i * 50) g))
FROM generate_series(1, 6) i;
INSERT INTO io_src SELECT 7, bloom_add(bloom_create(10, 0.01), array_agg(g::bigint)) FROM generate_series(1, 500) g;	-- 6 stages
\copy io_src TO 'results/bloom_io.bin' WITH (FORMAT binary)
CREATE TABLE io_dst (LIKE io_src);
\copy io_dst FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_src TO 'results/bloom_io.txt'
CREATE TABLE io_txt (LIKE io_src);
\copy io_txt FROM 'results/bloom_io.txt'
SELECT count(*) AS rows,
       count(*) FILTER (WHERE bytea(s.f) = bytea(d.f)) AS binary_identical,
       count(*) FILTER (WHERE bytea(s.f) = bytea(t.f)) AS text_identical
FROM io_src s JOIN io_dst d USING (id) JOIN io_txt t USING (id);
SELECT (bloom_info(f)->>'stages')::int AS stages FROM io_dst WHERE id = 7;

-- malformed text
SELECT err($$SELECT ''::bloomfilter$$);
SELECT err($$SELECT 'not base64!'::bloomfilter$$);
SELECT err($$SELECT 'AAAA'::bloomfilter$$);
SELECT err($$SELECT 'AAA='::bloomfilter$$);
SELECT err($$SELECT 'AA=A'::bloomfilter$$);
SELECT err($$SELECT 'AAB='::bloomfilter$$);
SELECT err($$SELECT ' ' || bloom_create(10)::text::bloomfilter$$);
SELECT err($$SELECT (' ' || bloom_create(10)::text)::bloomfilter$$);
SELECT err($$SELECT (bloom_create(10)::text || '====')::bloomfilter$$);

-- malformed bytea: every kind of damage is caught by the one checker
CREATE TABLE good AS SELECT bytea(bloom_add(bloom_create(100), ARRAY['a', 'b'])) AS b,
                            bytea(bloom_add(bloom_create(10, 0.01), array_agg(g::bigint))) AS b3
                     FROM generate_series(1, 40) g;
SELECT (bloom_info(b3::bloomfilter)->>'stages')::int AS stages FROM good;
SELECT err($$SELECT ''::bytea::bloomfilter$$);
SELECT err($$SELECT '\x01'::bytea::bloomfilter$$);
SELECT what, err(format('SELECT %L::bytea::bloomfilter', bad)) FROM good, LATERAL (VALUES
	('truncated by one byte', substr(b, 1, length(b) - 1)),
	('one byte too long', b || '\x00'::bytea),
	('header only', substr(b, 1, 44)),
	('kind', set_byte(b, 0, 2)),
	('version', set_byte(b, 1, 2)),
	('hash id', set_byte(b, 2, 9)),
	('flags', set_byte(b, 3, 1)),
	('reserved', set_byte(b, 12, 1)),
	('layout', set_byte(b, 20, 7)),
	('scalable flag', set_byte(b, 21, 2)),
	('stage count 0', set_byte(b, 22, 0)),
	('stage count 200', set_byte(b, 22, 200)),
	('fpr 2.0', set_byte(b, 35, 64)),
	('fpr 0', overlay(b PLACING '\x0000000000000000'::bytea FROM 29 FOR 8)),
	('capacity 0', set_byte(set_byte(b, 36, 0), 37, 0)),
	('stage offset', set_byte(b, 44, 1)),
	('stage bits', set_byte(b, 52, 1)),
	('stage bits huge', set_byte(b, 59, 64)),
	('stage capacity', set_byte(b, 60, 1)),
	('fill limit', set_byte(b, 71, 1)),
	('bits set count', set_byte(b, 76, 99)),
	('rate units', set_byte(b, 84, 99)),
	('stage fpr', set_byte(b, 98, 1)),
	('stage fpr NaN', set_byte(set_byte(b, 99, 127), 98, 255)),
	('hash count 0', set_byte(b, 100, 0)),
	('hash count 65', set_byte(b, 100, 65)),
	('stage reserved', set_byte(b, 104, 1)),
	('padding', set_byte(b, 110, 1)),
	('a bit flipped', set_byte(b, length(b) - 1, get_byte(b, length(b) - 1) # 1))
) AS t(what, bad);
SELECT what, err(format('SELECT %L::bytea::bloomfilter', bad)) FROM good, LATERAL (VALUES
	('stage 2 offset', set_byte(b3, 44 + 64 + 1, 3)),
	('stage 2 capacity', set_byte(b3, 44 + 64 + 16, 99)),
	('stage count one less', set_byte(b3, 22, get_byte(b3, 22) - 1)),
	('not scalable with stages', set_byte(b3, 21, 0))
) AS t(what, bad);
-- binary recv goes through the same checker: a binary COPY of damaged
-- bytes (a bytea column's binary form is its raw bytes) into a bloomfilter
CREATE TABLE bad_bin AS SELECT set_byte(b, 76, 99) AS b FROM good;
\copy bad_bin TO 'results/bloom_bad.bin' WITH (FORMAT binary)
CREATE TABLE bad_dst (f bloomfilter);
\set VERBOSITY sqlstate
\copy bad_dst FROM 'results/bloom_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS loaded FROM bad_dst;

-- the stage geometry must deliver its rate: a stage too small for its
-- claimed capacity is refused (filter and stage capacity raised from 100
-- to 100000, consistently)
SELECT err(format('SELECT %L::bytea::bloomfilter',
	overlay(overlay(b PLACING '\xa08601'::bytea FROM 37 FOR 3) PLACING '\xa08601'::bytea FROM 61 FOR 3)))
FROM good;
