--
-- The shared test vectors of the bloomfilter value format (doc/format.md),
-- printed as JSON on standard output: element hashes of every element
-- type, and small filters with their bytes and the server's answers to
-- probes of members and of values never added (false positives
-- included).  Run by clients/make-test-vectors.sh against a server with
-- the extension; every client under clients/ checks itself against the
-- result, clients/check-test-vectors.sh checks the server against it.
--
-- Everything is made in a transaction that is rolled back: the index
-- snapshot's table is temporary, the helper functions live in pg_temp.
--
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
\pset pager off
SET client_min_messages = warning;
BEGIN;

-- a value as the vectors write it, and back
CREATE FUNCTION pg_temp.vec_repr(elem text, x text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE elem WHEN 'bytea' THEN format('encode(%s, ''hex'')', x)
		ELSE format('(%s)::text', x) END
$$;
CREATE FUNCTION pg_temp.vec_value(elem text, v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE elem WHEN 'bytea' THEN format('decode(%L, ''hex'')', v)
		ELSE format('%L::%s', v, elem) END
$$;
-- a signed bigint as the unsigned 64-bit number it holds
CREATE FUNCTION pg_temp.u64(x bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT (CASE WHEN x < 0 THEN x::numeric + 18446744073709551616 ELSE x::numeric END)::text
$$;

-- ---- hashes ----

CREATE TEMP TABLE vec_seed (seed bigint, ord int);
INSERT INTO vec_seed VALUES (0, 1), (42, 2), (-7046029254386353131, 3);	-- 0x9E3779B97F4A7C15

-- printable ASCII of n bytes, each length its own string
CREATE FUNCTION pg_temp.ascii_of(n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(string_agg(chr(32 + (i * 31 + n * 7) % 95), '' ORDER BY i), '')
	FROM generate_series(1, n) i
$$;

CREATE TEMP TABLE vec_hash_input (ord serial, type text, value text);
INSERT INTO vec_hash_input (type, value)
SELECT 'text', pg_temp.ascii_of(n)
FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
				  31, 32, 33, 63, 64, 65, 127, 128, 129, 239, 240, 241, 255, 256, 500, 1024, 3000]) n;
INSERT INTO vec_hash_input (type, value) VALUES
	('text', 'https://example.com/'),
	('text', 'https://www.example.org/path/to/a/page.html?query=1&other=two#fragment'),
	('text', 'é'),
	('text', 'Grüße, Jürgen'),
	('text', '日本語のテキスト'),
	('text', '😀 emoji'),
	('text', repeat('ß', 120)),			-- 240 bytes of two-byte characters
	('text', repeat('ä', 200)),			-- 400 bytes
	('text', repeat('€', 100));			-- 300 bytes of three-byte characters
INSERT INTO vec_hash_input (type, value)
SELECT 'bytea', encode(coalesce((SELECT string_agg(set_byte('\x00'::bytea, 0, (i * 37 + n) % 256), ''::bytea ORDER BY i)
								 FROM generate_series(1, n) i), ''::bytea), 'hex')
FROM unnest(ARRAY[0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 127, 128, 129, 240, 241, 256, 1000]) n;
INSERT INTO vec_hash_input (type, value) VALUES
	('bytea', '00'), ('bytea', 'ff'), ('bytea', '0000000000000000'),
	('bytea', encode(convert_to('https://example.com/', 'UTF8'), 'hex'));
INSERT INTO vec_hash_input (type, value)
SELECT 'bigint', v::text
FROM unnest(ARRAY[0, 1, -1, 42, 255, 256, 65535, 2147483647, 2147483648, -2147483648, 4294967296,
				  1234567890123456789, -1234567890123456789,
				  9223372036854775807, -9223372036854775808]::bigint[]) v;
INSERT INTO vec_hash_input (type, value)
SELECT 'uuid', v::text
FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
				  '123e4567-e89b-12d3-a456-426614174000', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
				  md5('vector uuid')::uuid::text]) v;

