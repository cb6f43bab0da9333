#!/usr/bin/env bash
# A billion keys actually loaded (bench/README.md, "A billion keys"): 1e9
# distinct keys into one bloomfilter index of capacity 1e9 at 1%, through
# a log of hashes (bigint[] rows of 10,000 bloom_hash values,
# bloomfilter_hash_array_ops), the module preloaded; RedisBloom beside it
# holding the same number of keys.
#
#   bash bench/index_billion.sh       as root or a sudoer; prints a markdown
#                                     report, also kept in
#                                     bench/results/index_billion_latest.txt,
#                                     with its data in
#                                     bench/results/index_billion.dat and a
#                                     plot in bench/index_billion.png
#
#   BENCH_BILLION_KEYS=1000000000     keys loaded, and the index's capacity
#   BENCH_BILLION_STEP=100000000      keys between two reports of the fill
#   BENCH_BILLION_TXN=10000000        keys a transaction of the load
#   BENCH_BILLION_STEP_PROBES=1000000 never-added keys probed after each step
#   BENCH_BILLION_FP_PROBES=10000000  never-added keys probed at full fill
#   BENCH_BILLION_BATCHES=1000        batches of 1,000 timed a measure
#   BENCH_BILLION_SHARED_BUFFERS=4GB  the index inside shared buffers
#   BENCH_BILLION_SMALL_BUFFERS=512MB the index larger than shared buffers
#   BENCH_BILLION_REDIS=1             0: no RedisBloom side
#   BENCH_BILLION_HUGE_PAGES=1        huge_pages = on, vm.nr_hugepages raised
#                                     for the run (and put back); the
#                                     results' names get _huge
#   BENCH_BILLION_INSTALL=0           skip building and installing bloomfilter
#   BENCH_BILLION_KEEP=1              keep the scratch dir (/tmp/bench-billion-*)
#
# The key i (0 <= i < KEYS) is logged as bloom_hash(i::bigint); never-added
# keys are taken from 4 * KEYS on.  A step loads STEP keys, a transaction
# of TXN keys at a time (INSERT ... SELECT of rows of 10,000 hashes made
# in the server), timed; then STEP_PROBES never-added keys are probed
# (bloom_index_contains of bigint[] arrays of 10,000), and the WAL of the
# step is measured (pg_current_wal_insert_lsn), split between the index
# and the log by pg_walinspect's per-resource-manager sizes of the step's
# last transaction (the index's adds are the module's own records).  At
# full fill: false negatives over 1M added keys, the false-positive rate
# over FP_PROBES never-added keys, and pgbench (-M prepared, one client,
# each transaction the next batch, every batch a different one) timing a
# probe of 1,000 hashes (500 added, 500 never added) and the test-and-add
# of 1,000 (500 added, 500 new: bloom_index_absent and the INSERT of the
# new ones as a row of the log, committed), first with shared_buffers =
# SMALL_BUFFERS (the 1.4 GB index larger than it: pages come from the
# kernel's page cache), then with SHARED_BUFFERS and the index
# prewarmed.  Each measure runs 2 * BATCHES batches on one connection,
# each half timed apart: a new connection's first batches (its backend
# maps shared memory and finds the index's buffers as it goes) and the
# next, as a long-lived client's run; a test-and-add's WAL (and its
# full-page images, most pages' first change after the restart's
# checkpoint) from pg_walinspect, split at the same batch.  The batches
# are read from a table by their number; the batch's read alone is timed
# too.  RedisBloom: bench/index_bench.c billion-redis (the same steps,
# probes and batches, integer keys as decimal strings).  The data dirs
# are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
. bench/lib.sh

KEYS=${BENCH_BILLION_KEYS:-1000000000}
STEP=${BENCH_BILLION_STEP:-100000000}
TXN=${BENCH_BILLION_TXN:-10000000}
STEP_PROBES=${BENCH_BILLION_STEP_PROBES:-1000000}
FP_PROBES=${BENCH_BILLION_FP_PROBES:-10000000}
BATCHES=${BENCH_BILLION_BATCHES:-1000}
SB_IN=${BENCH_BILLION_SHARED_BUFFERS:-4GB}
SB_OUT=${BENCH_BILLION_SMALL_BUFFERS:-512MB}
REDIS=${BENCH_BILLION_REDIS:-1}
ROW=10000
HUGE=${BENCH_BILLION_HUGE_PAGES:-0}
suffix=
[ "$HUGE" != 1 ] || suffix=_huge
RESULTS_FILE=bench/results/index_billion${suffix}_latest.txt
DAT_FILE=bench/results/index_billion$suffix.dat
PNG_FILE=bench/index_billion$suffix.png

