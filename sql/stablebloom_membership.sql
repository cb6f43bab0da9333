--
-- stablebloom: create, add, contains, operators, element types, arrays,
-- NULLs, info, determinism and forgetting
--
SET max_parallel_workers_per_gather = 0;

-- an empty filter contains nothing; an added element is contained at once
SELECT stable_bloom_contains(stable_bloom_create(1000), 'a') AS empty_has_a,
       stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000), 'a'), 'a') AS has_a,
       stable_bloom_add(stable_bloom_create(1000), 'a') @> 'a'::text AS op_contains,
       'a'::text <@ stable_bloom_add(stable_bloom_create(1000), 'a') AS op_contained;

-- every element type, hashed as the contract says (text as its bytes, so
-- text and bytea agree; bigint as 8 little-endian bytes; uuid its 16 bytes)
SELECT stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000), 42::bigint), 42::bigint) AS bigint_in,
       stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000), 42), 42) AS int_by_cast,
       stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000), 'abc'::text), 'abc'::bytea) AS text_is_bytea,
       stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
                             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS uuid_in,
       bytea(stable_bloom_add(stable_bloom_create(1000), 42::bigint))
         = bytea(stable_bloom_add(stable_bloom_create(1000), '\x2a00000000000000'::bytea)) AS bigint_le_bytes,
       bytea(stable_bloom_add(stable_bloom_create(1000), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))
         = bytea(stable_bloom_add(stable_bloom_create(1000), '\xa0eebc999c0b4ef8bb6d6bb9bd380a11'::bytea)) AS uuid_bytes;
