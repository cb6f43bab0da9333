#!/usr/bin/env bash
# The bloomfilter index under concurrent writers: pgbench clients each
# running a crawler's test-and-add of 1,000 URLs into one batch log, with
# no row lock between them; throughput, latency, WAL, and a check that no
# element is lost (bench/README.md, "Index under concurrent writers").
#
#   bash bench/index_concurrency.sh     as root or a sudoer; prints a
#                                       markdown table, also kept in
#                                       bench/results/index_concurrency_latest.txt
#
#   BENCH_CONC_SIZE=1000000           prefilled keys (and the index's capacity)
#   BENCH_CONC_CLIENTS="1 2 4 8"      pgbench client counts
#   BENCH_CONC_SECONDS=20             each pgbench run
#   BENCH_CONC_PRELOAD=1              shared_preload_libraries = 'bloomfilter':
#                                     the index logs its adds with the module's
#                                     own WAL records (0: generic WAL, and no
#                                     separate generic run)
#   BENCH_CONC_INSTALL=0              skip building and installing bloomfilter
#   BENCH_CONC_KEEP=1                 keep the scratch dir (/tmp/bench-conc-*)
#   PG_CONFIG                         the PostgreSQL to build for and run
#                                     (pgbench from its bindir)
#
# Each run starts from the same state: seen_log dropped, prefilled with
# the keys 1,000 to a row and indexed (capacity = BENCH_CONC_SIZE, fpr =
# 0.01), vacuumed, checkpointed.  Every transaction is one statement,
#   INSERT INTO seen_log (urls) SELECT n FROM bloom_index_absent(
#     'seen_log_urls', <batch>) n WHERE cardinality(n) > 0
#   RETURNING cardinality(urls)
# with the batch built in the server from pgbench variables: 500 prefilled
# keys at random, 450 URLs no other transaction offers (client, run and a
# per-client counter in the URL), 50 URLs that every batch begun in the
# same 50 ms offers (the concurrent same-URL case).  The same batch alone
# (SELECT cardinality(<batch>)) is run with each client count too, so its
# cost can be subtracted.  Then, at the most clients: the index with
# bloomfilter.index_wal = 'generic', and the exact peer, a table
# seen (url text PRIMARY KEY) prefilled with the same keys and
# INSERT ... SELECT unnest(<batch>) ON CONFLICT DO NOTHING RETURNING url.
# After each index run, every URL in every row of seen_log must be found
# by bloom_index_contains, and pgbench must report no failed transaction;
# the script exits non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

SIZE=${BENCH_CONC_SIZE:-1000000}
CLIENTS=${BENCH_CONC_CLIENTS:-1 2 4 8}
SECONDS_RUN=${BENCH_CONC_SECONDS:-20}
PRELOAD=${BENCH_CONC_PRELOAD:-1}
SHARED_BUFFERS=1GB
RESULTS_FILE=bench/results/index_concurrency_latest.txt

if [ "${1:-}" != "--stage2" ]; then
	bench_pgbench_stage1 conc "concurrency benchmark" "$RESULTS_FILE" "${BENCH_CONC_KEEP:-0}" \
		"${BENCH_CONC_INSTALL:-1}" bench/index_concurrency.sh \
		SIZE="$SIZE" CLIENTS="$CLIENTS" SECONDS_RUN="$SECONDS_RUN" PRELOAD="$PRELOAD" SHARED_BUFFERS="$SHARED_BUFFERS"
fi

# ---- stage 2: unprivileged, in the scratch dir ----
scratch=$2
bench_stage2_cluster "$scratch" "$SHARED_BUFFERS" "$PRELOAD"
psql() { bench_psql "$@"; }
psql -c "CREATE EXTENSION bloomfilter"

# key(i) of index_bench.sh, 1,000 to a row
load_sql() {
	cat <<SQL
INSERT INTO seen_log (urls)
SELECT (SELECT array_agg('https://host' || (i % 100003) || '.example/page/' || i || '.html')
        FROM generate_series(g * 1000, least(g * 1000 + 999, $SIZE - 1)) i)
FROM generate_series(0::bigint, ($SIZE - 1) / 1000) g
SQL
}

# The batch, from pgbench's :seed (which prefilled keys), :client_id,
# :run and :ctr (a per-client counter, so no two transactions offer the
# same 450), and the statement's start time (50 ms slots: batches begun
# together offer the same 50)
batch="(SELECT array_agg(u) FROM (
  SELECT 'https://host' || (i % 100003) || '.example/page/' || i || '.html' AS u
  FROM (SELECT (hashint8extended(j, :seed) & 9223372036854775807) % $SIZE AS i
        FROM generate_series(1, 500) j) p
  UNION ALL
  SELECT 'https://c' || :client_id || '.r' || :run || '.example/' || :ctr || '/' || j || '.html'
  FROM generate_series(1, 450) j
  UNION ALL
  SELECT 'https://shared.example/r' || :run || '/' || s.t || '/' || j || '.html'
  FROM (SELECT floor(extract(epoch FROM statement_timestamp()) * 20)::bigint AS t) s,
       generate_series(1, 50) j) b)"