if [ $((KEYS % STEP)) -ne 0 ] || [ $((STEP % TXN)) -ne 0 ] || [ $((TXN % ROW)) -ne 0 ]; then
	echo "BENCH_BILLION_KEYS must be a multiple of _STEP, _STEP of _TXN, _TXN of $ROW" >&2
	exit 2
fi

if [ "${1:-}" != "--stage2" ]; then
	EXTRA_DEPS="redis-server libhiredis-dev libpq-dev gnuplot-nox" ensure_deps
	# the log (about 8.3 bytes a key), the index (1.5), and WAL up to
	# max_wal_size (8 GB) and wal_keep_size (2 GB) besides: refuse to start
	# where that would leave less than 10 GB free
	need_kb=$(((KEYS / 1024) * 10 + 10 * 1024 * 1024 + 10 * 1024 * 1024))
	avail_kb=$(df -Pk /tmp | awk 'NR == 2 { print $4 }')
	if [ "$avail_kb" -lt "$need_kb" ]; then
		log "about $((need_kb / 1048576)) GB of free disk needed under /tmp, $((avail_kb / 1048576)) GB there"
		exit 1
	fi
	if [ "${BENCH_BILLION_INSTALL:-1}" = 1 ]; then
		nice -n 10 env WERROR=-Werror bash -c '. tools/lib.sh; build_and_install'
	fi
	build_redisbloom
	scratch=$(bench_scratch billion)
	nice -n 10 gcc -O2 -std=gnu11 -Wall -Wextra -I"$("$PG_CONFIG" --includedir)" \
		-o "$scratch/index_bench" bench/index_bench.c -lhiredis -lpq -lxxhash
	cp "$RB_CACHE/redisbloom-$RB_VERSION.so" "$scratch/redisbloom.so"
	cp bench/index_billion.gp "$scratch/"
	[ "$(id -u)" != 0 ] || chown -R "$TEST_USER" "$scratch"
	log "billion-key benchmark in $scratch"
	status=0
	[ "$HUGE" != 1 ] || hugepages_before=$(bench_hugepages "$SB_IN")
	as_user env KEYS="$KEYS" STEP="$STEP" TXN="$TXN" STEP_PROBES="$STEP_PROBES" FP_PROBES="$FP_PROBES" \
		BATCHES="$BATCHES" SB_IN="$SB_IN" SB_OUT="$SB_OUT" REDIS="$REDIS" HUGE="$HUGE" \
		bash "$PWD/bench/index_billion.sh" --stage2 "$scratch" || status=$?
	[ "$HUGE" != 1 ] || bench_hugepages_restore "$hugepages_before"
	if [ "$status" -eq 0 ]; then
		cp "$scratch/index_billion.dat" "$DAT_FILE"
		cp "$scratch/index_billion.png" "$PNG_FILE"
		log "plot in $PNG_FILE"
	fi
	bench_finish "$scratch" $status "$RESULTS_FILE" "${BENCH_BILLION_KEEP:-0}"
fi

# ---- stage 2: unprivileged, in the scratch dir ----
scratch=$2
ensure_deps >/dev/null
REDIS_SOCK=$scratch/redis.sock
cd "$scratch"
stop_all() {
	bench_redis_stop "$scratch"
	stop_cluster
	# the data, tens of GB at a billion: the report is all that is kept
	rm -rf "$scratch/pgdata" "$scratch/redis"
}
trap stop_all EXIT
psql() { bench_psql "$@"; }
secs() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
results=$scratch/results.txt
: >"$results"
put() { echo "$1 $2" >>"$results"; }
t_start=$(date +%s)
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ </proc/stat
put load_start "$(cut -d' ' -f1-3 /proc/loadavg)"

