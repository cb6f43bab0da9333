-- cuckoofilter I/O: text, binary and bytea round trips, and malformed
-- input of every kind on every path (22P02 text, 22P03 binary and bytea).

CREATE TEMP TABLE cio (id int, f cuckoofilter);
INSERT INTO cio VALUES
	(1, cuckoo_create(1000)),
	(2, cuckoo_add(cuckoo_create(1000), ARRAY['a', 'b', 'c']::text[])),
	(3, (SELECT cuckoo_add(cuckoo_create(10), array_agg(g)) FROM generate_series(1, 500) g)),
	(4, (SELECT cuckoo_agg(g, 0.001) FROM generate_series(1, 300) g));
SELECT id, (cuckoo_info(f)->>'tables')::int AS tables, (cuckoo_info(f)->>'count')::int AS count FROM cio ORDER BY id;

-- text round trip is exact
SELECT id, f::text::cuckoofilter::bytea = f::bytea AS text_ok,
       f::bytea::cuckoofilter::bytea = f::bytea AS bytea_ok
FROM cio ORDER BY id;

-- binary COPY round trip
\copy cio TO 'results/cuckoo_io.bin' (FORMAT binary)
CREATE TEMP TABLE cio2 (LIKE cio);
\copy cio2 FROM 'results/cuckoo_io.bin' (FORMAT binary)
SELECT a.id, a.f::bytea = b.f::bytea AS same, b.f @> 'a'::text AS has_a
FROM cio a JOIN cio2 b USING (id) ORDER BY a.id;

-- malformed text
SELECT ''::cuckoofilter;
SELECT 'not base64!'::cuckoofilter;
SELECT 'AAAA'::cuckoofilter;
SELECT 'AwEBAAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAHsUrkfheoQ/CgAAAAAAAACAAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='::cuckoofilter;
-- a value of another type
SELECT replace(encode(bloom_create(10)::bytea, 'base64'), E'\n', '')::cuckoofilter;
SELECT bloom_create(10)::bytea::cuckoofilter;

