#!/usr/bin/env bash
# The SQL benchmarks against an already running server (PGHOST, PGPORT,
# PGUSER in the environment): build the data, run every comparison, print
# the medians and the table of ratios.
#   BENCH_SCALE  fraction of the full size (1 = 2M URLs; make test uses 0.01)
#   BENCH_RUNS   timed rounds per query (default 5; one more warm-up round)
#   BENCH_DB     database to use (default bloomfilter_bench, dropped first)
# Output goes to stdout; nothing here asserts timings.
set -euo pipefail
cd "$(dirname "$0")"
scale=${BENCH_SCALE:-1}
runs=${BENCH_RUNS:-5}
db=${BENCH_DB:-bloomfilter_bench}
nrows=$(awk -v s="$scale" 'BEGIN { n = int(2000000 * s); if (n < 1000) n = 1000; print n }')
psql=("${PG_BINDIR:+$PG_BINDIR/}psql" -X -q -v ON_ERROR_STOP=1)

"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d "$db" -c "CREATE EXTENSION bloomfilter"
"${psql[@]}" -d "$db" -c "CREATE EXTENSION hll" 2>/dev/null ||
	echo "(hll extension not available: the build rows are skipped)"

start=$(date +%s)
"${psql[@]}" -d "$db" -v nrows="$nrows" -v batch_every=20 -f setup.sql
"${psql[@]}" -d "$db" -v runs="$runs" -f bench.sql
end=$(date +%s)

"${psql[@]}" -d "$db" -P footer=off <<SQL
\pset border 1
SELECT 'rows: ' || (SELECT count(*) FROM urls) || ' urls (avg '
	|| (SELECT round(avg(octet_length(url)), 1) FROM urls) || ' bytes), '
	|| (SELECT count(*) FROM members) || ' members, '
	|| (SELECT count(*) FROM batch) || ' batch; ' || $runs || ' timed rounds; '
	|| 'PostgreSQL ' || current_setting('server_version') AS "setup";
\echo
\echo 'medians (ms):'
SELECT name AS query, round(ms::numeric, 1) AS median_ms,
	(SELECT round(min(ms)::numeric, 1) FROM bench.timings t WHERE t.name = m.name AND round > 0) AS min_ms,
	(SELECT round(max(ms)::numeric, 1) FROM bench.timings t WHERE t.name = m.name AND round > 0) AS max_ms
FROM bench.med m ORDER BY name;
\echo
\echo 'sizes (bytes):'
SELECT * FROM bench.sizes ORDER BY name;
\echo
\echo 'ratios vs targets:'
SELECT * FROM bench.report;
SQL
echo
echo "plans of the exact and the filtered dedup (serial):"
"${psql[@]}" -d "$db" -At <<'SQL'
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
EXPLAIN (COSTS OFF) SELECT count(*) FROM batch b WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.url = b.url);
EXPLAIN (COSTS OFF) SELECT count(*) FROM bench.f_bloom fl JOIN urls u ON bloom_contains(fl.f, u.url) WHERE fl.id = 1;
SQL
echo
echo "one filter per group (bench/groupby.sql):"
groups=$(awk -v s="$scale" 'BEGIN { n = int(100000 * s); if (n < 100) n = 100; print n }')
"${psql[@]}" -d "$db" -P footer=off -v groups="$groups" -f groupby.sql
echo "sql benchmark wall time: $((end - start)) s"