SELECT stable_bloom_add(stable_bloom_create(1000), 7::bigint) @> 7::bigint AS op_bigint,
       7::bigint <@ stable_bloom_add(stable_bloom_create(1000), 7::bigint) AS op_bigint_rev,
       stable_bloom_add(stable_bloom_create(1000), '\x01'::bytea) @> '\x01'::bytea AS op_bytea,
       stable_bloom_add(stable_bloom_create(1000), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
         @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS op_uuid;

-- NULL in, NULL out (but a probe of a NULL filter: sql/null_filter.sql)
SELECT stable_bloom_add(NULL, 'a'::text) IS NULL AS add_null_filter,
       stable_bloom_add(stable_bloom_create(10), NULL::text) IS NULL AS add_null_element,
       stable_bloom_contains(stable_bloom_create(10), NULL::text) IS NULL AS contains_null,
       stable_bloom_create(NULL) IS NULL AS create_null,
       stable_bloom_info(NULL) IS NULL AS info_null;

-- arrays insert their non-NULL elements in order: the same bytes as one
-- add per element, and as the aggregate over the same order
SELECT bytea(stable_bloom_add(stable_bloom_create(500), ARRAY['a', NULL, 'b', 'c']))
         = bytea(stable_bloom_add(stable_bloom_add(stable_bloom_add(stable_bloom_create(500), 'a'), 'b'), 'c')) AS array_is_adds,
       bytea(stable_bloom_add(stable_bloom_create(500), ARRAY['c', 'b', 'a']))
         = bytea(stable_bloom_add(stable_bloom_create(500), ARRAY['a', 'b', 'c'])) AS order_matters;
SELECT bytea(stable_bloom_agg(x, 500, 0.01 ORDER BY i))
         = bytea(stable_bloom_add(stable_bloom_create(500), ARRAY['a', 'b', 'c'])) AS agg_is_adds
FROM (VALUES (1, 'a'::text), (2, NULL), (3, 'b'), (4, 'c')) v(i, x);

-- determinism: the same stream twice gives identical bytes
SELECT md5(bytea(stable_bloom_agg(g % 3000, 4000, 0.01 ORDER BY g)))
         = (SELECT md5(bytea(stable_bloom_agg(g % 3000, 4000, 0.01 ORDER BY g))) FROM generate_series(1, 50000) g) AS same_stream_same_bytes
FROM generate_series(1, 50000) g;

-- info of an empty and of a used filter
SELECT jsonb_pretty(stable_bloom_info(stable_bloom_create(1000000)) - 'fpr_bound' - 'fnr_after')
       AS info_default;
SELECT round((i->>'fpr_bound')::numeric, 6) AS fpr_bound,
       (SELECT jsonb_object_agg(k, round(v::numeric, 4)) FROM jsonb_each_text(i->'fnr_after') e(k, v)) AS fnr_after
FROM (SELECT stable_bloom_info(stable_bloom_create(1000000)) AS i) s;
SELECT (i->>'inserted')::int AS inserted, (i->>'nonzero')::int AS nonzero,
       (i->>'fill')::float8 = (i->>'nonzero')::float8 / 1000 AS fill_is_nonzero_over_cells,
       (i->>'fpr_estimate')::float8 = round(power((i->>'fill')::float8, 5)::numeric, 9)::float8 AS estimate_is_fill_to_k
FROM (SELECT stable_bloom_info(stable_bloom_add(stable_bloom_create(1000), ARRAY['a', 'b', 'c'])) AS i) s;
-- the bound never exceeds the target, and cell width changes K and P
SELECT b AS cell_bits, (i->>'hashes')::int AS hashes, (i->>'decrement')::int AS decrement,
       (i->>'fpr_bound')::float8 <= 0.01 AS bound_ok, (i->>'memory_half_life')::int AS half_life
FROM generate_series(1, 8) b, LATERAL (SELECT stable_bloom_info(stable_bloom_create(100000, 0.01, b)) AS i) s;
SELECT f AS fpr, (i->>'hashes')::int AS hashes, (i->>'decrement')::int AS decrement,
       (i->>'fpr_bound')::float8 <= f AS bound_ok
FROM unnest(ARRAY[0.5, 0.1, 0.01, 0.001, 1e-6, 1e-12]) f,
     LATERAL (SELECT stable_bloom_info(stable_bloom_create(100000, f)) AS i) s;

-- it forgets: an element inserted once, followed by many others, decays
-- out; one inserted again recently is still there
SELECT stable_bloom_contains(f, 'old') AS old_forgotten, stable_bloom_contains(f, 'recent') AS recent_kept
FROM (SELECT stable_bloom_add(stable_bloom_add(stable_bloom_add(stable_bloom_create(1000), 'old'),
                                               (SELECT array_agg(g::text) FROM generate_series(1, 5000) g)),
                              'recent') AS f) s;
-- and its fill stays bounded: 100 times more inserts than cells
SELECT abs((i->>'fill')::float8 - (i->>'stable_fill')::float8) < 0.05 AS fill_at_model_stable_fill
FROM (SELECT stable_bloom_info(stable_bloom_agg(g, 1000, 0.01 ORDER BY g)) AS i FROM generate_series(1, 100000) g) s;

-- probes of a filter read from a table are cached per query: same answers
CREATE TABLE sb_probe AS SELECT stable_bloom_agg(g::text, 100000, 0.01 ORDER BY g) AS f FROM generate_series(1, 1000) g;
SELECT count(*) FILTER (WHERE stable_bloom_contains(p.f, g::text)) AS found_recent,
       count(*) FILTER (WHERE g::text <@ p.f) AS found_op
FROM sb_probe p, generate_series(1, 1000) g;
DROP TABLE sb_probe;

-- test-and-add: every element inserted, in order, as stable_bloom_add
-- inserts it, and which were new (a batch's duplicates new once)
SELECT added, bytea(filter) = bytea(stable_bloom_add(f, ARRAY['a', 'b', 'b'])) AS same_as_add
FROM (SELECT stable_bloom_add(stable_bloom_create(100000), 'a'::text) AS f) s,
     LATERAL stable_bloom_test_and_add(f, ARRAY['a', 'b', NULL, 'b']);
