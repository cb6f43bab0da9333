--
-- countingbloom: membership, multiset add/remove, count, operators, every
-- element type, arrays, NULLs, union, info, saturation, errors
--
SET extra_float_digits = 0;

-- run a statement, return its SQLSTATE, message and detail (or 'ok')
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

-- multiset add / remove / count on text
CREATE TEMP TABLE cb AS SELECT counting_bloom_create(100) AS f;
UPDATE cb SET f = counting_bloom_add(counting_bloom_add(counting_bloom_add(f, 'apple'::text), 'apple'::text), 'pear'::text);
SELECT counting_bloom_contains(f, 'apple'::text) AS apple, counting_bloom_count(f, 'apple'::text) AS n_apple,
       counting_bloom_count(f, 'pear'::text) AS n_pear, counting_bloom_contains(f, 'plum'::text) AS plum,
       counting_bloom_count(f, 'plum'::text) AS n_plum, counting_bloom_info(f)->'count' AS count
  FROM cb;
UPDATE cb SET f = counting_bloom_remove(f, 'apple'::text);
SELECT counting_bloom_contains(f, 'apple'::text) AS apple, counting_bloom_count(f, 'apple'::text) AS n_apple,
       counting_bloom_info(f)->'count' AS count FROM cb;
UPDATE cb SET f = counting_bloom_remove(f, 'apple'::text);
SELECT counting_bloom_contains(f, 'apple'::text) AS apple, f @> 'pear'::text AS pear,
       counting_bloom_info(f)->'count' AS count FROM cb;
-- removing an element reported absent leaves the bytes unchanged
SELECT bytea(counting_bloom_remove(f, 'apple'::text)) = bytea(f) AS unchanged,
       bytea(counting_bloom_remove(f, 'never added'::text)) = bytea(f) AS unchanged2 FROM cb;
-- ... and removing the last element gives back the empty filter, byte for byte
SELECT bytea(counting_bloom_remove(f, 'pear'::text)) = bytea(counting_bloom_create(100)) AS empty_again FROM cb;

-- every element type, both operators, arrays
SELECT t, counting_bloom_contains(f, 'x'::text) AS text_, counting_bloom_contains(f, '\x0102'::bytea) AS bytea_,
       counting_bloom_contains(f, 42::bigint) AS bigint_, f @> 7 AS int_via_cast,
       counting_bloom_contains(f, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS uuid_,
       'x'::text <@ f AS op1, f @> '\x0102'::bytea AS op2, 42::bigint <@ f AS op3,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ f AS op4
  FROM (SELECT 'single' AS t,
               counting_bloom_add(counting_bloom_add(counting_bloom_add(counting_bloom_add(counting_bloom_add(
                 counting_bloom_create(10), 'x'::text), '\x0102'::bytea), 42::bigint), 7),
                 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS f
        UNION ALL
        SELECT 'arrays',
               counting_bloom_add(counting_bloom_add(counting_bloom_add(counting_bloom_add(
                 counting_bloom_create(10), ARRAY['x', NULL]::text[]), ARRAY['\x0102'::bytea]),
                 ARRAY[42, 7, NULL]::bigint[]), ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid])
        UNION ALL
        SELECT 'removed',
               counting_bloom_remove(counting_bloom_remove(counting_bloom_remove(counting_bloom_remove(
                 counting_bloom_add(counting_bloom_add(counting_bloom_add(counting_bloom_add(
                 counting_bloom_create(10), ARRAY['x']::text[]), ARRAY['\x0102'::bytea]),
                 ARRAY[42, 7]::bigint[]), ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]),
                 'x'::text), ARRAY['\x0102'::bytea]), ARRAY[42, 7]::bigint[]),
                 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)) s
 ORDER BY t;
-- text and bytea hash as their bytes: the same element
SELECT counting_bloom_contains(counting_bloom_add(counting_bloom_create(10), 'abc'::text), 'abc'::bytea) AS text_is_bytea;
-- an array add counts each element: duplicates twice
SELECT counting_bloom_count(f, 'd'::text) AS n, counting_bloom_info(f)->'count' AS count
  FROM (SELECT counting_bloom_add(counting_bloom_create(10), ARRAY['d', 'd', 'e']) AS f) s;

-- NULLs: NULL in, NULL out (but a probe of a NULL filter: sql/null_filter.sql)
SELECT counting_bloom_add(NULL::countingbloom, 'x'::text) IS NULL AS a,
       counting_bloom_add(counting_bloom_create(10), NULL::text) IS NULL AS b,
       counting_bloom_contains(counting_bloom_create(10), NULL::bigint) IS NULL AS c,
       counting_bloom_count(counting_bloom_create(10), NULL::uuid) IS NULL AS d,
       counting_bloom_remove(NULL, 'x'::text) IS NULL AS e;

-- saturation: 20 adds of one element stick at 15, and 20 removes do not
-- bring it back to zero (a saturated counter is never decremented)
CREATE TEMP TABLE sat AS SELECT counting_bloom_add(counting_bloom_create(100),
       array_fill('hot'::text, ARRAY[20])) AS f;
SELECT counting_bloom_count(f, 'hot'::text) AS n, (counting_bloom_info(f)->>'saturated')::int BETWEEN 1 AND (counting_bloom_info(f)->>'hashes')::int AS some_saturated,
       counting_bloom_info(f)->'saturated' = counting_bloom_info(f)->'nonzero' AS all_nonzero_saturated,
       counting_bloom_info(f)->'count' AS count FROM sat;
