-- cuckoofilter: create, add, remove, count, contains, operators, arrays,
-- every element type, NULLs, parameters and their errors, golden vectors.

-- geometry of a new filter: 1000 at 1% -> 264 buckets of 4 (95% load),
-- 10-bit fingerprints (8 * 2^-10 is under 0.01)
SELECT i->'buckets' AS buckets, i->'tables' AS tables,
       i->'fingerprint_bits' AS fp_bits, i->'bytes' AS bytes,
       i->'capacity' AS capacity, i->'count' AS count, i->'load' AS load,
       i->'fpr_target' AS fpr_target, i->'fpr_estimate' AS fpr_estimate,
       i->'bits_per_element' AS bits_per_element, i->'format_version' AS version
FROM (SELECT cuckoo_info(cuckoo_create(1000)) AS i) s;
-- every key the contract names is there
SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(cuckoo_info(cuckoo_create(10))) k;
-- tighter targets, wider fingerprints
SELECT fpr, (cuckoo_info(cuckoo_create(10000, fpr))->>'fingerprint_bits')::int AS fp_bits
FROM unnest(ARRAY[0.5, 0.1, 0.03, 0.01, 0.001, 0.0001, 1e-6, 1e-9, 1e-15]::float8[]) fpr;

-- text, bytea, bigint and uuid elements; add, probe, count, remove
CREATE TEMP TABLE cf AS SELECT cuckoo_create(100) AS f;
UPDATE cf SET f = cuckoo_add(f, 'apple'::text);
UPDATE cf SET f = cuckoo_add(f, '\x0102'::bytea);
UPDATE cf SET f = cuckoo_add(f, 42::bigint);
UPDATE cf SET f = cuckoo_add(f, 7);				-- integer reaches bigint by cast
UPDATE cf SET f = cuckoo_add(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
SELECT cuckoo_contains(f, 'apple'::text) AS t1, cuckoo_contains(f, 'pear'::text) AS t2,
       cuckoo_contains(f, '\x0102'::bytea) AS b1, cuckoo_contains(f, '\x0103'::bytea) AS b2,
       cuckoo_contains(f, 42::bigint) AS i1, cuckoo_contains(f, 43::bigint) AS i2,
       cuckoo_contains(f, 7::smallint) AS i3,
       cuckoo_contains(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS u1,
       cuckoo_contains(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid) AS u2
FROM cf;
-- text and bytea with the same bytes are the same element
SELECT cuckoo_contains(f, 'apple'::bytea), cuckoo_contains(f, '\x0102'::bytea::text) FROM cf;
-- operators, both directions, all element types
SELECT f @> 'apple'::text, 'apple'::text <@ f, f @> 'pear'::text, 'pear'::text <@ f,
       f @> '\x0102'::bytea, '\x0102'::bytea <@ f, f @> 42::bigint, 42::bigint <@ f,
       f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ f
FROM cf;
SELECT cuckoo_count(f, 'apple'::text), cuckoo_count(f, '\x0102'::bytea),
       cuckoo_count(f, 42::bigint), cuckoo_count(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
       cuckoo_count(f, 'pear'::text), (cuckoo_info(f)->>'count')::int AS total
FROM cf;

-- multiset: two adds need two removes
UPDATE cf SET f = cuckoo_add(f, 'apple'::text);
SELECT cuckoo_count(f, 'apple'::text) FROM cf;
UPDATE cf SET f = cuckoo_remove(f, 'apple'::text);
SELECT cuckoo_count(f, 'apple'::text), f @> 'apple'::text FROM cf;
UPDATE cf SET f = cuckoo_remove(f, 'apple'::text);
SELECT cuckoo_count(f, 'apple'::text), f @> 'apple'::text FROM cf;
UPDATE cf SET f = cuckoo_remove(f, '\x0102'::bytea);
UPDATE cf SET f = cuckoo_remove(f, 42::bigint);
UPDATE cf SET f = cuckoo_remove(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
SELECT f @> '\x0102'::bytea, f @> 42::bigint, f @> 7::bigint,
       f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
       (cuckoo_info(f)->>'count')::int AS total
FROM cf;
-- removing what the filter reports absent leaves it byte for byte unchanged
SELECT cuckoo_remove(f, 'never added'::text)::bytea = f::bytea AS unchanged,
       cuckoo_remove(f, 'apple'::text)::bytea = f::bytea AS unchanged_after_removal,
       cuckoo_remove(f, 123456::bigint)::bytea = f::bytea AS unchanged_int
FROM cf;
-- removing the last copy gives back the empty filter's bytes, but for
-- the count of removes (the header's deletes field, at byte 24 of the bytes)
SELECT set_byte(cuckoo_remove(cuckoo_add(cuckoo_create(100), 'x'::text), 'x'::text)::bytea, 24, 0)
       = cuckoo_create(100)::bytea AS back_to_empty,
       cuckoo_info(cuckoo_remove(cuckoo_add(cuckoo_create(100), 'x'::text), 'x'::text))->'deletes' AS deletes;

-- arrays: one call, NULL elements skipped, duplicates are copies
SELECT cuckoo_count(f, 'a'::text) AS a, cuckoo_count(f, 'b'::text) AS b,
       (cuckoo_info(f)->>'count')::int AS total
FROM (SELECT cuckoo_add(cuckoo_create(100), ARRAY['a', 'b', NULL, 'a']::text[]) AS f) s;
SELECT f @> 1::bigint AND f @> 2::bigint AND f @> 3::bigint AS ints,
       cuckoo_add(cuckoo_create(10), ARRAY[]::bigint[])::bytea = cuckoo_create(10)::bytea AS empty_array
FROM (SELECT cuckoo_add(cuckoo_create(100), ARRAY[1, 2, 3]::bigint[]) AS f) s;
SELECT cuckoo_add(cuckoo_create(100), ARRAY['\x01', '\x02']::bytea[]) @> '\x02'::bytea,
       cuckoo_add(cuckoo_create(100), ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']::uuid[])
         @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- (terse: the DETAIL and HINT of "does not exist" changed in PostgreSQL 19)
\set VERBOSITY terse
SELECT cuckoo_add(cuckoo_create(100), ARRAY[1.5]::numeric[]);
\set VERBOSITY default

-- the same fingerprint more times than its two buckets (8 slots) hold:
-- the ninth goes to the victim slot, the tenth grows the filter
CREATE TEMP TABLE same AS SELECT cuckoo_create(1000) AS f;
CREATE TEMP TABLE same_counts (n int, count int, tables int);
DO $$
BEGIN
	FOR i IN 1..25 LOOP
		UPDATE same SET f = cuckoo_add(f, 'again'::text);
		INSERT INTO same_counts
			SELECT i, cuckoo_count(f, 'again'::text), (cuckoo_info(f)->>'tables')::int FROM same;
	END LOOP;
END $$;
SELECT n, count, tables FROM same_counts WHERE n IN (1, 8, 9, 10, 17, 18, 19, 25) ORDER BY n;
SELECT bool_and(count = n) AS every_count_exact FROM same_counts;
DO $$
BEGIN
	FOR i IN REVERSE 25..1 LOOP
		UPDATE same SET f = cuckoo_remove(f, 'again'::text);
		IF (SELECT cuckoo_count(f, 'again'::text) FROM same) <> i - 1 THEN
			RAISE EXCEPTION 'count % after removing copy %', (SELECT cuckoo_count(f, 'again'::text) FROM same), i;
		END IF;
	END LOOP;
END $$;
SELECT cuckoo_count(f, 'again'::text), f @> 'again'::text, cuckoo_info(f)->'count' FROM same;

-- the limits of growth: about 9 copies of one key per table and 64 tables;
-- at 1e-15 the fingerprints reach 64 bits after a dozen growths
DO $$
DECLARE
	f cuckoofilter := cuckoo_create(10);
BEGIN
	FOR i IN 1..700 LOOP
		f := cuckoo_add(f, 'hot'::text);
	END LOOP;
END $$;
SELECT cuckoo_add(cuckoo_create(10, 1e-15), array_agg(g)) IS NOT NULL FROM generate_series(1, 100000) g;
SELECT cuckoo_info(f)->'tables' AS tables, cuckoo_info(f)->'fingerprint_bits' AS fp_bits,
       (cuckoo_info(f)->>'fpr_bound')::float8 <= 1e-15 AS bound_ok
FROM (SELECT cuckoo_add(cuckoo_create(10, 1e-15), array_agg(g)) AS f FROM generate_series(1, 10000) g) s;

-- NULLs: NULL in, NULL out, but for a probe of a NULL filter, which
-- contains nothing (sql/null_filter.sql)
SELECT cuckoo_add(NULL::cuckoofilter, 'a'::text) IS NULL,
       cuckoo_add(cuckoo_create(10), NULL::text) IS NULL,
       cuckoo_contains(cuckoo_create(10), NULL::text) IS NULL,
       cuckoo_remove(cuckoo_create(10), NULL::bigint) IS NULL,
       cuckoo_count(NULL, 'a'::text) = 0,
       cuckoo_create(NULL) IS NULL,
       cuckoo_info(NULL) IS NULL;

-- parameter errors
\set VERBOSITY sqlstate
SELECT cuckoo_create(0);
SELECT cuckoo_create(-5);
SELECT cuckoo_create(100, 0);
SELECT cuckoo_create(100, 1);
SELECT cuckoo_create(100, -0.1);
SELECT cuckoo_create(100, 'NaN');
SELECT cuckoo_create(100, 1e-16);
SELECT cuckoo_create(9000000000000000000);
SELECT cuckoo_create(2000000000, 0.01);
\set VERBOSITY default
SELECT cuckoo_create(0);
SELECT cuckoo_create(100, 1.5);
SELECT cuckoo_create(2000000000, 0.01);

-- golden vectors: a format change cannot slip in unnoticed
SELECT md5(cuckoo_create(1000)::bytea);
SELECT md5(cuckoo_add(cuckoo_create(1000), ARRAY['alpha', 'beta', 'gamma']::text[])::bytea);
SELECT md5(cuckoo_add(cuckoo_create(100, 0.001), array_agg(g))::bytea)
FROM generate_series(1, 1000) g;
SELECT cuckoo_add(cuckoo_create(3), ARRAY['a', 'b']::text[]);

-- remove of an array: each non-NULL element once, in order; an element
-- never added is left alone; a NULL array removes nothing
SELECT cuckoo_contains(g, 'a'::text) AS a, cuckoo_contains(g, 'b'::text) AS b,
       cuckoo_contains(g, 'c'::text) AS c, cuckoo_count(g, 'a'::text) AS a_copies,
       bytea(cuckoo_remove(f, NULL::text[])) = bytea(f) AS null_array_keeps_f
FROM (SELECT cuckoo_add(cuckoo_add(cuckoo_create(1000), ARRAY['a', 'a', 'b', 'c']), 'x'::text) AS f) s,
     LATERAL cuckoo_remove(f, ARRAY['a', 'b', NULL, 'zz']) AS g;