start_cluster "$scratch"
bench_server_settings "$SB_IN" 1
[ "$HUGE" != 1 ] || psql -c "ALTER SYSTEM SET huge_pages = on"
# WAL kept within bounds on disk; the last 2 GB kept for pg_walinspect
psql -c "ALTER SYSTEM SET max_wal_size = '8GB'" -c "ALTER SYSTEM SET wal_keep_size = '2GB'"
"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
psql -c "CREATE EXTENSION bloomfilter" -c "CREATE EXTENSION pg_prewarm" -c "CREATE EXTENSION pg_walinspect"
# rows of 10,000 hashes go to TOAST uncompressed (random hashes do not
# compress); a test-and-add's row of about 500 stays inline
psql <<SQL
CREATE TABLE log (hs bigint[]) WITH (toast_tuple_target = 8160);
ALTER TABLE log ALTER hs SET STORAGE EXTERNAL;
CREATE INDEX log_f ON log USING bloomfilter (hs bloomfilter_hash_array_ops)
	WITH (capacity = $KEYS, fpr = 0.01);
SQL

# the never-added keys: probes across the fill, then the batches, then the final probes
never=$((4 * KEYS))
# false positives among n never-added keys from first on, 10,000 a call
false_positives() {
	psql -Atc "SELECT coalesce(sum(cardinality(array_positions(bloom_index_contains('log_f',
		(SELECT array_agg(bloom_hash(i)) FROM generate_series(g, least(g + 9999, $1 + $2 - 1)) i)), true))), 0)
		FROM generate_series($1::bigint, $1 + $2 - 1, 10000) g"
}
log_bytes() { psql -Atc "SELECT pg_total_relation_size('log') - pg_relation_size('log_f')"; }