vars='\set seed random(0, 9223372036854775806)
\set ctr :ctr + 1'
cat >"$scratch/index.sql" <<SQL
$vars
INSERT INTO seen_log (urls) SELECT n FROM bloom_index_absent('seen_log_urls', $batch::text[]) n
WHERE cardinality(n) > 0 RETURNING cardinality(urls);
SQL
cat >"$scratch/build.sql" <<SQL
$vars
SELECT cardinality($batch::text[]);
SQL
cat >"$scratch/exact.sql" <<SQL
$vars
INSERT INTO seen SELECT unnest($batch::text[]) ON CONFLICT DO NOTHING RETURNING url;
SQL

prefill_index() {
	psql -c "DROP TABLE IF EXISTS seen_log" -c "CREATE TABLE seen_log (urls text[])" \
		-c "ALTER TABLE seen_log ALTER urls SET STORAGE EXTERNAL" \
		-c "$(load_sql)" \
		-c "CREATE INDEX seen_log_urls ON seen_log USING bloomfilter (urls) WITH (capacity = $SIZE, fpr = 0.01)" \
		-c "VACUUM ANALYZE seen_log" -c "CHECKPOINT"
}

results=$scratch/results.txt
: >"$results"
# one "run name value" line of the results
put() { echo "$run_name $1 $2" >>"$results"; }
run_no=0
status=0

# pgbench for SECONDS_RUN with $2 clients on script $1; puts tps,
# latency median and p95 (ms, from the per-transaction log), failed
# transactions and WAL bytes per transaction
bench() {
	local script=$1 clients=$2 out lsn wal tx
	run_no=$((run_no + 1))
	out=$scratch/pgbench.$run_no
	lsn=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	(cd "$scratch" && "$PG_BINDIR/pgbench" -n -M prepared -c "$clients" -j "$(((clients < $(nproc)) ? clients : $(nproc)))" \
		-T "$SECONDS_RUN" -D ctr=0 -D run="$run_no" -f "$script" -l --log-prefix="log$run_no" \
		-d postgres >"$out" 2>&1) || { log "pgbench failed: $(tail -5 "$out")"; status=1; }
	wal=$(psql -Atc "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn')")
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out")
	put tx "${tx:-0}"
	put tps "$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$out")"
	put failed "$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out")"
	put aborted "$(grep -c 'aborted' "$out" || true)"
	put wal_tx "$(awk -v w="$wal" -v t="${tx:-0}" 'BEGIN { printf "%.0f", (t > 0) ? w / t : 0 }')"
	# field 3 of a log line: the transaction's latency in microseconds
	cat "$scratch/log$run_no".* | awk '{ print $3 }' | sort -n | awk '
		{ x[NR] = $1 }
		END { printf "%.2f %.2f\n", x[int((NR + 1) / 2)] / 1000, x[int(NR * 0.95) + 1] / 1000 }' |
		{ read -r p50 p95; put p50 "$p50"; put p95 "$p95"; }
	grep -q '^number of failed transactions: 0 ' "$out" || { log "failed transactions in run $run_no: $(grep -i 'failed\|abort' "$out" | head -3)"; status=1; }
}

# every URL of every row answers "present"; duplicates: new URLs recorded
# in more than one row (two batches read before either committed)
check_index() {
	local lost
	lost=$(psql -Atc "SELECT count(*) FROM seen_log, unnest(urls) u WHERE NOT bloom_index_contains('seen_log_urls', u)")
	put lost "$lost"
	[ "$lost" = 0 ] || { log "$run_name: $lost URLs of seen_log not in the index"; status=1; }
	psql -At -F ' ' -c "SELECT count(*) FILTER (WHERE u LIKE 'https://c%'),
			count(*) FILTER (WHERE u LIKE 'https://shared.%'),
			count(DISTINCT u) FILTER (WHERE u LIKE 'https://shared.%')
		FROM seen_log, unnest(urls) u WHERE u NOT LIKE 'https://host%'" |
		{ read -r own shared shared_distinct; put own "$own"; put shared "$shared"; put shared_distinct "$shared_distinct"; }
	put stages "$(psql -Atc "SELECT bloom_index_info('seen_log_urls')->>'stages'")"
}

t_start=$(date +%s)
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ </proc/stat
max_clients=0
for c in $CLIENTS; do
	[ "$c" -gt "$max_clients" ] && max_clients=$c
	run_name=build_$c
	log "$c clients: the batch alone, ${SECONDS_RUN} s"
	bench build.sql "$c"
	run_name=index_$c
	log "$c clients: test-and-add, ${SECONDS_RUN} s"
	prefill_index
	bench index.sql "$c"
	check_index
