--
-- bloomfilter aggregates: sizing, NULLs, empty input, union/intersection
--
SET max_parallel_workers_per_gather = 0;

-- zero rows give an empty filter, never NULL, with the parameters asked for
SELECT bloom_agg(x) IS NULL AS is_null,
       bloom_info(bloom_agg(x))->>'inserted' AS inserted,
       bloom_contains(bloom_agg(x), 'anything') AS contains
FROM (SELECT 'a'::text AS x WHERE false) s;
SELECT bloom_info(bloom_agg(x, 0.001))->>'fpr_target' AS fpr_target
FROM (SELECT 'a'::text AS x WHERE false) s;
SELECT bloom_info(f)->>'capacity' AS capacity, bloom_info(f)->>'fpr_target' AS fpr_target
FROM (SELECT bloom_agg(x, 5000, 0.02) AS f FROM (SELECT 'a'::text AS x WHERE false) s) t;
-- ... also when they are a prepared statement's parameters (a generic
-- plan: no constant to read)
SET plan_cache_mode = force_generic_plan;
PREPARE zero_rows(bigint, float8) AS
SELECT bloom_info(f)->>'capacity' AS capacity, bloom_info(f)->>'fpr_target' AS fpr_target,
       counting_bloom_info(c)->>'capacity' AS counting_capacity
FROM (SELECT bloom_agg(x, $1, $2) AS f, counting_bloom_agg(x, $1, $2) AS c
      FROM (SELECT 'a'::text AS x WHERE false) s) t;
EXECUTE zero_rows(5000, 0.001);
DEALLOCATE zero_rows;
RESET plan_cache_mode;
-- where the final function cannot see the call (Citus's coordinator calls
-- it outside an aggregate), an error rather than a filter of other
-- parameters; and a NULL parameter is refused as the transition does
SELECT err($$SELECT bloom_agg_final(NULL::bloomfilter)$$);
SELECT err($$SELECT bloom_agg(x, NULL, 0.01) FROM (SELECT 'a'::text AS x WHERE false) s$$);
SELECT bloom_union_agg(f) IS NULL AS union_null, bloom_intersection_agg(f) IS NULL AS intersection_null
FROM (SELECT bloom_create(10) AS f WHERE false) s;
-- NOT bloom_contains over an empty aggregate keeps every row
SELECT count(*) AS kept
FROM generate_series(1, 100) g
WHERE NOT bloom_contains((SELECT bloom_agg(x::text) FROM generate_series(1, 0) x), g::text);

-- NULL rows are skipped; all-NULL input is an empty filter
SELECT bloom_info(bloom_agg(x))->>'inserted' AS inserted,
       bloom_info(bloom_agg(x, 10, 0.01))->>'inserted' AS inserted_sized
FROM (VALUES (NULL::text), (NULL)) v(x);
SELECT bytea(bloom_agg(x, 100, 0.01)) = bytea(bloom_add(bloom_create(100, 0.01), ARRAY['a', 'b'])) AS nulls_skipped
FROM (VALUES ('a'::text), (NULL), ('b'), (NULL)) v(x);

-- NULL in, NULL out (but a probe of a NULL filter: sql/null_filter.sql)
SELECT bloom_add(NULL, 'a'::text) IS NULL AS add_null_filter,
       bloom_add(bloom_create(10), NULL::text) IS NULL AS add_null_element,
       bloom_contains(bloom_create(10), NULL::text) IS NULL AS contains_null,
       bloom_create(NULL) IS NULL AS create_null;
-- arrays skip their NULL elements
SELECT bytea(bloom_add(bloom_create(100), ARRAY['a', NULL, 'b'])) = bytea(bloom_add(bloom_create(100), ARRAY['a', 'b'])) AS array_nulls_skipped;

-- bloom_agg(x) is sized for the number of DISTINCT inputs: exactly the
-- filter bloom_create(distinct count) would be, with the same bytes
CREATE TABLE dup AS SELECT (i % 7000)::text AS x, i % 7000 AS n, md5((i % 7000)::text)::uuid AS u
FROM generate_series(1, 21000) i;
SELECT bytea(bloom_agg(x)) = bytea(bloom_add(bloom_create(7000, 0.01), (SELECT array_agg(x) FROM dup))) AS text_sized_exactly,
       bytea(bloom_agg(n::bigint, 0.001)) = bytea(bloom_add(bloom_create(7000, 0.001), (SELECT array_agg(n::bigint) FROM dup))) AS bigint_sized_exactly,
       bytea(bloom_agg(u)) = bytea(bloom_add(bloom_create(7000), (SELECT array_agg(u) FROM dup))) AS uuid_sized_exactly,
       bytea(bloom_agg(x::bytea)) = bytea(bloom_add(bloom_create(7000), (SELECT array_agg(x::bytea) FROM dup))) AS bytea_sized_exactly,
       (bloom_info(bloom_agg(x))->>'capacity')::int AS capacity,
       (bloom_info(bloom_agg(x))->>'stages')::int AS stages
