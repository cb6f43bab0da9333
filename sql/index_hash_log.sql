--
-- bloomfilter_hash_ops: a column of bloom_hash values (a log of 8-byte
-- hashes instead of the URLs) gives the bits an index on the URLs gives,
-- at build, at insert and after REINDEX; probes take the hashes.
--
SET client_min_messages = warning;
CREATE TABLE hl_urls (url text);
INSERT INTO hl_urls SELECT 'https://hl.example/' || g FROM generate_series(1, 5000) g;
CREATE INDEX hl_urls_f ON hl_urls USING bloomfilter (url) WITH (capacity = 2000);

-- the log: a row of hashes a batch, in the order of the URLs (which
-- element lands in which stage follows the order of the adds)
CREATE TABLE hl_log (hs bigint[]);
INSERT INTO hl_log
SELECT array_agg(bloom_hash('https://hl.example/' || g) ORDER BY g) FROM generate_series(1, 5000) g
GROUP BY g / 1000 ORDER BY g / 1000;
CREATE INDEX hl_log_f ON hl_log USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = 2000);

-- the same bits (two stages: past capacity) as the index on the URLs
SELECT (bloom_index_info('hl_log_f')->>'stages')::int AS stages,
	bytea(bloom_index_snapshot('hl_log_f')) = bytea(bloom_index_snapshot('hl_urls_f')) AS same_bits;
REINDEX INDEX hl_log_f;
SELECT bytea(bloom_index_snapshot('hl_log_f')) = bytea(bloom_index_snapshot('hl_urls_f')) AS same_bits_after_reindex;

-- and by inserts into empty indexes
CREATE TABLE hl_urls2 (url text);
CREATE INDEX hl_urls2_f ON hl_urls2 USING bloomfilter (url) WITH (capacity = 20000);
CREATE TABLE hl_log2 (hs bigint[]);
CREATE INDEX hl_log2_f ON hl_log2 USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = 20000);
INSERT INTO hl_urls2 SELECT url FROM hl_urls;
INSERT INTO hl_log2 SELECT hs FROM hl_log;
SELECT bytea(bloom_index_snapshot('hl_log2_f')) = bytea(bloom_index_snapshot('hl_urls2_f')) AS same_bits_by_inserts;

-- probes take the hash
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('hl_log_f', bloom_hash(url))) AS false_negatives
FROM hl_urls;
SELECT bloom_index_contains('hl_log_f', ARRAY[bloom_hash('https://hl.example/1'),
	bloom_hash('https://hl.example/1'), bloom_hash('https://never.example/')]) AS array_probe;
-- test-and-add: the absent hashes, each once, in order
SELECT bloom_index_absent('hl_log_f', ARRAY[bloom_hash('https://hl.example/7'),
	bloom_hash('https://new.example/a'), bloom_hash('https://new.example/a'), bloom_hash('https://new.example/b')])
	= ARRAY[bloom_hash('https://new.example/a'), bloom_hash('https://new.example/b')] AS absent_are_the_new;

-- a scalar column too
CREATE TABLE hl_one (h bigint);
INSERT INTO hl_one SELECT bloom_hash(url) FROM hl_urls;
CREATE INDEX hl_one_f ON hl_one USING bloomfilter (h bloomfilter_hash_ops) WITH (capacity = 2000);
SELECT bytea(bloom_index_snapshot('hl_one_f')) = bytea(bloom_index_snapshot('hl_urls_f')) AS scalar_same_bits;

-- a constant probe of such an index is answered by the function, not by
-- the probe scan, which hashes as the module does
SELECT count(*) FROM hl_urls WHERE bloom_index_contains('hl_log_f', bloom_hash(url));

-- the support function: the hash itself, with the index's seed only
SELECT bloom_hash_identity(42), bloom_hash_identity(-1, 0);
\set VERBOSITY terse
SELECT bloom_hash_identity(42, 7);
\set VERBOSITY default
-- a crawler's test-and-add, a transaction a batch of 500 (half of them
-- seen), with a row of keys added long before in the same transaction:
-- the flush leaves out the older stages' probe for the hashes
-- bloom_index_absent has just found in none, and only for those, so the
-- bits are those of the same rows inserted without it
CREATE TABLE hl_ta (b int, hs bigint[]);
CREATE INDEX hl_ta_f ON hl_ta USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = 1000);
CREATE TABLE hl_tb (b int, hs bigint[]);
CREATE INDEX hl_tb_f ON hl_tb USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = 1000);
\set ECHO none
\o /dev/null
SELECT q FROM generate_series(0, 23) k, LATERAL (VALUES (1, 'BEGIN'),
	(2, format($q$INSERT INTO hl_ta SELECT %s, x FROM bloom_index_absent('hl_ta_f',
		ARRAY(SELECT bloom_hash('https://ta.example/' || g) FROM generate_series(%s, %s) g)) x$q$,
		k, k * 250 + 1, k * 250 + 500)),
	(3, format($q$INSERT INTO hl_ta SELECT %s,
		ARRAY(SELECT bloom_hash('https://ta.example/' || g) FROM generate_series(1, %s, 7) g)$q$,
		k, k * 250)),
	(4, 'COMMIT')) s(i, q)
ORDER BY k, i \gexec
SELECT format('INSERT INTO hl_tb SELECT b, hs FROM hl_ta WHERE b = %s ORDER BY ctid', k)
FROM generate_series(0, 23) k \gexec
\o
\set ECHO all
SELECT (bloom_index_info('hl_ta_f')->>'stages')::int AS stages,
	bytea(bloom_index_snapshot('hl_ta_f')) = bytea(bloom_index_snapshot('hl_tb_f')) AS same_bits,
	(SELECT count(*) FROM generate_series(1, 23 * 250 + 500) g
	 WHERE NOT bloom_index_contains('hl_ta_f', bloom_hash('https://ta.example/' || g))) AS false_negatives;
-- bloom_hashes: a batch of hashes packed 8 bytes each, as int8send
-- writes them (a driver that sends parameters only as text sends a bytea)
SELECT bloom_hashes('\x0000000000000001ffffffffffffffff8000000000000000'::bytea),
	bloom_hashes(''::bytea), bloom_hashes(NULL);
SELECT bloom_hashes(string_agg(int8send(h), '' ORDER BY o)) = array_agg(h ORDER BY o) AS same,
	cardinality(bloom_hashes(string_agg(int8send(h), '' ORDER BY o))) AS n
FROM (SELECT g, bloom_hash('https://packed.example/' || g) FROM generate_series(1, 100000) g) v(o, h);
-- the test-and-add of the log of hashes, the batch packed: the hashes
-- not in the index, each once, in order
SELECT bloom_index_absent('hl_ta_f', bloom_hashes(
	int8send(bloom_hash('https://ta.example/1')) || int8send(42) || int8send(42)
	|| int8send(bloom_hash('https://ta.example/2')) || int8send(-7)));
\set VERBOSITY terse
SELECT bloom_hashes('\x00000000000000000000'::bytea);
\set VERBOSITY sqlstate
SELECT bloom_hashes('\x01'::bytea);
\set VERBOSITY default
DROP TABLE hl_urls, hl_log, hl_one, hl_urls2, hl_log2, hl_ta, hl_tb;