CREATE FUNCTION pg_temp.vec_hash(type text, value text, seed bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	h bigint;
BEGIN
	EXECUTE format('SELECT bloom_hash(%s, $1)', pg_temp.vec_value(type, value)) INTO h USING seed;
	RETURN h;
END
$$;

-- ---- filters ----

/*
 * One filter: the SQL that makes it (after the setup statements, if any),
 * the typed array of what was added (for "added"; already in the filter),
 * and a typed expression of g giving values never added.  Probes: every
 * value added, the first 200 absent ones, and up to 100 more of the
 * absent ones the filter answers true for (its false positives).
 */
CREATE TEMP TABLE vec_filter_def (ord int, name text, elem text, setup text[], sql text,
								  added text, absent text, candidates int);

CREATE FUNCTION pg_temp.vec_filter(d vec_filter_def) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	f bloomfilter;
	s text;
	added text[];
	probes json[] := '{}';
	v text;
	ok boolean;
	nfp int := 0;
	r record;
BEGIN
	FOREACH s IN ARRAY coalesce(d.setup, '{}')
	LOOP
		EXECUTE s;
	END LOOP;
	EXECUTE d.sql INTO f;
	EXECUTE format('SELECT array_agg(%s ORDER BY o) FROM unnest(%s) WITH ORDINALITY u(x, o)',
				   pg_temp.vec_repr(d.elem, 'x'), d.added) INTO added;
	FOREACH v IN ARRAY added
	LOOP
		EXECUTE format('SELECT bloom_contains($1, %s)', pg_temp.vec_value(d.elem, v)) INTO ok USING f;
		IF NOT ok THEN
			RAISE EXCEPTION 'filter %: false negative for %', d.name, v;
		END IF;
		probes := probes || json_build_object('value', v, 'expected', ok);
	END LOOP;
	FOR r IN EXECUTE format('SELECT g, %s AS v, bloom_contains($1, %s) AS c FROM generate_series(1, %s) g ORDER BY g',
							pg_temp.vec_repr(d.elem, d.absent), d.absent, d.candidates) USING f
	LOOP
		IF r.v = ANY (added) THEN
			RAISE EXCEPTION 'filter %: absent value % was added', d.name, r.v;
		END IF;
		IF r.g <= 200 OR (r.c AND nfp < 100) THEN
			probes := probes || json_build_object('value', r.v, 'expected', r.c);
			IF r.g > 200 THEN
				nfp := nfp + 1;
			END IF;
		END IF;
	END LOOP;
	RETURN json_build_object(
		'name', d.name,
		'sql', array_to_string(d.setup || d.sql, E';\n'),
		'layout', bloom_info(f)->>'layout',
		'format_version', (bloom_info(f)->>'format_version')::int,
		'nstages', (bloom_info(f)->>'stages')::int,
		'seed', bloom_info(f)->>'seed',
		'element_type', d.elem,
		'bytes', encode(f::bytea, 'hex'),
		'added', added,
		'probes', probes,
		'info', bloom_info(f));
END
$$;

/*
 * The values a filter is made of: URLs of realistic shape, bytes, signed
 * integers of every size (the extremes too), UUIDs.  Absent values come
 * from other spaces, so none can have been added.
 */
INSERT INTO vec_filter_def VALUES
(1, 'blocked_text', 'text', NULL,
 'SELECT bloom_add(bloom_create(1000, 0.01), ARRAY(SELECT ''https://example.com/articles/'' || g || ''.html'' FROM generate_series(1, 400) g))',
 'ARRAY(SELECT ''https://example.com/articles/'' || g || ''.html'' FROM generate_series(1, 400) g)',
 '''https://example.net/absent/'' || g', 50000),
(2, 'standard_text', 'text', NULL,
 'SELECT bloom_add(bloom_create(1000, 0.01, ''standard''), ARRAY(SELECT ''https://example.com/articles/'' || g || ''.html'' FROM generate_series(1, 400) g))',
 'ARRAY(SELECT ''https://example.com/articles/'' || g || ''.html'' FROM generate_series(1, 400) g)',
 '''https://example.net/absent/'' || g', 50000),
-- bloom_create has no seed argument: the seed is written into an empty
-- filter's header (bytes 4..11 of its bytea), which the cast accepts
(3, 'blocked_text_seeded', 'text', NULL,
 'SELECT bloom_add(overlay(bloom_create(500, 0.01)::bytea PLACING ''\x157c4a7fb979379e''::bytea FROM 5)::bloomfilter, ARRAY(SELECT ''https://example.com/s/'' || g FROM generate_series(1, 300) g))',
 'ARRAY(SELECT ''https://example.com/s/'' || g FROM generate_series(1, 300) g)',
 '''https://example.net/absent/'' || g', 10000),
(4, 'standard_text_seeded', 'text', NULL,
 'SELECT bloom_add(overlay(bloom_create(500, 0.01, ''standard'')::bytea PLACING ''\x2a00000000000000''::bytea FROM 5)::bloomfilter, ARRAY(SELECT ''https://example.com/s/'' || g FROM generate_series(1, 300) g))',
 'ARRAY(SELECT ''https://example.com/s/'' || g FROM generate_series(1, 300) g)',
 '''https://example.net/absent/'' || g', 10000),
-- added past capacity: a stage of 50 elements, then of 100, 200, ...
(5, 'blocked_text_scalable', 'text', NULL,
 'SELECT bloom_add(bloom_create(50, 0.05), ARRAY(SELECT ''k'' || g FROM generate_series(1, 500) g))',
 'ARRAY(SELECT ''k'' || g FROM generate_series(1, 500) g)',
 '''absent-'' || g', 10000),
(6, 'standard_text_scalable', 'text', NULL,
 'SELECT bloom_add(bloom_create(50, 0.05, ''standard''), ARRAY(SELECT ''k'' || g FROM generate_series(1, 500) g))',
 'ARRAY(SELECT ''k'' || g FROM generate_series(1, 500) g)',
 '''absent-'' || g', 10000),
(7, 'blocked_text_fixed_high_fpr', 'text', NULL,
 'SELECT bloom_add(bloom_create(200, 0.2, ''blocked'', false), ARRAY(SELECT ''x'' || g FROM generate_series(1, 200) g))',
 'ARRAY(SELECT ''x'' || g FROM generate_series(1, 200) g)',
 '''y'' || g', 2000),
(8, 'blocked_text_utf8', 'text', NULL,
 'SELECT bloom_add(bloom_create(100, 0.01), ARRAY[''é'', ''Grüße'', ''日本語'', ''😀'', '''', '' '', repeat(''ß'', 120), repeat(''a'', 3000)])',
 'ARRAY[''é'', ''Grüße'', ''日本語'', ''😀'', '''', '' '', repeat(''ß'', 120), repeat(''a'', 3000)]',
 '''absent-'' || g || ''-ü''', 50000),
(9, 'blocked_bytea', 'bytea', NULL,
 'SELECT bloom_add(bloom_create(300, 0.01), ARRAY(SELECT decode(md5(''member'' || g), ''hex'') FROM generate_series(1, 200) g) || ''\x''::bytea || ''\x00''::bytea)',
 'ARRAY(SELECT decode(md5(''member'' || g), ''hex'') FROM generate_series(1, 200) g) || ''\x''::bytea || ''\x00''::bytea',
 'decode(md5(''absent'' || g) || lpad(to_hex(g), 8, ''0''), ''hex'')', 10000),
(10, 'standard_bytea', 'bytea', NULL,
 'SELECT bloom_add(bloom_create(300, 0.01, ''standard''), ARRAY(SELECT decode(md5(''member'' || g), ''hex'') FROM generate_series(1, 200) g))',
 'ARRAY(SELECT decode(md5(''member'' || g), ''hex'') FROM generate_series(1, 200) g)',
 'decode(md5(''absent'' || g), ''hex'')', 10000),
(11, 'blocked_bigint', 'bigint', NULL,
 'SELECT bloom_add(bloom_create(500, 0.01), ARRAY(SELECT g * 1000003 - 150000000 FROM generate_series(1, 300) g) || ARRAY[0, -1, 9223372036854775807, -9223372036854775808]::bigint[])',
 'ARRAY(SELECT g * 1000003 - 150000000 FROM generate_series(1, 300) g) || ARRAY[0, -1, 9223372036854775807, -9223372036854775808]::bigint[]',
 '(g::bigint * 1000003 + 1) * (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END)', 10000),
(12, 'standard_bigint', 'bigint', NULL,
 'SELECT bloom_add(bloom_create(500, 0.01, ''standard''), ARRAY(SELECT g::bigint FROM generate_series(1, 300) g))',
 'ARRAY(SELECT g::bigint FROM generate_series(1, 300) g)',
 '-g::bigint', 10000),
(13, 'blocked_uuid', 'uuid', NULL,
 'SELECT bloom_add(bloom_create(500, 0.01), ARRAY(SELECT md5(''uuid'' || g)::uuid FROM generate_series(1, 300) g))',
 'ARRAY(SELECT md5(''uuid'' || g)::uuid FROM generate_series(1, 300) g)',
 'md5(''absent-uuid'' || g)::uuid', 10000),
(14, 'standard_uuid', 'uuid', NULL,
 'SELECT bloom_add(bloom_create(500, 0.01, ''standard''), ARRAY(SELECT md5(''uuid'' || g)::uuid FROM generate_series(1, 300) g))',
 'ARRAY(SELECT md5(''uuid'' || g)::uuid FROM generate_series(1, 300) g)',
 'md5(''absent-uuid'' || g)::uuid', 10000),
-- a format 1 standard filter as builds before format 2 wrote it, from
-- sql/bloom_format.sql: bloom_add(bloom_create(40, 0.01, 'standard'),
-- 'u1' .. 'u200'), 3 stages
(15, 'standard_text_format1', 'text', NULL,
 $q$SELECT ('AQEBAAAAAAAAAAAAAAAAAAAAAAAAAQMAAAAAAHsUrkfheoQ/KAAAAAAAAAAAAQAAAAAAAAACAAAA' ||
    'AAAAKAAAAAAAAAAHAQAAAAAAAAcBAAAAAAAAAAAAAAAAAAB7FK5H4Xp0PwgAAAAAAAAAQAEAAAAA' ||
    'AABABAAAAAAAAFAAAAAAAAAALQIAAAAAAAAtAgAAAAAAAAAAAAAAAAAAexSuR+F6ZD8JAAAAAAAA' ||
    'AAACAAAAAAAAQAkAAAAAAACgAAAAAAAAALoEAAAAAAAAGwIAAAAAAAAAAAAAAAAAAHsUrkfhelQ/' ||
    'CgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAv4fQcDRB30T0XFoBMPE0WcrK/SS/a8TK6WBfI54PYp/h' ||
    'xcTdmIL0aAM8kXN4spzFPhy1JolXc+rtb7LdvpPwY8x6+QW45tOrs5nS4gyTTnSn2Ab+3JpghB+P' ||
    'g7prpGZ3qdnsjcgRyD/LuhXi93JYg9/VuLGo3m/t9jG8Cp1zWIdkybWF0BLYSMZ0qI8GR63UhM2h' ||
    'PYYaZ1nJJMr4wm8P13kv2ukGpug24QcVR+97SYx8U+p1a6qJj5o1uyekgELhGE2uRD9Br5kAAAAA' ||
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA8CCQBA' ||
    'IYgAiIEKVsGEKCBgAhQUICoAgIDgxAgikBHIjGFAtUAAAQZ+CRAKBVAAACBYEAhFEgDUJwAD8FEq' ||
    'EMBAgAABZAAA8gRgo0DUocEFAQCELAQAEUjEBBEGQEGAEGAwGSBCCQCjgMCIAFIghSsyDBAAAAMT' ||
    'AAZAGAoToEVBRYkCBABAAFkoABBRGwgIkAKQSQAUGKIBHhIAAcjgQACIaFAgAAUGSSEiAAIIAD2g' ||
    'JAgAgQsKBMBCwMAEQAMAAAMHAAEAsAACmuCAFA6AAiQMDpiioUBowUQAoAiQACAyA0oAQU0IBAAA' ||
    'DKCEAgkYCGAJAhCIAIQCFiyEvBgB0IQAgQRAYlAAMFLrlBkmiBgoqHAABUpgAKCCgxiBgggkhBIG' ||
    'MAAwABUQ')::bloomfilter$q$,
 'ARRAY(SELECT ''u'' || g FROM generate_series(1, 200) g)',
 '''v'' || g', 10000),
-- the bloomfilter index's pages as a value
(16, 'index_snapshot_text', 'text',
 ARRAY['CREATE TEMP TABLE vec_indexed (url text)',
	   'INSERT INTO vec_indexed SELECT ''https://example.com/indexed/'' || g FROM generate_series(1, 600) g',
	   'CREATE INDEX vec_indexed_bf ON vec_indexed USING bloomfilter (url) WITH (capacity = 2000, fpr = 0.01)'],
 'SELECT bloom_index_snapshot(''vec_indexed_bf''::regclass)',
 'ARRAY(SELECT ''https://example.com/indexed/'' || g FROM generate_series(1, 600) g)',
 '''https://example.net/absent/'' || g', 50000);

SELECT '{"format": "bloomfilter-test-vectors-1",' || E'\n' ||
	'"generated_by": "clients/make-test-vectors.sql",' || E'\n' ||
	'"extension_version": ' || to_json((SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter')) || ',' || E'\n' ||
	'"hashes": [' || E'\n' ||
	(SELECT string_agg(json_build_object('type', i.type, 'value', i.value, 'seed', pg_temp.u64(s.seed),
										 'hash', pg_temp.u64(pg_temp.vec_hash(i.type, i.value, s.seed)))::text,
					   E',\n' ORDER BY i.ord, s.ord)
	 FROM vec_hash_input i, vec_seed s) || E'\n],\n' ||
	'"filters": [' || E'\n' ||
	(SELECT string_agg(pg_temp.vec_filter(d)::text, E',\n' ORDER BY d.ord) FROM vec_filter_def d) ||
	E'\n]}';

ROLLBACK;
