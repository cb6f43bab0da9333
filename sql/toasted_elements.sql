--
-- elements stored out of line (TOAST) or compressed: every function that
-- hashes an element hashes the value, exactly as it hashes the same value
-- in memory (url || '' is an in-memory copy).  An out-of-line text element
-- once had its toast pointer taken for a short in-line value: a crash.
--
SET max_parallel_workers_per_gather = 0;
CREATE TABLE te (id int, url text, b bytea);
ALTER TABLE te ALTER COLUMN url SET STORAGE EXTERNAL, ALTER COLUMN b SET STORAGE EXTERNAL;
INSERT INTO te
SELECT i, (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 100) j),
       convert_to((SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 100) j), 'UTF8')
FROM generate_series(1, 20) i;
-- compressed in line
INSERT INTO te SELECT 100 + i, repeat('https://example.com/', 300) || i, convert_to(repeat('x', 4000) || i, 'UTF8')
FROM generate_series(1, 5) i;
ALTER TABLE te ALTER COLUMN url SET STORAGE EXTENDED;
INSERT INTO te SELECT 200 + i, repeat('https://example.com/', 300) || i, NULL FROM generate_series(1, 5) i;
-- values in the toast table (20 urls, 25 byteas), values compressed in line
CREATE FUNCTION te_out_of_line() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = 'te'::regclass)) INTO n;
	RETURN n;
END $$;
SELECT te_out_of_line() AS out_of_line,
       count(*) FILTER (WHERE pg_column_compression(url) IS NOT NULL) AS compressed_text
FROM te;

-- aggregates: the same bytes as over the in-memory values
SELECT md5(bloom_agg(url)::text) = md5(bloom_agg(url || '')::text) AS bloom_agg,
       md5(bloom_agg(url, 100, 0.01)::text) = md5(bloom_agg(url || '', 100, 0.01)::text) AS bloom_agg_sized,
       md5(bloom_agg(b)::text) = md5(bloom_agg(b || '')::text) AS bloom_agg_bytea,
       md5(counting_bloom_agg(url)::text) = md5(counting_bloom_agg(url || '')::text) AS counting_agg,
       md5(cuckoo_agg(url)::text) = md5(cuckoo_agg(url || '')::text) AS cuckoo_agg,
       md5(stable_bloom_agg(url)::text) = md5(stable_bloom_agg(url || '')::text) AS stable_agg
FROM te;

-- one at a time: add, contains, remove, count
SELECT bool_and(md5(bloom_add(bloom_create(100), url)::text) = md5(bloom_add(bloom_create(100), url || '')::text)) AS bloom_add,
       bool_and(bloom_contains(bloom_add(bloom_create(100), url || ''), url)) AS bloom_contains,
       bool_and(bloom_contains(bloom_add(bloom_create(100), b || ''), b)) AS bloom_contains_bytea,
       bool_and(url <@ bloom_add(bloom_create(100), url || '')) AS bloom_contained,
       bool_and(counting_bloom_contains(counting_bloom_add(counting_bloom_create(100), url || ''), url)) AS counting_contains,
       bool_and(counting_bloom_count(counting_bloom_add(counting_bloom_create(100), url || ''), url) = 1) AS counting_count,
       bool_and(NOT counting_bloom_contains(counting_bloom_remove(counting_bloom_add(counting_bloom_create(100), url || ''), url), url || '')) AS counting_remove,
       bool_and(cuckoo_contains(cuckoo_add(cuckoo_create(100), url || ''), url)) AS cuckoo_contains,
       bool_and(NOT cuckoo_contains(cuckoo_remove(cuckoo_add(cuckoo_create(100), url || ''), url), url || '')) AS cuckoo_remove,
       bool_and(stable_bloom_contains(stable_bloom_add(stable_bloom_create(1000, 0.01), url || ''), url)) AS stable_contains
FROM te WHERE b IS NOT NULL OR id > 200;

-- a filter of every stored value answers every stored value, scanned or not
CREATE TABLE te_f AS SELECT bloom_agg(url) AS f, counting_bloom_agg(url) AS c, cuckoo_agg(url) AS k FROM te;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE bloom_contains((SELECT f FROM te_f), url)) AS bloom_found,
       count(*) FILTER (WHERE counting_bloom_contains((SELECT c FROM te_f), url)) AS counting_found,
       count(*) FILTER (WHERE cuckoo_contains((SELECT k FROM te_f), url)) AS cuckoo_found
FROM te;
SELECT count(*) AS probe_scan_found FROM te WHERE bloom_contains((SELECT f FROM te_f), url);

DROP TABLE te, te_f;
DROP FUNCTION te_out_of_line();
