-- equality of filter values: the same bytes; hash support, so DISTINCT,
-- GROUP BY, UNION and hash joins work on filter columns
CREATE TABLE eq_f AS
SELECT g, bloom_add(bloom_create(1000), (g % 3)::text) AS b,
       counting_bloom_add(counting_bloom_create(1000), (g % 3)::text) AS c,
       cuckoo_add(cuckoo_create(1000), (g % 3)::text) AS k,
       stable_bloom_add(stable_bloom_create(1000), (g % 3)::text) AS s
FROM generate_series(1, 9) g;
SELECT count(DISTINCT b) AS b, count(DISTINCT c) AS c, count(DISTINCT k) AS k, count(DISTINCT s) AS s FROM eq_f;
SELECT count(*) AS groups FROM (SELECT b FROM eq_f GROUP BY b) x;
SELECT count(*) AS union_rows FROM (SELECT b FROM eq_f UNION SELECT bloom_create(1000)) x;
SELECT bloom_create(100) = bloom_create(100) AS same, bloom_create(100) <> bloom_create(100, 0.02) AS differ,
       bloom_create(100) = bloom_add(bloom_create(100), 'x') AS added_differs;
-- a hash join, and the hash opclass's two functions agree
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS joined FROM eq_f a JOIN eq_f b USING (b);
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT bool_and((bloomfilter_hash(b)::bigint & 4294967295) = (bloomfilter_hash_extended(b, 0) & 4294967295)) AS hash_matches_extended,
       count(DISTINCT bloomfilter_hash_extended(b, 1)) AS seeded_distinct
FROM eq_f;
-- a toasted value compares by its bytes, not its toast pointer
CREATE TABLE eq_big (f bloomfilter);
INSERT INTO eq_big SELECT bloom_add(bloom_create(1000000), 'x') FROM generate_series(1, 2);
SELECT count(DISTINCT f) AS big_distinct, (SELECT a.f = b.f FROM eq_big a, eq_big b LIMIT 1) AS big_equal FROM eq_big;
DROP TABLE eq_f, eq_big;
