#!/usr/bin/env bash
# Full-page images after a checkpoint: the WAL and time of a crawler's
# test-and-add batch into a bloomfilter index right after a CHECKPOINT,
# while the pages it touches are logged whole for the first time in the
# checkpoint cycle, and once every page has been; with wal_compression
# off and lz4 (bench/README.md, "Full-page images after a checkpoint").
#
#   bash bench/index_fpw.sh           as root or a sudoer; prints a markdown
#                                     table, also kept in
#                                     bench/results/index_fpw_latest.txt
#
#   BENCH_FPW_SIZE=10000000           keys in the index (its capacity is
#                                     twice that, so it stays one stage)
#   BENCH_FPW_BATCHES=20              batches timed right after the
#                                     checkpoint, and again at the end
#   BENCH_FPW_BETWEEN=2000            batches run in between (every page
#                                     gets its image in them)
#   BENCH_FPW_INSTALL=0               skip building and installing bloomfilter
#   BENCH_FPW_KEEP=1                  keep the scratch dir (/tmp/bench-fpw-*)
#   PG_CONFIG                         the PostgreSQL to build for and run
#
# The server: the module preloaded (its own WAL records), full_page_writes
# on (the default), fsync off, no checkpoint but the ones the script
# asks for.  The index: the log of hashes of doc/index.md, key i logged
# as bloom_hash(i::bigint), rows of 1,000.  A batch: one statement, as a
# crawler's, INSERT INTO log (hs) SELECT n FROM bloom_index_absent('log_f',
# <1,000 hashes>) n WHERE cardinality(n) > 0, the batch built in the
# server: 500 prefilled keys at random, 500 never added (negative keys
# from pgbench's random :r).  WAL: pg_current_wal_insert_lsn around each
# pgbench run (compressed images count as their compressed bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

SIZE=${BENCH_FPW_SIZE:-10000000}
BATCHES=${BENCH_FPW_BATCHES:-20}
BETWEEN=${BENCH_FPW_BETWEEN:-2000}
SHARED_BUFFERS=1GB
RESULTS_FILE=bench/results/index_fpw_latest.txt

if [ "${1:-}" != "--stage2" ]; then
	bench_pgbench_stage1 fpw "full-page image benchmark" "$RESULTS_FILE" "${BENCH_FPW_KEEP:-0}" \
		"${BENCH_FPW_INSTALL:-1}" bench/index_fpw.sh \
		SIZE="$SIZE" BATCHES="$BATCHES" BETWEEN="$BETWEEN" SHARED_BUFFERS="$SHARED_BUFFERS"
fi

# ---- stage 2: unprivileged, in the scratch dir ----
scratch=$2
bench_stage2_cluster "$scratch" "$SHARED_BUFFERS" 1
psql() { bench_psql "$@"; }
[ "$(psql -Atc 'SHOW full_page_writes')" = on ] || { echo "full_page_writes is off" >&2; exit 1; }
t_start=$(date +%s)
psql -c "CREATE EXTENSION bloomfilter" \
	-c "CREATE TABLE log (hs bigint[]) WITH (toast_tuple_target = 8160)" \
	-c "INSERT INTO log SELECT (SELECT array_agg(bloom_hash(i)) FROM generate_series(g * 1000, least(g * 1000 + 999, $SIZE - 1)) i)
		FROM generate_series(0::bigint, ($SIZE - 1) / 1000) g" \
	-c "CREATE INDEX log_f ON log USING bloomfilter (hs bloomfilter_hash_array_ops) WITH (capacity = $((2 * SIZE)), fpr = 0.01)" \
	-c "VACUUM ANALYZE log"
cat >"$scratch/tna.sql" <<SQL
\set r random(1, 4000000000000000)
INSERT INTO log (hs) SELECT n FROM bloom_index_absent('log_f', ARRAY(
  SELECT bloom_hash(CASE WHEN j % 2 = 0 THEN (hashint8extended(j, :r) & 9223372036854775807) % $SIZE
                         ELSE -(:r::bigint * 1000 + j) END)
  FROM generate_series(1, 1000) j)) n
WHERE cardinality(n) > 0 RETURNING cardinality(hs);
SQL

results=$scratch/results.txt
: >"$results"
# run COMP WHAT N: N batches with pgbench; puts WAL bytes and average ms a batch
run() {
	local comp=$1 what=$2 n=$3 a b out
	a=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	out=$("$PG_BINDIR/pgbench" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -n -M prepared -t "$n" -f "$scratch/tna.sql" postgres 2>&1) ||
		{ echo "$out" >&2; return 1; }
	b=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	echo "$comp ${what}_wal $(psql -Atc "SELECT round(('$b'::pg_lsn - '$a'::pg_lsn) / $n)")" >>"$results"
	echo "$comp ${what}_ms $(echo "$out" | awk '/latency average/ { print $4 }')" >>"$results"
}
for comp in off lz4; do
	psql -c "ALTER SYSTEM SET wal_compression = '$comp'" -c "SELECT pg_reload_conf()" >/dev/null
	psql -c CHECKPOINT
	run "$comp" first "$BATCHES"
	run "$comp" between "$BETWEEN"
	run "$comp" after "$BATCHES"
done
pages=$(psql -Atc "SELECT bloom_index_info('log_f')->>'pages'")
missed=$(psql -Atc "SELECT count(*) FROM (SELECT hs FROM log ORDER BY ctid DESC LIMIT 100) l, unnest(hs) h
	WHERE NOT bloom_index_contains('log_f', h)")
[ "$missed" = 0 ] || { echo "the index misses $missed of the last rows' hashes" >&2; exit 1; }

{
	echo "bloomfilter index, full-page images after a checkpoint, $(date -u '+%Y-%m-%d %H:%M UTC'):" \
		"BENCH_FPW_SIZE=$SIZE BENCH_FPW_BATCHES=$BATCHES BENCH_FPW_BETWEEN=$BETWEEN"
	echo
	bench_machine_line
	echo "- PostgreSQL: $("$PG_BINDIR/postgres" --version | sed 's/^postgres (PostgreSQL) //'), bloomfilter" \
		"$(psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"), preloaded," \
		"shared_buffers = $SHARED_BUFFERS, full_page_writes = on, fsync = off, pgbench -M prepared, one client, batch built in the server"
	echo "- the index: $SIZE keys, capacity $((2 * SIZE)), $pages pages; wall time $(($(date +%s) - t_start)) s"
	echo
	awk -v b="$BATCHES" -v m="$BETWEEN" '
	{ v[$1, $2] = $3 }
	END {
		print "| wal_compression | first " b " batches after a CHECKPOINT: WAL kB, ms a batch | next " m ": WAL kB, ms | last " b ": WAL kB, ms |"
		print "|---|---|---|---|"
		split("off lz4", c, " ")
		for (k = 1; k <= 2; k++)
			printf "| %s | %.1f, %.3f | %.1f, %.3f | %.1f, %.3f |\n", c[k],
				v[c[k], "first_wal"] / 1024, v[c[k], "first_ms"], v[c[k], "between_wal"] / 1024, v[c[k], "between_ms"],
				v[c[k], "after_wal"] / 1024, v[c[k], "after_ms"]
	}' "$results"
} | tee "$scratch/results.md"