UPDATE sat SET f = counting_bloom_remove(f, array_fill('hot'::text, ARRAY[20]));
SELECT counting_bloom_count(f, 'hot'::text) AS n, f @> 'hot'::text AS still_reported,
       counting_bloom_info(f)->'count' AS count FROM sat;
-- with nothing in, a remove changes nothing
SELECT bytea(counting_bloom_remove(f, 'hot'::text)) = bytea(f) AS unchanged FROM sat;
-- a saturated counter shared with another element keeps that element in
-- through any number of removes of the hot one
CREATE TEMP TABLE sat2 AS SELECT counting_bloom_add(counting_bloom_add(counting_bloom_create(100),
       array_fill(1::bigint, ARRAY[16])), (SELECT array_agg(x) FROM generate_series(2, 40) x)) AS f;
UPDATE sat2 SET f = counting_bloom_remove(f, array_fill(1::bigint, ARRAY[16]));
SELECT count(*) FILTER (WHERE NOT f @> x) AS false_negatives FROM sat2, generate_series(2, 40) x;

-- capacity: adds minus removes
SELECT pg_temp.err($$SELECT counting_bloom_add(counting_bloom_add(counting_bloom_add(counting_bloom_create(2), 'a'::text), 'b'::text), 'c'::text)$$);
SELECT pg_temp.err($$SELECT counting_bloom_add(counting_bloom_create(2), ARRAY['a', 'a', 'a'])$$);
SELECT counting_bloom_info(counting_bloom_add(counting_bloom_remove(counting_bloom_add(counting_bloom_add(
       counting_bloom_create(2), 'a'::text), 'b'::text), 'a'::text), 'c'::text))->'count' AS count_after_remove_then_add;

-- union: counters added
SELECT counting_bloom_count(u, 'a'::text) AS a, counting_bloom_count(u, 'b'::text) AS b,
       counting_bloom_count(u, 'c'::text) AS c, counting_bloom_info(u)->'count' AS count
  FROM (SELECT counting_bloom_union(counting_bloom_add(counting_bloom_create(10), ARRAY['a', 'b']),
                                    counting_bloom_add(counting_bloom_create(10), ARRAY['a', 'c'])) AS u) s;
SELECT pg_temp.err($$SELECT counting_bloom_union(counting_bloom_create(10), counting_bloom_create(11))$$);
SELECT pg_temp.err($$SELECT counting_bloom_union(counting_bloom_create(10), counting_bloom_create(10, 0.02))$$);
-- same capacity and rate, another k (as a filter sized by an older release
-- may have): byte 24 of the bytea form is nhashes; k = 2 in these 2 blocks
-- still meets 1%, so the value is valid, but the union must refuse it
SELECT counting_bloom_info(set_byte(bytea(counting_bloom_create(10)), 24, 2)::countingbloom)->'hashes' AS crafted_k;
SELECT pg_temp.err($$SELECT counting_bloom_union(counting_bloom_create(10),
                            set_byte(bytea(counting_bloom_create(10)), 24, 2)::countingbloom)$$);
SELECT pg_temp.err($$SELECT counting_bloom_union(counting_bloom_add(counting_bloom_create(2), ARRAY['a', 'b']),
                            counting_bloom_add(counting_bloom_create(2), 'c'::text))$$);

-- info of an empty filter: geometry follows from (capacity, fpr)
SELECT key, value FROM jsonb_each(counting_bloom_info(counting_bloom_create(1000, 0.01)))
 WHERE key NOT IN ('fpr_at_capacity') ORDER BY key;

-- parameter errors (22023) and a filter too large for one value (54000)
SELECT q, pg_temp.err(q) FROM (VALUES
	('SELECT counting_bloom_create(0)'),
	('SELECT counting_bloom_create(-5, 0.01)'),
	('SELECT counting_bloom_create(10, 0)'),
	('SELECT counting_bloom_create(10, 1)'),
	('SELECT counting_bloom_create(10, -0.5)'),
	('SELECT counting_bloom_create(10, ''NaN'')'),
	('SELECT counting_bloom_create(10, 1e-16)'),
	('SELECT counting_bloom_create(1000000000000, 0.01)')) v(q);
-- just past the largest capacity the 54000 error reports
SELECT pg_temp.err('SELECT counting_bloom_create(195252147, 0.01)');

-- test-and-add, add-if-absent: only the absent are added, each once, so
-- one remove takes an added element out again; NULLs stay NULL
SELECT added, counting_bloom_contains(filter, 'b'::text) AS b_in,
       counting_bloom_contains(counting_bloom_remove(filter, 'b'::text), 'b'::text) AS b_after_one_remove
FROM (SELECT counting_bloom_add(counting_bloom_create(1000), 'a'::text) AS f) s,
     LATERAL counting_bloom_test_and_add(f, ARRAY['a', 'b', 'b', NULL]);
-- 20,000 elements, 10,000 distinct: every one found after, and at most
-- the false positives of a 0.1% filter among the new ones lost
SELECT (SELECT count(*) FROM unnest(added) a WHERE a) BETWEEN 9950 AND 10000 AS new_count_ok,
       (SELECT bool_and(x) FROM unnest(counting_bloom_contains(filter,
           (SELECT array_agg(i::bigint) FROM generate_series(0, 9999) i))) x) AS all_found
FROM counting_bloom_test_and_add(counting_bloom_create(100000, 0.001),
                                 (SELECT array_agg(i::bigint % 10000) FROM generate_series(1, 20000) i));