FROM dup;
-- the sized form is bloom_create(capacity, fpr) plus every input
SELECT bytea(bloom_agg(x, 8000, 0.01)) = bytea(bloom_add(bloom_create(8000, 0.01), (SELECT array_agg(x) FROM dup))) AS sized_matches_create,
       (bloom_info(bloom_agg(x, 8000, 0.01))->>'stages')::int AS stages
FROM dup;
-- ... but it does not grow: past what capacity holds it raises 54000, as
-- a parallel or distributed plan's combine does (bloom_parallel), where a
-- partial state cannot know which of its elements a serial build would
-- have put in a later stage
SELECT err($$SELECT bloom_agg(x, 3000, 0.01) FROM dup$$);
-- a state big enough to be kept cache-line aligned (8 kB and up): the
-- same bytes as bloom_add
SELECT bytea(bloom_agg(i, 40000, 0.01)) = bytea(bloom_add(bloom_create(40000, 0.01), (SELECT array_agg(i::bigint) FROM generate_series(1, 40000) i))) AS aligned_matches_create,
       (bloom_info(bloom_create(8000, 0.01))->>'bytes')::int >= 8192 AS starts_aligned
FROM generate_series(1, 40000) i;

-- estimates
SELECT abs(bloom_cardinality(f) - 100000) < 3000 AS cardinality_within_3pct,
       bloom_fpr(f) BETWEEN 0.002 AND 0.01 AS fpr_estimate_sane
FROM (SELECT bloom_agg(i) AS f FROM generate_series(1, 100000) i) s;
SELECT array(SELECT jsonb_object_keys(bloom_info(bloom_create(10))) ORDER BY 1) AS info_keys;
SELECT bloom_info(bloom_create(1000, 0.01, 'standard', false)) - 'stage_info' AS info;

-- union: contains what either contains; same bytes as adding both sets
CREATE TABLE halves AS
SELECT bloom_agg(i, 10000, 0.01) FILTER (WHERE i % 2 = 0) AS even,
       bloom_agg(i, 10000, 0.01) FILTER (WHERE i % 2 = 1) AS odd,
       bloom_agg(i, 10000, 0.01) AS whole
FROM generate_series(1, 8000) i;
SELECT bytea(even | odd) = bytea(whole) AS union_is_whole,
       bytea(bloom_union(odd, even)) = bytea(whole) AS union_commutes,
       (SELECT count(*) FROM generate_series(1, 8000) i WHERE NOT bloom_contains(even | odd, i)) AS false_negatives
FROM halves;
SELECT bytea(bloom_union_agg(f)) = (SELECT bytea(whole) FROM halves) AS union_agg_is_whole
FROM (SELECT even AS f FROM halves UNION ALL SELECT odd FROM halves UNION ALL SELECT NULL) s;
-- intersection: contains at least what both contain
SELECT (SELECT count(*) FROM generate_series(2001, 6000) i WHERE NOT bloom_contains(a & b, i)) AS false_negatives,
       (SELECT count(*) FROM generate_series(1, 2000) i WHERE bloom_contains(a & b, i)) < 100 AS mostly_drops_a_only
FROM (SELECT bloom_agg(i, 10000, 0.01) FILTER (WHERE i <= 6000) AS a,
             bloom_agg(i, 10000, 0.01) FILTER (WHERE i > 2000) AS b
      FROM generate_series(1, 8000) i) s;
SELECT (SELECT count(*) FROM generate_series(2001, 6000) i WHERE NOT bloom_contains(f, i)) AS intersection_agg_false_negatives
FROM (SELECT bloom_intersection_agg(f) AS f FROM (
	SELECT bloom_agg(i, 10000, 0.01) AS f FROM generate_series(1, 6000) i
	UNION ALL SELECT bloom_agg(i, 10000, 0.01) FROM generate_series(2001, 8000) i) s) t;

-- combining filters whose geometry differs is an error that says why
SELECT err($$SELECT bloom_create(100) | bloom_create(200)$$);
SELECT err($$SELECT bloom_create(100) | bloom_create(100, 0.02)$$);
SELECT err($$SELECT bloom_create(100) | bloom_create(100, 0.01, 'standard')$$);
SELECT err($$SELECT bloom_create(100) | bloom_create(100, 0.01, 'blocked', false)$$);
SELECT err($$SELECT bloom_create(100) & bloom_create(200)$$);
SELECT err($$SELECT bloom_union_agg(f) FROM (VALUES (bloom_create(100)), (bloom_create(300))) v(f)$$);
-- a grown (multi-stage) filter unions fine with a smaller one...
SELECT (bloom_info(g | s)->>'stages')::int AS stages,
       (SELECT count(*) FROM generate_series(1, 1000) i WHERE NOT bloom_contains(g | s, i)) AS false_negatives