done
if [ "$PRELOAD" = 1 ]; then
	run_name=generic_$max_clients
	log "$max_clients clients: test-and-add with bloomfilter.index_wal = 'generic'"
	psql -c "ALTER SYSTEM SET bloomfilter.index_wal = 'generic'" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
	[ "$(psql -Atc "SHOW bloomfilter.index_wal")" = generic ] || { log "bloomfilter.index_wal not generic"; exit 1; }
	prefill_index
	bench index.sql "$max_clients"
	check_index
	psql -c "ALTER SYSTEM RESET bloomfilter.index_wal" -c "SELECT pg_reload_conf()" >/dev/null
fi
psql -c "DROP TABLE seen_log"
run_name=exact_$max_clients
log "$max_clients clients: the exact table, ON CONFLICT DO NOTHING"
psql -c "CREATE TABLE seen (url text PRIMARY KEY)" \
	-c "INSERT INTO seen SELECT 'https://host' || (i % 100003) || '.example/page/' || i || '.html' FROM generate_series(0::bigint, $SIZE - 1) i" \
	-c "VACUUM ANALYZE seen" -c "CHECKPOINT"
bench exact.sql "$max_clients"
psql -At -F ' ' -c "SELECT count(*) FILTER (WHERE url LIKE 'https://c%'), count(*) FILTER (WHERE url LIKE 'https://shared.%'),
		count(*) FILTER (WHERE url LIKE 'https://shared.%') FROM seen" |
	{ read -r own shared shared_distinct; put own "$own"; put shared "$shared"; put shared_distinct "$shared_distinct"; }
read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ </proc/stat
tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))

{
	echo "bloomfilter index, concurrent test-and-add, $(date -u '+%Y-%m-%d %H:%M UTC'):" \
		"BENCH_CONC_SIZE=$SIZE BENCH_CONC_CLIENTS=\"$CLIENTS\" BENCH_CONC_SECONDS=$SECONDS_RUN BENCH_CONC_PRELOAD=$PRELOAD"
	echo
	bench_machine_line
	echo "- PostgreSQL: $("$PG_BINDIR/postgres" --version | sed 's/^postgres (PostgreSQL) //'), bloomfilter" \
		"$(psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")," \
		"shared_buffers = $SHARED_BUFFERS, fsync = off, jit = off, max_parallel_workers_per_gather = 0, unix socket," \
		"pgbench -M prepared, batch built in the server"
	echo "- index WAL: $([ "$PRELOAD" = 1 ] && echo "the module's own records (preloaded), and generic WAL where the row says so" || echo "generic WAL (not preloaded)")"
	echo "- wall time $(($(date +%s) - t_start)) s; CPU steal $((100 * (st1 - st0) / (tot > 0 ? tot : 1)))%;" \
		"load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	awk -v secs="$SECONDS_RUN" '
	{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; runs[++nr] = $1 } }
	function row(r, what, c) {
		printf "| %s | %d | %.1f | %.0f | %.2f | %.2f | %.2f (%.2f) | %.1f | %d |\n", what, c,
			v[r, "tps"], v[r, "tps"] * 1000, v[r, "p50"], v[r, "p95"],
			v["build_" c, "p50"], v["build_" c, "p95"], v[r, "wal_tx"] / 1024, v[r, "failed"]
	}
	END {
		print "| statement | clients | batches/s | URLs tested/s | latency median, ms | p95, ms | batch alone: median (p95), ms | WAL a batch, kB | failed |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (k = 1; k <= nr; k++) {
			r = runs[k]; split(r, p, "_")
			if (p[1] == "index") row(r, "index, own WAL records", p[2])
			else if (p[1] == "generic") row(r, "index, generic WAL", p[2])
			else if (p[1] == "exact") row(r, "exact table, ON CONFLICT DO NOTHING", p[2])
		}
		print ""
		print "Each batch: 1,000 URLs, 500 prefilled, 450 new to that batch alone, 50 shared by the batches begun in the same 50 ms."
		print "Latency: pgbench per-transaction log. Batch alone: SELECT cardinality(<batch>) with as many clients. WAL: insert LSN difference / batches."
		print ""
		print "Checks:"
		print ""
		print "| statement | clients | batches | own new URLs recorded / offered | shared URLs recorded (distinct) | index misses (lost) | index stages after |"
		print "|---|---|---|---|---|---|---|"
		for (k = 1; k <= nr; k++) {
			r = runs[k]; split(r, p, "_")
			if (p[1] == "build") continue
			printf "| %s | %s | %d | %d / %d | %d (%d) | %s | %s |\n", p[1], p[2], v[r, "tx"], v[r, "own"], 450 * v[r, "tx"],
				v[r, "shared"], v[r, "shared_distinct"], p[1] == "exact" ? "-" : v[r, "lost"], p[1] == "exact" ? "-" : v[r, "stages"]
		}
	}' "$results"
} | tee "$scratch/results.md"
exit $status