log "PostgreSQL: $KEYS keys, $((KEYS / STEP)) steps of $STEP, $TXN a transaction"
for ((done = 0; done < KEYS; done += STEP)); do
	t0=$(secs)
	lsn0=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	for ((k = done; k < done + STEP; k += TXN)); do
		[ $((k + TXN)) -lt $((done + STEP)) ] || l0=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
		psql -c "INSERT INTO log (hs)
			SELECT (SELECT array_agg(bloom_hash(i)) FROM generate_series(g * $ROW, g * $ROW + $ROW - 1) i)
			FROM generate_series($((k / ROW))::bigint, $(((k + TXN) / ROW - 1))) g"
	done
	t1=$(secs)
	lsn1=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	# the index's share of the step's WAL: that of its last transaction
	share=$(psql -Atc "SELECT coalesce(sum(combined_size) FILTER (WHERE \"resource_manager/record_type\" = 'bloomfilter'), 0)
		/ greatest(sum(combined_size), 1)::float8
		FROM pg_get_wal_stats('$l0', least('$lsn1'::pg_lsn, pg_current_wal_flush_lsn()))")
	wal=$(psql -Atc "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')")
	fp=$(false_positives "$never" "$STEP_PROBES")
	never=$((never + STEP_PROBES))
	held=$((done + STEP))
	echo "step $held $(elapsed "$t0" "$t1") $wal $share $fp $STEP_PROBES $(psql -Atc "SELECT pg_relation_size('log_f')") $(log_bytes) $(df -Pk "$scratch" | awk 'NR == 2 { print $4 }')" >>"$results"
	log "  $held keys: $(elapsed "$t0" "$t1") s, $fp false positives of $STEP_PROBES"
done
put pg_index_bytes "$(psql -Atc "SELECT pg_relation_size('log_f')")"
put pg_log_bytes "$(log_bytes)"
put pg_log_heap_bytes "$(psql -Atc "SELECT pg_relation_size('log')")"
put pg_stages "$(psql -Atc "SELECT bloom_index_info('log_f')->>'stages'")"
put pg_fpr_estimate "$(psql -Atc "SELECT bloom_index_info('log_f')->>'fpr_estimate'")"

log "PostgreSQL: false negatives over 1M added keys, false positives over $FP_PROBES never-added keys"
put pg_fn "$(psql -Atc "SELECT count(*) FROM unnest(bloom_index_contains('log_f',
	(SELECT array_agg(bloom_hash((hashint8extended(j, 48) & 9223372036854775807) % $KEYS)) FROM generate_series(1, 1000000) j))) p WHERE NOT p")"
t0=$(secs)
put pg_fp "$(false_positives "$never" "$FP_PROBES")"
put pg_fp_probe_s "$(elapsed "$t0" "$(secs)")"
put pg_fp_probes "$FP_PROBES"
never=$((never + FP_PROBES))

# the timed batches, 1,000 hashes each, numbered from 1, 2 * BATCHES a
# measure: 500 added keys at random, 500 never-added ones (probes) or new
# ones (test-and-add)
psql <<SQL
CREATE TABLE batches (name text, i int, hs bigint[], PRIMARY KEY (name, i)) WITH (toast_tuple_target = 8160);
INSERT INTO batches
SELECT s.name, b, (SELECT array_agg(bloom_hash(CASE WHEN j % 2 = 1
		THEN (hashint8extended(s.n * 100000000 + b * 1000 + j, 48) & 9223372036854775807) % $KEYS
		ELSE $never + (s.n * 2 * $BATCHES + b) * 500 + j / 2 END) ORDER BY j)
	FROM generate_series(0, 999) j)
FROM (VALUES ('probe_out', 0), ('tna_out', 1), ('probe_in', 2), ('tna_in', 3)) s(name, n),
	generate_series(1, 2 * $BATCHES) b;
VACUUM ANALYZE batches;
CREATE TABLE marks (name text, lsn pg_lsn);
SQL
cat >alone.sql <<'SQL'
\set i :i + 1
SELECT cardinality(hs) FROM batches WHERE name = :batches AND i = :i;
SQL
cat >probe.sql <<'SQL'
\set i :i + 1
SELECT cardinality(array_positions(bloom_index_contains('log_f', hs), true)) FROM batches WHERE name = :batches AND i = :i;
SQL
# the WAL position as the second half begins, kept to split the WAL
cat >tna.sql <<'SQL'
\set i :i + 1
\if :i = :half + 1
INSERT INTO marks VALUES (:batches, pg_current_wal_insert_lsn());
\endif
INSERT INTO log (hs) SELECT n FROM bloom_index_absent('log_f', (SELECT hs FROM batches WHERE name = :batches AND i = :i)) n
WHERE cardinality(n) > 0;
SQL
# pgbench NAME SCRIPT SET: 2 * BATCHES transactions on one connection,
# the next batch each; median, p95 and mean latency of each half from its
# per-transaction log: NAME, a new connection's first BATCHES batches
# (its backend maps each page of shared memory it touches, and finds each
# index page's buffer, for the first time), and NAME_warm, the BATCHES
# after them, as a long-lived client's connection runs
bench() {
	local name=$1
	rm -f pgbench_log.*
	# the kernel writes back what earlier steps left dirty (the load's
	# log, a checkpoint, a test-and-add's WAL; fsync is off) about 30 s
	# later, on these two cores: flushed first, not in the middle of a run
	sync
	"$PG_BINDIR/pgbench" -n -M prepared -c 1 -t $((2 * BATCHES)) -D i=0 -D half="$BATCHES" -D batches="$3" \
		-f "$2" -l postgres >"pgbench_$name.out" 2>&1 ||
		{ cat "pgbench_$name.out" >&2; return 1; }
	for h in 0 1; do
		awk -v h="$h" -v b="$BATCHES" 'NR > h * b && NR <= (h + 1) * b { print $3 / 1000 }' pgbench_log.* | sort -n |
			awk -v name="$name$([ "$h" = 0 ] || echo _warm)" '
			{ v[NR] = $1; s += $1 }
			END { printf "%s_ms_median %.3f\n%s_ms_p95 %.3f\n%s_ms_mean %.3f\n", name, v[int(NR / 2) + 1],
				name, v[int(NR * 0.95)], name, s / NR }' >>"$results"
	done
}
# the new half of every test-and-add batch went in (up to false positives)
new_in_log() { psql -Atc "SELECT coalesce(sum(cardinality(hs)), 0) FROM log WHERE cardinality(hs) < $ROW"; }
# put_wal NAME FROM TO: NAME_wal and NAME_fpi, the WAL between the two
# positions and the full-page images in it, from pg_walinspect
put_wal() {
	psql -Atc "SELECT '$1_wal ' || sum(combined_size) || E'\n$1_fpi ' || sum(fpi_size)
		FROM pg_get_wal_stats('$2', least('$3'::pg_lsn, pg_current_wal_flush_lsn()))" >>"$results"
}
# bench_wal NAME SCRIPT SET: bench, and the WAL of each half's batches
bench_wal() {
	local lsn0 lsn1 mid
	lsn0=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	bench "$@"
	lsn1=$(psql -Atc "SELECT pg_current_wal_insert_lsn()")
	mid=$(psql -Atc "SELECT lsn FROM marks WHERE name = '$3'")
	put_wal "$1" "$lsn0" "$mid"
	put_wal "$1_warm" "$mid" "$lsn1"
}

log "PostgreSQL: batches with shared_buffers = $SB_OUT (the index larger than it)"
psql -c "ALTER SYSTEM SET shared_buffers = '$SB_OUT'"
"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
bench alone_out alone.sql probe_out
bench probe_out probe.sql probe_out
bench_wal tna_out tna.sql tna_out
put tna_out_new "$(new_in_log)"

log "PostgreSQL: batches with shared_buffers = $SB_IN, the index prewarmed"
psql -c "ALTER SYSTEM SET shared_buffers = '$SB_IN'"
"$PG_BINDIR/pg_ctl" -D "$PGDATA" -l "$scratch/server.log" -w restart >/dev/null
psql -Atc "SELECT pg_prewarm('log_f'), pg_prewarm('batches')" >/dev/null
bench alone_in alone.sql probe_in
bench probe_in probe.sql probe_in
# the restart's checkpoint makes the first change to each page log the
# whole page (full_page_writes = on, the default): the first batches
# after a checkpoint write most of the index again, the next ones little
bench_wal tna_in tna.sql tna_in
put tna_new "$(new_in_log)"
put pg_index_bytes_after "$(psql -Atc "SELECT pg_relation_size('log_f')")"
put pg_stages_after "$(psql -Atc "SELECT bloom_index_info('log_f')->>'stages'")"
put pg_version "$("$PG_BINDIR/postgres" --version | sed 's/^postgres (PostgreSQL) //')"
put pg_extversion "$(psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")"
put pg_wal_mode "$(psql -Atc "SELECT CASE WHEN current_setting('bloomfilter.wal_rmgr_id', true) IS NOT NULL AND current_setting('bloomfilter.index_wal') = 'auto' THEN 'own' ELSE 'generic' END")"
stop_cluster
# the cluster's data, before RedisBloom needs the memory and the report the disk
rm -rf "$scratch/pgdata"

