-- Hostile and edge-case inputs for every installed type, for tools/valgrind.sh:
-- each statement either works or errors; valgrind watches every byte read.
CREATE EXTENSION IF NOT EXISTS bloomfilter;
\set ON_ERROR_STOP 0
-- bloomfilter: build, grow, combine, estimate, round trip
CREATE TABLE vg (id int, f bloomfilter);
INSERT INTO vg VALUES
  (1, bloom_create(10)),
  (2, (SELECT bloom_add(bloom_create(10, 0.01), array_agg(g::bigint)) FROM generate_series(1, 2000) g)),
  (3, bloom_add(bloom_create(100, 0.001, 'standard'), ARRAY['a', 'b', NULL, 'c'])),
  (4, (SELECT bloom_agg(g::text) FROM generate_series(1, 5000) g)),
  (5, (SELECT bloom_agg(g, 0.1) FROM generate_series(1, 100) g));
SELECT id, bloom_contains(f, 'a'), bloom_contains(f, 42::bigint),
       bloom_contains(f, '00000000-0000-0000-0000-000000000001'::uuid),
       bloom_cardinality(f), bloom_fpr(f), bloom_info(f) IS NOT NULL
  FROM vg ORDER BY id;
SELECT id, f::text::bloomfilter::bytea = f::bytea, f::bytea::bloomfilter::bytea = f::bytea FROM vg;
SELECT bloom_union(a.f, b.f) IS NOT NULL FROM vg a, vg b WHERE a.id = 2 AND b.id = 2;
SELECT bloom_intersection(a.f, b.f) IS NOT NULL FROM vg a, vg b WHERE a.id = 1 AND b.id = 1;
SELECT bloom_union_agg(f) IS NOT NULL, bloom_intersection_agg(f) IS NOT NULL FROM vg WHERE id = 1;
SELECT bloom_union(a.f, b.f) FROM vg a, vg b WHERE a.id = 1 AND b.id = 3;
-- parallel aggregation: partial states pass between processes
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
CREATE TABLE nums AS SELECT g FROM generate_series(1, 20000) g;
ANALYZE nums;
SELECT bloom_cardinality(bloom_agg(g)) FROM nums;
SELECT bloom_cardinality(bloom_agg(g, 30000, 0.01)) FROM nums;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
-- damaged values: single-byte changes of a grown filter's first 400 bytes
-- and every truncation up to 300 bytes, through the bytea cast and the
-- text form (each in its own subtransaction: most are refused)
DO $$
DECLARE
  b bytea := (SELECT f::bytea FROM vg WHERE id = 2);
  n int := 0;
BEGIN
  FOR i IN 0 .. least(length(b) - 1, 400) LOOP
    BEGIN
      PERFORM set_byte(b, i, get_byte(b, i) # 85)::bloomfilter;
      PERFORM encode(set_byte(b, i, get_byte(b, i) # 85), 'base64')::bloomfilter;
    EXCEPTION WHEN OTHERS THEN n := n + 1;
    END;
  END LOOP;
  FOR len IN 0 .. least(length(b), 300) LOOP
    BEGIN
      PERFORM substring(b from 1 for len)::bloomfilter;
    EXCEPTION WHEN OTHERS THEN n := n + 1;
    END;
  END LOOP;
  RAISE NOTICE 'rejected % damaged values', n;
END $$;
SELECT ''::bloomfilter;
SELECT '===='::bloomfilter;
SELECT 'AAAA'::bloomfilter;
SELECT '\x'::bytea::bloomfilter;
SELECT ''::bloom_keyset;
SELECT 'BQEBAAAAAAAAAAAAAAAAAAAAAAABAQEAAAAAAHsUrkfheoQ/AAAAAAAAAAADAAAAAAAAABAAAAAAAAAA'::bloom_keyset;
-- binary COPY out and in
COPY vg TO '/tmp/bloomfilter-vg.bin' (FORMAT binary);
CREATE TABLE vg2 (LIKE vg);
COPY vg2 FROM '/tmp/bloomfilter-vg.bin' (FORMAT binary);
SELECT count(*) FROM vg JOIN vg2 USING (id) WHERE vg.f::bytea = vg2.f::bytea;
-- the other types, when installed: create, add, probe, round trip
DO $$
DECLARE
  r record;
  ok boolean;
BEGIN
  FOR r IN SELECT * FROM (VALUES
      ('countingbloom', 'counting_bloom_create(1000)', 'counting_bloom_add', 'counting_bloom_contains'),
      ('cuckoofilter', 'cuckoo_create(1000)', 'cuckoo_add', 'cuckoo_contains'),
      ('stablebloom', 'stable_bloom_create(10000)', 'stable_bloom_add', 'stable_bloom_contains')) v(t, c, a, p)
    WHERE EXISTS (SELECT 1 FROM pg_type WHERE typname = v.t)
  LOOP
    EXECUTE format('SELECT %s(f, ''k1'') AND (f::bytea::%s)::bytea = f::bytea AND (f::text::%s)::bytea = f::bytea
                      FROM (SELECT %s(%s(%s, ''k1''), ''k2'') f) s', r.p, r.t, r.t, r.a, r.a, r.c) INTO ok;
    RAISE NOTICE '% round trip: %', r.t, ok;
    FOR i IN 0 .. 150 LOOP
      BEGIN
        EXECUTE format('SELECT set_byte(f::bytea, %s, get_byte(f::bytea, %s) # 85)::%s FROM (SELECT %s(%s, ''k'') f) s',
                       i, i, r.t, r.a, r.c);
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
  END LOOP;
END $$;
