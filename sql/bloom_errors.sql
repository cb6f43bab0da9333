--
-- bloomfilter: argument errors, with SQLSTATE and message
--
SELECT err($$SELECT bloom_create(0)$$);
SELECT err($$SELECT bloom_create(-5)$$);
SELECT err($$SELECT bloom_create(100, 0)$$);
SELECT err($$SELECT bloom_create(100, 1)$$);
SELECT err($$SELECT bloom_create(100, -0.1)$$);
SELECT err($$SELECT bloom_create(100, 'NaN')$$);
SELECT err($$SELECT bloom_create(100, 1e-20)$$);
SELECT err($$SELECT bloom_create(100, 0.01, 'fancy')$$);
SELECT err($$SELECT bloom_create(100, 0.01, '')$$);
-- too large for one value: 54000, and the largest capacity that fits
SELECT err($$SELECT bloom_create(1000000000000)$$);
SELECT err($$SELECT bloom_create(1000000000000, 0.001, 'standard', false)$$);
SELECT err($$SELECT bloom_agg(x, 1000000000000, 0.01) FROM (VALUES ('a')) v(x)$$);
-- aggregate parameters are checked too
SELECT err($$SELECT bloom_agg(x, 0) FROM (VALUES ('a')) v(x)$$);
SELECT err($$SELECT bloom_agg(x, 2.0) FROM (VALUES ('a')) v(x)$$);
SELECT err($$SELECT bloom_agg(x, 0, 0.01) FROM (VALUES ('a')) v(x)$$);
SELECT err($$SELECT bloom_agg(x, 10, NULL) FROM (VALUES ('a')) v(x)$$);
SELECT err($$SELECT bloom_agg(x, NULL) FROM (VALUES ('a')) v(x)$$);
-- support functions outside an aggregate
SELECT err($$SELECT bloom_union_trans(bloom_create(10), bloom_create(10))$$);
SELECT err($$SELECT bloom_keyset_trans(NULL::bloom_keyset, 'a'::text)$$);
-- a scalable filter cannot grow past 1 GB
SELECT err($$SELECT bloom_create(40000000000, 0.5)$$);