if [ "$REDIS" = 1 ]; then
	log "RedisBloom: $KEYS keys"
	mkdir -p "$scratch/redis"
	bench_redis_start "$scratch" "$scratch/redis"
	"$scratch/index_bench" billion-redis "$REDIS_SOCK" "$KEYS" "$STEP" "$STEP_PROBES" "$BATCHES" "$FP_PROBES" |
		sed 's/^step /redis_step /' >>"$results"
	put redis_used_memory "$(redis-cli -s "$REDIS_SOCK" INFO memory | awk -F: '/^used_memory:/ { print $2 + 0 }')"
	put redis_version "$(redis-server --version | awk '{print $3}' | sed 's/^v=//')"
	bench_redis_stop "$scratch"
fi
read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ </proc/stat
tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))

# the plot's data: keys held (millions), each side's load rate and measured rate (%)
awk '$1 == "step" { pg[$2] = sprintf("%.0f %.4f", ($2 - prev) / $3, 100 * $6 / $7); prev = $2; keys[++n] = $2 }
	$1 == "redis_step" { rd[$2] = sprintf("%.0f %.4f", ($2 - rprev) / $3, 100 * $4 / $5); rprev = $2 }
	END { print "# keys_millions pg_keys_per_s pg_fpr_percent redis_keys_per_s redis_fpr_percent"
		for (k = 1; k <= n; k++) printf "%g %s %s\n", keys[k] / 1e6, pg[keys[k]], (keys[k] in rd) ? rd[keys[k]] : "NaN NaN" }' \
	"$results" >index_billion.dat