FROM (SELECT bloom_add(bloom_create(100, 0.01), array_agg(i::bigint)) AS g FROM generate_series(1, 1000) i) a,
     (SELECT bloom_agg(i, 100, 0.01) AS s FROM generate_series(1, 10) i) b;
-- ... but intersecting it could lose elements (they may sit in different
-- stages of each side), so that is refused
SELECT err($$SELECT g & g FROM (SELECT bloom_add(bloom_create(100, 0.01), array_agg(i::bigint)) AS g FROM generate_series(1, 1000) i) a$$);
-- and a union that would take a stage past its rate budget is refused
SELECT err($$SELECT bloom_union(a, b) FROM
	(SELECT bloom_agg(i::text, 1000, 0.01) FILTER (WHERE i <= 1000) AS a,
	        bloom_agg(i::text, 1000, 0.01) FILTER (WHERE i > 1000) AS b
	 FROM generate_series(1, 2000) i) x$$);

-- operators, for every element type
SELECT f @> 'a'::text AS text_in, 'a'::text <@ f AS text_in_commuted, f @> 'zz'::text AS text_out,
       f @> 7::bigint AS bigint_in, 7 <@ f AS int_in_commuted, f @> 8 AS int_out,
       f @> '\x0102'::bytea AS bytea_in,
       f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid_in
FROM (SELECT bloom_add(bloom_add(bloom_add(bloom_add(bloom_create(100), 'a'::text), 7::bigint),
      '\x0102'::bytea), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS f) s;
-- a text literal resolves to the text element
SELECT bloom_contains(bloom_add(bloom_create(10), 'lit'), 'lit') AS literal_is_text;

-- a filter stored in a table (TOASTed) probed through a subquery and a join
CREATE TABLE stored (id int PRIMARY KEY, f bloomfilter);
INSERT INTO stored SELECT 1, bloom_agg(i::text, 200000, 0.01) FROM generate_series(1, 200000) i;
SELECT pg_column_size(f) < octet_length(bytea(f)) OR pg_column_size(f) > 100000 AS stored_out_of_line FROM stored;
SELECT count(*) AS found_via_subquery
FROM generate_series(1, 200000) i WHERE bloom_contains((SELECT f FROM stored WHERE id = 1), i::text);
SELECT count(*) AS found_via_join
FROM generate_series(1, 200000) i JOIN stored s ON s.id = 1 AND s.f @> i::text;
UPDATE stored SET f = bloom_add(f, 'new');
SELECT f @> 'new'::text AS updated_in_place, f @> '1'::text AS kept FROM stored;

-- test-and-add (BF.MADD): the filter with the batch added, and which
-- elements were new; a batch's duplicates are new once, NULLs stay NULL
SELECT added, bytea(filter) = bytea(bloom_add(f, ARRAY['a', 'b', 'c', 'b'])) AS same_as_bloom_add
FROM (SELECT bloom_add(bloom_create(1000), 'a'::text) AS f) s,
     LATERAL bloom_test_and_add(f, ARRAY['a', 'b', NULL, 'c', 'b']);
SELECT added FROM bloom_test_and_add(bloom_create(100), ARRAY[1, 2, 2, 3]::bigint[]);
-- past capacity it grows, as bloom_add does, and every element is found
SELECT (bloom_info(filter)->>'stages')::int > 1 AS grew,
       (SELECT bool_and(x) FROM unnest(bloom_contains(filter, (SELECT array_agg(i::bigint) FROM generate_series(1, 5000) i))) x) AS all_found,
       (SELECT count(*) FROM unnest(added) a WHERE a) AS new_count
FROM bloom_test_and_add(bloom_create(100), (SELECT array_agg(i::bigint) FROM generate_series(1, 5000) i));
-- cuckoo add-if-absent (CF.INSERTNX): only the absent are added, once
SELECT added, cuckoo_count(filter, 'a'::text) AS a_copies, cuckoo_count(filter, 'b'::text) AS b_copies
FROM (SELECT cuckoo_add(cuckoo_create(1000), 'a'::text) AS f) s,
     LATERAL cuckoo_test_and_add(f, ARRAY['a', 'b', 'b', NULL]);

-- bloom_info: distinct_estimate is an estimate from the bits set (within
-- 3% of 10,000 distinct elements here); inserted, 1.0's name, the same
SELECT abs((i->>'distinct_estimate')::int - 10000) < 300 AS estimate_near,
       i->>'distinct_estimate' = i->>'inserted' AS inserted_same
FROM (SELECT bloom_info(bloom_agg(g::text)) AS i FROM generate_series(1, 10000) g) s;
