--
-- aggregate states in every kind of aggregate context: window frames that
-- run, restart and partition; grouping sets (several contexts at once),
-- hashed too; a hash aggregate that spills.  All pending states of an
-- aggregate context share one memory context, so each case must give
-- exactly the filters computed one group at a time.
--
-- window: running aggregate, partitions, moving frame (restarts)
SELECT count(*) FILTER (WHERE bytea(w) = bytea(e)) AS running_same, count(*) AS n
  FROM (SELECT x, bloom_agg(x::bigint, 100, 0.01) OVER (ORDER BY x) AS w,
               (SELECT bloom_agg(y::bigint, 100, 0.01) FROM generate_series(1, x) y) AS e
          FROM generate_series(1, 60) x) s;
SELECT count(*) FILTER (WHERE bytea(w) = bytea(e)) AS moving_same, count(*) AS n
  FROM (SELECT x, bloom_agg(x::bigint) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w,
               (SELECT bloom_agg(y::bigint) FROM generate_series(greatest(1, x - 2), x) y) AS e
          FROM generate_series(1, 60) x) s;
SELECT count(*) FILTER (WHERE bytea(w) = bytea(e)) AS partition_same, count(*) AS n
  FROM (SELECT x, counting_bloom_agg(x::bigint) OVER (PARTITION BY x % 7) AS w,
               (SELECT counting_bloom_agg(y::bigint) FROM generate_series(1, 300) y WHERE y % 7 = x % 7) AS e
          FROM generate_series(1, 300) x) s;
-- grouping sets: several aggregate contexts at once
SELECT count(*) FILTER (WHERE bytea(f) = bytea((SELECT bloom_agg(y::bigint) FROM generate_series(1, 2000) y
                                                 WHERE (g.a IS NULL OR y % 3 = g.a) AND (g.b IS NULL OR y % 5 = g.b)))) AS sets_same,
       count(*) AS n
  FROM (SELECT a, b, bloom_agg(x::bigint) AS f
          FROM (SELECT x, x % 3 AS a, x % 5 AS b FROM generate_series(1, 2000) x) t
         GROUP BY GROUPING SETS ((a), (b), (a, b), ())) g;
SET enable_sort = off;
SELECT count(*) FILTER (WHERE bytea(f) = bytea((SELECT bloom_agg(y::bigint) FROM generate_series(1, 2000) y
                                                 WHERE (g.a IS NULL OR y % 3 = g.a) AND (g.b IS NULL OR y % 5 = g.b)))) AS hashed_sets_same,
       count(*) AS n
  FROM (SELECT a, b, bloom_agg(x::bigint) AS f
          FROM (SELECT x, x % 3 AS a, x % 5 AS b FROM generate_series(1, 2000) x) t
         GROUP BY GROUPING SETS ((a), (b), (a, b))) g;
RESET enable_sort;
-- hash aggregate that spills (tiny work_mem): states across batches
SET work_mem = '64kB';
SET enable_sort = off;
SELECT count(*) FILTER (WHERE bytea(f) = bytea(e)) AS spilled_same, count(*) AS n FROM (
  SELECT g, bloom_agg(x::bigint) AS f,
         (SELECT bloom_agg(y::bigint) FROM generate_series(t.g, 20000, 2000) y WHERE y >= 1) AS e
    FROM (SELECT x, x % 2000 AS g FROM generate_series(1, 20000) x) t GROUP BY g) s;
RESET work_mem;
RESET enable_sort;
-- DISTINCT inside the aggregate
SELECT bytea(bloom_agg(DISTINCT x::bigint, 100, 0.01)) = bytea(bloom_agg(x::bigint, 100, 0.01) FILTER (WHERE true)) AS distinct_same
  FROM (SELECT generate_series(1, 50) x UNION ALL SELECT generate_series(1, 50)) s;