# the keys as the title says them: 1e9, 2e7
keys_e=$(awk -v k="$KEYS" 'BEGIN { e = int(log(k) / log(10) + 1e-9); m = k / 10 ^ e
	if (m == 1) printf "1e%d", e; else printf "%ge%d", m, e }')
gnuplot -e "datafile='index_billion.dat'; outfile='index_billion.png'; keys='$keys_e'" index_billion.gp

{
	echo "bloomfilter index with a billion keys, $(date -u '+%Y-%m-%d %H:%M UTC'):" \
		"BENCH_BILLION_KEYS=$KEYS BENCH_BILLION_STEP=$STEP BENCH_BILLION_TXN=$TXN BENCH_BILLION_BATCHES=$BATCHES" \
		"BENCH_BILLION_SHARED_BUFFERS=$SB_IN BENCH_BILLION_SMALL_BUFFERS=$SB_OUT BENCH_BILLION_HUGE_PAGES=$HUGE"
	echo
	bench_machine_line
	awk '$1 == "pg_version" { v = $2 " " $3 " " $4 } $1 == "pg_extversion" { e = $2 } $1 == "pg_wal_mode" { w = $2 }
		END { printf "- PostgreSQL: %s, bloomfilter %s, preloaded (the index WAL: %s records), fsync = off, max_wal_size = 8GB, one client (psql, pgbench -M prepared) on a unix socket\n", v, e, w == "own" ? "the module'"'"'s own" : "generic" }' "$results"
	[ "$REDIS" = 1 ] && echo "- Redis: $(awk '$1 == "redis_version" { print $2 }' "$results"), RedisBloom $RB_VERSION (gcc -O3), no persistence, unix socket, hiredis"
	echo "- wall time $(($(date +%s) - t_start)) s; CPU steal $((100 * (st1 - st0) / (tot > 0 ? tot : 1)))%;" \
		"load at the start: $(awk '$1 == "load_start" { print $2, $3, $4 }' "$results"), at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	awk -v keys="$KEYS" -v fp_probes="$FP_PROBES" -v batches="$BATCHES" -v sb_in="$SB_IN" -v sb_out="$SB_OUT" '
	{ v[$1] = $2 }
	$1 == "step" { s[++n] = $0 }
	$1 == "redis_step" { r[$2] = $0 }
	function mb(b) { return sprintf("%.0f", b / 1048576) }
	END {
		print "Across the fill (each step: its load rate, its WAL split by pg_walinspect, the false-positive rate measured after it):"
		print ""
		print "| keys held | index: load, keys/s | WAL a key: index, log | index MB | log MB (bytes a key) | measured rate (never-added probes) | RedisBloom: load, keys/s | measured rate | Redis MB |"
		print "|---|---|---|---|---|---|---|---|---|"
		prev = 0
		for (k = 1; k <= n; k++) {
			split(s[k], f, " ")
			held = f[2]; sk = held - prev; prev = held
			wal = f[4] / sk
			rl = "-"; rr = "-"; rb = "-"
			if (held in r) {
				split(r[held], g, " ")
				rl = sprintf("%.0f", sk / g[3]); rr = sprintf("%.3f%% (%d of %d)", 100 * g[4] / g[5], g[4], g[5]); rb = mb(g[6])
			}
			printf "| %dM | %.0f | %.1f, %.1f | %s | %s (%.1f) | %.3f%% (%d of %d) | %s | %s | %s |\n",
				held / 1e6, sk / f[3], wal * f[5], wal * (1 - f[5]), mb(f[8]), mb(f[9]), f[9] / held,
				100 * f[6] / f[7], f[6], f[7], rl, rr, rb
			pg_s += f[3]; pg_wal += f[4]; pg_iwal += f[4] * f[5]
			if (held in r) rd_s += g[3]
		}
		print ""
		print "At full fill:"
		print ""
		print "| measure | bloomfilter index | RedisBloom |"
		print "|---|---|---|"
		# (parenthesized: a bare > among printf arguments redirects its output)
		printf "| load of %d keys, s (keys/s) | %.0f (%.0f) | %s |\n", keys, pg_s, keys / pg_s,
			(rd_s > 0 ? sprintf("%.0f (%.0f)", rd_s, keys / rd_s) : "-")
		printf "| false positives over %d never-added keys (target 1%%) | %.3f%% (%d; bloom_index_info estimate %.3f%%) | %s |\n",
			fp_probes, 100 * v["pg_fp"] / v["pg_fp_probes"], v["pg_fp"], 100 * v["pg_fpr_estimate"],
			("redis_fp" in v) ? sprintf("%.3f%% (%d)", 100 * v["redis_fp"] / v["redis_fp_probes"], v["redis_fp"]) : "-"
		printf "| false negatives over 1M added keys | %d | - |\n", v["pg_fn"]
		printf "| filter size, MB (stages) | %s (%d) | %s (%d; used_memory %s) |\n", mb(v["pg_index_bytes"]), v["pg_stages"],
			("redis_bytes" in v) ? mb(v["redis_bytes"]) : "-", v["redis_stages"], ("redis_used_memory" in v) ? mb(v["redis_used_memory"]) : "-"
		printf "| disk a key: index, log (heap + TOAST) | %.2f, %.2f bytes | (memory only) |\n",
			v["pg_index_bytes"] / keys, v["pg_log_bytes"] / keys
		printf "| WAL a key over the load: index, log | %.1f, %.1f bytes | - |\n", pg_iwal / keys, (pg_wal - pg_iwal) / keys
		print ""
		printf "Batches of 1,000 at full fill, ms a batch: median (p95, mean) over %d batches, every batch a different one, one at a time at the client (pgbench -M prepared; hiredis):\n", batches
		print ""
		printf "| batch | index: a new connection'"'"'s first %d | the same connection'"'"'s next %d | WAL a batch, kB (of it full-page images): first, next | RedisBloom |\n", batches, batches
		print "|---|---|---|---|---|"
		row("probe of 1,000 (500 added, 500 never added), index larger than shared_buffers = " sb_out, "probe_out", "")
		row("test-and-add of 1,000 (500 new), committed, index larger than shared_buffers", "tna_out", "")
		row("probe of 1,000, index inside shared_buffers = " sb_in, "probe_in", "redis_probe")
		row("test-and-add of 1,000, committed, index inside shared_buffers (the first batches after a checkpoint)", "tna_in", "redis_tna")
		row("reading the batch alone (pgbench baseline), small buffers", "alone_out", "")
		row("reading the batch alone (pgbench baseline), index inside", "alone_in", "")
		print ""
		printf "PostgreSQL'"'"'s include reading the batch from a table by its number (the baseline rows); RedisBloom'"'"'s get the keys from the client.\n"
		printf "A new connection'"'"'s backend maps each page of shared memory, and looks up each index page'"'"'s buffer, the first time it touches it.\n"
		printf "With full_page_writes = on (the default), the first change to a page after a checkpoint (here: the restart'"'"'s) logs the page whole.\n"
		printf "New keys recorded by test-and-add: %d of %d (small buffers), %d of %d (inside); the rest read as false positives.\n",
			v["tna_out_new"], 1000 * batches, v["tna_new"] - v["tna_out_new"], 1000 * batches
	}
	function lat(p) {
		return sprintf("%.3f (%.3f, %.3f)", v[p "_ms_median"], v[p "_ms_p95"], v[p "_ms_mean"])
	}
	function row(what, p, q) {
		printf "| %s | %s | %s | %s | %s |\n", what, lat(p), lat(p "_warm"),
			((p "_wal") in v) ? sprintf("%.1f (%.1f), %.1f (%.1f)", v[p "_wal"] / batches / 1024, v[p "_fpi"] / batches / 1024,
				v[p "_warm_wal"] / batches / 1024, v[p "_warm_fpi"] / batches / 1024) : "-",
			(q != "" && (q "_ms_median") in v) ? lat(q) : "-"
	}' "$results"
	echo
	echo "Plot: $PNG_FILE (data: $DAT_FILE)."
} | tee "$scratch/results.md"