-- bytea offsets of the fields (see src/cuckoo.h, minus the 4-byte varlena
-- header): 0 kind, 1 version, 2 hash, 3 flags, 4 seed, 12 reserved,
-- 20 ntables, 22/24 reserved, 28 fpr, 36 capacity, 44 table 0: offset,
-- 52 nbuckets, 60 count, 68 victim bucket, 76 victim fingerprint,
-- 84 fingerprint bits, 88 reserved; 92..123 padding; slots from 124
CREATE TEMP TABLE bad (what text, b bytea);
INSERT INTO bad SELECT w, b FROM (SELECT f::bytea AS f, cuckoo_create(1000, 0.001)::bytea AS g FROM cio WHERE id = 2) s,
LATERAL (VALUES
	('version', set_byte(f, 1, 9)),
	('hash id', set_byte(f, 2, 7)),
	('flags', set_byte(f, 3, 1)),
	('reserved', set_byte(f, 12, 1)),
	('no tables', set_byte(f, 20, 0)),
	('two tables', set_byte(f, 20, 2)),
	('too many tables', set_byte(f, 20, 200)),
	('deletes in format 1', set_byte(set_byte(f, 1, 1), 24, 1)),
	('fpr zero', overlay(f placing '\x0000000000000000'::bytea from 29)),
	('fpr NaN', overlay(f placing '\x000000000000f87f'::bytea from 29)),
	('fpr tighter than fingerprints', overlay(f placing substring(g from 29 for 8) from 29)),
	('capacity zero', overlay(f placing '\x0000000000000000'::bytea from 37)),
	('table offset', set_byte(f, 44, 0)),
	('buckets', set_byte(f, 53, 2)),
	('huge buckets', set_byte(f, 59, 255)),
	('count', set_byte(f, 60, 99)),
	('victim bucket without victim', set_byte(f, 68, 1)),
	('victim bucket out of range', set_byte(set_byte(f, 76, 5), 69, 255)),
	('victim wider than fingerprint', set_byte(set_byte(f, 76, 5), 78, 1)),
	('fingerprint bits 7', set_byte(f, 84, 7)),
	('fingerprint bits 200', set_byte(f, 84, 200)),
	('fingerprint bits 12', set_byte(f, 84, 12)),
	('table reserved', set_byte(f, 88, 1)),
	('header padding', set_byte(f, 100, 1)),
	('stray fingerprint', set_byte(f, 124, 1)),
	('slot padding', set_byte(f, length(f) - 1, 1)),
	('truncated', substring(f from 1 for length(f) - 1)),
	('trailing byte', f || '\x00'::bytea),
	('header only', substring(f from 1 for 44)),
	('empty', ''::bytea)
) v(w, b);
-- every one is rejected on every path: bytea cast, text input, binary COPY
CREATE FUNCTION pg_temp.rejects(b bytea, path text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF path = 'bytea' THEN
		PERFORM b::cuckoofilter;
	ELSE
		PERFORM replace(encode(b, 'base64'), E'\n', '')::cuckoofilter;
	END IF;
	RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT what, pg_temp.rejects(b, 'bytea') AS bytea, pg_temp.rejects(b, 'text') AS text FROM bad;
-- the messages say what is wrong
\set VERBOSITY default
SELECT b::cuckoofilter FROM bad WHERE what = 'count';
SELECT b::cuckoofilter FROM bad WHERE what = 'fpr tighter than fingerprints';
SELECT b::cuckoofilter FROM bad WHERE what = 'truncated';
SELECT replace(encode(b, 'base64'), E'\n', '')::cuckoofilter FROM bad WHERE what = 'victim bucket out of range';
-- binary COPY of bad bytes into a cuckoofilter column: 22P03
\copy (SELECT b FROM bad WHERE what = 'count') TO 'results/cuckoo_bad.bin' (FORMAT binary)
CREATE TEMP TABLE cio3 (f cuckoofilter);
\set VERBOSITY sqlstate
\copy cio3 FROM 'results/cuckoo_bad.bin' (FORMAT binary)
\set VERBOSITY default
SELECT count(*) FROM cio3;

-- format 1 (made before 1.1, which does not count removes) stays readable
-- and stays format 1 through adds and removes; its info has no count.
-- Bytes from the build before format 2.
\set f1 'AwEBAAAAAAAAAAAAAAAAAAAAAAABAAAAAAAAAHsUrkfheoQ/FAAAAAAAAACAAAAAAAAAAAYAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANU5Vh0AAAAAAAAAAAAAAAAAAAAAXAEAAAAAAAAAAAAAAAAAAAAAAAA='
SELECT md5(:'f1'::cuckoofilter::bytea) AS md5_unchanged,
       cuckoo_info(:'f1'::cuckoofilter)->>'format_version' AS format,
       cuckoo_info(:'f1'::cuckoofilter)->'deletes' AS deletes,
       cuckoo_contains(:'f1'::cuckoofilter, ARRAY['alpha', 'beta', 'gamma', 'delta']) AS contains,
       cuckoo_count(:'f1'::cuckoofilter, 'beta'::text) AS beta_copies;
SELECT cuckoo_info(g)->>'format_version' AS format, cuckoo_info(g)->'deletes' AS deletes,
       cuckoo_count(g, 'beta'::text) AS beta_copies
FROM cuckoo_remove(cuckoo_add(:'f1'::cuckoofilter, 'delta'::text), 'beta'::text) AS g;
-- format 2 counts the removes that took a copy out, not those of absent elements
SELECT cuckoo_info(f)->>'format_version' AS format, cuckoo_info(f)->'deletes' AS deletes
FROM (SELECT cuckoo_remove(cuckoo_remove(cuckoo_remove(cuckoo_add(cuckoo_create(100), ARRAY['a', 'b']),
                                                       'a'::text), 'zz'::text), ARRAY['b', 'b']) AS f) s;
-- a format-1 value whose deletes field is not zero is refused
\set VERBOSITY sqlstate
SELECT cuckoofilter(set_byte(:'f1'::cuckoofilter::bytea, 24, 1));
\set VERBOSITY default
