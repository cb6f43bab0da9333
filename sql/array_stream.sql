--
-- a big stored array (uncompressed, out of line) is read from its TOAST
-- chunks a window of 1 MB at a time, never detoasted whole; every array
-- form must answer exactly as for the same array in memory (t || '{}' is
-- a detoasted copy)
--
SET max_parallel_workers_per_gather = 0;
CREATE TABLE big_arrays (id int PRIMARY KEY, t text[], b bigint[], u uuid[]);
ALTER TABLE big_arrays ALTER COLUMN t SET STORAGE external;
ALTER TABLE big_arrays ALTER COLUMN b SET STORAGE external;
ALTER TABLE big_arrays ALTER COLUMN u SET STORAGE external;
-- text of many lengths, NULLs, and one element of 1.5 MB, longer than a
-- window; taken from a table, so most elements keep their 1-byte headers
-- and are padded to 4-byte alignment in the array
CREATE TABLE words AS
SELECT i, CASE WHEN i % 97 = 0 THEN NULL
               WHEN i = 20000 THEN repeat('long', 375000) || 'x'
               ELSE substr(repeat(md5(i::text), 1 + i % 5), 1 + i % 7) END AS x
FROM generate_series(1, 40000) i;
INSERT INTO big_arrays (id, t) SELECT 1, array_agg(x ORDER BY i) FROM words;
-- two dimensions with lower bounds, no NULLs
INSERT INTO big_arrays (id, t)
SELECT 2, ('[3:4][-1:19998]=' || array_agg(r ORDER BY k)::text)::text[]
FROM (SELECT i % 2 AS k, array_agg(md5(i::text) ORDER BY i) AS r
      FROM generate_series(1, 40000) i GROUP BY 1) s;
-- fixed-length elements: bigint (8-byte aligned, with NULLs) and uuid
INSERT INTO big_arrays (id, b, u)
SELECT 3, array_agg(CASE WHEN i % 1000 = 0 THEN NULL ELSE i * 7919 END ORDER BY i),
       array_agg(md5(i::text)::uuid ORDER BY i)
FROM generate_series(1, 150000) i;
-- stored out of line, uncompressed (the stored size is the detoasted one
-- less its 4-byte header), over 1 MB: the streamed form
SELECT id, array_dims(t) AS t_dims,
       pg_column_size(t) >= 1048576 AND pg_column_size(t || '{}') - pg_column_size(t) = 4 AS t_streamed,
       pg_column_size(b) >= 1048576 AND pg_column_size(b || '{}') - pg_column_size(b) = 4 AS b_streamed,
       pg_column_size(u) >= 1048576 AND pg_column_size(u || '{}') - pg_column_size(u) = 4 AS u_streamed
FROM big_arrays ORDER BY id;
-- adds: the same bytes as from the array in memory
SELECT id,
       bytea(bloom_add(bloom_create(100000), t)) = bytea(bloom_add(bloom_create(100000), t || '{}')) AS bloom_same,
       bytea(counting_bloom_add(counting_bloom_create(100000), t)) = bytea(counting_bloom_add(counting_bloom_create(100000), t || '{}')) AS counting_same,
       bytea(cuckoo_add(cuckoo_create(100000), t)) = bytea(cuckoo_add(cuckoo_create(100000), t || '{}')) AS cuckoo_same,
       bytea(stable_bloom_add(stable_bloom_create(1000000), t)) = bytea(stable_bloom_add(stable_bloom_create(1000000), t || '{}')) AS stable_same
FROM big_arrays WHERE id IN (1, 2) ORDER BY id;
SELECT bytea(bloom_add(bloom_create(200000), b)) = bytea(bloom_add(bloom_create(200000), b || '{}')) AS bloom_bigint_same,
       bytea(cuckoo_add(cuckoo_create(200000), u)) = bytea(cuckoo_add(cuckoo_create(200000), u || '{}')) AS cuckoo_uuid_same,
       bytea(counting_bloom_remove(counting_bloom_add(counting_bloom_create(200000), b || '{}'), b))
         = bytea(counting_bloom_create(200000)) AS counting_all_removed
FROM big_arrays WHERE id = 3;
-- probes: the same answers, in the same shape, NULL where the input is;
-- the filter holds array 1, so array 2 (each md5 once) is partly in it
CREATE TABLE f1 AS
SELECT bloom_add(bloom_create(100000, 0.01), t || '{}') AS bf,
       counting_bloom_add(counting_bloom_create(100000, 0.01), t || '{}') AS cf,
       cuckoo_add(cuckoo_create(100000, 0.01), t || '{}') AS kf
FROM big_arrays WHERE id = 1;
SELECT id,
       bloom_contains(bf, t) = bloom_contains(bf, t || '{}') AS bloom_same,
       counting_bloom_contains(cf, t) = counting_bloom_contains(cf, t || '{}') AS counting_same,
       cuckoo_contains(kf, t) = cuckoo_contains(kf, t || '{}') AS cuckoo_same,
       array_dims(bloom_contains(bf, t)) = array_dims(t) AS same_shape,
       (SELECT count(*) FROM unnest(bloom_contains(bf, t)) x WHERE x) AS found,
       (SELECT count(*) FROM unnest(bloom_contains(bf, t)) x WHERE x IS NULL) AS nulls,
       (SELECT count(*) FROM unnest(t) x WHERE x IS NOT NULL) AS elements
FROM big_arrays, f1 WHERE id IN (1, 2) ORDER BY id;
SELECT (SELECT count(*) FROM unnest(bloom_contains(bloom_add(bloom_create(200000), b || '{}'), b)) x WHERE x) AS bigint_found,
       (SELECT count(*) FROM unnest(b) x WHERE x IS NOT NULL) AS bigint_elements,
       cuckoo_contains(cuckoo_add(cuckoo_create(200000), u), u) = cuckoo_contains(cuckoo_add(cuckoo_create(200000), u), u || '{}') AS uuid_same
FROM big_arrays WHERE id = 3;
RESET max_parallel_workers_per_gather;
