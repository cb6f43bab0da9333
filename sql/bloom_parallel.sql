--
-- bloomfilter aggregates under a forced parallel plan: Partial Aggregate
-- in the workers, combine in the leader, same result as a serial plan
--
CREATE TABLE par AS
SELECT i, md5(i::text) AS url, (i % 50000)::bigint AS n
FROM generate_series(1, 200000) i;
ANALYZE par;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial_result AS
SELECT bloom_agg(url, 300000, 0.01) AS sized, bloom_agg(url) AS auto, bloom_agg(n, 0.001) AS auto_bigint
FROM par;
-- a sized aggregate's outcome near and past its capacity: its bytes, or
-- its error (it does not grow, so that every plan gives the same one)
CREATE FUNCTION sized_outcome(cap int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format('SELECT md5(bytea(bloom_agg(url, %s, 0.01))) FROM par', cap) INTO r;
	RETURN r;
EXCEPTION WHEN program_limit_exceeded THEN
	RETURN SQLSTATE;
END $$;
CREATE TABLE serial_outcomes AS
SELECT cap, sized_outcome(cap) AS outcome
FROM unnest(ARRAY[1000, 150000, 180000, 190000, 195000, 200000, 210000]) cap;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;

EXPLAIN (COSTS OFF)
SELECT bloom_agg(url, 300000, 0.01), bloom_agg(url), bloom_agg(n, 0.001) FROM par;

CREATE TABLE parallel_result AS
SELECT bloom_agg(url, 300000, 0.01) AS sized, bloom_agg(url) AS auto, bloom_agg(n, 0.001) AS auto_bigint
FROM par;

-- the same bytes, not only the same membership
SELECT bytea(p.sized) = bytea(s.sized) AS sized_identical,
       bytea(p.auto) = bytea(s.auto) AS auto_identical,
       bytea(p.auto_bigint) = bytea(s.auto_bigint) AS auto_bigint_identical,
       (bloom_info(p.auto)->>'capacity')::int AS auto_capacity,
       (bloom_info(p.auto_bigint)->>'capacity')::int AS auto_bigint_capacity
FROM parallel_result p, serial_result s;
SELECT count(*) AS parallel_false_negatives FROM par, parallel_result p
WHERE NOT bloom_contains(p.auto, url) OR NOT bloom_contains(p.sized, url);

-- union and intersection aggregates in parallel
CREATE TABLE parts AS
SELECT i % 8 AS part, bloom_agg(url, 300000, 0.01) AS f FROM par GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM parts;
SELECT bytea(bloom_union_agg(f)) = (SELECT bytea(sized) FROM serial_result) AS union_agg_identical FROM parts;

-- past its capacity a sized aggregate raises 54000 in parallel as it does
-- serially, and at the same capacities: the parallel plan's combine
-- refuses the union exactly when the serial build would have refused an
-- add (a rate only grows as bits are set)
SELECT err($$SELECT bloom_agg(url, 1000, 0.01) FROM par$$);
SELECT s.cap, s.outcome = p.outcome AS same_outcome, s.outcome = '54000' AS refused
FROM serial_outcomes s, LATERAL (SELECT sized_outcome(s.cap) AS outcome) p
ORDER BY 1;

-- zero rows in a parallel plan: the Finalize Aggregate's own arguments
-- are the partial state, so the parameters come from the partial
-- aggregate below it (this crashed when they were read from the Finalize
-- Aggref's shortened argument list)
SET bloomfilter.enable_build_scan = off;
EXPLAIN (COSTS OFF) SELECT bloom_agg(url, 0.001) FROM par WHERE i < 0;
SELECT bloom_info(bloom_agg(url, 0.001))->'fpr_target' AS fpr_target,
       bloom_info(bloom_agg(url, 5000, 0.02))->'capacity' AS capacity,
       cuckoo_info(cuckoo_agg(url, 7000, 0.01))->'capacity' AS cuckoo_capacity,
       counting_bloom_info(counting_bloom_agg(url, 6000, 0.01))->'capacity' AS counting_capacity
FROM par WHERE i < 0;
RESET bloomfilter.enable_build_scan;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- the aggregate state type of bloom_agg(x) has an exact text form, which
-- is what a distributed engine ships between nodes
CREATE AGGREGATE keyset_state(text) (SFUNC = bloom_keyset_trans, STYPE = bloom_keyset);
CREATE TABLE states AS
SELECT i % 3 AS part, keyset_state(url) AS ks FROM par WHERE i <= 30000 GROUP BY 1;
SELECT count(*) FILTER (WHERE ks::text::bloom_keyset::text = ks::text) AS text_roundtrips FROM states;
SELECT err($$SELECT 'AAAA'::bloom_keyset$$);
SELECT err($$SELECT (substr(ks::text, 1, 40) || 'AAAA')::bloom_keyset FROM states LIMIT 1$$);
-- the states combine and finish like a single aggregate
CREATE AGGREGATE keyset_merge(bloom_keyset) (SFUNC = bloom_keyset_combine, STYPE = bloom_keyset, FINALFUNC = bloom_keyset_final);
SELECT bytea(keyset_merge(ks::text::bloom_keyset)) = (SELECT bytea(bloom_agg(url)) FROM par WHERE i <= 30000) AS merged_identical
FROM states;
SELECT err($$SELECT bloom_keyset_combine(ks, ks) FROM states$$);
-- a state is its set of distinct hashes, in ascending order: the same
-- bytes whatever order the rows came in and however they were split
SELECT (SELECT keyset_state(url ORDER BY i) FROM par WHERE i <= 5000)::text
     = (SELECT keyset_state(url ORDER BY i DESC) FROM par WHERE i <= 5000)::text AS state_independent_of_order;
CREATE AGGREGATE keyset_union_states(bloom_keyset) (SFUNC = bloom_keyset_combine, STYPE = bloom_keyset);
SELECT (SELECT keyset_union_states(ks) FROM states)::text
     = (SELECT keyset_state(url) FROM par WHERE i <= 30000)::text AS combined_state_identical;
-- hashes out of order, or one repeated: refused (a repeat would be counted
-- twice and size the filter for more than went in)
SELECT err(format('SELECT %L::bloom_keyset', translate(encode(overlay(decode(ks::text, 'base64') PLACING '\xffffffffffffffff'::bytea FROM 53), 'base64'), E'\n', '')))
FROM states WHERE part = 0;
SELECT err(format('SELECT %L::bloom_keyset', translate(encode(overlay(decode(ks::text, 'base64') PLACING substr(decode(ks::text, 'base64'), 61, 8) FROM 53), 'base64'), E'\n', '')))
FROM states WHERE part = 0;
